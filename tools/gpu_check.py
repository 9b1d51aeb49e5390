"""The `checks` step of tools/gpu_check.sh: the checks of the `cuda` notebook cells; the notebook launcher on a GPU.

    python tools/gpu_check.py OUT_DIR

Each check prints `ok NAME (seconds): result` or `FAIL NAME: error` and its traceback; the exit status is the number
of failed checks. CUDA is used in this process before the launches, as a notebook that trained on the GPU would.
"""
import json, sys, tempfile, time, traceback
from pathlib import Path
from segdist_nb.all import *
import torch.distributed as dist

out = Path(sys.argv[1] if len(sys.argv) > 1 else 'runs/gpu_check'); out.mkdir(parents=True, exist_ok=True)
tmp = Path(tempfile.mkdtemp())
src = make_synthetic(tmp/'synth', n=24, size=64)
res = {}

def check(name, f):
    "Run one check; print and keep its result"
    t0 = time.time()
    try: r = f(); ok = True
    except Exception as e: r, ok = f'{type(e).__name__}: {e}\n{traceback.format_exc()}', False
    res[name] = dict(ok=ok, seconds=round(time.time() - t0, 1), result=r if ok else r.splitlines()[0])
    print(f"{'ok  ' if ok else 'FAIL'} {name} ({time.time() - t0:.1f} s): {r}", flush=True)

def precision():
    "03_model's cuda cell: 'auto' picks mixed precision on a GPU, and a step trains"
    p = seg_precision('auto', 'cuda')
    assert p == ('bf16' if torch.cuda.is_bf16_supported() else 'fp16'), p
    learn = seg_learner(seg_dls(src, sz=32, bs=4, num_workers=0, device='cuda'), resnet18, void='void', pretrained=False)
    assert any(isinstance(cb, MixedPrecision) for cb in learn.cbs)
    with learn.no_bar(), learn.no_logging(): learn.fit(1, 1e-3)
    assert np.isfinite(learn.recorder.values[-1][0])
    return f'{p}, train loss {learn.recorder.values[-1][0]:.3f}'

def broadcast():
    "04_distributed's cuda cell: DistributedDL's broadcast travels on CUDA with nccl"
    dist.init_process_group('nccl', init_method=f'file://{tmp}/pg', rank=0, world_size=1)
    try: assert DistributedDL._broadcast(None, [3, 1, 2], 0) == [3, 1, 2]
    finally: dist.destroy_process_group()
    return 'nccl broadcast ok'

def where(x):
    "What a process of `launch_nb` sees"
    return dict(world=num_distrib(), device=torch.cuda.get_device_name(torch.cuda.current_device()), x=x)

def launch():
    "05e: any function on the GPU, after this process used CUDA"
    r = launch_nb(where, 7, gpus='0')
    assert r['world'] == 1 and r['x'] == 7, r
    return r

def recipe():
    "05e: the recipe on the GPU from a 'cell', the final model back here on the GPU"
    cfg = dict(default_config, data=src, arch='resnet18', void='void', num_workers=0, seed=0, pretrained=False,
               stages=[dict(name='a', sz=64, bs=8, epochs=2, lr=1e-3)])
    learn = train_nb(cfg, tmp/'nb_run', gpus='0')
    final = json.loads((tmp/'nb_run'/'final.json').read_text())
    assert next(learn.model.parameters()).is_cuda and learn.dls.device.type == 'cuda'
    r = learn.validate()
    assert abs(r[0] - final['valid_loss']) < 1e-2, (r, final)
    return dict(final_miou=round(final['miou'], 4), here_valid_loss=round(float(r[0]), 4), run_valid_loss=round(final['valid_loss'], 4),
                precision=json.loads((tmp/'nb_run'/'config.json').read_text())['precision'])

def copy_ahead_check():
    "01c_dls's cuda cell: batches copied ahead on a side stream (pinned) equal those copied on the compute stream; an epoch reads nothing back"
    def epochs(pin):
        set_seed(0); dls = seg_dls(src, sz=32, bs=4, cache=tmp/'cache', device='cuda', pin_memory=pin)
        return [(x.cpu(), y.cpu()) for _ in range(2) for x, y in dls.train]
    for (x0, y0), (x1, y1) in zip(epochs(False), epochs(True)): assert torch.equal(x0, x1) and torch.equal(y0, y1)
    dls = seg_dls(src, sz=32, bs=4, cache=tmp/'cache', device='cuda')
    for b in dls.train: pass
    torch.cuda.set_sync_debug_mode('error')
    try:
        for b in dls.train: pass
    finally: torch.cuda.set_sync_debug_mode(0)
    return 'same batches; no sync in an epoch of batches'

class NoSync(Callback):
    "From the second batch of the second epoch to the last training batch: any synchronising CUDA call raises"
    order = 1000
    def after_batch(self):   # the last callback of a batch: the window runs to the end of the next batch's callbacks
        on = self.training and self.epoch >= 1 and self.iter + 1 < self.n_iter   # off after the epoch's last batch: its end reads what it logs
        torch.cuda.set_sync_debug_mode('error' if on else 0)
        if on: self.on = True
    def after_fit(self): torch.cuda.set_sync_debug_mode(0)

def sync_free_step():
    "03's cuda cell: training steps (data, augmentation, forward, backward, optimizer, callbacks) with no host sync, SMP U-Net in mixed precision"
    dls = seg_dls(src, sz=64, bs=4, cache=tmp/'cache', device='cuda')
    learn = seg_learner(dls, 'resnet18', void='void', loss='ce+dice', pretrained=False)
    cb = NoSync()
    with learn.no_bar(), learn.no_logging(): learn.fit(2, 1e-3, cbs=[cb])
    assert getattr(cb, 'on', False)
    return f'{learn.precision}: {len(dls.train)} training batches an epoch, none synced after the first epoch'

def recipe_sync():
    "The recipe's own fit (its callbacks: best-model and resume checkpoints, run log, TensorBoard) with no host sync per batch after the first epoch"
    cfg = dict(default_config, data=src, arch='resnet18', void='void', seed=0, pretrained=False, tensorboard=True, loss='ce+dice',
               stages=[dict(name='a', sz=64, bs=4, epochs=2, lr=1e-3)])
    cb = NoSync()
    train(cfg, tmp/'sync_run', cbs=[cb])
    assert getattr(cb, 'on', False)
    return f"{json.loads((tmp/'sync_run'/'config.json').read_text())['precision']}: the recipe's callbacks and TensorBoard, no sync after the first epoch"

checks = [('precision', precision), ('copy_ahead', copy_ahead_check), ('sync_free_step', sync_free_step), ('recipe_sync', recipe_sync),
          ('broadcast', broadcast), ('launch_nb', launch), ('train_nb', recipe)]
for name, f in checks: check(name, f)
(out/'checks.json').write_text(json.dumps(res, indent=1, default=str))
sys.exit(sum(not v['ok'] for v in res.values()))
