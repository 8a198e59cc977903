#!/usr/bin/env bash
# On a lent GPU machine, in one call: the bench, the CUDA test, the per-stage profile and the bench with the
# compiled image tower, each step's figures and log into $OUT (at most 8 files come back; this writes 7).
# From the repository root there, with .kit carried (scripts/device_kit.sh makes it and gives the whole call):
#   bash scripts/device_run.sh
# The steps run most needed first and each writes its log as it goes, so a call cut short keeps what came before.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device}
DEVICE=${DEVICE:-cuda}
mkdir -p "$OUT" /tmp/site
[[ -d /tmp/site/spacy ]] || tar -xJf .kit/site.tar.xz -C /tmp || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1

step() {  # step NAME LOG COMMAND...: runs it, its output into $OUT/LOG, and says how it ended
    local name=$1 log=$2 start=$SECONDS
    shift 2
    "$@" >"$OUT/$log" 2>&1
    echo "$name: exit $? after $((SECONDS - start)) s ($log)"
}

{ nvidia-smi -L; python3 -c "import sys, torch; print(sys.version.split()[0], 'torch', torch.__version__)"; } \
    >"$OUT/machine.txt" 2>&1
step bench bench.log python3 -m explorer bench --device "$DEVICE" --json "$OUT/bench-$DEVICE.json"
step tests tests.log python3 -m pytest -q -p no:cacheprovider tests/models/test_encoders.py -k cuda
step profile profile.log python3 scripts/profile_analysis.py --device "$DEVICE" --runs 20
if [[ $DEVICE == cuda ]]; then  # CUDA graphs per bucket; on a CPU the compiled tower is not worth its minutes
    step compiled bench-compiled.log python3 -m explorer bench --device cuda --compile --skip-vitb32 \
        --json "$OUT/bench-cuda-compiled.json"
fi
grep -h -E '"(analysis\.p50_ms|rescore\.ms|sgi\.photo\.speedup_vs_naive|sgi\.speedup_vs_naive)' "$OUT"/bench-*.json
