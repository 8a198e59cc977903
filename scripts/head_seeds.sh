#!/usr/bin/env bash
# Head seeds apart from the encoder's (issue 42): TFLocal and the fine-tuned encoder trained again over the shipped
# embedded model with seeds 1 and 2 (the shipped heads are seed 0), as the shipped ones were (1200 steps x 16 items,
# --varied-renders 0.5), then each seed's pair scored on the world's test splits as docs/tflocal-world.md's table is.
#   scripts/head_seeds.sh            train what is missing (runs/heads/, resumable), then score each seed
# The weights stay in runs/heads/ (not in git); each training record (.json beside the weights) and each seed's report
# (docs/results/heads/seedS.json, with its CSV and HTML) are committed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
RUNS=runs/heads
OUT=docs/results/heads
mkdir -p "$RUNS" "$OUT"
for seed in 1 2; do
  for variant in local finetune; do
    weights="$RUNS/world-clip-$variant-seed$seed.safetensors"
    [ -f "$weights" ] || "$PY" -m explorer train-align --variant "$variant" --seed "$seed" --steps 1200 \
      --batch-items 16 --varied-renders 0.5 --no-card --out "$weights" --run-dir "$RUNS/run-$variant-seed$seed"
    cp "${weights%.safetensors}.json" "$OUT/train-$variant-seed$seed.json"
  done
  [ -f "$OUT/seed$seed.json" ] || "$PY" -m explorer eval --benchmark world --methods tflocal,finetune \
    --split id,heldout,shift,style --limit 200 \
    --set "tflocal.checkpoint=$RUNS/world-clip-local-seed$seed.safetensors" \
    --set "finetune.checkpoint=$RUNS/world-clip-finetune-seed$seed.safetensors" --json "$OUT/seed$seed.json"
done
