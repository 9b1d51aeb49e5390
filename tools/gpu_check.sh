#!/usr/bin/env bash
# The GPU check: one prepared script, at most 8 minutes on one GPU (H100/H200 class), in two tiers.
#   bash tools/gpu_check.sh [--tier 1|2|all] [--dry-run]
# Tier 1 (at most 6 minutes, the installs included) is what a short loan must get done; tier 2 (2 minutes) follows when
# there is time. Each step has its own time limit, the limits add up to 480 s (the suite checks it with --dry-run, which
# prints each step's tier, limit, name and command instead of running it), and the next step runs even when one fails
# (its log says so). Everything goes to $OUT (default runs/gpu_check), one log per step.
#   tier 1  install   the wheels in .whl, when fastai or segmentation_models_pytorch is missing (the GPU image has
#                     torch, timm, accelerate, huggingface_hub, tifffile, ...; not fastai and its own, nor SMP)
#           checks    tools/gpu_check.py: the `cuda` cells of chapters 01c, 03 and 04 (the side-stream copy, steps with
#                     no host sync under `set_sync_debug_mode('error')`, the recipe's own callbacks included, mixed
#                     precision chosen by device, nccl's broadcast), and the notebook launcher on the GPU
#           bench     segdist-bench scaling --gpus 1, 256 px, bf16, batch 32, epochs of 1,024 images: the learner from the cache
#                     against plain PyTorch fed from memory, for SMP's U-Net (the default) and the seed's DynamicUnet
#   tier 2  train     a short run from the cache on the GPU (the demo config, bf16), then segdist-predict
#           speed     segdist-bench speed --gpus 1, 256 px, bf16: one process's training step and inference engines
# Python: $PYTHON, else ./.venv/bin/python, else python3, whichever imports torch with CUDA. The wheels, made on a
# machine with a package index for the GPU machine's Python (3.12 there), into ./.whl (ignored by git; carried):
#   pip download -d .whl --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
#     fastai fastcore fasttransform fastprogress fastdownload plum-dispatch beartype python-fasthtml starlette oauthlib \
#     itsdangerous uvicorn httpx2 httpcore2 truststore python-multipart beautifulsoup4 soupsieve pyahocorasick \
#     python-hostlist segmentation-models-pytorch
set -uo pipefail
cd "$(dirname "$0")/.."
tier=all dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tier) tier=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    *) echo "usage: bash tools/gpu_check.sh [--tier 1|2|all] [--dry-run]" >&2; exit 2 ;;
  esac
done
out=${OUT:-runs/gpu_check}
log() { echo "[gpu_check $(date +%H:%M:%S)] $*"; }

# step TIER LIMIT NAME CMD...: run CMD with a time limit, its output in $out/NAME.txt (with --dry-run: print the step)
step() {
  local t=$1 limit=$2 name=$3; shift 3
  if [ "$tier" != all ] && [ "$tier" != "$t" ]; then return 0; fi
  if [ $dry = 1 ]; then printf '%s\t%s\t%s\t%s\n' "$t" "$limit" "$name" "$*"; return 0; fi
  log "tier $t: $name (at most $limit s)"
  timeout "$limit" "$@" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || log "$name FAILED (exit $rc$([ "$rc" = 124 ] && echo ': time limit'))"
}

py=${PYTHON:-python3}
if [ $dry = 0 ]; then
  mkdir -p "$out"
  py=
  for p in "${PYTHON:-}" .venv/bin/python python3; do
    if [ -n "$p" ] && command -v "$p" >/dev/null && "$p" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then py=$p; break; fi
  done
  if [ -z "$py" ]; then echo "gpu_check: no Python here imports torch with a CUDA device: run this on a GPU machine" >&2; exit 2; fi
  if ! "$py" -c 'import fastai, segmentation_models_pytorch' 2>/dev/null; then
    [ -d .whl ] || { echo "gpu_check: fastai or segmentation_models_pytorch is missing and there is no .whl folder: make it as the header says" >&2; exit 2; }
    step 1 60 install "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site
  fi
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONWARNINGS=ignore PYTHONUNBUFFERED=1
  "$py" -c 'import torch; print("device:", torch.cuda.get_device_name(0), "| torch", torch.__version__)' | tee "$out/device.txt"
else
  step 1 60 install "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi

bench=(-m segdist_nb.benchmark scaling --gpus 1 --sz 256 --bs 32 --precision bf16 --epoch-items 1024 --warmup 5 --steps 10 --reps 5
       --kinds learner_cache,plain --no-pipeline --no-split)
step 1 110 checks "$py" tools/gpu_check.py "$out"
step 1 95 bench_unet "$py" "${bench[@]}" --out "$out/bench_unet"
step 1 95 bench_fastai "$py" "${bench[@]}" --decoder fastai --data "$out/bench_unet/synth" --out "$out/bench_fastai"
step 2 60 train "$py" train.py --config configs/demo.yaml --pretrained false --precision bf16 --out "$out/run"
step 2 20 predict "$py" -m segdist_nb.predict "$out/run/model.pkl" data/synth/images "$out/pred" --bs 32
step 2 40 speed "$py" -m segdist_nb.benchmark speed --gpus 1 --sz 256 --bs 16 --calib 0 --out "$out/speed"
[ $dry = 1 ] || log "done: figures in $out"
