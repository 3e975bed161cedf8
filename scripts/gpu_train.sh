#!/bin/bash
# Fine-tune the corner-index detector on a lent GPU machine, inside one ~10-minute call.
#
# Here:  python scripts/pack_gpu_bundle.py            (fills .gpu/ and .whl/, ~40 MiB)
# There: bash scripts/gpu_train.sh WEIGHTS NTRAIN [END_S]   (carry .gpu and .whl)
#
# It installs the carried wheels, unpacks the carried art, makes NTRAIN scenes with every
# core when this machine has no dataset yet (32k took 195 s on 16 cores), and trains
# from WEIGHTS for what is left of END_S seconds (default 555): Ultralytics' `time`
# fits the cosine schedule to that budget. A warm machine keeps datasets/gpu, so a
# follow-up call goes straight to training. What comes back is under $OUT.
START=$(date +%s); END_S=${3:-555}
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/.gpu/shim:$PWD YOLO_OFFLINE=true YOLO_AUTOINSTALL=false
mkdir -p datasets/art/decks /usr/share/backgrounds/mate
cp --update=none .gpu/decks/*.npz datasets/art/decks/
cp --update=none .gpu/bg/*.jpg /usr/share/backgrounds/mate/  # where the generator looks for photos
nproc; nvidia-smi -L
if [ ! -f datasets/gpu/data.yaml ]; then
  python3 -m onze_vision make-dataset --out datasets/gpu --train "$2" --val 600 --seed 7 \
    --workers "$(nproc)" --index-px 11 90 || exit 1
  cp datasets/gpu/contact_sheet_train.png "$OUT/" 2>/dev/null
fi
NOW=$(date +%s); LEFT=$((END_S - (NOW - START) - 75))  # 75 s for the final val and the export
HOURS=$(python3 -c "print(max($LEFT, 60) / 3600)")
echo "elapsed $((NOW - START)) s; training for $HOURS h"
python3 -m onze_vision train --data datasets/gpu --stage detector --weights "$1" --hours "$HOURS" \
  --epochs 30 --batch 128 --device 0 --workers "$(nproc)" --runs runs/gpu --out "$OUT/models"
cp runs/gpu/detector/weights/last.pt runs/gpu/detector/results.csv "$OUT/"
echo "total $(( $(date +%s) - START )) s"
