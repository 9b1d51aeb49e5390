"""Offline docs build, for machines without Quarto (which `nbdev-docs` needs; the GitHub deploy workflow uses it).

    python tools/docs.py build    # nbdev's notebook processing (nbdev-proc-nbs), the outputs of the executed notebooks, then
                                  # one HTML page per notebook through nbconvert, in _docs_offline/
    python tools/docs.py check    # every exported symbol documented, every chapter shows outputs, no error output,
                                  # every local link and image resolves
    python tools/docs.py shot     # every page in headless Chromium: navigation rendered, every image loaded; screenshot saved
    python tools/docs.py lint     # before any test runs: no cell that nbdev's docs would execute out of context,
                                  # segdist_nb.all brings every chapter's names, no module line over 120 characters

The notebooks are committed without outputs. `bash dev.sh test` runs them (tools/run_nbs.py, Jupyter kernels) on copies in
nbs_exec/ and keeps the executed copies there; `build` puts those outputs into the pages, cell by cell id. The GitHub deploy
workflow does the same before Quarto renders the site.
"""
import html, json, os, re, shutil, subprocess, sys, threading
import yaml
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROC, OUT, EXEC = ROOT/'_proc', ROOT/'_docs_offline', ROOT/'nbs_exec'
SITE = 'https://segdist.github.io/segdist_nb/'

def page_name(nb: Path) -> str:
    "Quarto's page name for a notebook, as nbdev makes it: the number prefix dropped (00_read.ipynb -> read.html)"
    return re.sub(r'^\d+[a-zA-Z0-9]*_', '', nb.stem.lower()) + '.html'   # nbdev's rule (nbdev.config): 02ef_modelfile -> modelfile.html

def _frontmatter(cells):
    "Title and description from the raw frontmatter cell nbdev-proc-nbs writes, and the cells without it"
    fm, rest = {}, []
    for c in cells:
        src = ''.join(c['source'])
        if c['cell_type'] == 'raw' and src.startswith('---'): fm = yaml.safe_load(src.strip().strip('-')) or {}
        else: rest.append(c)
    return fm, rest

def _prepare(nb: dict) -> tuple:
    "Clean a processed notebook for nbconvert: drop `has_sd`, directives, hidden inputs; a title cell from the frontmatter"
    fm, cells = _frontmatter(nb['cells'])
    out = []
    for c in cells:
        c.pop('has_sd', None)                       # nbdev's non-standard key, which nbconvert's validation refuses
        c['metadata'] = {k: v for k, v in c.get('metadata', {}).items() if k != 'execution'}  # its timings, likewise
        src = ''.join(c['source'])
        if c['cell_type'] == 'code':
            dirs = re.findall(r'^#\|\s*(.*)$', src, re.M)
            if any(d.startswith('hide') for d in dirs): continue
            c['source'] = re.sub(r'^#\|.*\n?', '', src, flags=re.M)
            if any(d.replace(' ', '') in ('echo:false',) for d in dirs): c['metadata']['tags'] = ['remove_input']
            if not c['source'].strip() and not c.get('outputs'): continue
        out.append(c)
    title = fm.get('title', '')
    head = [{'cell_type': 'markdown', 'metadata': {}, 'id': 'title', 'source': f"# {title}\n\n> {fm.get('description', '')}\n"}] if title else []
    nb['cells'] = head + out
    nb['nbformat_minor'] = max(nb.get('nbformat_minor', 5), 5)
    return title, nb

def merge_outputs(proc:Path, exec_dir:Path) -> int:
    "Copy the outputs of the executed notebooks in `exec_dir` into the processed ones in `proc`, matching cells by id"
    n = 0
    for p in sorted(proc.glob('*.ipynb')):
        e = exec_dir/p.name
        if not e.exists(): continue
        outs = {c['id']: c['outputs'] for c in json.loads(e.read_text())['cells'] if c['cell_type'] == 'code' and c.get('outputs')}
        nb = json.loads(p.read_text())
        for c in nb['cells']:
            if c['cell_type'] == 'code' and c.get('id') in outs: c['outputs'] = outs[c['id']]; n += 1
        p.write_text(json.dumps(nb))
    return n

def build():
    "Process the notebooks with nbdev and write one HTML page each, with a navigation bar, to _docs_offline/"
    import nbformat
    from nbconvert import HTMLExporter
    shutil.rmtree(PROC, ignore_errors=True); shutil.rmtree(OUT, ignore_errors=True)
    from nbdev.serve import proc_nbs          # what nbdev-proc-nbs runs, without its attempt to install Quarto
    proc_nbs(str(ROOT/'nbs'), n_workers=0)
    if EXEC.exists(): print(f'docs: outputs of {merge_outputs(PROC, EXEC)} cells from {EXEC.name}/')
    else: print(f'docs: no {EXEC.name}/ (made by bash dev.sh test): the pages show no outputs')
    nbs = sorted(PROC.glob('*.ipynb'), key=lambda p: (p.stem != 'index', p.stem))
    pages = []
    for nb in nbs:
        title, d = _prepare(json.loads(nb.read_text()))
        pages.append((page_name(nb), title or nb.stem, d))
    OUT.mkdir()
    nav = '<nav class="segdist-nav" style="padding:8px 16px;background:#2c3e50;font-family:sans-serif">' + ' | '.join(
        f'<a style="color:white;margin:0 4px" href="{p}">{html.escape(t)}</a>' for p, t, _ in pages) + '</nav>'
    from nbconvert.preprocessors import TagRemovePreprocessor
    ex = HTMLExporter(template_name='lab')
    ex.exclude_input_prompt = ex.exclude_output_prompt = True
    ex.register_preprocessor(TagRemovePreprocessor(remove_input_tags={'remove_input'}), enabled=True)
    for p, t, d in pages:
        body, _ = ex.from_notebook_node(nbformat.reads(json.dumps(d), as_version=4))
        body = body.replace(SITE, '')
        body = re.sub(r'\{target=(?:&quot;|")_blank(?:&quot;|")[^}]*\}', '', body)   # Quarto's link attributes in show_doc's markdown
        body = re.sub(r'(<body[^>]*>)', r'\1' + nav.replace('\\', r'\\'), body, count=1)
        body = re.sub(r'<title>.*?</title>', f'<title>{html.escape(t)} - segdist_nb</title>', body, count=1, flags=re.S)
        (OUT/p).write_text(body)
    if (ROOT/'nbs'/'images').exists(): shutil.copytree(ROOT/'nbs'/'images', OUT/'images')
    print(f'{len(pages)} pages in {OUT}')

def check() -> list:
    "Every exported symbol has its anchor on its page, no page shows an error, every local link resolves"
    sys.path.insert(0, str(ROOT))
    from segdist_nb._modidx import d
    probs, pages = [], {p.name: p.read_text() for p in OUT.glob('*.html')}
    ids = {n: set(re.findall(r'id="([^"]+)"', t)) for n, t in pages.items()}
    low = {n: {i.lower() for i in v} for n, v in ids.items()}
    import importlib
    for mod, syms in d['syms'].items():
        public = set(getattr(importlib.import_module(mod), '__all__', []))
        for sym, (url, _) in syms.items():
            if sym.split('.')[-1] not in public or sym.count('.') != mod.count('.') + 1: continue   # exported names only
            page, _, anchor = url.replace(SITE, '').partition('#')
            if page not in pages: probs.append(f'{sym}: no page {page}')
            elif anchor and anchor.lower() not in low[page]: probs.append(f'{sym}: no anchor #{anchor} in {page}')
    want_out = EXEC.exists()
    for n, t in pages.items():
        body = t[t.find('<body'):]
        if want_out and not re.search(r'class="jp-OutputArea-child', body): probs.append(f'{n}: shows no output')
        for src in re.findall(r'<img[^>]+src="([^"]+)"', body):
            if not src.startswith('data:') and not re.match(r'^https?:', src) and not (OUT/src).exists(): probs.append(f'{n}: image {src} not found')
        if re.search(r'data-mime-type="application/vnd\.jupyter\.stderr"|Traceback \(most recent call last\)', body):
            probs.append(f'{n}: shows error output')
        for href in re.findall(r'href="([^"]+)"', t):
            if re.match(r'^(https?:|mailto:|data:|javascript:)', href) or href.startswith('#') and not href[1:]: continue
            page, _, anchor = href.partition('#')
            page = page or n
            if page.endswith('.css') or page.endswith('.js'): continue
            if page not in pages and not (OUT/page).exists(): probs.append(f'{n}: link to missing {href}')
            elif anchor and page in pages and anchor.lower() not in low[page]: probs.append(f'{n}: link to missing anchor {href}')
    return probs

def lint() -> list:
    "Cells that nbdev's docs processing executes (any cell with an import) although they hold other code too"
    # nbdev-proc-nbs (and so `build` and Quarto's deploy) runs every export cell and every cell that imports something,
    # without the cells between them: a test cell with an import line fails there (a name defined by an earlier test cell
    # is missing) after the whole test run. Imports belong in the import cells at the top.
    import ast, warnings
    from nbdev.process import NBProcessor
    from nbdev.processors import _do_eval
    probs = []
    for nbp in sorted((ROOT/'nbs').glob('*.ipynb')):
        for c in NBProcessor(nbp).nb.cells:
            if c.cell_type != 'code' or c.directives_.keys() & {'export', 'exports', 'exporti', 'exec_doc'}: continue
            with warnings.catch_warnings():
                warnings.simplefilter('ignore'); ev = _do_eval(c)
            if ev and any(not isinstance(t, (ast.Import, ast.ImportFrom)) for t in c.parsed_() or []):
                probs.append(f"{nbp.name} cell {c.idx_} mixes imports with other code (nbdev's docs run would execute it alone): "
                             f"move its imports to the notebook's import cell: {c.source.splitlines()[0][:70]}")
    for nbp in sorted((ROOT/'nbs').glob('*.ipynb')):   # nbdev reads a title cell's other lines as front matter: gone from the page
        md = [c for c in json.loads(nbp.read_text())['cells'] if c['cell_type'] == 'markdown'][:1]
        extra = [l for l in ''.join(md[0]['source']).splitlines()[1:] if l.strip() and not l.startswith('>')] if md else []
        if extra: probs.append(f"{nbp.name}: its title cell holds more than the title and the summary ({extra[0][:50]}...): "
                               f"nbdev drops those lines from the docs page; move them to a markdown cell of their own")
    return probs + all_problems() + line_problems() + cell_problems()

def chapters() -> dict:
    "Each chapter's module and the names it exports (its `__all__`, read from the module's source), in chapter order"
    import ast
    out = {}
    for nbp in sorted((ROOT/'nbs').glob('*.ipynb')):
        cells = json.loads(nbp.read_text())['cells']
        exp = [re.match(r'#\|\s*default_exp\s+(\S+)', ''.join(c['source'])) for c in cells]
        mod = next((m.group(1) for m in exp if m), None)
        if mod is None: continue
        tree = ast.parse((ROOT/'segdist_nb'/f'{mod}.py').read_text())
        alls = [n.value for n in tree.body
                if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == '__all__']
        out[mod] = ast.literal_eval(alls[0]) if alls else []
    return out

def all_problems() -> list:
    "`segdist_nb.all` star-imports every chapter's module, and no chapter's name shadows fastai's or another chapter's"
    src = (ROOT/'segdist_nb'/'all.py').read_text()
    got, chs = re.findall(r'^from \.(\w+) import \*', src, re.M), chapters()
    probs = [f"segdist_nb/all.py: add `from .{m} import *` (chapter {m}'s names are missing)"
             for m in chs if m not in got]
    probs += [f'segdist_nb/all.py: `from .{m} import *` is no chapter' for m in got if m not in chs]
    sys.path.insert(0, str(ROOT)); import segdist_nb   # fastai imported with torch's jit.script warning silenced
    import fastai.vision.all as fva, fastai.distributed as fd   # what `from segdist_nb.all import *` brings first
    theirs, seen = set(dir(fva)) | set(dir(fd)), {}
    for m, names in chs.items():
        for n in names:
            if n in theirs: probs.append(f'segdist_nb.{m}.{n} shadows fastai\'s {n} in segdist_nb.all: rename it')
            if n in seen:
                probs.append(f'segdist_nb.{m}.{n} shadows segdist_nb.{seen[n]}.{n} in segdist_nb.all: rename one')
            seen[n] = m
    return probs

MAX_LINE = 120
# Modules with lines over MAX_LINE not yet wrapped: the list only shrinks (a module wrapped leaves it; lint says when).
LONG_LEFT = set()

def long_lines(fn:Path) -> list:
    "Line numbers of `fn` over MAX_LINE characters, but for the `__all__` list nbdev writes"
    out, in_all = [], False
    for i, l in enumerate(fn.read_text().splitlines(), 1):
        if l.startswith('__all__ = [') or in_all: in_all = not l.rstrip().endswith(']'); continue
        if len(l) > MAX_LINE: out.append(i)
    return out

def line_problems() -> list:
    "No module line over MAX_LINE characters, but in the modules of LONG_LEFT; a module of LONG_LEFT wrapped leaves it"
    probs = []
    for fn in sorted((ROOT/'segdist_nb').glob('*.py')):
        if fn.name == '_modidx.py': continue
        n = long_lines(fn)
        if n and fn.stem not in LONG_LEFT:
            probs.append(f'segdist_nb/{fn.name}: {len(n)} line(s) over {MAX_LINE} characters (line {n[0]}): '
                         f'wrap them in its notebook')
        if not n and fn.stem in LONG_LEFT:
            probs.append(f'segdist_nb/{fn.name} has no line over {MAX_LINE} characters now: remove {fn.stem!r} '
                         f'from LONG_LEFT in tools/docs.py')
    return probs

def cell_problems() -> list:
    "Each `#| export` cell defines at most one function or class (the house rhythm: one definition, then its test)"
    import ast
    probs = []
    for nbp in sorted((ROOT/'nbs').glob('*.ipynb')):
        for i, c in enumerate(json.loads(nbp.read_text())['cells']):
            src = ''.join(c['source'])
            if c['cell_type'] != 'code' or not re.match(r'#\|\s*exports?\s*$', src.split('\n')[0]): continue
            body = ast.parse('\n'.join(l for l in src.split('\n') if not l.startswith('#|'))).body
            if any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body): continue   # an import cell may set things up
            defs = [n.name for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
            if len(defs) > 1: probs.append(f'{nbp.name} cell {i} defines {", ".join(defs)}: one definition per export '
                                           f'cell, each followed by its prose and test')
    return probs

_img_js = """<script>window.addEventListener('load', () => setTimeout(() => document.documentElement.setAttribute('data-imgs',
  JSON.stringify([...document.images].map(i => [i.getAttribute('src').slice(0, 80), i.complete ? i.naturalWidth : -1]))), 500));</script>"""

def shot() -> Path:
    "Render every page in headless Chromium: navigation in the index, every image loaded (natural width > 0); a screenshot"
    exe = shutil.which('chromium') or shutil.which('chromium-browser') or shutil.which('google-chrome')
    if exe is None:
        msg = 'docs: headless Chromium not found (Debian package chromium, or google-chrome)'
        if os.environ.get('CI'): raise SystemExit(msg)
        print(msg + ': SKIPPED the rendering check (CI runs it)'); return None
    flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
             '--disable-component-update', '--disable-sync', '--window-size=1280,1000']
    def dom(page):
        "The page's DOM after load, with the images' natural widths (a copy of the page with a script, beside it)"
        tmp = OUT/f'_shot_{page}'
        tmp.write_text(re.sub(r'</body>', _img_js.replace('\\', '\\\\') + '</body>', (OUT/page).read_text(), count=1))
        ud = f'--user-data-dir={OUT}/.chromium-{threading.get_ident()}'   # a profile each: two run at a time
        try: return subprocess.run([exe, *flags, ud, '--virtual-time-budget=5000', '--dump-dom', tmp.as_uri()],
                                   capture_output=True, text=True, timeout=120).stdout
        finally: tmp.unlink()
    want = [page_name(p) for p in PROC.glob('*.ipynb')]
    d = dom('index.html')
    miss = [p for p in want if f'href="{p}"' not in d]
    if 'segdist-nav' not in d or miss: raise SystemExit(f'docs: the rendered index lacks navigation to {miss}')
    bad, n_img = [], 0
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(2) as pool: doms = dict(zip(want, pool.map(lambda p: d if p == 'index.html' else dom(p), want)))
    for page in want:
        m = re.search(r"data-imgs=\"([^\"]*)\"", doms[page])
        if m is None: bad.append(f'{page}: the image check did not run'); continue
        imgs = json.loads(html.unescape(m.group(1)))
        n_img += len(imgs)
        bad += [f'{page}: image {src} did not load' for src, w in imgs if not w or w <= 0]
    if bad: raise SystemExit('docs: ' + '; '.join(bad))
    png = OUT/'screenshot.png'
    subprocess.run([exe, *flags, f'--user-data-dir={OUT}/.chromium', f'--screenshot={png}', (OUT/'index.html').as_uri()],
                   capture_output=True, timeout=120)
    if not png.exists() or png.stat().st_size < 10_000: raise SystemExit('docs: no screenshot written')
    print(f'docs: {len(want)} pages render, the index with navigation to all; {n_img} images loaded; screenshot {png}')
    return png

if __name__ == '__main__':
    cmd = sys.argv[1] if len(sys.argv) > 1 else 'build'
    if cmd == 'build': build()
    elif cmd == 'check':
        probs = check()
        for p in probs: print('docs:', p)
        print(f'docs check: {"FAILED, " + str(len(probs)) + " problem(s)" if probs else "every symbol documented, every chapter shows outputs, no error output, links and images resolve"}')
        sys.exit(1 if probs else 0)
    elif cmd == 'shot': shot()
    elif cmd == 'lint':
        probs = lint()
        for p in probs: print('docs:', p)
        sys.exit(1 if probs else 0)
    else: sys.exit(__doc__)
