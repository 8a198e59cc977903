#!/usr/bin/env bash
# The embedded model's retrain for drawings on any background (issue 41), step by step, with fixed seeds:
#   scripts/retrain_varied.sh scratch      the shipped recipe plus --varied-renders 0.5 / 0.8 from scratch (1 thread each;
#                                          they learn colours but not shapes in 4000 steps: docs/drawings.md)
#   scripts/retrain_varied.sh candidates   the shipped model (as of commit FORMER) plus WARM_STEPS (default 1500) steps of
#                                          --varied-renders for each of SHARES (default "0.5 0.8"; train-world --init), one
#                                          thread each when there are several; PRECISION=fp32 on a CPU without native bf16,
#                                          where bf16 matrix products are emulated (AMD EPYC, AVX2:
#                                          3.6 s against 0.046 s in fp32 for an 8192x256 by 256x1024 product, 2 threads)
#   scripts/retrain_varied.sh continue RUN STEPS SEED [TAG]
#                                          run RUN's weights plus STEPS more steps of the same recipe with --seed SEED
#                                          (fresh batches) and the looks as they are now: RUN-TAGSTEPS (TAG p, the
#                                          default: the varied looks draw triangles and stars in varied proportions;
#                                          m: and mottled backgrounds)
#   scripts/retrain_varied.sh twin RUN STEPS SEED [LAMBDA]
#                                          the PowerCLIP twin of the stage after RUN: the same init, seed, steps and looks,
#                                          the loss plus lambda (default 0.1, chosen on val: docs/powerclip-world.md) times
#                                          PowerCLIP's triplet term: runs/varied/world-clip-powerclip-RUN-pcSTEPS
#   scripts/retrain_varied.sh choose       each run's world-single top-1 on the val splits (every run in runs/varied not yet
#                                          read); the rule picks one among every run reported in
#                                          docs/results/drawings/warm-*-val-single.json
#   scripts/retrain_varied.sh stage RUN    the pick's weights in bf16 (fp32 where bf16 moves a val figure) and its record
#                                          with the lineage of its warm starts, in checkpoints/candidates/ (in git: the
#                                          runs behind it need not outlive the machine they were made on)
#   scripts/retrain_varied.sh ship RUN     the staged pick (staged first if it is not) becomes
#                                          checkpoints/world-clip, its card measured from what is
#                                          stored, the choice recorded
#   scripts/retrain_varied.sh ship-twin RUN STEPS
#                                          that twin becomes checkpoints/world-clip-powerclip (bf16 where
#                                          that moves no val figure), its record with its lineage, its card measured
#   scripts/retrain_varied.sh align F      TFLocal, TFGlobal and the fine-tuned baseline over it, with --varied-renders F
#   scripts/retrain_varied.sh ship-align P aligners trained over the staged pick before it shipped (runs/varied/P-align-V,
#                                          `train-align --checkpoint` the candidate: the same bytes as the shipped model)
#                                          become the shipped ones, each card measured over the embedded model; the
#                                          fine-tuned encoder in bf16 where that moves no figure of its card
# Runs and their resumable state live in runs/varied/ (not in git); the reports the choice reads in docs/results/drawings/.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
RUNS=runs/varied
OUT=docs/results/drawings
RECIPE=(--coverage 0.75 --seed 1 --steps 4000 --batch-size 128 --lr 0.001 --objective clip --extra-concepts 16
        --benchmark-share 0.35 --precision "${PRECISION:-bf16}" --device cpu)  # PRECISION=fp32 on a CPU without native bf16
read -r -a SHARES <<< "${SHARES:-0.5 0.8}"
WARM_STEPS="${WARM_STEPS:-1500}"
THREADS=$(( ${#SHARES[@]} > 1 ? 1 : 2 ))
FORMER=ee04569  # a commit whose world-clip.safetensors (in explorer/shipped/checkpoints/ then) is the model shipped before
WARM=(--steps "$WARM_STEPS" --lr 0.0003 --init "$RUNS/former-world-clip.safetensors")
VAL=val-id,val-heldout,val-shift,val-style,val-drawn-white,val-drawn-light,val-drawn-grey,val-drawn-dark
RULE=val-heldout,val-style,val-drawn-white,val-drawn-light,val-drawn-grey,val-drawn-dark
SHIPPED=checkpoints
CANDIDATES=checkpoints/candidates  # a chosen run's weights (as they will ship) and record, kept in git until shipped

to_bf16() {  # SRC DST: a safetensors file with its floating-point tensors in bf16
  "$PY" - "$1" "$2" <<'PYEOF'
import sys
import torch
from safetensors.torch import load_file, save_file
weights = load_file(sys.argv[1])
save_file({k: t.to(torch.bfloat16) if t.is_floating_point() else t for k, t in weights.items()}, sys.argv[2])
PYEOF
}

store_weights() {  # RUN DST: RUN's weights at DST, in bf16 unless that moves a top-1 of RUN's val report
  to_bf16 "$RUNS/world-clip-$1.safetensors" "$2"
  "$PY" -m explorer eval --benchmark world-single --methods global --split "$VAL" --limit 500 \
    --checkpoint "$2" --json "$RUNS/bf16-val-single.json" > /dev/null
  "$PY" - "$OUT/$(report_of "$1")" "$RUNS/bf16-val-single.json" <<'PYEOF' || cp "$RUNS/world-clip-$1.safetensors" "$2"
import json, sys
full, half = (json.load(open(p))["results"]["global"] for p in sys.argv[1:])
moved = {s: (full[s]["single"]["top1"], half[s]["single"]["top1"]) for s in full if full[s] != half[s]}
print("bf16 storage moves" if moved else "bf16 storage moves no figure", moved or "")
sys.exit(1 if moved else 0)
PYEOF
}

report_of() {  # RUN: the name of its val report in docs/results/drawings
  case "$1" in powerclip-*) echo "twin-$1-val-single.json" ;; *) echo "warm-$1-val-single.json" ;; esac
}

add_lineage() {  # RECORD INIT: the former model and each warm start up to INIT (the run RECORD started from)
  local parts prefix part stages=()
  IFS=- read -r -a parts <<< "$2"; prefix="${parts[0]}-${parts[1]}"  # v0.5-s3000-c1000-p2500
  stages+=("$OUT/train-warm-$prefix.json:$RUNS/world-clip-$prefix.safetensors")
  for part in "${parts[@]:2}"; do
    prefix="$prefix-$part"; stages+=("$OUT/train-warm-$prefix.json:$RUNS/world-clip-$prefix.safetensors")
  done
  git show "$FORMER:explorer/shipped/checkpoints/world-clip.json" > "$RUNS/former-world-clip.json"
  "$PY" scripts/record_lineage.py "$1" --origin "$RUNS/former-world-clip.safetensors" \
    --origin-record "$RUNS/former-world-clip.json" --what "the model shipped at commit $FORMER" \
    --how "scripts/retrain_varied.sh" "${stages[@]}"
}

case "${1:-}" in
  scratch)
    mkdir -p "$RUNS"
    for v in "${SHARES[@]}"; do
      "$PY" -m explorer train-world "${RECIPE[@]}" --threads 1 --varied-renders "$v" \
        --out "$RUNS/scratch-v$v.safetensors" --run-dir "$RUNS/run-scratch-v$v" > "$RUNS/log-scratch-v$v.txt" 2>&1 &
    done
    wait ;;
  candidates)
    mkdir -p "$RUNS"
    git show "$FORMER:explorer/shipped/checkpoints/world-clip.safetensors" > "$RUNS/former-world-clip.safetensors"
    for v in "${SHARES[@]}"; do
      "$PY" -m explorer train-world "${RECIPE[@]}" "${WARM[@]}" --threads "$THREADS" --varied-renders "$v" \
        --out "$RUNS/world-clip-v$v-s$WARM_STEPS.safetensors" --run-dir "$RUNS/run-v$v-s$WARM_STEPS" \
        > "$RUNS/log-v$v-s$WARM_STEPS.txt" 2>&1 &
    done
    wait ;;
  continue)
    from="${2:?the run to continue, e.g. v0.5-s3000-c1000}"; steps="${3:?steps}"; seed="${4:?seed}"
    run="$from-${5:-p}$steps"
    "$PY" -m explorer train-world "${RECIPE[@]}" --steps "$steps" --lr 0.0003 --seed "$seed" --threads 2 \
      --varied-renders 0.5 --init "$RUNS/world-clip-$from.safetensors" --no-card \
      --out "$RUNS/world-clip-$run.safetensors" --run-dir "$RUNS/run-$run" > "$RUNS/log-$run.txt" 2>&1
    cp "$RUNS/world-clip-$run.json" "$OUT/train-warm-$run.json" ;;
  twin)
    from="${2:?the stage the twin starts from, e.g. v0.5-s3000-c1000-p2500}"; steps="${3:?steps}"; seed="${4:?seed}"
    run="powerclip-$from-pc$steps"
    "$PY" -m explorer train-world "${RECIPE[@]}" --objective powerclip --powerclip-lambda "${5:-0.1}" --steps "$steps" \
      --lr 0.0003 --seed "$seed" --threads 2 --varied-renders 0.5 --init "$RUNS/world-clip-$from.safetensors" --no-card \
      --out "$RUNS/world-clip-$run.safetensors" --run-dir "$RUNS/run-$run" > "$RUNS/log-$run.txt" 2>&1
    cp "$RUNS/world-clip-$run.json" "$OUT/train-twin-$run.json" ;;
  choose)
    mkdir -p "$OUT"
    [ -f "$OUT/former-val-single.json" ] || "$PY" -m explorer eval --benchmark world-single --methods global \
      --split "$VAL" --limit 500 --checkpoint "$RUNS/former-world-clip.safetensors" --json "$OUT/former-val-single.json" > /dev/null
    for weights in "$RUNS"/world-clip-v*.safetensors; do  # every run made here, each read once
      run="${weights#"$RUNS"/world-clip-}"; run="${run%.safetensors}"
      [ -f "$OUT/warm-$run-val-single.json" ] || "$PY" -m explorer eval --benchmark world-single --methods global \
        --split "$VAL" --limit 500 --checkpoint "$RUNS/world-clip-$run.safetensors" --json "$OUT/warm-$run-val-single.json" > /dev/null
    done
    "$PY" scripts/choose_on_val.py v0="$OUT/former-val-single.json" $(ls "$OUT"/warm-v*-val-single.json | sed -E 's#.*/warm-(.*)-val-single.json#\1=&#') \
      --splits "$RULE" --incumbent v0 --varied "\`--varied-renders\` (v0: the model shipped before, its recipe without it)" ;;
  stage)
    run="${2:?the chosen run, e.g. v0.5-s3000-c1000-p2500-m2000}"
    cand="$CANDIDATES/world-clip-$run"; mkdir -p "$CANDIDATES"
    store_weights "$run" "$cand.safetensors"
    cp "$RUNS/world-clip-$run.json" "$cand.json"
    add_lineage "$cand.json" "${run%-*}" ;;
  ship)
    run="${2:?the chosen run, e.g. v0.5-s3000-c1000-p2500-m2000}"
    cand="$CANDIDATES/world-clip-$run"
    [ -f "$cand.safetensors" ] || "$0" stage "$run"
    git mv -f "$cand.safetensors" "$SHIPPED/world-clip.safetensors"  # the same bytes: git keeps them once
    git mv -f "$cand.json" "$SHIPPED/world-clip.json"
    "$PY" scripts/choose_on_val.py v0="$OUT/former-val-single.json" $(ls "$OUT"/warm-v*-val-single.json | sed -E 's#.*/warm-(.*)-val-single.json#\1=&#') \
      --splits "$RULE" --incumbent v0 --varied "\`--varied-renders\` and the warm steps (v0: the model shipped before)" \
      --record "$SHIPPED/world-clip.json" --as "$run"
    "$PY" -m explorer model-card ;;
  align)
    v="${2:?the chosen --varied-renders share}"
    for variant in local global finetune; do
      "$PY" -m explorer train-align --variant "$variant" --seed 0 --steps 1200 --batch-items 16 --varied-renders "$v" \
        --run-dir "$RUNS/align-$variant"
    done ;;
  ship-twin)
    from="${2:?the stage the twin started from, e.g. v0.5-s3000-c1000-p2500}"; steps="${3:?steps}"
    run="powerclip-$from-pc$steps"; twin="$SHIPPED/world-clip-powerclip"
    [ -f "$OUT/$(report_of "$run")" ] || "$PY" -m explorer eval --benchmark world-single --methods global \
      --split "$VAL" --limit 500 --checkpoint "$RUNS/world-clip-$run.safetensors" --json "$OUT/$(report_of "$run")" > /dev/null
    store_weights "$run" "$twin.safetensors"
    cp "$RUNS/world-clip-$run.json" "$twin.json"
    add_lineage "$twin.json" "$from"
    "$PY" -m explorer model-card --checkpoint world-clip-powerclip ;;
  ship-align)
    prefix="${2:?the prefix of the aligners in runs/varied, e.g. m2000}"
    for pair in local:tflocal global:tfglobal finetune:finetune; do
      variant="${pair%%:*}"; name="world-clip-${pair#*:}"
      cp "$RUNS/$prefix-align-$variant.safetensors" "$SHIPPED/$name.safetensors"
      "$PY" - "$RUNS/$prefix-align-$variant.json" "$SHIPPED/$name.json" "$SHIPPED/world-clip.safetensors" <<'PYEOF'
import hashlib, json, sys
record = json.load(open(sys.argv[1]))
sha = hashlib.sha256(open(sys.argv[3], "rb").read()).hexdigest()
record["trained_over"] = f"{record['encoder']} (sha256 {sha[:12]}, the bytes since shipped as world-clip.safetensors)"
record["encoder"] = "world-clip (embedded)"
open(sys.argv[2], "w").write(json.dumps(record, indent=2) + "\n")
PYEOF
      "$PY" -m explorer model-card --checkpoint "$SHIPPED/$name.safetensors"
    done
    tuned="$SHIPPED/world-clip-finetune"; cp "$tuned.safetensors" "$RUNS/finetune-fp32.safetensors"; cp "$tuned.json" "$RUNS/finetune-fp32.json"
    to_bf16 "$RUNS/finetune-fp32.safetensors" "$tuned.safetensors"
    "$PY" -m explorer model-card --checkpoint "$tuned.safetensors"
    if ! "$PY" - "$RUNS/finetune-fp32.json" "$tuned.json" <<'PYEOF'
import json, sys
full, half = (json.load(open(p))["measured"] for p in sys.argv[1:])
print("bf16 storage moves the fine-tuned card" if full != half else "bf16 storage moves no figure of the fine-tuned card")
sys.exit(full != half)
PYEOF
    then cp "$RUNS/finetune-fp32.safetensors" "$tuned.safetensors"; cp "$RUNS/finetune-fp32.json" "$tuned.json"
         "$PY" -m explorer model-card --checkpoint "$tuned.safetensors" --from-record; fi ;;
  *) echo "usage: $0 scratch | candidates | continue RUN STEPS SEED [TAG] | twin RUN STEPS SEED [LAMBDA] | choose | stage RUN | ship RUN | ship-twin RUN STEPS | align F | ship-align P" >&2; exit 2 ;;
esac
