"""Run every notebook's tests once, each in a real Jupyter kernel, two at a time; keep the executed copies for the docs.

    python tools/run_nbs.py [--flags slow] [--workers 2] [NAME ...]    # NAME: a notebook's stem, e.g. 05_train

This is `bash dev.sh test`'s test step. Each notebook runs exactly once: in a Jupyter kernel (nbclient and ipykernel,
as JupyterLab runs it), with the cells that `nbdev-test --flags ...` would run (nbdev's own selection, `nb_test_cells`:
cells flagged with a `tst_flags` flag that is not given are left out, as are `#| eval: false` cells), so the one run is
both the "runs top to bottom in Jupyter" check and the tests. The executed copies are written to nbs_exec/ (beside
nbs/, so the notebooks' relative paths hold), from which `tools/docs.py build` takes the outputs for the pages.
Each notebook's `nbdev_export()` cell is left out: `dev.sh`'s sync check has already exported, and two notebooks
exporting at once would rewrite the package while another imports it.

Each kernel gets its share of the cores as torch threads (`OMP_NUM_THREADS`: cores / notebooks at a time), as
nbdev-test's worker processes do. Notebooks start longest first (their last measured times, `tools/nb_times.json`), so the two long multi-process
chapters do not start last; `--write-times` stores this run's times there. Each notebook's time and the total are
printed at the end, then `N passed, M failed`. `nbdev-test NB.ipynb` still runs a single notebook, as nbdev does.
"""
import argparse, json, os, shutil, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS, EXEC, TIMES = ROOT/'nbs', ROOT/'nbs_exec', ROOT/'tools'/'nb_times.json'

def notebooks(names=None) -> list:
    "The chapters and the index, or the ones named"
    nbs = sorted(NBS.glob('[0-9]*.ipynb')) + [NBS/'index.ipynb']
    if names:
        miss = [n for n in names if not (NBS/f'{n}.ipynb').exists()]
        if miss: sys.exit(f'run_nbs: no notebook {miss} in {NBS}')
        nbs = [NBS/f'{n}.ipynb' for n in names]
    return nbs

def run_one(fn: Path, flags: str, timeout: int) -> tuple:
    "Execute nbs_exec/<fn.name> in a Jupyter kernel with the cells nbdev-test would run; save it; (ok, message)"
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    from nbdev.config import get_config
    from nbdev.test import nb_test_cells
    skip = get_config().tst_flags.split()
    run_ids = {c.id for c in nb_test_cells(fn, skip_flags=skip, force_flags=flags.split())}
    nb = nbformat.read(fn, as_version=4)
    orig = {c.id: c.source for c in nb.cells}
    for c in nb.cells:
        if c.cell_type != 'code': continue
        if c.id not in run_ids or 'nbdev_export()' in c.source: c.source, c.metadata['skipped'] = '', True
    client = NotebookClient(nb, timeout=timeout, kernel_name='python3', resources={'metadata': {'path': str(fn.parent)}})
    try: client.execute(); ok, msg = True, ''
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as e: ok, msg = False, str(e)
    for c in nb.cells:
        if c.metadata.pop('skipped', False): c.source = orig[c.id]   # the page shows the cell; it has no output
    nbformat.write(nb, fn)
    return ok, msg

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('names', nargs='*', help="notebook stems (default: every chapter and the index)")
    p.add_argument('--flags', default='slow', help="tst_flags to run, space-separated (default 'slow'; '' = the fast cells only; 'slow cuda' on a GPU)")
    p.add_argument('--workers', type=int, default=int(os.environ.get('NBDEV_WORKERS', 2)), help='notebooks at a time (default 2)')
    p.add_argument('--timeout', type=int, default=900, help='seconds a cell may run (default 900)')
    p.add_argument('--write-times', action='store_true', help=f'store this run\'s times in {TIMES.relative_to(ROOT)} (the start order)')
    p.add_argument('--one', help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.one:   # a worker: one notebook, in its own process
        ok, msg = run_one(Path(a.one), a.flags, a.timeout)
        if not ok: print(msg, file=sys.stderr)
        sys.exit(0 if ok else 1)
    nbs = notebooks(a.names)
    if not a.names: shutil.rmtree(EXEC, ignore_errors=True)
    EXEC.mkdir(exist_ok=True)
    for f in NBS.iterdir():   # what the notebooks read beside them (images/, _quarto.yml, ...)
        if f.suffix != '.ipynb' and f.name != '.ipynb_checkpoints':
            (shutil.copytree(f, EXEC/f.name, dirs_exist_ok=True) if f.is_dir() else shutil.copy(f, EXEC/f.name))
    for f in nbs: shutil.copy(f, EXEC/f.name)
    last = json.loads(TIMES.read_text()) if TIMES.exists() else {}
    order = sorted(nbs, key=lambda f: -last.get(f.stem, 60))
    # each kernel gets its share of the cores as torch (OpenMP) threads: two kernels of 2 threads each on 2 cores ran
    # the notebooks that train in the kernel 2.5 to 3.5 times slower than one thread each (OpenMP threads spin-wait)
    env = {**os.environ, 'OMP_NUM_THREADS': str(max(1, (os.cpu_count() or 1) // a.workers))}
    t0, res = time.time(), {}
    def job(f):
        s = time.time()
        r = subprocess.run([sys.executable, __file__, '--one', str(EXEC/f.name), '--flags', a.flags, '--timeout', str(a.timeout)],
                           capture_output=True, text=True, cwd=EXEC, env=env)
        res[f.stem] = (r.returncode == 0, time.time() - s, r.stderr)
        print(f"{'ok  ' if r.returncode == 0 else 'FAIL'} {f.stem:<18} {time.time() - s:7.1f} s  (at {time.time() - t0:6.1f} s)", flush=True)
    print(f"run_nbs: {len(nbs)} notebook(s), {a.workers} at a time ({env['OMP_NUM_THREADS']} torch thread(s) each), flags {a.flags!r}, "
          f"in Jupyter kernels; copies in {EXEC.name}/", flush=True)
    with ThreadPoolExecutor(a.workers) as ex: list(ex.map(job, order))
    wall = time.time() - t0
    failed = [k for k, v in res.items() if not v[0]]
    for k in failed: print(f'\n===== {k} failed =====\n{res[k][2][-6000:]}', file=sys.stderr)
    print('\nnotebook            seconds')
    for f in nbs: print(f'{f.stem:<18} {res[f.stem][1]:8.1f}' + ('  FAILED' if f.stem in failed else ''))
    print(f"{'total (wall)':<18} {wall:8.1f}   (sum of notebooks {sum(v[1] for v in res.values()):.1f} s, {a.workers} at a time)")
    if a.write_times and not failed and not a.names:
        TIMES.write_text(json.dumps({k: round(v[1], 1) for k, v in sorted(res.items())}, indent=1) + '\n')
    print(f'{len(nbs) - len(failed)} passed, {len(failed)} failed')
    sys.exit(1 if failed else 0)

if __name__ == '__main__': main()
