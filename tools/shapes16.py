"""The budget study's second data set (issue 49): the synthetic shapes as 16-bit greyscale images, with a test split.

    python tools/shapes16.py OUT [--n 1000] [--size 144 192] [--test 150]

Made by the package itself: `make_synthetic` (shapes on a textured background, 20% listed in valid.txt), stored as
16-bit greyscale by `copy_imagery(kind='gray16')`, laid out as SegNet's CamVid by `copy_layout('segnet', n_test=...)`
(train, val and test folders, files copied byte for byte), then described by `segdist-check-data OUT --write` with the
classes' names and void filled in. Then, for instance:

    python tools/quality_table.py OUT RUNS --rows budget,default --budget 300
"""
import argparse, re, shutil, subprocess, sys, tempfile
from pathlib import Path
from segdist_nb.synthetic import make_synthetic, copy_imagery, copy_layout, synth_codes

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('out'); p.add_argument('--n', type=int, default=1000); p.add_argument('--seed', type=int, default=0)
    p.add_argument('--size', type=int, nargs=2, default=[144, 192], help='height and width')
    p.add_argument('--test', type=int, default=150, help='training pairs moved into the test split')
    a = p.parse_args()
    out = Path(a.out)
    if out.exists(): sys.exit(f'shapes16: {out} exists: give a new folder')
    with tempfile.TemporaryDirectory() as tmp:
        src = make_synthetic(Path(tmp)/'src', n=a.n, size=tuple(a.size), seed=a.seed)
        copy_layout(copy_imagery(src, Path(tmp)/'g16', 'gray16'), out, 'segnet', n_test=a.test)
    subprocess.run([Path(sys.executable).parent/'segdist-check-data', str(out), '--write'], check=True)
    y = out/'data.yaml'
    t = re.sub(r'^names: .*$', f'names: [{", ".join(synth_codes)}]\nvoid: void', y.read_text(), count=1, flags=re.M)
    y.write_text(t)
    print(f'shapes16: {a.n} pairs of {a.size[1]}x{a.size[0]} px, 16-bit greyscale, in {out}\n{t}')

if __name__ == '__main__': main()
