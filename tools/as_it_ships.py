#!/usr/bin/env python
"""Data as it ships (issue #39's targets), on stand-ins made by the code, end to end through the console scripts:

1. Kvasir-SEG as it ships: JPEG images of five sizes, JPEG masks white on black with compression noise and soft edges,
   no description. `segdist-check-data --write`, then `train.py` with the data.yaml written, must train a 2-class model
   with no hand edit; the same with the masks re-saved at JPEG quality 30.
2. A GeoTIFF scene (UTM, 30 m pixels) with a nodata border, cut into georeferenced tiles: trained on, the whole scene
   predicted by tiles must have nodata exactly on the border, and `segdist-eval` must count the border in no metric.
3. A crop/weed field data set as it ships (issue #47): RGB photos `images/NNN_image.png` beside colour masks
   `annotations/NNN_annotation.png`, and a YAML train/test list of image numbers (`train_test_split.yaml`). It must
   train and evaluate in 4 commands (`segdist-check-data --write`, the class names written in, `train.py`,
   `segdist-eval`) with no other hand edit: masks paired by their common stem, the list read as the splits,
   validation held out of train by seed.

    python tools/as_it_ships.py [--n 60] [--keep DIR] [--only kvasir,scene,field]   # a few minutes on 2 CPU cores
"""
import os
import argparse, json, shutil, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np
from PIL import Image

root = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(root))
from segdist_nb.read import read_image, nodata_pixels
from segdist_nb.synthetic import make_synthetic, synth_codes
from segdist_nb.synthetic import copy_imagery
from segdist_nb.describe import load_data
from segdist_nb.check import segdist_check_data
from segdist_nb.testing import cli

def run(*args, exe=None):
    "A console script (its module, or `exe`) in a process of its own, on this checkout's package: (exit status, output)"
    t0 = time.time()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), *filter(None, [os.environ.get('PYTHONPATH')])]))
    cmd = [str(Path(sys.executable).parent/exe)] if exe else [sys.executable]
    r = subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, cwd=root, env=env)
    return r.returncode, r.stdout + r.stderr, time.time() - t0

def last(out, start): return [l for l in out.splitlines() if l.startswith(start)][-1:]

def kvasir(tmp:Path, n:int):
    src = make_synthetic(tmp/'kv_src', n=n, size=192, shapes=(1, 3), radius=(0.15, 0.3), seed=1)
    for q in (75, 30):
        kv = copy_imagery(src, tmp/f'kvasir_q{q}', 'kvasir', quality=q)
        code, out, err = cli(segdist_check_data, str(kv), write=True)
        print(f'--- Kvasir-like, masks at JPEG quality {q}: segdist-check-data --write: exit {code}')
        print('\n'.join(l for l in out.splitlines() if l.startswith(('#', 'names', 'palette', 'tolerance', 'masks:', 'note:')) or 'no problem' in l))
        code, out, s = run('train.py', '--data', kv, '--out', tmp/f'kv_run{q}', '--arch', 'resnet18', '--stages', 'stage-1-128', '--sz-scale', '0.5',
                           '--bs', '8', '--epochs-scale', '0.6', '--seed', '0')
        print(f'train.py: exit {code} in {s:.0f} s;', *[l for l in out.splitlines() if l.startswith(('the images have', 'final:'))], sep='\n  ')
        assert code == 0, out[-3000:]
        cfg = json.loads((tmp/f'kv_run{q}'/'config.json').read_text())
        print(f"  classes {cfg['dataset']['codes']}, item_sz {cfg['item_sz']}")

def scene(tmp:Path):
    import rasterio
    from rasterio.windows import Window
    s = make_synthetic(tmp/'scene_src', n=1, size=(384, 512), shapes=(40, 60), radius=(0.03, 0.06), seed=2)
    img = np.asarray(Image.open(s/'images'/'synth_00000.png').convert('RGB')).transpose(2, 0, 1).astype(np.uint16)
    msk = np.asarray(Image.open(s/'labels'/'synth_00000_P.png'))
    b = (img + 1) * 40   # 3 bands of 40..10240, as a 16-bit product has them
    yy, xx = np.mgrid[:384, :512]; cy, cx, t = 192, 256, np.deg2rad(12)   # the scene: a rotated footprint; outside it, 0 in every band
    u, v = (xx - cx) * np.cos(t) + (yy - cy) * np.sin(t), -(xx - cx) * np.sin(t) + (yy - cy) * np.cos(t)
    border = (np.abs(u) > 220) | (np.abs(v) > 150)
    b[:, border] = 0
    tr = rasterio.transform.from_origin(300000, 4500000, 30, 30)
    prof = dict(driver='GTiff', count=3, dtype='uint16', crs='EPSG:32618', nodata=0, compress='deflate')
    (tmp/'scene').mkdir(); fn = tmp/'scene'/'scene.tif'
    with rasterio.open(fn, 'w', height=384, width=512, transform=tr, **prof) as o: o.write(b)
    d = tmp/'tiles'; (d/'images').mkdir(parents=True); (d/'labels').mkdir()
    names = []
    with rasterio.open(fn) as sc:
        for r in range(0, 384, 64):
            for c in range(0, 512, 64):
                w = Window(c, r, 64, 64); nm = f'r{r:03d}_c{c:03d}'
                with rasterio.open(d/'images'/f'{nm}.tif', 'w', height=64, width=64, transform=sc.window_transform(w), **prof) as o: o.write(sc.read(window=w))
                Image.fromarray(msk[r:r + 64, c:c + 64]).save(d/'labels'/f'{nm}_P.png'); names.append(nm)
    (d/'codes.txt').write_text('\n'.join(synth_codes) + '\n')
    rng = np.random.default_rng(0); valid = sorted(rng.choice(names, len(names) // 5, replace=False))
    (d/'valid.txt').write_text(''.join(f'{o}.tif\n' for o in valid))
    (d/'data.yaml').write_text("codes: codes.txt\nlabels: 'labels/{stem}_P.png'\nvoid: void\n")
    print(f'--- GeoTIFF scene 512x384 with nodata 0 on {border.sum():,} border pixels, cut into {len(names)} tiles of 64 px')
    code, out, err = cli(segdist_check_data, str(d)); print(f'segdist-check-data: exit {code}'); print(out.strip())
    code, out, s = run('train.py', '--data', d, '--out', tmp/'geo_run', '--arch', 'resnet18', '--stages', 'stage-1-128', '--sz-scale', '0.5',
                       '--bs', '8', '--epochs-scale', '1.5', '--seed', '0')
    print(f'train.py: exit {code} in {s:.0f} s;', *last(out, 'final:')); assert code == 0, out[-3000:]
    code, out, s = run('-m', 'segdist_nb.predict', tmp/'geo_run'/'model.pkl', fn, tmp/'geo_pred', '--tile', '64', '--engine', 'torch')
    assert code == 0, out[-3000:]
    with rasterio.open(tmp/'geo_pred'/'scene.tif') as p, rasterio.open(fn) as sc:
        m = p.read(1)
        same = (p.crs, p.transform, p.width, p.height) == (sc.crs, sc.transform, sc.width, sc.height)
        print(f"segdist-predict --tile 64 of the whole scene: exit {code}; CRS, transform and size kept: {same}; mask nodata {p.nodata}; "
              f"nodata exactly on the border: {np.array_equal(m == 255, border)}; class names in its tags: {json.loads(p.tags()['classes'])}")
    code, out, s = run('-m', 'segdist_nb.evaluate', tmp/'geo_run'/'model.pkl', d, '--out', tmp/'geo_eval', '--engine', 'torch', '--k', '0')
    print(f'segdist-eval: exit {code}; ' + ' '.join(last(out, 'no test split')) + '\n  ' + ' '.join(last(out, 'acc_all')))
    ev = json.loads((tmp/'geo_eval'/'eval.json').read_text())
    vn = {o + '.tif' for o in valid}; scored = [f for f in load_data(d).files() if f.name in vn]   # what it scores: the tiles it did not train on
    nd = sum(int(nodata_pixels(read_image(f), 0).sum()) for f in scored)
    print(f"  scored {ev['n_images']} tiles (the {len(valid)} validation tiles: {ev['trained_on_left_out']} training tiles left out), "
          f"{nd:,} of their pixels nodata and counted in no metric; miou {ev['metrics']['miou']:.4f}")

def field(tmp:Path, n:int, sz:int=64):
    "A crop/weed field set as it ships: images/NNN_image.png, colour annotations/NNN_annotation.png, a YAML train/test list of numbers"
    src = make_synthetic(tmp/'field_src', n=n, size=sz, seed=3)
    d = tmp/'field'; (d/'images').mkdir(parents=True); (d/'annotations').mkdir()
    pal = np.array([[0, 0, 0], [0, 255, 0], [255, 0, 0]], np.uint8)   # soil black, crop green, weed red
    for i, f in enumerate(sorted((src/'images').iterdir()), 1):
        m = np.asarray(Image.open(src/'labels'/f'{f.stem}_P.png'))
        shutil.copy(f, d/'images'/f'{i:03d}_image.png')
        Image.fromarray(pal[np.select([m == 1, (m == 2) | (m == 3)], [1, 2], 0)]).save(d/'annotations'/f'{i:03d}_annotation.png')
    ids = np.random.default_rng(0).permutation(np.arange(1, n + 1)).tolist()
    nt = n * 2 // 3
    (d/'train_test_split.yaml').write_text(f'train: {sorted(ids[:nt])}\ntest: {sorted(ids[nt:])}\n')   # numbers, as the set ships them
    print(f'--- crop/weed field set as it ships: {n} images/NNN_image.png, colour annotations/NNN_annotation.png, train_test_split.yaml '
          f'({nt} train, {n - nt} test, image numbers)')
    def show(i, what, code, out, s, keep):
        print(f'[{i}] {what}\n    exit {code} in {s:.0f} s'); print(''.join(f'    {l}\n' for l in out.splitlines() if keep(l)), end='')
        assert code == 0, out[-3000:]
    code, out, s = run(d, '--write', exe='segdist-check-data')
    show(1, f'segdist-check-data {d} --write', code, out, s, lambda l: l.startswith(('#', 'names', 'palette', 'train', 'test', d.as_posix())))
    y = (d/'data.yaml').read_text()
    (d/'data.yaml').write_text(y.replace('names: [class_0, class_1, class_2]', 'names: [soil, crop, weed]'))   # the one hand edit: the classes' names
    print(f"[2] the class names written in data.yaml: {[l for l in (d/'data.yaml').read_text().splitlines() if l.startswith('names')][0]}")
    code, out, s = run('train.py', '--data', d, '--out', tmp/'field_run', '--arch', 'resnet18', '--pretrained', 'false', '--stages', 'stage-1-128',
                       '--sz-scale', str(sz / 128), '--bs', '8', '--epochs-scale', '0.1', '--num-workers', '0', '--seed', '0')
    show(3, f'python train.py --data {d} --out {tmp/"field_run"} --arch resnet18 --pretrained false --stages stage-1-128 --sz-scale {sz / 128:g} '
            f'--bs 8 --epochs-scale 0.1 --num-workers 0 --seed 0', code, out, s, lambda l: l.startswith(('split:', 'stage', 'final:')))
    code, out, s = run(tmp/'field_run'/'model.pkl', d, '--engine', 'torch', '--k', '0', exe='segdist-eval')
    show(4, f'segdist-eval {tmp/"field_run"/"model.pkl"} {d}', code, out, s, lambda l: bool(l.strip()) and 'it/s' not in l)
    ev = json.loads((tmp/'field_run'/f'eval-field-test'/'eval.json').read_text())
    print(f"  scored split {ev['split']}: {ev['n_images']} images, classes {list(json.loads((tmp/'field_run'/'config.json').read_text())['dataset']['codes'])}")

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--n', type=int, default=60, help='images of the Kvasir-like stand-in (default 60)')
    p.add_argument('--keep', help='write into this folder and keep it (default: a temporary folder, removed)')
    p.add_argument('--only', default='kvasir,scene,field', help='which stand-ins, comma-separated (default all: kvasir,scene,field)')
    a = p.parse_args()
    tmp = Path(a.keep) if a.keep else Path(tempfile.mkdtemp())
    tmp.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    only = a.only.split(',')
    try:
        if 'kvasir' in only: kvasir(tmp, a.n)
        if 'scene' in only: scene(tmp)
        if 'field' in only: field(tmp, a.n)
    finally:
        if not a.keep: shutil.rmtree(tmp, ignore_errors=True)
    print(f'done in {time.time() - t0:.0f} s')
