#!/bin/bash
# Sourced by scripts/gpu_train.sh and scripts/gpu_train_classifier.sh on a lent GPU machine:
#   source scripts/gpu_setup.sh NTRAIN
# installs the carried wheels (.whl), unpacks the carried art (.gpu), and makes NTRAIN
# training scenes in datasets/gpu with every core when this machine has none yet (32k took
# 195 s on 16 cores). A warm machine keeps datasets/gpu, so a follow-up call skips that,
# unless NTRAIN or SCENES differ from what made it.
# SCENES: more make-dataset options, e.g. "--size 640 --index-px 22 180 --jokers 0.3
# --blurred 0.3 --four-corners 0.2" (default none: the 320-px scenes of the shipped GPU run).
# A --seed in SCENES draws other scenes than the default seed 7 (the later --seed wins):
# a member continued on a later lent GPU then learns scenes it has not seen.
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/.gpu/shim:$PWD YOLO_OFFLINE=true YOLO_AUTOINSTALL=false
mkdir -p datasets/art/decks /usr/share/backgrounds/mate
[ -n "$(ls datasets/art/decks)" ] || python3 -c "import tarfile; \
tarfile.open('.gpu/decks.tar.xz').extractall('datasets/art/decks', filter='data')" || exit 1
# Where the generator looks for photos; a machine with table photos of its own (DEVICE=cpu here) keeps them.
[ -n "$(ls /usr/share/backgrounds/mate)" ] || cp .gpu/bg/*.jpg /usr/share/backgrounds/mate/
nproc; nvidia-smi -L
RECIPE="--train $1 --val 600 --seed 7 --index-px 11 90 ${SCENES:-}"
if [ ! -f datasets/gpu/data.yaml ] || [ "$(cat datasets/gpu/recipe.txt 2>/dev/null)" != "$RECIPE" ]; then
  # shellcheck disable=SC2086  # RECIPE is a list of options
  python3 -m onze_vision make-dataset --out datasets/gpu --overwrite --workers "$(nproc)" $RECIPE || exit 1
  echo "$RECIPE" > datasets/gpu/recipe.txt
  cp datasets/gpu/contact_sheet_train.png "$OUT/" 2>/dev/null
fi
echo "scenes: make-dataset $RECIPE"
