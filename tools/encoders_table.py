"""The encoder and loss comparison of the README (issue 21): one row per finished run folder.

    python tools/encoders_table.py RUN [RUN ...] [--speed]

For each run: encoder, loss, parameters, validation mean IoU of the final model, and the IoU of the three classes with
the fewest validation pixels (from the first run). With --speed, training images/s of each (encoder, loss) measured
here side by side, one process and one thread, at the last stage's size and batch (median of 5 steps after 2,
rounds interleaved so that a slow moment of the machine hits every row).
"""
import argparse, json, time
from pathlib import Path
import numpy as np, torch
from fastai.vision.all import set_seed
from segdist_nb.dls import seg_dls
from segdist_nb.model import seg_learner
from segdist_nb.metrics import iou_table
from segdist_nb.modelfile import read_learner

def final_table(run):
    cfg = json.loads((run/'config.json').read_text())
    learn = read_learner(run/"model.pkl")
    st = cfg['stages'][-1]
    learn.dls = seg_dls(cfg['data'], sz=st['sz'], bs=st['bs'], num_workers=0, check=False)
    res = learn.validate()
    return cfg, learn, dict(zip(['valid_loss'] + [m.name for m in learn.metrics], map(float, res))), iou_table(learn)

def step_rate(cfg, arch, loss, n=5, warm=2):
    st = cfg['stages'][-1]
    set_seed(0)
    dls = seg_dls(cfg['data'], sz=st['sz'], bs=st['bs'], num_workers=0, check=False)
    learn = seg_learner(dls, arch, void=cfg['void'], loss=loss, pretrained=False)
    learn.unfreeze(); learn.create_opt() if learn.opt is None else None
    xb, yb = dls.one_batch()
    m = learn.model.train()
    ts = []
    for i in range(warm + n):
        t = time.perf_counter()
        l = learn.loss_func(m(xb), yb); l.backward(); learn.opt.step(); learn.opt.zero_grad()
        ts.append(time.perf_counter() - t)
    return st['bs'] / np.median(ts[warm:])

if __name__ == '__main__':
    p = argparse.ArgumentParser(); p.add_argument('runs', nargs='+'); p.add_argument('--speed', action='store_true'); p.add_argument('--rounds', type=int, default=2)
    a = p.parse_args()
    torch.set_num_threads(1)
    rows, rare = [], None
    for run in map(Path, a.runs):
        cfg, learn, met, t = final_table(run)
        if rare is None: rare = list(t.sort_values('pixel_share').name[:3])
        iou = dict(zip(t.name, t.iou))
        rows.append(dict(run=run.name, arch=cfg['arch'], loss=cfg['loss'], params_m=sum(p.numel() for p in learn.model.parameters()) / 1e6,
                         miou=met['miou'], **{f'iou_{c}': iou[c] for c in rare}, cfg=cfg))
    if a.speed:
        rates = {}
        for r_ in range(a.rounds):
            for row in rows: rates.setdefault(row['run'], []).append(step_rate(row['cfg'], row['arch'], row['loss']))
        for row in rows: row['img_s'] = float(np.median(rates[row['run']]))
    cols = [k for k in rows[0] if k not in ('cfg', 'run')]
    print('| ' + ' | '.join(cols) + ' |\n|' + '---|' * len(cols))
    for row in rows: print('| ' + ' | '.join(f'{row[k]:.3f}' if isinstance(row[k], float) else str(row[k]) for k in cols) + ' |')
    print(f'rarest classes in validation: {rare}')
