"""Gather into .whl the wheels that the GPU check (tools/gpu_check.sh) installs on the GPU machine, and check them here.

    python tools/gpu_wheels.py            # download into .whl (ignored by git; the call carries it), then check
    python tools/gpu_wheels.py --list     # print the list (NAME==VERSION, a tab, what needs it); download nothing

The GPU machine has Python 3.12 and its own torch, and no package index. The list is segdist_nb's requirements
(pyproject.toml's `dependencies`) and theirs, walked through the distributions installed here, with markers read for
Python 3.12 on Linux x86-64, at the versions installed here (those the suite passes with), less what the GPU image has
(tools/gpu_image.txt: it keeps its own torch, numpy, timm, accelerate, ...) and less `not_needed` (below, with the
reason). The wheels are fetched with `pip download --no-deps --only-binary=:all: --python-version 3.12
--implementation cp --platform manylinux...` (a pure-Python wheel is built where the index has a source archive only);
what does not match the list is removed from .whl first (two versions of one distribution stop the install there).
Then the checks, each a line, the exit status 1 if one fails:
  - one wheel for each distribution of the list, and nothing else;
  - .whl and the tracked files together under 64 MiB (what a call to the GPU machine can carry);
  - `pip install --no-deps --no-index --target` of them all for Python 3.12 (as gpu_check.sh installs them);
  - every module of segdist_nb imports here with the imports of every distribution that is neither in the GPU image
    nor in the list blocked (a simulation of that machine: its versions of torch and the rest are not simulated).
"""
import argparse, importlib.metadata as md, os, subprocess, sys, tempfile, tomllib
from pathlib import Path
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

root = Path(__file__).resolve().parent.parent
py_env = dict(python_version='3.12', python_full_version='3.12.3', sys_platform='linux', platform_system='Linux',
              platform_machine='x86_64', implementation_name='cpython', platform_python_implementation='CPython',
              os_name='posix', extra='')   # the GPU machine's Python, for requirement markers
pip_target = ['--only-binary=:all:', '--python-version', '3.12', '--implementation', 'cp',
              *[a for n in (39, 35, 34, 31, 28, 27, 24, 17) for a in ('--platform', f'manylinux_2_{n}_x86_64')],
              '--platform', 'manylinux2014_x86_64', '--platform', 'manylinux1_x86_64']
not_needed = {'spacy': "fastai.text's tokenizer: segdist_nb imports fastai.vision only (spacy and its 18: ~40 MB)"}
max_mib = 64

def gpu_image(fn=root/'tools'/'gpu_image.txt')->set:
    "The distributions already on the GPU machine's image, canonical names"
    return {canonicalize_name(l.strip()) for l in fn.read_text().splitlines() if l.strip() and not l.startswith('#')}

def wheel_list()->dict:
    "{name: (version, required by)} to carry: the requirements' closure here, less the image's and `not_needed`"
    have = gpu_image() | {canonicalize_name(o) for o in not_needed}
    deps = tomllib.loads((root/'pyproject.toml').read_text())['project']['dependencies']
    todo, out = [(Requirement(d), 'pyproject.toml') for d in deps], {}
    while todo:
        r, why = todo.pop(0)
        n = canonicalize_name(r.name)
        if (r.marker and not r.marker.evaluate(py_env)) or n in have or n in out: continue
        try: d = md.distribution(r.name)
        except md.PackageNotFoundError:
            sys.exit(f'gpu_wheels: {r.name} (required by {why}) is not installed here: '
                     'install the dev environment first (bash dev.sh)')
        out[n] = (d.version, why)
        todo += [(Requirement(q), n) for q in d.requires or []]
    return dict(sorted(out.items()))

def wheels(dest:Path)->dict:
    "{name: [wheel files]} in `dest`"
    out = {}
    for f in sorted(dest.glob('*.whl')):
        out.setdefault(canonicalize_name(parse_wheel_filename(f.name)[0]), []).append(f)
    return out

def download(want:dict, dest:Path):
    "Remove from `dest` the wheels the list does not name at its version, then fetch the missing ones"
    dest.mkdir(exist_ok=True)
    for n, fs in wheels(dest).items():
        for f in fs:
            if n not in want or str(parse_wheel_filename(f.name)[1]) != want[n][0]:
                print(f'gpu_wheels: removing {f.name} (not in the list at this version)'); f.unlink()
    have = wheels(dest)
    for n, (v, _) in want.items():
        if n in have: continue
        pip = lambda *a: subprocess.run([sys.executable, '-m', 'pip', *a, '-q', '--no-deps', f'{n}=={v}'],
                                        capture_output=True, text=True)
        r = pip('download', *pip_target, '-d', str(dest))
        if r.returncode:   # no wheel on the index (python-hostlist has a source archive only): build one, if pure
            r = pip('wheel', '--no-binary', n, '-w', str(dest))
            built = wheels(dest).get(n, [])
            pure = all(t.abi == 'none' and t.platform == 'any' for f in built for t in parse_wheel_filename(f.name)[3])
            if r.returncode or not built or not pure:
                for f in built: f.unlink()
                sys.exit(f'gpu_wheels: {n}=={v}: no wheel for Python 3.12 on the index, and none of pure Python could '
                         f'be built: {r.stderr.strip()[-300:]}')
            print(f'gpu_wheels: {n}=={v}: built a pure-Python wheel from its source archive (the index has no wheel)')

def import_check(allowed:set)->str:
    "Import every module of segdist_nb in a process where only `allowed` distributions import: '' if all do, else why"
    blocked = {m for m, ds in md.packages_distributions().items()
               if not any(canonicalize_name(d) in allowed for d in ds)}
    blocked = sorted(blocked - set(sys.stdlib_module_names) - {'segdist_nb'})
    mods = sorted(f'segdist_nb.{f.stem}' for f in (root/'segdist_nb').glob('*.py') if not f.stem.startswith('_'))
    code = f"""
import importlib, importlib.abc, sys
blocked = set({blocked!r})
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in blocked:
            raise ModuleNotFoundError(f'No module named {{name!r}} (not on the GPU machine)', name=name)
sys.meta_path.insert(0, Block())
for m in {mods!r}: importlib.import_module(m)
import segdist_nb.all
"""
    env = {**os.environ, 'PYTHONPATH': str(root), 'PYTHONWARNINGS': 'ignore'}
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, cwd=root)
    return '' if r.returncode == 0 else (r.stderr.strip().splitlines() or ['exit status %d' % r.returncode])[-1]

def checks(want:dict, dest:Path)->list:
    "The checks of the module's docstring: a list of failures, each a line"
    bad, have = [], wheels(dest)
    miss, extra = sorted(set(want) - set(have)), sorted(set(have) - set(want))
    dup = [n for n, fs in have.items() if len(fs) > 1]
    if miss or extra or dup: bad.append(f'wheels: missing {miss}, not in the list {extra}, several versions {dup}')
    else: print(f'ok   one wheel for each of the {len(want)} distributions of the list')
    mib = sum(f.stat().st_size for fs in have.values() for f in fs) / 2**20
    tracked = subprocess.run(['git', 'ls-files', '-z'], cwd=root, capture_output=True, text=True).stdout.split('\0')
    tree = sum((root/f).stat().st_size for f in tracked if f and (root/f).is_file()) / 2**20
    (bad.append if mib + tree >= max_mib else lambda s: print('ok  ', s))(
        f'size: the wheels {mib:.1f} MiB + the tracked files {tree:.1f} MiB, under {max_mib} MiB')
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '--no-index', '--no-deps', '--no-compile',
                            *pip_target, '--target', tmp, *map(str, sorted(dest.glob('*.whl')))],
                           capture_output=True, text=True)
        if r.returncode: bad.append(f'install for Python 3.12 failed: {r.stderr.strip()[-500:]}')
        else: print('ok   pip install --no-deps --target for Python 3.12 of every wheel')
    err = import_check(gpu_image() | set(want))
    if err: bad.append(f'import with only the GPU image and the list: {err}')
    else: print("ok   every module of segdist_nb imports with only the GPU image's distributions and the list's")
    return bad

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--dest', default=str(root/'.whl'), help='folder of the wheels (default .whl, ignored by git)')
    p.add_argument('--list', action='store_true', help='print the list and download nothing')
    a = p.parse_args()
    want = wheel_list()
    if a.list:
        for n, (v, why) in want.items(): print(f'{n}=={v}\t{why}')
        sys.exit(0)
    download(want, Path(a.dest))
    bad = checks(want, Path(a.dest))
    for b in bad: print('FAIL', b)
    sys.exit(1 if bad else 0)
