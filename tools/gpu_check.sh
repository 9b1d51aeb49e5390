#!/usr/bin/env bash
# The GPU check: one prepared script for a bare machine with one GPU (H100/H200 class), at most 8 minutes, in two tiers.
#   bash tools/gpu_check.sh [--tier 1|2|all] [--dry-run]
# Before the call, on a machine with a package index: `python tools/gpu_wheels.py` gathers into ./.whl (ignored by git,
# under 64 MiB; the call carries it: `carry: [".whl"]`) the wheels that the GPU image lacks for its Python 3.12 (fastai
# and its own, fastprogress's web stack, segmentation-models-pytorch, pyahocorasick, ...), and checks them there.
# Every step runs under `timeout -k`: its limit (the dry run's second column) includes the kill grace, the limits add
# up to at most 480 s (tier 1 to at most 360 s; chapter 06b's test checks it with --dry-run, which prints each step's
# tier, limit, name and command instead of running it), and the next step runs even when one fails. The last line
# names each step that failed (or says that all passed), and the exit status is the number of failed steps (0: all
# passed; 2 with "usage" for a bad option). Everything goes to $OUT (default runs/gpu_check), one log per step.
#   tier 1  device    which Python (from $PYTHON, else ./.venv/bin/python, else python3) and that its torch sees a GPU;
#                     nothing else runs without it (with --tier 2, this step and the next run first)
#           install   the wheels in .whl, into /tmp/site (on PYTHONPATH); skipped, with a line, where there is no .whl
#           checks    tools/gpu_check.py: the `cuda` cells of chapters 01c, 03 and 04 (the side-stream copy, steps with
#                     no host sync under `set_sync_debug_mode('error')`, the recipe's own callbacks included, mixed
#                     precision chosen by device, nccl's broadcast), and the notebook launcher on the GPU
#           gloo      tools/gpu_gloo.py: train.py's recipe (the demo config, one stage of 2 epochs) in 2 processes on
#                     the one GPU over gloo, with --sync-bn and --accum 2: SegDistributedDL, SegDistributedTrainer,
#                     synchronised BatchNorm and accumulation on CUDA, checked from inside each rank
#           bench     segdist-bench scaling --gpus 1, 256 px, bf16, batch 32, epochs of 1,024 images: the learner from
#                     the cache against plain PyTorch fed from memory, for SMP's U-Net (the default)
#   tier 2  train     a short run from the cache on the GPU (the demo config, bf16), then segdist-predict
#           speed     segdist-bench speed --gpus 1, 256 px, bf16: one process's training step and inference engines
#           bench     the same benchmark as tier 1's for the seed's DynamicUnet, 3 repetitions
set -uo pipefail
cd "$(dirname "$0")/.."
tier=all dry=0 grace=5
while [ $# -gt 0 ]; do
  case "$1" in
    --tier) tier=${2:-}; shift 2 || shift ;;
    --dry-run) dry=1; shift ;;
    *) tier=bad; shift ;;
  esac
done
case "$tier" in 1|2|all) ;; *) echo "usage: bash tools/gpu_check.sh [--tier 1|2|all] [--dry-run]" >&2; exit 2 ;; esac
out=${OUT:-runs/gpu_check}
log() { echo "[gpu_check $(date +%H:%M:%S)] $*"; }
failed=() ran=0

# step TIER LIMIT NAME CMD...: run CMD for at most LIMIT seconds (TERM at LIMIT-grace, KILL at LIMIT), its output in
# $out/NAME.txt; a non-zero exit is recorded with the step's name (with --dry-run: print the step instead)
step() {
  local t=$1 limit=$2 name=$3; shift 3
  if [ "$tier" != all ] && [ "$tier" != "$t" ]; then return 0; fi
  if [ $dry = 1 ]; then printf '%s\t%s\t%s\t' "$t" "$limit" "$name"; printf '%q ' "$@"; echo; return 0; fi
  ran=$((ran + 1))
  log "tier $t: $name (at most $limit s)"
  timeout -k "$grace" "$((limit - grace))" "$@" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" != 0 ]; then
    local why="exit $rc"; { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && why="time limit of $limit s"
    failed+=("$name ($why)"); log "$name FAILED ($why)"
  fi
  return "$rc"
}

summary() {
  if [ ${#failed[@]} = 0 ]; then log "all $ran steps passed; figures in $out"
  else log "FAILED ${#failed[@]} of $ran steps: $(IFS=';'; echo "${failed[*]}" | sed 's/;/; /g'); logs in $out"; fi
  exit ${#failed[@]}
}

py=${PYTHON:-}
if [ -z "$py" ]; then py=python3; [ -x .venv/bin/python ] && py=.venv/bin/python; fi
if [ $dry = 0 ]; then
  mkdir -p "$out"
  export PYTHONPATH="$PWD:/tmp/site" PYTHONWARNINGS=ignore PYTHONUNBUFFERED=1
fi
gpu='import torch; assert torch.cuda.is_available(), "no GPU"; print(torch.cuda.get_device_name(0), torch.__version__)'
pre=1; [ "$tier" = 2 ] && pre=2   # the device and the wheels come first in any tier
if ! step $pre 20 device "$py" -c "$gpu"; then
  log "no Python here imports torch with a GPU ($py; set PYTHON=...): nothing else can run"; summary
fi
if [ $dry = 1 ] || compgen -G '.whl/*.whl' >/dev/null; then
  step $pre 40 install "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl
else
  log "no wheels in .whl: this Python's packages are used (python tools/gpu_wheels.py makes them, where an index is)"
fi

bench=(-m segdist_nb.benchmark scaling --gpus 1 --sz 256 --bs 32 --precision bf16 --epoch-items 1024 --warmup 5
       --steps 10 --kinds learner_cache,plain --no-pipeline --no-split)
step 1 110 checks "$py" tools/gpu_check.py "$out"
step 1 80 gloo "$py" -m torch.distributed.run --standalone --nproc-per-node 2 tools/gpu_gloo.py \
  --config configs/demo.yaml --stages stage-1-small --epochs-scale 0.34 --sync-bn --accum 2 --precision bf16 \
  --out "$out/gloo_run"
step 1 95 bench_unet "$py" "${bench[@]}" --reps 5 --out "$out/bench_unet"
step 2 45 train "$py" train.py --config configs/demo.yaml --pretrained false --precision bf16 --out "$out/run"
step 2 15 predict "$py" -m segdist_nb.predict "$out/run/model.pkl" data/synth/images "$out/pred" --bs 32
step 2 35 speed "$py" -m segdist_nb.benchmark speed --gpus 1 --sz 256 --bs 16 --calib 0 --out "$out/speed"
step 2 40 bench_fastai "$py" "${bench[@]}" --reps 3 --decoder fastai --data "$out/bench_unet/synth" \
  --out "$out/bench_fastai"
[ $dry = 1 ] || summary
