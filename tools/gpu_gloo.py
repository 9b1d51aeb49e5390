"""The GPU check's gloo step: train.py's recipe in 2 processes that share the one GPU over gloo, checked from inside.

    python -m torch.distributed.run --standalone --nproc-per-node 2 tools/gpu_gloo.py TRAIN.PY OPTIONS

A machine with one GPU cannot run nccl with two ranks (it refuses two ranks on one GPU), so the DDP code would never
run on CUDA there. Here each process makes the gloo group before the recipe does (accelerate then takes that group
instead of making an nccl one), `rank_device` puts both local ranks on GPU 0 (local rank % GPUs, as accelerate places
the model), and `train.py`'s own `main` runs with one more callback that records what each fit ran on. Each rank then
checks, for every fit: the group is gloo with 2 ranks, the model is DDP-wrapped on cuda:0 by `SegDistributedTrainer`
with its BatchNorm synchronised (with `--sync-bn`), the training batches come from a `SegDistributedDL` on cuda:0, and
with `--accum N` there are fewer optimizer steps than batches. A failed check ends the rank with a line naming it (exit
status 1), which stops the launch.
"""
import sys
import torch, torch.distributed as dist
from torch import nn
from fastai.callback.core import Callback
from segdist_nb.distributed import SegDistributedDL, SegDistributedTrainer, NoSyncAccumulation, AllReduceBatchNorm
from segdist_nb.train import main, config_from_args

class Probe(Callback):
    "What each fit ran on: group, model, loaders, BatchNorm, accumulation; batches and optimizer steps"
    order = SegDistributedTrainer.order + 1   # after the trainer wrapped the model and the loaders
    def __init__(self): self.fits = []
    def before_fit(self):
        m = self.learn.model
        self.cur = dict(backend=dist.get_backend(), world=dist.get_world_size(),
                        device=str(next(m.parameters()).device), ddp=isinstance(m, nn.parallel.DistributedDataParallel),
                        trainer=any(isinstance(c, SegDistributedTrainer) for c in self.learn.cbs),
                        sync_bn=sum(isinstance(o, (AllReduceBatchNorm, nn.SyncBatchNorm)) for o in m.modules()),
                        accum=[c.n for c in self.learn.cbs if isinstance(c, NoSyncAccumulation)],
                        loaders=set(), batch_device=set(), batches=0, steps=0)
        self.fits.append(self.cur)
    def before_batch(self):
        if not self.training: return
        self.cur['loaders'].add(type(self.learn.dl).__name__)
        self.cur['batch_device'].add(str(self.learn.xb[0].device))
        self.cur['batches'] += 1
    def after_step(self): self.cur['steps'] += 1

def failures(fits:list, sync_bn:bool, accum:int)->list:
    "Each check that a fit failed, in words"
    bad = []
    for i, f in enumerate(fits):
        want = dict(backend='gloo', world=2, device='cuda:0', ddp=True, trainer=True, loaders={'SegDistributedDL'},
                    batch_device={'cuda:0'}, accum=[accum] if accum > 1 else [])
        bad += [f'fit {i}: {k} {f[k]!r}, expected {v!r}' for k, v in want.items() if f[k] != v]
        if sync_bn and not f['sync_bn']: bad.append(f'fit {i}: no synchronised BatchNorm layer')
        if not f['batches'] or (accum > 1 and not 0 < f['steps'] < f['batches']):
            bad.append(f"fit {i}: {f['batches']} batches, {f['steps']} optimizer steps with --accum {accum}")
    return bad if fits else ['no fit ran']

if __name__ == '__main__':
    if not torch.cuda.is_available(): sys.exit('gpu_gloo: no CUDA device here: this step is for a GPU machine')
    cfg = config_from_args(sys.argv[1:])[0]
    dist.init_process_group('gloo')   # before the recipe: accelerate takes it (nccl refuses two ranks on one GPU)
    rank, probe = dist.get_rank(), Probe()
    main(sys.argv[1:], cbs=[probe])
    bad = failures(probe.fits, cfg['sync_bn'], cfg['accum'])
    for b in bad: print(f'gpu_gloo: rank {rank}: FAIL {b}', file=sys.stderr)
    if not bad:   # printed by every rank: `main` silenced the standard output of ranks other than 0
        fits = '; '.join(f"{f['batches']} batches, {f['steps']} steps, {f['sync_bn']} synchronised BatchNorm layers"
                         for f in probe.fits)
        print(f"gpu_gloo: rank {rank}: ok, {len(probe.fits)} fit(s) on {probe.fits[0]['device']} over gloo: {fits}",
              file=sys.stderr)
    sys.exit(1 if bad else 0)
