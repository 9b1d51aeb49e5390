#!/usr/bin/env bash
# The GPU check: one prepared script, under 8 minutes on one GPU (H100/H200 class).
#   bash tools/gpu_check.sh [DATA]
# DATA: a data set in the training layout (default: data/camvid12_subset, else ../shared/data/camvid12_subset, else
# the synthetic demo set). Everything it writes goes to $OUT (default runs/gpu_check):
#   1. the cuda-flagged notebook cells (chapters 03_model and 04_distributed), with those notebooks' other tests;
#   2. segdist-bench --gpus 1 at 256 px in bf16: the learner from PNGs and from the decode-once cache against plain
#      PyTorch, and the input pipeline per core from PNGs and from the cache, with the cores needed to feed this GPU
#      at its measured training rate (bench.json, bench.png, bench.txt);
#   3. a short training run on the GPU from the cache (the demo config, bf16), then segdist-predict on the GPU.
# Python: $PYTHON, else ./.venv/bin/python, else python3, whichever imports torch with CUDA. When it cannot import
# fastai and segdist_nb, a virtual environment .venv-gpu is made on top of it (its torch is kept); on a machine that
# cannot reach a package index, wheels of the missing packages in ./.whl are installed from there, e.g. made with
#   pip download fastai nbdev execnb pyyaml pyahocorasick -d .whl --python-version 3.12 --only-binary=:all:
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-runs/gpu_check}
mkdir -p "$out"
log() { echo "[gpu_check $(date +%H:%M:%S)] $*"; }

py=
for p in "${PYTHON:-}" .venv/bin/python python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null && "$p" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then echo "gpu_check: no Python here imports torch with a CUDA device: run this on a GPU machine" >&2; exit 2; fi
if ! "$py" -c 'import fastai, nbdev, segdist_nb' 2>/dev/null; then
  log "installing segdist_nb into .venv-gpu (on top of $py and its torch)"
  [ -x .venv-gpu/bin/python ] || "$py" -m venv --system-site-packages .venv-gpu
  py=.venv-gpu/bin/python
  if [ -d .whl ]; then pip_src=(--no-index --find-links .whl); else pip_src=(); fi
  "$py" -m pip install -q "${pip_src[@]}" --no-build-isolation -e . nbdev execnb
fi
bin=$(dirname "$py")
export PATH="$PWD/$bin:$PATH"
"$py" -c 'import torch; print("device:", torch.cuda.get_device_name(0), "| torch", torch.__version__)' | tee "$out/device.txt"

data=${1:-}
if [ -z "$data" ]; then
  for d in data/camvid12_subset ../shared/data/camvid12_subset; do [ -f "$d/codes.txt" ] && { data=$d; break; }; done
fi
data_opt=(); [ -n "$data" ] && data_opt=(--data "$data")

log "1/3 cuda-flagged notebook cells"
(cd nbs && for nb in $(grep -l '#| cuda' [0-9]*.ipynb); do timeout 300 nbdev-test "$nb" --flags cuda; done) 2>&1 | tee "$out/cuda_cells.txt"

log "2/3 segdist-bench --gpus 1, 256 px, bf16 (${data:-synthetic data})"
timeout 300 "$py" -m segdist_nb.benchmark --gpus 1 --sz 256 --bs 32 --precision bf16 --num-workers 4 --reps 5 --steps 5 \
  --no-split --out "$out/bench" "${data_opt[@]}" 2>&1 | tee "$out/bench.txt"

log "3/3 train from the cache on the GPU, then segdist-predict on the GPU"
rm -rf "$out/run" "$out/pred"
timeout 240 "$py" train.py --config configs/demo.yaml --cache --precision bf16 --out "$out/run" 2>&1 | tail -5 | tee "$out/train.txt"
timeout 120 "$bin/segdist-predict" "$out/run/model.pkl" data/synth/images "$out/pred" --bs 32 2>&1 | tee "$out/predict.txt"
log "done: figures in $out"
