#!/usr/bin/env bash
# The GPU check: one prepared script, about 8 minutes on one GPU (H100/H200 class).
#   bash tools/gpu_check.sh
# Everything it writes goes to $OUT (default runs/gpu_check); each step has its own time limit and the next step runs
# even when one fails (its log says so):
#   1. tools/gpu_check.py: what the `cuda` cells of chapters 00c, 03 and 04 check (the side-stream copy, training steps
#      with no host sync under `set_sync_debug_mode('error')`, mixed precision chosen by device, a step in bf16, the
#      nccl broadcast of DistributedDL), and the notebook launcher of chapter 05e on the GPU
#      (`launch_nb(gpus='0')`, `train_nb(gpus='0')`, the model back in this process on the GPU);
#   2. a short training run on the GPU from the decode-once cache (the demo config, bf16), then segdist-predict;
#   3. segdist-bench --gpus 1 at 256 px in bf16 on the synthetic set: the learner from PNGs and from the cache
#      against plain PyTorch, and the input pipeline per core, with the cores needed to feed this GPU;
#   4. segdist-bench --speed --gpus 1 at 256 px in bf16: one process's training step and inference in eager PyTorch,
#      channels-last and the compiled U-Net (inductor) side by side, with the share of the GPU's bf16 peak.
# Python: $PYTHON, else ./.venv/bin/python, else python3, whichever imports torch with CUDA. Where fastai is missing
# (a GPU machine that cannot reach a package index), the wheels in ./.whl are installed into /tmp/site first: fastai
# and what it imports that such a machine lacks (3 MB; torch, accelerate, numpy, pandas, matplotlib are there), made on
# a machine with an index for the GPU machine's Python (3.12 here):
#   pip download -d .whl --only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any --no-deps fastai fastcore \
#     fasttransform fastprogress fastdownload plum-dispatch beartype python-fasthtml starlette oauthlib itsdangerous \
#     uvicorn httpx2 httpcore2 truststore python-multipart beautifulsoup4 soupsieve pyahocorasick
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-runs/gpu_check}
mkdir -p "$out"
log() { echo "[gpu_check $(date +%H:%M:%S)] $*"; }

py=
for p in "${PYTHON:-}" .venv/bin/python python3; do
  if [ -n "$p" ] && command -v "$p" >/dev/null && "$p" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then echo "gpu_check: no Python here imports torch with a CUDA device: run this on a GPU machine" >&2; exit 2; fi
if ! "$py" -c 'import fastai' 2>/dev/null && [ -d .whl ]; then
  log "installing the wheels in .whl into /tmp/site (no index here)"
  "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 2
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONWARNINGS=ignore PYTHONUNBUFFERED=1
"$py" -c 'import torch; print("device:", torch.cuda.get_device_name(0), "| torch", torch.__version__)' | tee "$out/device.txt"

log "1/4 the cuda cells' checks and the notebook launcher on the GPU"
timeout 200 "$py" tools/gpu_check.py "$out" 2>&1 | tee "$out/checks.txt" || log "step 1 FAILED"

log "2/4 train from the cache on the GPU, then segdist-predict on the GPU"
rm -rf "$out/run" "$out/pred"
timeout 150 "$py" train.py --config configs/demo.yaml --cache --precision bf16 --out "$out/run" 2>&1 | tail -6 | tee "$out/train.txt" || log "step 2 FAILED"
timeout 50 "$py" -m segdist_nb.predict "$out/run/model.pkl" data/synth/images "$out/pred" --bs 32 2>&1 | tail -3 | tee "$out/predict.txt" || log "predict FAILED"

log "3/4 segdist-bench --gpus 1, 256 px, bf16 (synthetic data)"
timeout 180 "$py" -m segdist_nb.benchmark --gpus 1 --sz 256 --bs 32 --precision bf16 --num-workers 4 --reps 5 --steps 5 \
  --no-split --out "$out/bench" 2>&1 | tee "$out/bench.txt" || log "step 3 FAILED"
cp "$out/bench/bench.json" "$out/bench/bench.png" "$out/" 2>/dev/null

log "4/4 segdist-bench --speed --gpus 1, 256 px, bf16: eager, channels-last, compiled"
timeout 200 "$py" -m segdist_nb.benchmark --speed --gpus 1 --sz 256 --bs 16 --compile inductor \
  --out "$out/speed" 2>&1 | tee "$out/speed.txt" || log "step 4 FAILED"
cp "$out/speed/speed.json" "$out/" 2>/dev/null
log "done: figures in $out"
