"""The seed's recipe as one plain script on stock fastai: the baseline of a run's fixed cost (README, "What a run costs").

    python -m segdist_nb.launch --cpus 2 tools/seed_script.py DATA [SZ1 SZ2 EPOCHS BS]

What the seed script did, and nothing more: the DataBlock with the seed's transforms, a split by valid.txt,
the seed's accuracies, weighted cross-entropy, `unet_learner(resnet34, self_attention=True)`, three stages (frozen at
SZ1, frozen at SZ2 from those weights, unfrozen with discriminative learning rates), each with `SaveModelCallback`
inside `learn.distrib_ctx()`. The only addition is the one a CPU run needs: fastai's `DistributedDL` broadcasts on
CUDA, which a gloo group cannot (`segdist_nb.distributed` sends it from the CPU), and accelerate's CPU mode.
"""
import os, sys, time
t0 = time.time()
from pathlib import Path
os.environ.setdefault('ACCELERATE_USE_CPU', '1')
import segdist_nb.distributed   # only the gloo broadcast patch of DistributedDL (chapter 04)
from fastai.vision.all import *
from fastai.distributed import *

path = Path(sys.argv[1])
sz1, sz2, epochs, bs = [int(o) for o in sys.argv[2:6]] if len(sys.argv) > 2 else (64, 96, 1, 8)
torch.set_num_threads(int(os.environ.get('OMP_NUM_THREADS', 1)))
codes = [l.strip() for l in (path/'codes.txt').read_text().splitlines() if l.strip()]
void = codes.index('Unlabelled') if 'Unlabelled' in codes else None

def acc_all(inp, targ): return (inp.argmax(dim=1) == targ.squeeze(1)).float().mean()
def acc_clss(inp, targ):
    targ = targ.squeeze(1); mask = targ != void
    return (inp.argmax(dim=1)[mask] == targ[mask]).float().mean()

def dls_for(sz):
    db = DataBlock(blocks=(ImageBlock, MaskBlock(codes)), get_items=get_image_files,
                   get_y=lambda o: path/'labels'/f'{o.stem}_P{o.suffix}', splitter=FileSplitter(path/'valid.txt'),
                   batch_tfms=[*aug_transforms(max_rotate=0, max_warp=0, max_zoom=1, flip_vert=True, size=sz, max_lighting=0.2),
                               Normalize.from_stats(*imagenet_stats)])
    return db.dataloaders(path/'images', bs=bs, num_workers=0)

weights = torch.ones(len(codes))
if void is not None: weights[void] = 0.
def learner(sz):
    return unet_learner(dls_for(sz), resnet34, pretrained=False, self_attention=True, metrics=[acc_all, acc_clss], wd=1e-2,
                        loss_func=CrossEntropyLossFlat(axis=1, weight=weights), path='runs/seed_script')

stages = [(sz1, 4e-4, True, None), (sz2, 2e-4, True, 'seed-1'), (sz2, slice(5e-6, 9e-5), False, 'seed-2')]
t1 = time.time()
for i, (sz, lr, frozen, prev) in enumerate(stages):
    learn = learner(sz)
    if prev: learn.load(prev, with_opt=False)
    if not frozen: learn.unfreeze()
    with learn.distrib_ctx(sync_bn=False):
        learn.fit_one_cycle(epochs, lr, pct_start=0.9, cbs=SaveModelCallback(fname=f'seed-{i + 1}'))
if rank_distrib() == 0: print(f'seed script: set-up {t1 - t0:.1f} s, stages {time.time() - t1:.1f} s, total {time.time() - t0:.1f} s')
