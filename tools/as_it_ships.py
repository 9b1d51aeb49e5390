#!/usr/bin/env python
"""Data as it ships (issue #39's targets), on stand-ins made by the code, end to end through the console scripts:

1. Kvasir-SEG as it ships: JPEG images of five sizes, JPEG masks white on black with compression noise and soft edges,
   no description. `segdist-check-data --write`, then `train.py` with the data.yaml written, must train a 2-class model
   with no hand edit; the same with the masks re-saved at JPEG quality 30.
2. A GeoTIFF scene (UTM, 30 m pixels) with a nodata border, cut into georeferenced tiles: trained on, the whole scene
   predicted by tiles must have nodata exactly on the border, and `segdist-eval` must count the border in no metric.

    python tools/as_it_ships.py [--n 60] [--keep DIR]      # a few minutes on 2 CPU cores
"""
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

def run(*args):
    "A console script (its module) in a process of its own: (exit status, output)"
    t0 = time.time()
    r = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, cwd=root)
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

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--n', type=int, default=60, help='images of the Kvasir-like stand-in (default 60)')
    p.add_argument('--keep', help='write into this folder and keep it (default: a temporary folder, removed)')
    a = p.parse_args()
    tmp = Path(a.keep) if a.keep else Path(tempfile.mkdtemp())
    tmp.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    try: kvasir(tmp, a.n); scene(tmp)
    finally:
        if not a.keep: shutil.rmtree(tmp, ignore_errors=True)
    print(f'done in {time.time() - t0:.0f} s')
