"""Measure the card detector: real photos, synthetic held-out decks and speed.

Three parts, each a function returning a JSON-ready dict, and :func:`run_evaluation`
that runs them and writes ``report.md``, ``report.json`` and PNG plots:

* Real photos (Edje: whole-card boxes, rank only for 9-A): a labelled card is found
  when a detected card of the same rank lies on it (the detected box's centre is inside
  the labelled box); a detected card lying on no labelled card is invented.
* Synthetic held-out decks (Ultralytics-format dataset, one box per visible corner
  index, class = index into CARD_CODES): the pipeline's index detections (detector box +
  classifier code, before pairing) scored with COCO-style mAP (101-point interpolation),
  per-class recall and a confusion matrix of codes, with look-alike pairs called out.
* Speed: 4000x3000 phone-size JPEGs, bytes to card list, split by stage, next to
  Ultralytics' own PyTorch ``predict`` of the same detector.

matplotlib (plots) and ultralytics (the speed comparison) are train/eval dependencies,
imported only inside the functions that need them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from onze_vision.conditions import evaluate_conditions
from onze_vision.detector import CardDetector
from onze_vision.evaluate.common import (
    BAR_INVENTED_PER_PHOTO,
    BAR_MEDIAN_MS,
    BAR_OUTSIDE_NETWORKS,
    BAR_REAL_RECALL,
    BAR_SYNTHETIC_MAP50,
    FAR_SHOTS,
    FOUR_CORNER_DECKS,
    IMAGE_SUFFIXES,
    IOU_THRESHOLDS,
    LABEL_SETS,
    OPERATING_POINT_EVERY,
    PRODUCT_SCALE,
    RANK_LEGIBLE,
    RANK_SHOWN_BANDS,
    READINGS,
    RECALL_POINTS,
    SIZE_BANDS,
    SPEED_JPEG_QUALITY,
    SPEED_SIZE,
    Progress,
    print_progress,
)
from onze_vision.evaluate.real import evaluate_real_photos
from onze_vision.evaluate.report import (
    format_report,
    format_summary,
    summary_rows,
    write_report,
)
from onze_vision.evaluate.speed import (
    fullest_scenes,
    make_speed_photos,
    measure_speed,
    time_full_hands,
    time_photos,
)
from onze_vision.evaluate.synthetic import (
    LOOKALIKES,
    average_precision,
    evaluate_pairing_on_truth,
    evaluate_synthetic,
    label_readings,
    load_scene_meta,
    match_predictions,
    match_with_ignored,
    named_as_labelled,
    offered_fixes,
    read_yolo_labels,
    synthetic_images,
    visible_cards,
)


def run_evaluation(
    detector: CardDetector,
    report_dir: Path,
    realphotos: Path | None = None,
    synthetic_val: Path | None = None,
    synthetic_product: Path | None = None,
    synthetic_far: Path | None = None,
    synthetic_four: Path | None = None,
    speed_photos: int = 20,
    limit: int | None = None,
    ultralytics: bool = True,
    progress: Progress = print_progress,
) -> dict[str, Any]:
    """Run every part that has data and write ``report.md``, ``report.json`` and plots.

    Args:
        detector: The detector to measure.
        report_dir: Output folder (created).
        realphotos: Real-photo set with ``manifest.json`` (also the source of speed photos).
        synthetic_val: Ultralytics-format held-out-deck dataset (the bar's figure).
        synthetic_product: The same kind of dataset rendered at the resolution the runtime
            reads a phone photo at (see :data:`PRODUCT_SCALE`), reported beside the bar's.
        synthetic_far: Far shots: large phone photos whose indices are small (see
            :data:`FAR_SHOTS`), where the detector takes a closer look; also timed.
        synthetic_four: Decks with an index in all four corners (see
            :data:`FOUR_CORNER_DECKS`), whose cards must each be counted once.
        speed_photos: How many 4000x3000 JPEGs to time (0 skips), and as many far shots and
            full hands (the product-scale scenes with the most cards, enlarged as they are).
        limit: At most this many photos of each set.
        ultralytics: Also time Ultralytics' PyTorch predict (needs ``index_detector.pt``).
        progress: Receives status lines.
    """
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "models": str(detector.model_dir),
        "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(detector.config).items()},
        "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
    }
    if realphotos is not None and (realphotos / "manifest.json").exists():
        start = time.perf_counter()
        results["real"] = evaluate_real_photos(detector, realphotos, limit, progress)
        results["real"]["seconds"] = time.perf_counter() - start
        start = time.perf_counter()
        results["conditions"] = evaluate_conditions(detector, realphotos, limit=limit, progress=progress)
        results["conditions"]["seconds"] = time.perf_counter() - start
    for key, root in (("synthetic", synthetic_val), ("synthetic_product", synthetic_product),
                      ("synthetic_far", synthetic_far), ("synthetic_four", synthetic_four)):
        if root is not None and (root / "images").exists():
            start = time.perf_counter()
            results[key] = evaluate_synthetic(detector, root, limit, progress)
            results[key]["seconds"] = time.perf_counter() - start
    if synthetic_far is not None and "synthetic_far" in results and speed_photos > 0:
        results["synthetic_far"]["speed"] = time_photos(
            detector, synthetic_images(synthetic_far)[:speed_photos])
    if synthetic_product is not None and "synthetic_product" in results and speed_photos > 0:
        results["synthetic_product"]["speed_full_hands"] = time_full_hands(detector, synthetic_product, speed_photos)
    if speed_photos > 0 and realphotos is not None and (realphotos / "manifest.json").exists():
        manifest = json.loads((realphotos / "manifest.json").read_text(encoding="utf-8"))
        step = max(1, len(manifest) // speed_photos)
        sources = [realphotos / entry["image"] for entry in manifest[::step][:speed_photos]]
        weights = detector.model_dir / "index_detector.pt"
        results["speed"] = measure_speed(detector, sources, weights if ultralytics and weights.exists() else None,
                                         progress)
    results["summary"] = summary_rows(results)
    write_report(results, report_dir)
    return results


__all__ = [
    "BAR_INVENTED_PER_PHOTO",
    "BAR_MEDIAN_MS",
    "BAR_OUTSIDE_NETWORKS",
    "BAR_REAL_RECALL",
    "BAR_SYNTHETIC_MAP50",
    "FAR_SHOTS",
    "FOUR_CORNER_DECKS",
    "IMAGE_SUFFIXES",
    "IOU_THRESHOLDS",
    "LABEL_SETS",
    "LOOKALIKES",
    "OPERATING_POINT_EVERY",
    "PRODUCT_SCALE",
    "Progress",
    "RANK_LEGIBLE",
    "RANK_SHOWN_BANDS",
    "READINGS",
    "RECALL_POINTS",
    "SIZE_BANDS",
    "SPEED_JPEG_QUALITY",
    "SPEED_SIZE",
    "average_precision",
    "evaluate_pairing_on_truth",
    "evaluate_real_photos",
    "evaluate_synthetic",
    "format_report",
    "format_summary",
    "fullest_scenes",
    "label_readings",
    "load_scene_meta",
    "make_speed_photos",
    "match_predictions",
    "match_with_ignored",
    "measure_speed",
    "named_as_labelled",
    "offered_fixes",
    "read_yolo_labels",
    "run_evaluation",
    "summary_rows",
    "synthetic_images",
    "time_full_hands",
    "time_photos",
    "visible_cards",
    "write_report",
]
