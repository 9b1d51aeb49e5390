"""The learner against a plain PyTorch loop on the same model, op by op, in this process (torch's profiler).

    python tools/learner_vs_plain.py [--arch resnet34] [--decoder unet] [--steps 25] [--sz 64] [--bs 8]

Both train the same model (`seg_learner`'s, one torch thread) on a synthetic set: the learner fed from memory with the
loaders' batch transforms (`segdist_nb.scaling.mem_dls`, the benchmark's in-memory row), the plain loop on batches made
once (`plain_steps`, the benchmark's plain row). It prints each one's time per step and the ops whose CPU time differs
most between them, per step: where a gap between the two rows of `segdist-bench` comes from, if it is not noise.
"""
import argparse, shutil, tempfile
from pathlib import Path
import torch
from torch.profiler import profile, ProfilerActivity
from segdist_nb.all import *
from segdist_nb.measure import StepTimer, plain_steps
from segdist_nb.scaling import plain_batches, mem_dls

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument('--arch', default='resnet34'); p.add_argument('--decoder', default='unet')
p.add_argument('--steps', type=int, default=25); p.add_argument('--sz', type=int, default=64); p.add_argument('--bs', type=int, default=8)
p.add_argument('--top', type=int, default=15, help='ops shown')
a = p.parse_args()
torch.set_num_threads(1)
tmp = Path(tempfile.mkdtemp())
dls = seg_dls(synthetic_once(tmp/'synth', n=40 * a.bs, size=a.sz), sz=a.sz, bs=a.bs, check=False, cache=tmp/'cache')
def learner(): set_seed(0); return seg_learner(dls, a.arch, precision='fp32', pretrained=False, decoder=a.decoder)
n, batches = a.steps, plain_batches(dls, 32)

def fit(l, k):
    tm = StepTimer([1, k])
    with l.no_bar(), l.no_logging(): l.fit(1, 1e-3, cbs=[tm])
    return tm.times
l = learner(); l.dls = mem_dls(dls, 32)
fit(l, 5)   # warm up
with profile(activities=[ProfilerActivity.CPU]) as p1: t = fit(l, n)
t1 = (t[1] - t[0]) / (n - 1)
m = learner().model
plain_steps(m, batches, [5])
with profile(activities=[ProfilerActivity.CPU]) as p2: t = plain_steps(m, batches, [1, n])
t2 = (t[1] - t[0]) / (n - 1)
print(f'{a.decoder} on {a.arch}, {a.sz} px, batch {a.bs}: learner {t1*1e3:.1f} ms per step, plain {t2*1e3:.1f} ms ({100*(t2/t1-1):+.1f}% learner rate vs plain)')
per_step = lambda pr: {e.key: (e.self_cpu_time_total / 1e3 / n, e.count / n) for e in pr.key_averages()}
x, y = per_step(p1), per_step(p2)
z = (0., 0.)
for k in sorted(set(x) | set(y), key=lambda k: -abs(x.get(k, z)[0] - y.get(k, z)[0]))[:a.top]:
    print(f'  {k[:48]:48s} learner {x.get(k, z)[0]:8.2f} ms ({x.get(k, z)[1]:5.0f} calls)   plain {y.get(k, z)[0]:8.2f} ms ({y.get(k, z)[1]:5.0f} calls)')
shutil.rmtree(tmp, ignore_errors=True)   # the synthetic set and its cache
