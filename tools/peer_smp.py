"""The peer of the README's quality table (issue 28): segmentation_models.pytorch's Unet in a plain PyTorch DDP loop.

    python -m segdist_nb.launch --cpus 2 tools/peer_smp.py DATA OUT --budget 900 [--arch resnet18] [--sz 128] [--bs 8]

What a user of SMP alone would write: the data set's train split decoded once into memory at the training size,
horizontal flips and brightness/contrast jitter, cross-entropy + Dice (void left out of both), AdamW with a cosine
schedule over the wall-clock budget, a validation pass after each epoch on the valid split keeping the best mean IoU,
until the budget (counted from the launch of this script, imports and decoding included) is spent. The kept model
goes to OUT/peer.onnx with the class names in its metadata, so that `segdist-eval OUT/peer.onnx DATA --split test`
scores it with the same code, at the same full resolution, as the library's runs. No fastai in the loop; the library
is used only to read the data set's description (DATA/data.yaml), and to write the ONNX file for scoring.
"""
import argparse, json, os, time
T0 = time.time()
from pathlib import Path
import numpy as np, torch, torch.distributed as dist, torch.nn.functional as F
from PIL import Image
import segmentation_models_pytorch as smp
from segdist_nb.describe import load_data
from segdist_nb.decoders import smp_encoder

def load_split(spec, split, sz):
    "Images (N, 3, sz, sz) uint8 and masks (N, sz, sz) uint8 of a split, resized (masks by nearest neighbour)"
    fns = spec.files(split); lf = spec.splits[split].label_fn
    xs = [np.asarray(Image.open(f).convert('RGB').resize((sz, sz), Image.BILINEAR)).transpose(2, 0, 1) for f in fns]
    ys = [np.asarray(Image.fromarray(spec.reader(lf(f))).resize((sz, sz), Image.NEAREST)) for f in fns]
    return torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys))

MEAN, STD = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1), torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

def augment(x, y, g):
    "Horizontal flips of half the images, brightness and contrast jitter of +-20%"
    x = x.float() / 255
    flip = torch.rand(len(x), generator=g) < 0.5
    x[flip], y[flip] = x[flip].flip(-1), y[flip].flip(-1)
    b, c = 1 + (torch.rand(len(x), 1, 1, 1, generator=g) - 0.5) * 0.4, 1 + (torch.rand(len(x), 1, 1, 1, generator=g) - 0.5) * 0.4
    m = x.mean((1, 2, 3), keepdim=True)
    return ((x - m) * c + m * b).clamp(0, 1), y

def miou(cm, void):
    k = [i for i in range(len(cm)) if i != void]
    cm = cm[np.ix_(k, k)]
    inter, union = np.diag(cm), cm.sum(0) + cm.sum(1) - np.diag(cm)
    return float(np.nanmean(np.where(union > 0, inter / np.maximum(union, 1), np.nan)))

def main():
    p = argparse.ArgumentParser(); p.add_argument('data'); p.add_argument('out')
    p.add_argument('--budget', type=float, default=900); p.add_argument('--arch', default='resnet18'); p.add_argument('--decoder', default='unet')
    p.add_argument('--sz', type=int, default=128); p.add_argument('--bs', type=int, default=8); p.add_argument('--lr', type=float, default=1e-3)
    p.add_argument('--seed', type=int, default=0); p.add_argument('--bf16', action='store_true', help='bf16 autocast, as the library on a CPU that computes bf16')
    a = p.parse_args()
    ddp = int(os.environ.get('WORLD_SIZE', 1)) > 1
    if ddp: dist.init_process_group('gloo')
    rank, ws = (dist.get_rank(), dist.get_world_size()) if ddp else (0, 1)
    torch.manual_seed(a.seed)
    spec = load_data(a.data)
    n, void = len(spec.codes), spec.void if isinstance(spec.void, int) or spec.void is None else spec.codes.index(spec.void)
    xt, yt = load_split(spec, 'train', a.sz); xv, yv = load_split(spec, 'valid', a.sz)
    model = smp.create_model(a.decoder, encoder_name=smp_encoder(a.arch, a.decoder), encoder_weights=None, classes=n).to(memory_format=torch.channels_last)
    net = torch.nn.parallel.DistributedDataParallel(model) if ddp else model
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-2)
    dice = smp.losses.DiceLoss('multiclass', ignore_index=void)
    g = torch.Generator().manual_seed(a.seed + rank)
    best, log, ep, t_start = -1., [], 0, time.time()
    def lr_at(): return a.lr * 0.5 * (1 + np.cos(np.pi * min(1., (time.time() - T0) / a.budget)))   # cosine over the budget
    while time.time() - T0 < a.budget:
        net.train()
        nb = len(xt) // (a.bs * ws)   # the same number of batches on every rank: DDP's all-reduce pairs them
        perm = torch.randperm(len(xt), generator=torch.Generator().manual_seed(a.seed * 1000 + ep))[rank::ws][:nb * a.bs]   # this rank's share
        losses = []
        for i in range(0, len(perm), a.bs):
            idx = perm[i:i + a.bs]
            x, y = augment(xt[idx], yt[idx].clone(), g)
            x = ((x - MEAN) / STD).contiguous(memory_format=torch.channels_last)
            for grp in opt.param_groups: grp['lr'] = lr_at()
            with torch.autocast('cpu', dtype=torch.bfloat16, enabled=a.bf16): out = net(x)
            out = out.float()
            loss = F.cross_entropy(out, y.long(), ignore_index=void if void is not None else -100) + dice(out, y.long())
            opt.zero_grad(); loss.backward(); opt.step(); losses.append(loss.item())
        net.eval(); cm = torch.zeros(n, n, dtype=torch.long)
        with torch.no_grad():
            for i in range(rank * a.bs, len(xv), a.bs * ws):   # each rank validates a share; the counts are summed
                x = ((xv[i:i + a.bs].float() / 255 - MEAN) / STD).contiguous(memory_format=torch.channels_last)
                with torch.autocast('cpu', dtype=torch.bfloat16, enabled=a.bf16): pr = model(x).argmax(1)
                y = yv[i:i + a.bs].long()
                cm += torch.bincount(y.flatten() * n + pr.flatten(), minlength=n * n).view(n, n)
        if ddp: dist.all_reduce(cm)
        m = miou(cm.numpy(), void)
        if m > best and rank == 0: best = m; torch.save(model.state_dict(), Path(a.out)/'peer_best.pth')
        best = max(best, m)
        log.append(dict(epoch=ep, train_loss=float(np.mean(losses)), valid_miou=m, lr=lr_at(), time=time.time() - T0))
        if rank == 0: print(f"epoch {ep}: train loss {log[-1]['train_loss']:.4f}, valid mean IoU {m:.4f}, {time.time() - T0:.0f} s", flush=True)
        ep += 1
    if ddp: dist.barrier()
    if rank == 0:
        from segdist_nb.engine import onnx_proto
        from segdist_nb.read import Imagery
        from fastcore.all import AttrDict
        import onnx
        model.load_state_dict(torch.load(Path(a.out)/'peer_best.pth'))
        lm = AttrDict(model=model.eval(), mean=MEAN, std=STD, codes=spec.codes, void=void, sz=(a.sz, a.sz), imagery=Imagery(), digests=None)
        onnx.save(onnx_proto(lm), str(Path(a.out)/'peer.onnx'))
        (Path(a.out)/'peer.json').write_text(json.dumps(dict(vars(a), epochs=ep, best_valid_miou=best, wall_s=time.time() - T0, log=log), indent=1))
        print(f'{ep} epochs in {time.time() - T0:.0f} s; best valid mean IoU {best:.4f}; model: {Path(a.out)/"peer.onnx"}')
    if ddp: dist.destroy_process_group()

if __name__ == '__main__': main()
