#!/bin/bash
# Train the index classifier on a lent GPU machine, inside one ~10-minute call.
#
# Here:  python scripts/pack_gpu_bundle.py            (fills .gpu/ and .whl/, ~27 MiB)
# There: bash scripts/gpu_train_classifier.sh NTRAIN [END_S] [INIT]   (carry .gpu and .whl)
#        WIDTH (64), BATCH (1024), LR (0.003) and MINE (3000) change the recipe; DEVICE=cpu
#        (with a small NTRAIN) tries the whole call on a machine without a GPU.
#
# scripts/gpu_setup.sh makes NTRAIN scenes when this machine has none yet; the crops are
# cut from them, and from the shipped detector's boxes on MINE of them (hard negatives),
# once (`--stage crops`, cached in runs/gpu-cls), so the training budget is what is left
# of END_S seconds (default 555) after that. Without INIT the classifier starts from
# scratch at WIDTH channels; a follow-up call on the warm machine continues with INIT
# runs/gpu-cls/classifier.pt. Back under $OUT: models/index_classifier.{onnx,pt} (the new
# member alone; ensemble it here with --ensemble-with, adding --replace-newest where INIT was
# the ensemble's newest member) and the log's metrics.
START=$(date +%s); END_S=${2:-555}
source "$(dirname "$0")/gpu_setup.sh" "$1"
COMMON=(--data datasets/gpu --runs runs/gpu-cls --mine-with models --mine-scenes "${MINE:-3000}" --device "${DEVICE:-0}")
python3 -m onze_vision train "${COMMON[@]}" --stage crops --out "$OUT/models" || exit 1
NOW=$(date +%s); LEFT=$((END_S - (NOW - START) - 60))  # 60 s to load the crops, validate and export
MINUTES=$(python3 -c "print(max($LEFT, 30) / 60)")
echo "elapsed $((NOW - START)) s; training for $MINUTES min"
INIT=(); [ -n "$3" ] && INIT=(--classifier-init "$3")
python3 -m onze_vision train "${COMMON[@]}" --stage classifier "${INIT[@]}" --classifier-minutes "$MINUTES" \
  --classifier-width "${WIDTH:-64}" --classifier-batch "${BATCH:-1024}" --classifier-lr "${LR:-0.003}" \
  --out "$OUT/models" || exit 1
cp runs/gpu-cls/classifier_metrics.json "$OUT/"
echo "total $(( $(date +%s) - START )) s"
