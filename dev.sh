#!/usr/bin/env bash
# The project's two entry points, from a fresh clone:
#   bash dev.sh demo [train.py options]   set up .venv, make the synthetic data set, train the demo on 2 CPU processes
#   bash dev.sh test [--fast]             set up .venv, check notebook/package sync and cleanliness,
#                                         validate the GitHub workflows, run every notebook once in a Jupyter kernel
#                                         (tools/run_nbs.py; outputs saved in nbs_exec/), check nbs/ is left as it was,
#                                         build and check the docs with those outputs (headless Chromium)
#   bash dev.sh docs                      build the docs without Quarto into _docs_offline/ and check them
# Both create (or reuse) ./.venv and install the project into it with its dev extra.
# PYTHON picks the interpreter (default python3, >= 3.10); TORCH_INDEX_URL, when set, is where torch comes from
# (e.g. https://download.pytorch.org/whl/cpu for a CPU-only build).
set -euo pipefail
cd "$(dirname "$0")"
root=$PWD
py=${PYTHON:-python3}

setup() {
  [ -x .venv/bin/python ] || "$py" -m venv .venv
  local stamp=.venv/.segdist-installed
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip   # a fresh clone set up in 145 s with it, 202 s without (one run each)
    if [ -n "${TORCH_INDEX_URL:-}" ]; then .venv/bin/python -m pip install -q torch torchvision --index-url "$TORCH_INDEX_URL"; fi
    # pip byte-compiles the 21,000 modules it installs one after another; compileall does it on every core. Compiled
    # here, not on first import: where PYTHONDONTWRITEBYTECODE is set (this project's machines), a module left
    # uncompiled is compiled again by every process that imports it (a few files that are not Python 3.11 fail: as pip)
    .venv/bin/python -m pip install -q --no-compile -e ".[dev]"
    .venv/bin/python -m compileall -q -j 0 .venv/lib > /dev/null 2>&1 || true
    touch "$stamp"
  fi
  export PATH="$root/.venv/bin:$PATH" PYBIN="$root/.venv/bin/python"
}

readme() {
  # README.md from nbs/index.ipynb without Quarto (which nbdev-readme needs and these machines lack):
  # markdown cells as they are, code cells not marked `#| hide` as python blocks
  "${PYBIN:-python3}" - <<'PY'
import json
cells = json.load(open('nbs/index.ipynb'))['cells']
out = []
for c in cells:
    src = ''.join(c['source']).strip()
    if c['cell_type'] == 'markdown': out.append(src.replace('](images/', '](nbs/images/'))   # the notebook's images, seen from the root
    elif not src.startswith('#| hide'): out.append('```python\n' + src + '\n```')
open('README.md', 'w').write('<!-- made from nbs/index.ipynb by `bash dev.sh readme`: edit the notebook, not this file -->\n\n' + '\n\n'.join(out) + '\n')
PY
}

sync_check() {
  # nbdev-export must not change the package, nbdev-clean must not change a notebook
  local snap; snap=$(mktemp -d)
  cp -r segdist_nb "$snap/lib"; cp -r nbs "$snap/nbs"; cp README.md "$snap/README.md"
  nbdev-export
  nbdev-clean
  readme
  local bad=0
  if ! diff -r -x __pycache__ "$snap/lib" segdist_nb; then
    echo "FAIL: notebooks and segdist_nb/ are out of sync: run nbdev-export and commit the result"; bad=1; fi
  if ! diff -r -x .ipynb_checkpoints "$snap/nbs" nbs >/dev/null; then
    diff -rq -x .ipynb_checkpoints "$snap/nbs" nbs || true
    echo "FAIL: notebooks are not clean: run nbdev-clean and commit the result"; bad=1; fi
  if ! diff "$snap/README.md" README.md; then
    echo "FAIL: README.md is not made from nbs/index.ipynb: run bash dev.sh readme and commit the result"; bad=1; fi
  rm -rf "$snap"
  python tools/docs.py lint || { echo "FAIL: tools/docs.py lint (above)"; bad=1; }
  return $bad
}

workflow_check() {
  check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yaml
  zizmor --offline --min-severity medium .github/workflows/
  bash -n tools/gpu_check.sh   # the GPU check runs only where a GPU is; here it must at least parse
}

docs_check() {
  # the docs site without Quarto (tools/docs.py): build, check symbols/errors/links, render in headless Chromium
  python tools/docs.py build
  python tools/docs.py check
  if ! command -v chromium >/dev/null && ! command -v google-chrome >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
  fi
  python tools/docs.py shot
}

nbs_files() { (cd nbs && find . -path ./.ipynb_checkpoints -prune -o -type f -print | sort); }

run_tests() {
  # every notebook once, in a Jupyter kernel, two at a time, with the cells nbdev-test would run; the executed copies go
  # to nbs_exec/ for the docs (tools/docs.py build); tests write only into temporary folders: nbs/ must not change
  local flags="slow"; [ "${1:-}" = "--fast" ] && flags=""
  python -m compileall -q segdist_nb > /dev/null   # the package's modules as exported (see setup)
  python tools/run_nbs.py --flags "$flags" 2>&1 | { grep --line-buffered -v 'without encryption' || true; }
  return "${PIPESTATUS[0]}"
}

phase() { local now; now=$(date +%s); echo "dev.sh: $1 took $((now - ${t_phase:-$now})) s"; t_phase=$now; }

cmd=${1:-}; shift || true
case "$cmd" in
  demo)
    setup
    python -m segdist_nb.launch --cpus 2 train.py --config configs/demo.yaml "$@" ;;
  readme)
    readme ;;
  docs)
    setup
    docs_check ;;
  test)
    t_start=$(date +%s); t_phase=$t_start
    setup; phase "set-up (.venv)"
    sync_check
    workflow_check; phase "sync, clean and workflow checks"
    before=$(nbs_files)
    run_tests "$@"; phase "notebooks"
    if [ "$(nbs_files)" != "$before" ]; then
      diff <(echo "$before") <(nbs_files) || true
      echo "FAIL: the tests left files in nbs/ (above): tests must write only into temporary folders they remove"; exit 1
    fi
    docs_check; phase "docs"
    echo "dev.sh test: $(( $(date +%s) - t_start )) s in all" ;;
  *)
    echo "usage: bash dev.sh demo [train.py options] | bash dev.sh test [--fast] | bash dev.sh docs | bash dev.sh readme"; exit 2 ;;
esac
