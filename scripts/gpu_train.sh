#!/bin/bash
# Fine-tune the corner-index detector on a lent GPU machine, inside one ~10-minute call.
#
# Here:  python scripts/pack_gpu_bundle.py            (fills .gpu/ and .whl/, ~27 MiB)
# There: bash scripts/gpu_train.sh WEIGHTS NTRAIN [END_S]   (carry .gpu and .whl)
#        SCENES (more make-dataset options, see gpu_setup.sh), IMGSZ (320), BATCH (128) and
#        DEVICE (0) change the recipe; DEVICE=cpu with a small NTRAIN tries the whole call here.
#        The detector at the runtime's input size, taught Jokers (the number-card decks' stars,
#        rings and Symbola's ringed star too), blur and four-corner decks:
#        SCENES="--size 640 --index-px 22 180 --jokers 0.3 --blurred 0.3 --four-corners 0.2 --number-decks --glyph-decks" IMGSZ=640
#
# scripts/gpu_setup.sh installs the carried wheels, unpacks the carried art and makes
# NTRAIN scenes when this machine has no dataset yet; then this trains from WEIGHTS for
# what is left of END_S seconds (default 555): Ultralytics' `time` fits the cosine
# schedule to that budget. What comes back is under $OUT.
START=$(date +%s); END_S=${3:-555}
source "$(dirname "$0")/gpu_setup.sh" "$2"
NOW=$(date +%s); LEFT=$((END_S - (NOW - START) - 75))  # 75 s for the final val and the export
HOURS=$(python3 -c "print(max($LEFT, 60) / 3600)")
echo "elapsed $((NOW - START)) s; training for $HOURS h"
python3 -m onze_vision train --data datasets/gpu --stage detector --weights "$1" --hours "$HOURS" \
  --epochs 30 --imgsz "${IMGSZ:-320}" --batch "${BATCH:-128}" --device "${DEVICE:-0}" --workers "$(nproc)" \
  --runs runs/gpu --out "$OUT/models"
cp runs/gpu/detector/weights/last.pt runs/gpu/detector/results.csv "$OUT/"
echo "total $(( $(date +%s) - START )) s"
