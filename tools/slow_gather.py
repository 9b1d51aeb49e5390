"""The input path on N processes: a cache gather slowed by --delay ms a batch, hidden behind the step or added to it.

    python -m segdist_nb.launch --cpus 2 tools/slow_gather.py [DATA] [--delay 50] [--prefetch 2]
    python tools/slow_gather.py [DATA] ...     # one process, for comparison

The learner (SMP's U-Net on resnet18, fp32, 64 px, batch 8 per process) trains from the decode-once cache inside
`learn.distrib_ctx()`, as the seed's script does; each gather from the cache sleeps --delay ms first, standing for a
slow gather (large images, a busy disk). With the loader's thread (`--prefetch 2`, the default with a cache) the
gather runs while the step does; with `--prefetch 0` it runs in the training loop, as fastai's `DistributedDL` runs it.
Rank 0 prints the median time between training batches of the second epoch, with the delay and without, side by side
in the same processes. DATA defaults to a synthetic set made in a temporary folder.
"""
import argparse, json, os, statistics, tempfile, time
from pathlib import Path
from fastai.vision.all import Callback, set_seed
from segdist_nb.synthetic import synthetic_once
from segdist_nb.dls import CacheDL, seg_dls
from segdist_nb.model import seg_learner
from segdist_nb.distributed import setup_rank

class BatchGaps(Callback):
    "Seconds between the ends of training batches, per epoch"
    order = 100
    def before_fit(self): self.epochs = []
    def before_epoch(self): self.t, self.gaps = None, []
    def after_batch(self):
        if not self.training: return
        t = time.perf_counter()
        if self.t is not None: self.gaps.append(t - self.t)
        self.t = t
    def after_train(self): self.epochs.append(self.gaps)

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('data', nargs='?'); p.add_argument('--delay', type=float, default=50, help='ms added to each gather (default 50)')
    p.add_argument('--prefetch', type=int, default=2, help="batches the loader's thread makes ahead (0: none, the gather in the loop)")
    a = p.parse_args()
    rank = setup_rank(seed=0, threads=1)
    data = a.data or synthetic_once(Path(tempfile.gettempdir())/'segdist_slow_gather', n=200, size=64)
    gather, res = CacheDL._gather, {}
    for delay in (0., a.delay):
        def slow(self, b, rng, _d=delay): time.sleep(_d / 1000); return gather(self, b, rng)
        CacheDL._gather = slow
        set_seed(0)
        dls = seg_dls(data, sz=64, bs=8, cache=True, prefetch=a.prefetch, check=False)
        learn = seg_learner(dls, 'resnet18', decoder='unet', pretrained=False, precision='fp32', cbs=BatchGaps())
        with learn.no_bar(), learn.no_logging(), learn.distrib_ctx(): learn.fit(2, 1e-3)
        res[delay] = 1000 * statistics.median(learn.batch_gaps.epochs[-1])
    CacheDL._gather = gather
    if rank == 0:
        print(json.dumps(dict(processes=int(os.environ.get('WORLD_SIZE', 1)), prefetch=a.prefetch, delay_ms=a.delay,
                              ms_per_batch=res[0.], ms_per_batch_delayed=res[a.delay], added_ms=res[a.delay] - res[0.])))

if __name__ == '__main__': main()
