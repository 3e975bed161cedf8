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
import os
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from onze_vision.conditions import BLURS, LIGHTS, TILTS, evaluate_conditions
from onze_vision.detections import Detections, box_iou
from onze_vision.detector import CARD_CODES, TIMING_KEYS, CardDetector, DetectorConfig, PhotoReading
from onze_vision.pairing import DetectedCard, pair_groups, pair_indices, possibly_missed, split_at_operating_point

# The bars the product must meet.
BAR_REAL_RECALL = 0.97
BAR_INVENTED_PER_PHOTO = 0.05
BAR_SYNTHETIC_MAP50 = 0.98
BAR_MEDIAN_MS = 250.0
BAR_OUTSIDE_NETWORKS = 0.5

#: The runtime's thresholds are chosen on every N-th real photo (scripts/sweep_thresholds.py).
OPERATING_POINT_EVERY = 4
IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
RECALL_POINTS = np.linspace(0.0, 1.0, 101)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
SPEED_SIZE = (4000, 3000)
#: An index whose rank glyph is partly covered cannot be read for sure (an 8 turns into a 6,
#: a Q into an O): the held-out breakdown ignores labels with less than this share of their
#: rank half showing (``rank_visible`` in the generator's records).
RANK_LEGIBLE = 0.9
#: The held-out scenes are drawn at 320 px, the training scale, where a far table's index
#: is 11 px tall. The runtime reads a phone photo decoded with its long side >= 960 px
#: (``decode_factor`` x ``imgsz``), so the same scene as the product reads it is this many
#: times larger: ``make-dataset --size 960 --index-px 33 180`` (datasets/README.md).
PRODUCT_SCALE = 3
#: What the far-shot set is, for the report.
FAR_SHOTS = "4000-px photos, 40-120 px indices"
#: What the four-corner set is, for the report.
FOUR_CORNER_DECKS = "held-out decks with an index in all four corners, 960 px"
#: Index sizes (long side of the label box, pixels) the held-out breakdown scores apart.
#: Real photos read at the runtime's decode size have indices of 20 px and up (1st percentile).
SIZE_BANDS: tuple[tuple[str, float, float], ...] = (
    ("all sizes", 0.0, float("inf")), ("under 16 px", 0.0, 16.0), ("16-24 px", 16.0, 24.0),
    ("24 px and up", 24.0, float("inf")),
)
LABEL_SETS = ("every label", "rank showing")
#: Bands of ``rank_visible`` (share of the rank half showing) the held-out labels are read by.
RANK_SHOWN_BANDS: tuple[tuple[str, float, float], ...] = (
    ("under 0.5", 0.0, 0.5), ("0.5-0.7", 0.5, 0.7), ("0.7-0.9", 0.7, RANK_LEGIBLE),
    (f"{RANK_LEGIBLE:g} and more", RANK_LEGIBLE, float("inf")),
)
#: How a label is read: by the surest reported box lying on it (IoU >= 0.5), or not at all
#: ("missed": not found, or its box called "not an index", which the runtime drops).
READINGS = ("right", "wrong", "missed")
SPEED_JPEG_QUALITY = 90

# Look-alikes users complain about: (name, predicate on (true code, predicted code)).
LOOKALIKES: tuple[tuple[str, Callable[[str, str], bool]], ...] = (
    ("6 <-> 9", lambda t, p: {_rank(t), _rank(p)} == {"6", "9"}),
    ("8 <-> 6", lambda t, p: {_rank(t), _rank(p)} == {"8", "6"}),
    ("Q <-> 9", lambda t, p: {_rank(t), _rank(p)} == {"Q", "9"}),
    ("spades <-> clubs (same rank)", lambda t, p: _rank(t) == _rank(p) and {t[-1], p[-1]} == {"S", "C"}),
    ("hearts <-> diamonds (same rank)", lambda t, p: _rank(t) == _rank(p) and {t[-1], p[-1]} == {"H", "D"}),
    ("red <-> black Ace", lambda t, p: _rank(t) == _rank(p) == "A" and _is_red(t) != _is_red(p)),
)

Progress = Callable[[str], None]


def _rank(code: str) -> str:
    return code if code == "JK" else code[:-1]


def _is_red(code: str) -> bool:
    return code[-1] in "HD"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- real photos

def evaluate_real_photos(
    detector: CardDetector | None, root: Path, limit: int | None = None, progress: Progress = _stderr,
    reader: Callable[[Path], Sequence[DetectedCard]] | None = None,
    subset: Callable[[int], bool] | None = None,
) -> dict[str, Any]:
    """Rank recall, invented cards and exact photos on a real-photo set with ``manifest.json``.

    Args:
        detector: The detector to measure.
        root: Folder holding ``manifest.json`` and the photos it names.
        limit: Use only the first ``limit`` photos.
        progress: Receives a line every 50 photos.
        reader: Reads one photo instead of ``detector.detect_cards`` (e.g. cached
            index detections re-paired at other thresholds).
        subset: Keeps the photos whose manifest position it accepts.
    """
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))[:limit]
    if subset is not None:
        manifest = [entry for number, entry in enumerate(manifest) if subset(number)]
    # The cards each photo offers as possibly missed (PhotoReading.maybe); a reader gives none.
    offers: dict[Path, list[DetectedCard]] = {}

    def read_keeping_offers(path: Path) -> Sequence[DetectedCard]:
        reading = detector.detect_cards(path)
        offers[path] = reading.maybe
        return reading.cards

    if reader is None and detector is None:
        raise ValueError("evaluate_real_photos needs a detector or a reader")
    read = reader or read_keeping_offers
    per_rank_total: Counter[str] = Counter()
    per_rank_found: Counter[str] = Counter()
    photos: list[dict[str, Any]] = []
    wrong_rank = duplicates = 0
    for number, entry in enumerate(manifest, 1):
        read_cards = list(read(root / entry["image"]))
        labels = entry["cards"]
        boxes = np.array([card["box"] for card in labels], np.float32).reshape(-1, 4)
        codes = [card.card for card in read_cards]
        on_label = _centres_on_labels(read_cards, boxes)
        found = []
        for j, label in enumerate(labels):
            ranks_here = [_rank(code) for code, hit in zip(codes, on_label[:, j]) if hit]
            hit = label["rank"] in ranks_here
            found.append(hit)
            per_rank_total[label["rank"]] += 1
            per_rank_found[label["rank"]] += hit
            wrong_rank += bool(ranks_here) and not hit
            duplicates += ranks_here.count(label["rank"]) > 1
        invented = [code for code, row in zip(codes, on_label) if not row.any()]
        offered = offers.get(root / entry["image"], [])
        offered_off_cards = [card.card for card, row in zip(offered, _centres_on_labels(offered, boxes))
                             if not row.any()]
        photos.append({
            "image": entry["image"],
            "labels": [card["rank"] for card in labels],
            "detected": codes,
            "missed": [label["rank"] for label, hit in zip(labels, found) if not hit],
            "invented": invented,
            "exact": all(found) and not invented,
            "offered": [card.card for card in offered],
            "offered_off_cards": offered_off_cards,
        })
        if number % 50 == 0:
            progress(f"real photos: {number}/{len(manifest)}")
    total = sum(per_rank_total.values())
    found_total = sum(per_rank_found.values())
    # The runtime's thresholds are chosen on every OPERATING_POINT_EVERY-th photo
    # (scripts/sweep_thresholds.py): the other photos give figures free of that choice.
    unseen = [p for number, p in enumerate(photos) if number % OPERATING_POINT_EVERY != 0]
    unseen_cards = sum(len(p["labels"]) for p in unseen)
    invented_total = sum(len(p["invented"]) for p in photos)
    worst = sorted(photos, key=lambda p: (len(p["missed"]) + len(p["invented"]), p["image"]), reverse=True)
    return {
        "root": str(root),
        "photos": len(photos),
        "labelled_cards": total,
        "rank_recall": found_total / total if total else None,
        "invented": invented_total,
        "invented_per_photo": invented_total / len(photos) if photos else None,
        "exact_photo_rate": sum(p["exact"] for p in photos) / len(photos) if photos else None,
        # Cards possibly missed, offered to add (none counted unasked): all, and those on no
        # labelled card (an offer that is no card, for the player to decline).
        "offered_per_photo": (sum(len(p["offered"]) for p in photos) / len(photos)
                              if photos and offers else None),
        "offered_off_cards_per_photo": (sum(len(p["offered_off_cards"]) for p in photos) / len(photos)
                                        if photos and offers else None),
        "not_chosen_on": {
            "photos": len(unseen),
            "rank_recall": (unseen_cards - sum(len(p["missed"]) for p in unseen)) / unseen_cards
            if unseen_cards else None,
            "invented_per_photo": sum(len(p["invented"]) for p in unseen) / len(unseen) if unseen else None,
        } if subset is None else None,
        "wrong_rank_on_card": wrong_rank,
        "cards_read_twice": duplicates,
        "per_rank_recall": {rank: per_rank_found[rank] / per_rank_total[rank]
                            for rank in sorted(per_rank_total, key=_rank_order)},
        "per_rank_count": dict(per_rank_total),
        "worst_photos": [p for p in worst if p["missed"] or p["invented"]][:20],
        "per_photo": photos,
    }


def _rank_order(rank: str) -> int:
    order = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK")
    return order.index(rank) if rank in order else len(order)


def _box_centre(box: Sequence[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0


def _inside(point: tuple[float, float], box: np.ndarray) -> bool:
    return bool(box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3])


def _centres_on_labels(cards: Sequence[DetectedCard], boxes: np.ndarray) -> np.ndarray:
    """[cards, labels]: whether each card's box centre lies inside each labelled box."""
    return np.array([[_inside(_box_centre(card.box), box) for box in boxes] for card in cards],
                    bool).reshape(len(cards), len(boxes))


# ---------------------------------------------------------------------- synthetic (mAP)

def read_yolo_labels(path: Path, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Read ``class cx cy w h`` (normalised) lines; return xyxy pixels [N, 4] and classes [N]."""
    if not path.exists():
        return np.zeros((0, 4), np.float32), np.zeros(0, np.int64)
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        return np.zeros((0, 4), np.float32), np.zeros(0, np.int64)
    values = np.array([[float(v) for v in row[:5]] for row in rows], np.float64)
    cx, cy = values[:, 1] * width, values[:, 2] * height
    w, h = values[:, 3] * width, values[:, 4] * height
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return xyxy, values[:, 0].astype(np.int64)


def match_predictions(
    pred_xyxy: np.ndarray, pred_score: np.ndarray, pred_class: np.ndarray | None,
    gt_xyxy: np.ndarray, gt_class: np.ndarray | None, thresholds: Sequence[float],
) -> np.ndarray:
    """COCO greedy matching: [P, T] bool, True where a prediction is a true positive.

    Predictions are taken best score first; each takes the unmatched ground truth (of
    its class, when classes are given) with the highest IoU >= the threshold.
    """
    return match_with_ignored(pred_xyxy, pred_score, pred_class, gt_xyxy, gt_class, thresholds)[0]


def match_with_ignored(
    pred_xyxy: np.ndarray, pred_score: np.ndarray, pred_class: np.ndarray | None,
    gt_xyxy: np.ndarray, gt_class: np.ndarray | None, thresholds: Sequence[float],
    gt_ignored: np.ndarray | None = None, pred_out_of_range: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """COCO matching with ignored ground truth: ([P, T] true positive, [P, T] ignored).

    As COCO scores its size ranges: a prediction takes a counted ground truth first;
    one that can only match an ignored ground truth (of its class, when classes are
    given) is ignored, and so is an unmatched one flagged ``pred_out_of_range``
    (outside the size band being scored). Ignored predictions and ignored ground truth
    both leave the AP out; a prediction of the wrong class on an ignored ground truth
    stays a false positive.
    """
    thresholds = np.asarray(thresholds, dtype=np.float32)
    tp = np.zeros((len(pred_xyxy), len(thresholds)), bool)
    gt_ignored = np.zeros(len(gt_xyxy), bool) if gt_ignored is None else np.asarray(gt_ignored, bool)
    out_of_range = np.zeros(len(pred_xyxy), bool) if pred_out_of_range is None else np.asarray(pred_out_of_range, bool)
    ignored = np.repeat(out_of_range[:, None], len(thresholds), axis=1)  # until a match says otherwise
    if len(pred_xyxy) == 0 or len(gt_xyxy) == 0:
        return tp, ignored
    iou = box_iou(pred_xyxy, gt_xyxy)
    if pred_class is not None and gt_class is not None:
        iou = np.where(pred_class[:, None] == gt_class[None, :], iou, 0.0)
    order = np.argsort(-pred_score, kind="stable")
    for t, threshold in enumerate(thresholds):
        taken = np.zeros(len(gt_xyxy), bool)
        for i in order:
            for counted in (True, False):  # a counted ground truth first, then an ignored one
                row = np.where(taken | (gt_ignored == counted), -1.0, iou[i])
                j = int(row.argmax())
                if row[j] >= threshold:
                    taken[j] = True
                    tp[i, t] = counted
                    ignored[i, t] = not counted
                    break
    return tp, ignored


def average_precision(scores: np.ndarray, tp: np.ndarray, n_gt: int) -> float:
    """COCO 101-point interpolated AP of one class at one IoU threshold."""
    if n_gt == 0:
        return float("nan")
    if len(scores) == 0:
        return 0.0
    order = np.argsort(-scores, kind="stable")
    hits = tp[order].astype(np.float64)
    tp_cum = np.cumsum(hits)
    fp_cum = np.cumsum(1.0 - hits)
    recall = tp_cum / n_gt
    precision = tp_cum / (tp_cum + fp_cum)
    # Precision envelope: the best precision at this recall or any higher one.
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    index = np.searchsorted(recall, RECALL_POINTS, side="left")
    sampled = np.where(index < len(envelope), envelope[np.minimum(index, len(envelope) - 1)], 0.0)
    return float(sampled.mean())


def evaluate_synthetic(
    detector: CardDetector, root: Path, limit: int | None = None, progress: Progress = _stderr
) -> dict[str, Any]:
    """mAP50, mAP50-95, per-class recall and the code confusion matrix on index boxes.

    mAP uses every index the pipeline reports at detector confidence 0.001 (as
    Ultralytics' val does), each with the one code it is read as; recall and the
    confusion matrix use the runtime thresholds. ``map50_every_code`` is reported beside
    it for comparison with Ultralytics' figures: its val scores every box for every class
    (``multi_label``), so a box read 6H can still match a 5H at its lower 5H score.
    """
    images = synthetic_images(root)[:limit]
    config = detector.config
    n_codes = len(CARD_CODES)
    scores_by_class: dict[int, list[np.ndarray]] = defaultdict(list)
    tp_by_class: dict[int, list[np.ndarray]] = defaultdict(list)
    every_code_scores: dict[int, list[np.ndarray]] = defaultdict(list)
    every_code_tp: dict[int, list[np.ndarray]] = defaultdict(list)
    # The same boxes, each on an index named as that index's label: what naming costs.
    named_right_scores: dict[int, list[np.ndarray]] = defaultdict(list)
    named_right_tp: dict[int, list[np.ndarray]] = defaultdict(list)
    gt_count = np.zeros(n_codes, np.int64)
    gt_found = np.zeros(n_codes, np.int64)
    # Rows: true code, then "background" (no index there); columns: predicted code, then "missed".
    confusion = np.zeros((n_codes + 1, n_codes + 1), np.int64)
    operating_predictions = 0
    # mAP50 by label set (every label, or only those whose rank shows) and index size band.
    breakdown = {(labels, band): {"scores": defaultdict(list), "tp": defaultdict(list), "gt": np.zeros(n_codes, np.int64)}
                 for labels in LABEL_SETS for band, _, _ in SIZE_BANDS}
    metas = load_scene_meta(root)
    # Labels read right / wrong / missed, by how much of their rank half shows.
    by_rank_shown = {band: Counter() for band, _, _ in RANK_SHOWN_BANDS}
    cards_true = cards_read = cards_right = scenes_exact = scenes_with_meta = scenes_exact_after_fixes = 0
    by_corner: dict[str, Counter] = defaultdict(Counter)  # labels and located indices by corner ("tl", "br", ...)
    offered: Counter = Counter()  # unsure cards and the alternatives they offer (offered_fixes)
    # The same figures per held-out design (scenes drawn from one design; "mixed" otherwise).
    designs: dict[str, dict[str, Any]] = defaultdict(lambda: {
        "scores": defaultdict(list), "tp": defaultdict(list), "gt": np.zeros(n_codes, np.int64),
        "found": 0, "located": 0, "scenes": 0})
    # Only the evaluated images' records: meta/ also holds the training split.
    evaluated = [image_path.relative_to(root).as_posix() for image_path in images]
    for number, image_path in enumerate(images, 1):
        label_path = _label_path(root, image_path)
        indices = detector.read_indices(image_path, conf_threshold=0.001, min_class_prob=0.0)
        height, width = _image_size(image_path)
        gt_xyxy, gt_class = read_yolo_labels(label_path, width, height)
        gt_class = np.clip(gt_class, 0, n_codes - 1)
        gt_count += np.bincount(gt_class, minlength=n_codes)

        tp = match_predictions(indices.xyxy, indices.confidence, indices.class_id, gt_xyxy, gt_class, IOU_THRESHOLDS)
        meta = metas.get(image_path.relative_to(root).as_posix())
        design = designs[_scene_design(meta)]
        design["scenes"] += 1
        design["gt"] += np.bincount(gt_class, minlength=n_codes)
        _add_by_class(scores_by_class, tp_by_class, indices.class_id, indices.confidence, tp)
        _add_by_class(design["scores"], design["tp"], indices.class_id, indices.confidence, tp)
        # Every code of every box whose score passes the mAP floor, as Ultralytics' multi_label.
        every_score = indices.data["probs"][:, :n_codes] * indices.data["det_score"][:, None]
        row, code = np.nonzero(every_score >= 0.001)
        every = every_score[row, code]
        tp_every = match_predictions(indices.xyxy[row], every, code, gt_xyxy, gt_class, IOU_THRESHOLDS)
        _add_by_class(every_code_scores, every_code_tp, code, every, tp_every)
        named = named_as_labelled(indices, gt_xyxy, gt_class)
        tp_named = match_predictions(named.xyxy, named.confidence, named.class_id, gt_xyxy, gt_class, [0.5])
        _add_by_class(named_right_scores, named_right_tp, named.class_id, named.confidence, tp_named)
        rank_visible = _rank_visible(meta, len(gt_xyxy))
        _add_to_breakdown(breakdown, indices, gt_xyxy, gt_class, rank_visible)
        for shown, reading in zip(rank_visible, label_readings(indices, gt_xyxy, gt_class)):
            band = next(name for name, low, high in RANK_SHOWN_BANDS if low <= shown < high)
            by_rank_shown[band][reading] += 1

        operating, candidates = split_at_operating_point(indices, config)
        operating_predictions += len(operating)
        matched_gt = _matched_gt(operating.xyxy, operating.confidence, operating.class_id, gt_xyxy, gt_class, 0.5)
        gt_found += np.bincount(gt_class[matched_gt[matched_gt >= 0]], minlength=n_codes)
        # Class-agnostic matching for the confusion matrix: which code was read where.
        any_match = _matched_gt(operating.xyxy, operating.confidence, None, gt_xyxy, None, 0.5)
        for pred, gt in enumerate(any_match):
            if gt >= 0:
                confusion[gt_class[gt], operating.class_id[pred]] += 1
            else:
                confusion[n_codes, operating.class_id[pred]] += 1
        missed = np.setdiff1d(np.arange(len(gt_xyxy)), any_match[any_match >= 0])
        for gt in missed:
            confusion[gt_class[gt], n_codes] += 1
        design["found"] += int((matched_gt >= 0).sum())
        design["located"] += int((any_match >= 0).sum())
        records = (meta or {}).get("labels", [])
        if len(records) == len(gt_xyxy):  # the label file's order
            located_rows = set(any_match[any_match >= 0].tolist())
            for row, record in enumerate(records):
                tally = by_corner[record.get("corner", "?")]
                tally["labels"] += 1
                tally["located"] += row in located_rows
        if meta is not None:
            # What scoring needs: the multiset of cards, after pairing.
            truth = Counter(visible_cards(meta).values())
            scene_cards = pair_indices(operating, config)
            read = Counter(card.card for card in scene_cards)
            right = sum((truth & read).values())
            cards_true += sum(truth.values())
            cards_read += sum(read.values())
            cards_right += right
            scenes_exact += truth == read
            scenes_with_meta += 1
            fixes = offered_fixes(truth, scene_cards, possibly_missed(operating, candidates, config))
            offered += fixes
            # Exact once the player takes every right alternative (and rejects the rest).
            scenes_exact_after_fixes += (fixes["wrong"] == fixes["fixed"]
                                         and fixes["right_after_fixes"] == fixes["true"])
        if number % 100 == 0:
            progress(f"synthetic: {number}/{len(images)}")

    ap = _ap_table(scores_by_class, tp_by_class, gt_count)
    present = gt_count > 0
    ap_every_code = _ap_table(every_code_scores, every_code_tp, gt_count)
    ap_named_right = _ap_table(named_right_scores, named_right_tp, gt_count, thresholds=1)
    per_design = {}
    for name, design in sorted(designs.items()):
        boxes = int(design["gt"].sum())
        design_ap = _ap_table(design["scores"], design["tp"], design["gt"])
        per_design[name] = {
            "scenes": design["scenes"],
            "index_boxes": boxes,
            "map50": float(np.nanmean(design_ap[design["gt"] > 0, 0])) if boxes else None,
            "recall": design["found"] / boxes if boxes else None,
            "located": design["located"] / boxes if boxes else None,
        }
    map50_breakdown: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (labels, band), cell in breakdown.items():
        cell_ap = _ap_table(cell["scores"], cell["tp"], cell["gt"], thresholds=1)
        counted = cell["gt"] > 0
        map50_breakdown[labels][band] = {"map50": float(np.nanmean(cell_ap[counted, 0])) if counted.any() else None,
                                         "index_boxes": int(cell["gt"].sum())}
    matched = confusion[:n_codes, :n_codes]
    lookalikes = []
    for name, predicate in LOOKALIKES:
        pairs = [(CARD_CODES[t], CARD_CODES[p], int(matched[t, p]))
                 for t in range(n_codes) for p in range(n_codes)
                 if t != p and matched[t, p] and predicate(CARD_CODES[t], CARD_CODES[p])]
        involved = {t for t in range(n_codes) for p in range(n_codes) if t != p and predicate(CARD_CODES[t], CARD_CODES[p])}
        read = int(matched[sorted(involved)].sum()) if involved else 0
        errors = sum(count for _, _, count in pairs)
        lookalikes.append({"pair": name, "errors": errors, "of_matched": read,
                           "rate": errors / read if read else None,
                           "worst": sorted(pairs, key=lambda x: -x[2])[:5]})
    matched_total = int(matched.sum())
    cards = None
    if scenes_with_meta:
        cards = {
            "scenes": scenes_with_meta,
            "cards": cards_true,
            "recall": cards_right / cards_true if cards_true else None,
            "precision": cards_right / cards_read if cards_read else None,
            "exact_scene_rate": scenes_exact / scenes_with_meta,
            "alternatives": {
                "unsure_share": offered["unsure"] / cards_read if cards_read else None,
                "wrong": offered["wrong"],
                "wrong_unsure_share": offered["wrong_unsure"] / offered["wrong"] if offered["wrong"] else None,
                "fixed_share": offered["fixed"] / offered["wrong"] if offered["wrong"] else None,
                "right_unsure_share": (offered["right_unsure"] / (cards_read - offered["wrong"])
                                       if cards_read > offered["wrong"] else None),
                "maybe_per_scene": offered["maybe"] / scenes_with_meta,
                "maybe_right_share": offered["maybe_right"] / offered["maybe"] if offered["maybe"] else None,
                "recall_after_fixes": offered["right_after_fixes"] / cards_true if cards_true else None,
                "exact_scene_rate_after_fixes": scenes_exact_after_fixes / scenes_with_meta,
            },
            "pairing_on_true_indices": evaluate_pairing_on_truth(
                [metas[key] for key in evaluated if key in metas], config),
        }
    return {
        "root": str(root),
        "images": len(images),
        "index_boxes": int(gt_count.sum()),
        "map50": float(np.nanmean(ap[present, 0])) if present.any() else None,
        "map50_95": float(np.nanmean(ap[present])) if present.any() else None,
        "map50_every_code": float(np.nanmean(ap_every_code[present, 0])) if present.any() else None,
        "map50_named_right": float(np.nanmean(ap_named_right[present, 0])) if present.any() else None,
        "map50_breakdown": dict(map50_breakdown),
        "labels_by_rank_shown": {band: {"labels": sum(tally.values()), **{r: tally[r] for r in READINGS}}
                                 for band, tally in by_rank_shown.items()},
        "ap50_per_class": {CARD_CODES[c]: float(ap[c, 0]) for c in range(n_codes) if present[c]},
        "recall": float(gt_found.sum() / gt_count.sum()) if gt_count.sum() else None,
        "precision": (float(np.trace(matched)) / operating_predictions) if operating_predictions else None,
        "recall_per_class": {CARD_CODES[c]: float(gt_found[c] / gt_count[c]) for c in range(n_codes) if present[c]},
        "boxes_per_class": {CARD_CODES[c]: int(gt_count[c]) for c in range(n_codes) if present[c]},
        "code_accuracy_on_matched_boxes": float(np.trace(matched) / matched_total) if matched_total else None,
        "lookalikes": lookalikes,
        "confusion_labels": [*CARD_CODES, "background/missed"],
        "confusion": confusion.tolist(),
        "thresholds": {"conf": config.conf_threshold, "min_class_prob": config.min_class_prob},
        "per_design": per_design,
        "located_by_corner": {corner: {"labels": tally["labels"], "located": tally["located"] / tally["labels"]}
                              for corner, tally in sorted(by_corner.items())},
        "cards": cards,
    }


def named_as_labelled(indices: Detections, gt_xyxy: np.ndarray, gt_class: np.ndarray) -> Detections:
    """The reported boxes as a perfect classifier would leave them: each box on an index
    (IoU >= 0.5 with a label) takes that label's code and the detector's own score; the
    rest (boxes on no index) keep their reading.

    Their mAP50 is the ceiling the detector and the post-processing (the "none" veto, the
    nested-box filter) leave to the naming: what separates it from the real mAP50 is
    what the classifier costs.
    """
    if not len(indices) or not len(gt_xyxy):
        return indices
    iou = box_iou(indices.xyxy, gt_xyxy)
    on_index = iou.max(axis=1) >= 0.5
    class_id = indices.class_id.copy()
    class_id[on_index] = gt_class[iou[on_index].argmax(axis=1)]
    confidence = np.where(on_index, indices.data["det_score"], indices.confidence).astype(np.float32)
    return Detections(indices.xyxy, confidence, class_id, indices.data)


def _rank_visible(meta: dict[str, Any] | None, count: int) -> np.ndarray:
    """Each label's share of its rank half that shows, from the scene record (1 where unknown).

    The record lists the labels in the order of the label file; datasets made before the
    generator recorded ``rank_visible`` count every label as showing its rank.
    """
    labels = (meta or {}).get("labels", [])
    if len(labels) != count:
        return np.ones(count)
    return np.array([float(label.get("rank_visible", 1.0)) for label in labels])


def _add_to_breakdown(breakdown: dict[tuple[str, str], dict[str, Any]], indices: Detections,
                      gt_xyxy: np.ndarray, gt_class: np.ndarray, rank_visible: np.ndarray) -> None:
    """File one image's predictions into every (label set, size band) cell of the mAP50 breakdown.

    Within a cell, labels outside it are ignored the way COCO ignores them for its size
    ranges: a prediction on one is neither right nor wrong, and an unmatched prediction
    outside the size band is left out.
    """
    gt_size = (gt_xyxy[:, 2:] - gt_xyxy[:, :2]).max(axis=1, initial=0.0)  # long side, as SIZE_BANDS measure
    pred_size = indices.wh.max(axis=1, initial=0.0)
    for labels in LABEL_SETS:
        hidden_rank = rank_visible < RANK_LEGIBLE if labels == "rank showing" else np.zeros(len(gt_xyxy), bool)
        for band, low, high in SIZE_BANDS:
            gt_ignored = hidden_rank | (gt_size < low) | (gt_size >= high)
            tp, ignored = match_with_ignored(indices.xyxy, indices.confidence, indices.class_id, gt_xyxy, gt_class,
                                             [0.5], gt_ignored, (pred_size < low) | (pred_size >= high))
            keep = ~ignored[:, 0]
            cell = breakdown[(labels, band)]
            _add_by_class(cell["scores"], cell["tp"], indices.class_id[keep], indices.confidence[keep], tp[keep])
            cell["gt"] += np.bincount(gt_class[~gt_ignored], minlength=len(cell["gt"]))


def label_readings(indices: Detections, gt_xyxy: np.ndarray, gt_class: np.ndarray) -> list[str]:
    """How each label is read (one of :data:`READINGS`) by the surest reported box on it.

    A box on a label is one with IoU >= 0.5; "missed" is a label no reported box lies on.
    """
    if not len(gt_xyxy):
        return []
    if not len(indices):
        return ["missed"] * len(gt_xyxy)
    on_label = box_iou(gt_xyxy, indices.xyxy) >= 0.5
    readings = []
    for label, boxes in enumerate(on_label):
        if not boxes.any():
            readings.append("missed")
            continue
        surest = np.flatnonzero(boxes)[np.argmax(indices.confidence[boxes])]
        readings.append("right" if indices.class_id[surest] == gt_class[label] else "wrong")
    return readings


def _add_by_class(scores_by_class: dict[int, list[np.ndarray]], tp_by_class: dict[int, list[np.ndarray]],
                  class_id: np.ndarray, score: np.ndarray, tp: np.ndarray) -> None:
    """File one image's predictions by class (their scores and true-positive flags) for :func:`_ap_table`."""
    for code in np.unique(class_id):
        mask = class_id == code
        scores_by_class[int(code)].append(score[mask])
        tp_by_class[int(code)].append(tp[mask])


def _ap_table(scores_by_class: dict[int, list[np.ndarray]], tp_by_class: dict[int, list[np.ndarray]],
              gt_count: np.ndarray, thresholds: int = len(IOU_THRESHOLDS)) -> np.ndarray:
    """AP per class (rows) and IoU threshold (columns); NaN for classes with no true box."""
    ap = np.full((len(gt_count), thresholds), np.nan)
    for code in np.flatnonzero(gt_count):
        scores = np.concatenate(scores_by_class[code]) if scores_by_class[code] else np.zeros(0)
        tps = np.concatenate(tp_by_class[code]) if tp_by_class[code] else np.zeros((0, thresholds), bool)
        for t in range(thresholds):
            ap[code, t] = average_precision(scores, tps[:, t], int(gt_count[code]))
    return ap


def _scene_design(meta: dict[str, Any] | None) -> str:
    """The deck design a generated scene was drawn from: "mixed" for two, "unknown" without a record."""
    names = {card.get("deck", "unknown") for card in (meta or {}).get("cards", [])}
    if not names:
        return "unknown"
    return names.pop() if len(names) == 1 else "mixed"


def load_scene_meta(root: Path) -> dict[str, dict[str, Any]]:
    """The generator's per-scene records (``meta/*.jsonl``) keyed by image path, or {}."""
    records: dict[str, dict[str, Any]] = {}
    for path in sorted((root / "meta").glob("*.jsonl")) if (root / "meta").is_dir() else []:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                records[record["image"]] = record
    return records


def visible_cards(meta: dict[str, Any]) -> dict[int, str]:
    """card_id -> code of each card with at least one labelled corner index."""
    return {label["card_id"]: label["code"] for label in meta["labels"]}


def offered_fixes(truth: Counter, cards: Sequence[DetectedCard], maybe: Sequence[DetectedCard] = ()) -> Counter:
    """How a scene's cards read against its true cards, with the alternatives and the
    possibly missed cards offered.

    Readings are matched to the true multiset of codes. A reading of a code the scene
    has no more of is wrong; a wrong reading whose ``alternative`` is a true card still
    unread is one the player fixes with one tap (those are matched first, so each true
    card is fixed at most once). Then a possibly missed card whose code is still unread
    is one the player adds with one tap.

    Returns:
        Counts: ``read``, ``unsure`` (readings with an alternative), ``wrong``,
        ``wrong_unsure`` (wrong and offered an alternative), ``fixed`` (the alternative
        is right), ``right_unsure`` (right, yet offered an alternative: a needless check),
        ``maybe`` (possibly missed cards offered), ``maybe_right`` (those that are cards
        still unread), ``true`` and ``right_after_fixes``.
    """
    read = Counter(card.card for card in cards)
    excess, unread = read - truth, truth - read
    tally: Counter = Counter(read=len(cards), true=sum(truth.values()))
    # Wrong readings whose alternative is an unread card first: the player checks every unsure card.
    for card in sorted(cards, key=lambda c: not (c.alternative and unread[c.alternative] > 0)):
        unsure = card.alternative is not None
        tally["unsure"] += unsure
        if excess[card.card] > 0:
            excess[card.card] -= 1
            tally["wrong"] += 1
            tally["wrong_unsure"] += unsure
            if unsure and unread[card.alternative] > 0:
                unread[card.alternative] -= 1
                tally["fixed"] += 1
        else:
            tally["right_unsure"] += unsure
    for card in maybe:
        tally["maybe"] += 1
        if unread[card.card] > 0:
            unread[card.card] -= 1
            tally["maybe_right"] += 1
    tally["right_after_fixes"] = tally["true"] - sum(unread.values())
    return tally


def evaluate_pairing_on_truth(metas: Sequence[dict[str, Any]], config: DetectorConfig) -> dict[str, Any]:
    """Pairing alone: group the TRUE index boxes (with true codes and down vectors) into cards.

    Separates pairing errors from network errors: a card counts as right when its
    group is exactly its visible indices.
    """
    cards = right = exact = true_pairs = missed_pairs = false_pairs = 0
    for meta in metas:
        labels = meta["labels"]
        if not labels:
            exact += 1
            continue
        indices = Detections(
            [label["box"] for label in labels], np.ones(len(labels)),
            [CARD_CODES.index(label["code"]) for label in labels],
            {"down": np.array([label["down"] for label in labels], np.float32)},
        )
        truth: dict[int, list[int]] = defaultdict(list)
        for row, label in enumerate(labels):
            truth[label["card_id"]].append(row)
        true_groups = {tuple(sorted(rows)) for rows in truth.values()}
        groups = {tuple(sorted(group)) for group in pair_groups(indices, config)}
        cards += len(true_groups)
        right += len(true_groups & groups)
        exact += true_groups == groups
        # A "pair" is any card of two or more corners (up to four on a four-corner deck).
        true_pairs += sum(len(g) >= 2 for g in true_groups)
        missed_pairs += sum(len(g) >= 2 and g not in groups for g in true_groups)
        false_pairs += sum(len(g) >= 2 and g not in true_groups for g in groups)
    return {"scenes": len(metas), "cards": cards, "card_accuracy": right / cards if cards else None,
            "exact_scene_rate": exact / len(metas) if metas else None, "true_pairs": true_pairs,
            "missed_pairs": missed_pairs, "false_pairs": false_pairs}


def synthetic_images(root: Path) -> list[Path]:
    """The held-out images of a dataset: ``images/val/`` when the dataset has splits, else ``images/``."""
    folder = root / "images" / "val" if (root / "images" / "val").is_dir() else root / "images"
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)


def _matched_gt(pred_xyxy: np.ndarray, pred_score: np.ndarray, pred_class: np.ndarray | None,
                gt_xyxy: np.ndarray, gt_class: np.ndarray | None, threshold: float) -> np.ndarray:
    """For each prediction the index of the ground truth it matched (greedy, best score first), or -1."""
    result = np.full(len(pred_xyxy), -1, np.int64)
    if len(pred_xyxy) == 0 or len(gt_xyxy) == 0:
        return result
    iou = box_iou(pred_xyxy, gt_xyxy)
    if pred_class is not None and gt_class is not None:
        iou = np.where(pred_class[:, None] == gt_class[None, :], iou, 0.0)
    taken = np.zeros(len(gt_xyxy), bool)
    for i in np.argsort(-pred_score, kind="stable"):
        row = np.where(taken, -1.0, iou[i])
        j = int(row.argmax())
        if row[j] >= threshold:
            taken[j] = True
            result[i] = j
    return result


def _label_path(root: Path, image_path: Path) -> Path:
    relative = image_path.relative_to(root / "images")
    return (root / "labels" / relative).with_suffix(".txt")


def _image_size(path: Path) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as image:
        width, height = image.size
    return height, width


# ---------------------------------------------------------------------------------- speed

def make_speed_photos(sources: Sequence[Path], folder: Path) -> list[Path]:
    """Upscale photos to 4000x3000 (3000x4000 for portrait) JPEG quality 90 in ``folder``."""
    paths = []
    for number, source in enumerate(sources):
        image = cv2.imread(str(source), cv2.IMREAD_COLOR)
        if image is None:
            continue
        size = SPEED_SIZE if image.shape[1] >= image.shape[0] else SPEED_SIZE[::-1]
        big = cv2.resize(image, size, interpolation=cv2.INTER_CUBIC)
        path = folder / f"speed_{number:03d}.jpg"
        cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, SPEED_JPEG_QUALITY])
        paths.append(path)
    return paths


def _timed_reads(detector: CardDetector, payloads: Sequence[bytes],
                 warmup: int) -> tuple[list[float], list[PhotoReading]]:
    """Milliseconds from each file's bytes to its card list, and the readings, after
    reading the first ``warmup`` files once untimed (first runs allocate)."""
    for data in payloads[:warmup]:
        detector.detect_cards(data)
    totals, readings = [], []
    for data in payloads:
        start = time.perf_counter()
        readings.append(detector.detect_cards(data))
        totals.append((time.perf_counter() - start) * 1000)
    return totals, readings


def time_photos(detector: CardDetector, paths: Sequence[Path]) -> dict[str, Any]:
    """Median and p95 milliseconds from the file's bytes to the card list (after one warm-up read)."""
    payloads = [path.read_bytes() for path in paths]
    if not payloads:
        return {"photos": 0}
    totals, _ = _timed_reads(detector, payloads, warmup=1)
    return {"photos": len(totals), "median_ms": statistics.median(totals),
            "p95_ms": float(np.percentile(totals, 95))}


def measure_speed(
    detector: CardDetector,
    sources: Sequence[Path],
    ultralytics_weights: Path | None = None,
    progress: Progress = _stderr,
) -> dict[str, Any]:
    """Time bytes -> card list on 4000x3000 JPEGs, and Ultralytics' PyTorch predict on the same files.

    Args:
        detector: The ONNX pipeline to time.
        sources: Photos to upscale (one 4000x3000 JPEG each).
        ultralytics_weights: ``index_detector.pt`` for the PyTorch comparison, or None.
        progress: Receives status lines.
    """
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory(prefix="onze-speed-") as tmp:
        paths = make_speed_photos(sources, Path(tmp))
        if not paths:
            return {"photos": 0}
        totals, readings = _timed_reads(detector, [p.read_bytes() for p in paths], warmup=2)
        stages = {key: [reading.timings.get(key, 0.0) for reading in readings] for key in TIMING_KEYS}
        stage_median = {key: statistics.median(values) for key, values in stages.items()}
        stage_mean = {key: statistics.fmean(values) for key, values in stages.items()}
        networks = stage_mean["detector"] + stage_mean["classifier"]
        result: dict[str, Any] = {
            "photos": len(paths),
            "size": list(SPEED_SIZE),
            "jpeg_quality": SPEED_JPEG_QUALITY,
            "median_ms": statistics.median(totals),
            "p95_ms": float(np.percentile(totals, 95)),
            "all_ms": totals,
            "stage_median_ms": stage_median,
            "stage_mean_ms": stage_mean,
            "outside_networks_share": 1.0 - networks / max(sum(stage_mean.values()), 1e-9),
            "detector_input": list(detector.input_size),
            "cpu_count": os.cpu_count(),
            # Other work on the machine (training) slows every figure here.
            "load_average_1min": load_before,
        }
        progress(f"speed: ONNX median {result['median_ms']:.1f} ms over {len(paths)} photos")
        if ultralytics_weights is not None:
            try:
                result["ultralytics"] = _time_ultralytics(detector, ultralytics_weights, paths)
                result["ultralytics_over_onnx"] = result["ultralytics"]["median_ms"] / result["median_ms"]
            except Exception as error:  # noqa: BLE001 - the comparison is optional
                result["ultralytics"] = {"error": f"{type(error).__name__}: {error}"}
        return result


def _time_ultralytics(detector: CardDetector, weights: Path, paths: Sequence[Path]) -> dict[str, Any]:
    """Ultralytics' PyTorch predict (detector only, from the file) with two threads."""
    os.environ["YOLO_OFFLINE"] = "true"  # must be set before the import
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    import torch
    import ultralytics.utils.torch_utils as torch_utils
    from ultralytics import YOLO

    torch_utils.NUM_THREADS = 2
    torch.set_num_threads(2)
    model = YOLO(str(weights))
    options = {"imgsz": max(detector.input_size), "conf": detector.config.conf_threshold,
               "iou": detector.config.iou_threshold, "verbose": False, "device": "cpu"}
    for path in paths[:2]:
        model.predict(str(path), **options)
    times = []
    for path in paths:
        start = time.perf_counter()
        model.predict(str(path), **options)
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": statistics.median(times), "p95_ms": float(np.percentile(times, 95)),
            "what": "YOLO(index_detector.pt).predict(path): detector only, from the JPEG file, torch 2 threads"}


# ------------------------------------------------------------------------ report + summary

def summary_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures with bars: name, value, bar text and ok (None when not measured)."""
    real = results.get("real") or {}
    synthetic = results.get("synthetic") or {}
    product = results.get("synthetic_product") or {}
    far = results.get("synthetic_far") or {}
    four = (results.get("synthetic_four") or {}).get("cards") or {}
    speed = results.get("speed") or {}
    conditions = results.get("conditions") or {}
    lights = conditions.get("light") or {}
    found_in_light = [shares.get("found_share") for shares in lights.values()]
    tilts = conditions.get("tilt") or {}
    twice_when_tilted = [shares.get("read_twice_share") for shares in tilts.values()]
    blurs = conditions.get("blur") or {}

    def row(name: str, value: float | None, bar: str, ok: Callable[[float], bool], fmt: str) -> dict[str, Any]:
        judged = value is not None and bar != "(reported)"
        return {"name": name, "value": value, "text": "not measured" if value is None else format(value, fmt),
                "bar": bar, "ok": bool(ok(value)) if judged else None}

    return [
        row("real-photo rank recall", real.get("rank_recall"), f">= {BAR_REAL_RECALL}",
            lambda v: v >= BAR_REAL_RECALL, ".3f"),
        row("invented cards per photo", real.get("invented_per_photo"), f"<= {BAR_INVENTED_PER_PHOTO}",
            lambda v: v <= BAR_INVENTED_PER_PHOTO, ".3f"),
        row("rank recall on photos the thresholds were not chosen on",
            (real.get("not_chosen_on") or {}).get("rank_recall"), "(reported)", lambda v: True, ".3f"),
        row("invented per photo there", (real.get("not_chosen_on") or {}).get("invented_per_photo"),
            "(reported)", lambda v: True, ".3f"),
        row("real photos read exactly", real.get("exact_photo_rate"), "(reported)", lambda v: True, ".3f"),
        row("real photos made grey: cards read or offered right", (conditions.get("grey") or {}).get(
            "read_or_offered_right_share"), "(reported)", lambda v: True, ".3f"),
        row(f"real photos in bad light ({', '.join(lights)}): cards found, worst",
            min(found_in_light) if found_in_light and None not in found_in_light else None,
            "(reported)", lambda v: True, ".3f"),
        row(f"real photos seen from lower down ({', '.join(tilts)}): cards read twice, worst",
            max(twice_when_tilted) if twice_when_tilted and None not in twice_when_tilted else None,
            "(reported)", lambda v: True, ".3f"),
        row("real photos as taken reported blurred (a warning where none is due)",
            (conditions.get("as taken") or {}).get("warned_share"), "(reported)", lambda v: True, ".3f"),
        *(row(f"real photos {name}: reported blurred", shares.get("warned_share"), "(reported)", lambda v: True,
              ".3f") for name, shares in blurs.items()),
        row("synthetic mAP50", synthetic.get("map50"), f">= {BAR_SYNTHETIC_MAP50}",
            lambda v: v >= BAR_SYNTHETIC_MAP50, ".3f"),
        row("synthetic mAP50-95", synthetic.get("map50_95"), "(reported)", lambda v: True, ".3f"),
        row("synthetic mAP50, every code of a box scored (Ultralytics)", synthetic.get("map50_every_code"),
            "(reported)", lambda v: True, ".3f"),
        row("synthetic mAP50 if every located index were named right", synthetic.get("map50_named_right"),
            "(reported)", lambda v: True, ".3f"),
        row("synthetic mAP50, rank showing, index 24 px and up",
            _breakdown_map50(synthetic, "rank showing", "24 px and up"), "(reported)", lambda v: True, ".3f"),
        row(f"synthetic mAP50 at the product's reading resolution ({PRODUCT_SCALE}x)", product.get("map50"),
            "(reported)", lambda v: True, ".3f"),
        row("the same, rank showing", _breakdown_map50(product, "rank showing", "all sizes"),
            "(reported)", lambda v: True, ".3f"),
        row(f"far shots ({FAR_SHOTS}): mAP50", far.get("map50"), "(reported)", lambda v: True, ".3f"),
        row("far shots: cards read right (card recall)", (far.get("cards") or {}).get("recall"),
            "(reported)", lambda v: True, ".3f"),
        row("far shots: median ms per photo", (far.get("speed") or {}).get("median_ms"), "(reported)",
            lambda v: True, ".1f"),
        row(f"four-corner decks ({FOUR_CORNER_DECKS}): card recall", four.get("recall"), "(reported)",
            lambda v: True, ".3f"),
        row("four-corner decks: card precision (a card counted twice is one wrong)", four.get("precision"),
            "(reported)", lambda v: True, ".3f"),
        row("four-corner decks: scenes read exactly", four.get("exact_scene_rate"), "(reported)",
            lambda v: True, ".3f"),
        row("median ms per 4000x3000 JPEG", speed.get("median_ms"), f"<= {BAR_MEDIAN_MS:.0f}",
            lambda v: v <= BAR_MEDIAN_MS, ".1f"),
        row("p95 ms per 4000x3000 JPEG", speed.get("p95_ms"), "(reported)", lambda v: True, ".1f"),
        row("share of time outside the networks", speed.get("outside_networks_share"),
            f"< {BAR_OUTSIDE_NETWORKS}", lambda v: v < BAR_OUTSIDE_NETWORKS, ".2f"),
        row("Ultralytics PyTorch / ONNX pipeline (median)", speed.get("ultralytics_over_onnx"), "(reported)",
            lambda v: True, ".2f"),
    ]


def _breakdown_map50(synthetic: dict[str, Any], labels: str, band: str) -> float | None:
    """One cell of :func:`evaluate_synthetic`'s mAP50 breakdown (None when not measured)."""
    return ((synthetic.get("map50_breakdown") or {}).get(labels) or {}).get(band, {}).get("map50")


def format_summary(results: dict[str, Any]) -> str:
    """A plain-text table of the summary rows."""
    rows = results.get("summary") or summary_rows(results)
    width = max(len(r["name"]) for r in rows)
    lines = [f"{'figure':<{width}}  {'value':>12}  {'bar':<8}  ok", "-" * (width + 30)]
    for r in rows:
        mark = "-" if r["ok"] is None else ("yes" if r["ok"] else "NO")
        lines.append(f"{r['name']:<{width}}  {r['text']:>12}  {r['bar']:<8}  {mark}")
    return "\n".join(lines)


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
    progress: Progress = _stderr,
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
        speed_photos: How many 4000x3000 JPEGs to time (0 skips).
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
    if "synthetic_far" in results and speed_photos > 0:
        results["synthetic_far"]["speed"] = time_photos(
            detector, synthetic_images(synthetic_far)[:speed_photos])
    if speed_photos > 0 and realphotos is not None and (realphotos / "manifest.json").exists():
        manifest = json.loads((realphotos / "manifest.json").read_text(encoding="utf-8"))
        step = max(1, len(manifest) // speed_photos)
        sources = [realphotos / entry["image"] for entry in manifest[::step][:speed_photos]]
        weights = detector.model_dir / "index_detector.pt"
        results["speed"] = measure_speed(detector, sources, weights if ultralytics and weights.exists() else None,
                                         progress)
    results["summary"] = summary_rows(results)
    results["plots"] = _write_plots(results, report_dir)
    (report_dir / "report.json").write_text(json.dumps(results, indent=1, default=_json_default), encoding="utf-8")
    (report_dir / "report.md").write_text(format_report(results), encoding="utf-8")
    return results


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _write_plots(results: dict[str, Any], folder: Path) -> list[str]:
    """Per-rank recall, confusion matrix and speed split as PNGs; [] without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    written = []
    real = results.get("real")
    if real and real["per_rank_recall"]:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ranks = list(real["per_rank_recall"])
        ax.bar(ranks, [real["per_rank_recall"][r] for r in ranks], color="#4477aa")
        ax.axhline(BAR_REAL_RECALL, color="red", linestyle="--", label=f"bar {BAR_REAL_RECALL}")
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("rank recall")
        ax.set_title(f"Real photos ({real['photos']}): recall per rank")
        ax.legend(loc="lower right")
        fig.tight_layout()
        fig.savefig(folder / "real_rank_recall.png", dpi=110)
        plt.close(fig)
        written.append("real_rank_recall.png")
    synthetic = results.get("synthetic")
    if synthetic:
        matrix = np.array(synthetic["confusion"], np.float64)
        rows = matrix.sum(axis=1, keepdims=True)
        normalised = np.divide(matrix, rows, out=np.zeros_like(matrix), where=rows > 0)
        labels = synthetic["confusion_labels"][:-1] + ["none"]
        fig, ax = plt.subplots(figsize=(13, 12))
        ax.imshow(normalised, cmap="Blues", vmin=0, vmax=1)
        ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=6)
        ax.set_yticks(range(len(labels)), labels, fontsize=6)
        ax.set_xlabel("predicted code ('none' column: index missed)")
        ax.set_ylabel("true code ('none' row: nothing there)")
        ax.set_title("Synthetic held-out decks: codes read on matched index boxes (row-normalised)")
        fig.tight_layout()
        fig.savefig(folder / "synthetic_confusion.png", dpi=110)
        plt.close(fig)
        written.append("synthetic_confusion.png")
    speed = results.get("speed")
    if speed and speed.get("photos"):
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
        stages = speed["stage_mean_ms"]
        bottom = 0.0
        for key, colour in zip(TIMING_KEYS, ("#ccbb44", "#66ccee", "#4477aa", "#228833", "#ee6677")):
            left.bar(["ONNX pipeline"], [stages[key]], bottom=bottom, label=key, color=colour)
            bottom += stages[key]
        if "median_ms" in (speed.get("ultralytics") or {}):
            left.bar(["Ultralytics predict"], [speed["ultralytics"]["median_ms"]], color="#bbbbbb",
                     label="PyTorch (detector only)")
        left.set_ylabel("ms per 4000x3000 JPEG")
        left.legend(fontsize=7)
        left.set_title("Where the time goes (mean)")
        right.hist(speed["all_ms"], bins=15, color="#4477aa")
        right.axvline(BAR_MEDIAN_MS, color="red", linestyle="--", label=f"bar {BAR_MEDIAN_MS:.0f} ms")
        right.set_xlabel("ms end to end")
        right.legend(fontsize=7)
        right.set_title(f"{speed['photos']} photos")
        fig.tight_layout()
        fig.savefig(folder / "speed.png", dpi=110)
        plt.close(fig)
        written.append("speed.png")
    return written


def format_report(results: dict[str, Any]) -> str:
    """The Markdown report."""
    lines = ["# Onze Vision: detector evaluation", "",
             f"Models: `{results['models']}`; run {results['date_utc']} UTC.", "",
             "## Summary", "", "| figure | value | bar | ok |", "|---|---|---|---|"]
    for r in results["summary"]:
        mark = "-" if r["ok"] is None else ("yes" if r["ok"] else "**no**")
        lines.append(f"| {r['name']} | {r['text']} | {r['bar']} | {mark} |")
    real = results.get("real")
    if real:
        lines += ["", "## Real photos", "",
                  f"{real['photos']} photos, {real['labelled_cards']} labelled cards (ranks 9-A only, whole-card "
                  "boxes). A card is found when a detected card of its rank has its box centre inside the "
                  "labelled box; a detected card whose centre is inside no labelled box is invented (this also "
                  "counts cards the photo shows but the labels leave out).", "",
                  f"- rank recall: {_fmt(real['rank_recall'])}",
                  f"- invented cards: {real['invented']} ({_fmt(real['invented_per_photo'])} per photo)",
                  f"- photos read exactly: {_fmt(real['exact_photo_rate'])}",
                  *([f"- cards offered as possibly missed (never counted unasked): "
                     f"{_fmt(real['offered_per_photo'])} per photo, "
                     f"{_fmt(real['offered_off_cards_per_photo'])} on no labelled card"]
                    if real.get("offered_per_photo") is not None else []),
                  *([f"- on the {real['not_chosen_on']['photos']} photos the thresholds were not chosen on "
                     f"(all but every {OPERATING_POINT_EVERY}th): rank recall "
                     f"{_fmt(real['not_chosen_on']['rank_recall'])}, invented per photo "
                     f"{_fmt(real['not_chosen_on']['invented_per_photo'])}"] if real.get("not_chosen_on") else []),
                  f"- labelled cards with a detection of another rank but none of theirs: {real['wrong_rank_on_card']}",
                  f"- labelled cards read twice (two detected cards of their rank): {real['cards_read_twice']}", "",
                  "| rank | cards | recall |", "|---|---|---|"]
        for rank, recall in real["per_rank_recall"].items():
            lines.append(f"| {rank} | {real['per_rank_count'][rank]} | {recall:.3f} |")
        lines += ["", "Worst photos:", "", "| photo | labels | detected | missed | invented |", "|---|---|---|---|---|"]
        for p in real["worst_photos"]:
            lines.append(f"| {p['image']} | {' '.join(p['labels'])} | {' '.join(p['detected'])} | "
                         f"{' '.join(p['missed'])} | {' '.join(p['invented'])} |")
        lines += ["", "Photos: EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-"
                  "Windows-10 (commit c1645825822622fc75919b6be253779d49678f55), Apache-2.0."]
    conditions = results.get("conditions")
    if conditions and conditions.get("photos"):
        lines += _conditions_lines(conditions)
    synthetic = results.get("synthetic")
    if synthetic:
        lines += _synthetic_lines(synthetic, "Synthetic held-out decks (corner indices, before pairing)")
    product = results.get("synthetic_product")
    if product:
        lines += _synthetic_lines(
            product, f"The same held-out decks at the product's reading resolution ({PRODUCT_SCALE}x)",
            [f"The held-out scenes drawn {PRODUCT_SCALE} times larger, indices and all, as a phone photo is read "
             "(decoded with its long side >= 960 px): `make-dataset --size 960 --index-px 33 180`. Reported "
             "beside the bar's figure above, which stays on the 320-px scenes.", ""])
    far = results.get("synthetic_far")
    if far:
        far_speed = far.get("speed") or {}
        timed = ([f"Read in {far_speed['median_ms']:.0f} ms median, {far_speed['p95_ms']:.0f} ms p95 "
                  f"(bytes to card list, {far_speed['photos']} photos).", ""] if far_speed.get("photos") else [])
        lines += _synthetic_lines(
            far, f"Far shots ({FAR_SHOTS})",
            ["Held-out decks photographed from far away: 4000x4000 JPEGs whose indices are 40-120 px tall, "
             "10-30 px once the photo is decoded at a quarter for the first look: "
             "`make-dataset --out datasets/far-val --train 0 --val 80 --seed 42 --size 4000 --index-px 40 120`. "
             "Where the indices are small the detector looks again at the cards' part of the photo, decoded "
             "finer (`zoom_*` in `detector.json`).", "", *timed])
    four = results.get("synthetic_four")
    if four:
        lines += _synthetic_lines(
            four, f"Four-corner decks ({FOUR_CORNER_DECKS})",
            ["Decks with an index in every corner, as many Latin American and European decks have: KDE's "
             "dondorf, and the three held-out designs with their index copied into the bare corners; none "
             "trained on. A card shows up to four indices and must be counted once (`four_corners` in "
             "`detector.json`): `make-dataset --out datasets/four-val960 --train 0 --val 300 --seed 51 "
             "--size 960 --index-px 33 180 --val-designs four-corner`.", ""])
    speed = results.get("speed")
    if speed and speed.get("photos"):
        stages = speed["stage_mean_ms"]
        lines += ["", "## Speed", "",
                  f"{speed['photos']} real photos upscaled to {speed['size'][0]}x{speed['size'][1]} JPEG "
                  f"quality {speed['jpeg_quality']}; bytes -> card list; detector input "
                  f"{speed['detector_input'][0]}x{speed['detector_input'][1]}.", "",
                  f"- median {speed['median_ms']:.1f} ms, p95 {speed['p95_ms']:.1f} ms",
                  "- mean split: " + ", ".join(f"{k} {v:.1f} ms" for k, v in stages.items()),
                  f"- outside the networks: {speed['outside_networks_share']:.0%}"]
        ultra = speed.get("ultralytics")
        if ultra:
            if "median_ms" in ultra:
                lines.append(f"- Ultralytics PyTorch predict ({ultra['what']}): median {ultra['median_ms']:.1f} ms, "
                             f"{speed['ultralytics_over_onnx']:.2f}x the ONNX pipeline's time")
            else:
                lines.append(f"- Ultralytics comparison failed: {ultra['error']}")
        lines.append(f"- machine: {speed.get('cpu_count')} CPUs, 1-minute load average {speed.get('load_average_1min')} "
                     "when the timing started (other work, e.g. training, slows every figure here).")
    for plot in results.get("plots", []):
        lines += ["", f"![{plot}]({plot})"]
    return "\n".join(lines) + "\n"


def _synthetic_lines(synthetic: dict[str, Any], heading: str, intro: Sequence[str] = ()) -> list[str]:
    """The report section of one :func:`evaluate_synthetic` result."""
    lines = ["", f"## {heading}", "", *intro,
             f"{synthetic['images']} images, {synthetic['index_boxes']} index boxes.", "",
             f"- mAP50 {_fmt(synthetic['map50'])}, mAP50-95 {_fmt(synthetic['map50_95'])} "
             "(COCO 101-point, detector confidence >= 0.001)",
             f"- mAP50 with every code of a box scored, as Ultralytics' val does (`multi_label`): "
             f"{_fmt(synthetic.get('map50_every_code'))}; the bar is judged on the one code each box is read as",
             f"- mAP50 if every reported box on an index were named as its label (scored by the detector "
             f"alone): {_fmt(synthetic.get('map50_named_right'))}, the ceiling the detector and the "
             "post-processing leave to the classifier",
             f"- at the runtime thresholds (conf {synthetic['thresholds']['conf']}, class probability "
             f"{synthetic['thresholds']['min_class_prob']}): recall {_fmt(synthetic['recall'])}, "
             f"precision {_fmt(synthetic['precision'])}, right code on matched boxes "
             f"{_fmt(synthetic['code_accuracy_on_matched_boxes'])}", "",
             *_breakdown_lines(synthetic.get("map50_breakdown")),
             *_rank_shown_lines(synthetic.get("labels_by_rank_shown")),
             "Look-alikes (matched boxes, IoU >= 0.5):", "",
             "| pair | errors | of boxes of those codes | rate | worst (true -> read: n) |", "|---|---|---|---|---|"]
    for item in synthetic["lookalikes"]:
        worst = ", ".join(f"{t}->{p}: {n}" for t, p, n in item["worst"])
        lines.append(f"| {item['pair']} | {item['errors']} | {item['of_matched']} | {_fmt(item['rate'])} | {worst} |")
    if synthetic.get("per_design"):
        lines += ["", "Per held-out design (scenes drawn from one design; \"located\": an index box kept at the "
                  "runtime thresholds, whatever code it got):", "",
                  "| design | scenes | index boxes | mAP50 | recall | located |", "|---|---|---|---|---|---|"]
        for name, item in synthetic["per_design"].items():
            lines.append(f"| {name} | {item['scenes']} | {item['index_boxes']} | {_fmt(item['map50'])} | "
                         f"{_fmt(item['recall'])} | {_fmt(item['located'])} |")
    by_corner = synthetic.get("located_by_corner") or {}
    if len(by_corner) > 2:  # a four-corner deck: the corners the detector was not taught
        lines += ["", "Indices located, by corner: " + ", ".join(
            f"{corner} {_fmt(item['located'])} of {item['labels']}" for corner, item in by_corner.items())]
    recall = sorted(synthetic["recall_per_class"].items(), key=lambda kv: kv[1])
    lines += ["", "Lowest per-class recall: " + ", ".join(f"{c} {v:.2f}" for c, v in recall[:12])]
    cards = synthetic.get("cards")
    if cards:
        pairing = cards["pairing_on_true_indices"]
        lines += ["", "Cards after pairing (what scoring sees), against the generator's scene records:", "",
                  f"- {cards['scenes']} scenes, {cards['cards']} cards with a visible index: card recall "
                  f"{_fmt(cards['recall'])}, precision {_fmt(cards['precision'])}, scenes read exactly "
                  f"{_fmt(cards['exact_scene_rate'])}",
                  *_alternative_lines(cards.get("alternatives")),
                  f"- pairing alone (true index boxes, codes and down vectors): {_fmt(pairing['card_accuracy'])} "
                  f"of cards grouped right, {_fmt(pairing['exact_scene_rate'])} of scenes; "
                  f"{pairing['missed_pairs']} of {pairing['true_pairs']} cards of two or more corners not "
                  f"grouped whole, {pairing['false_pairs']} false groups"]
    return lines


def _alternative_lines(alternatives: dict[str, Any] | None) -> list[str]:
    """The line on unsure cards and their one-tap alternatives (empty without figures)."""
    if not alternatives:
        return []
    return [f"- unsure cards, shown with their next most likely code: {_fmt(alternatives['unsure_share'])} of the "
            f"cards read; of the {alternatives['wrong']} wrong readings {_fmt(alternatives['wrong_unsure_share'])} "
            f"are shown unsure and {_fmt(alternatives['fixed_share'])} have the right code as their alternative; "
            f"{_fmt(alternatives['right_unsure_share'])} of the right readings are shown unsure (a needless check); "
            f"cards possibly missed, offered to add: {_fmt(alternatives.get('maybe_per_scene'))} per scene, "
            f"{_fmt(alternatives.get('maybe_right_share'))} of them right. Taking each right alternative and "
            f"each right card offered: card recall {_fmt(alternatives['recall_after_fixes'])}, scenes read "
            f"exactly {_fmt(alternatives['exact_scene_rate_after_fixes'])}"]


def _breakdown_lines(breakdown: dict[str, dict[str, dict[str, Any]]] | None) -> list[str]:
    """The mAP50 table by label set and index size (empty without one)."""
    if not breakdown:
        return []
    bands = [band for band, _, _ in SIZE_BANDS]
    lines = [f"mAP50 by index size (long side of the label box) and label set, with labels outside a cell "
             "ignored as COCO ignores boxes outside its size ranges. \"rank showing\": labels with less than "
             f"{RANK_LEGIBLE:.0%} of their rank half showing (a covered rank cannot be read for sure) need not "
             "be found; a right reading of one is not counted, a wrong one still counts as wrong. The bar is "
             "judged on every label, all sizes.", "",
             "| labels | " + " | ".join(bands) + " |", "|---|" + "---|" * len(bands)]
    for labels, cells in breakdown.items():
        lines.append(f"| {labels} | " + " | ".join(
            f"{_fmt(cells[band]['map50'])} ({cells[band]['index_boxes']})" for band in bands) + " |")
    return lines + ["", "(index boxes counted in brackets)", ""]


def _rank_shown_lines(by_band: dict[str, dict[str, int]] | None) -> list[str]:
    """How labels are read by how much of their rank shows (empty without the records)."""
    if not by_band:
        return []
    total = sum(cell["labels"] for cell in by_band.values()) or 1
    lines = ["Labels read by the surest reported box on them (IoU >= 0.5, detector confidence >= 0.001), "
             "by how much of their rank half shows:", "",
             "| rank half showing | labels | share | " + " | ".join(READINGS) + " |",
             "|---|---|---|" + "---|" * len(READINGS)]
    for band, cell in by_band.items():
        n = cell["labels"]
        lines.append(f"| {band} | {n} | {n / total:.3f} | "
                     + " | ".join(_fmt(cell[r] / n if n else None) for r in READINGS) + " |")
    return lines + [""]


def _conditions_lines(conditions: dict[str, Any]) -> list[str]:
    """The real photos changed (:mod:`onze_vision.conditions`): grey, in bad light, blurred, tilted."""
    grey = conditions["grey"]
    lines = ["", "## Real photos without colour, in bad light, blurred and tilted", "",
             f"One real photo in {conditions['every']} ({conditions['photos']}) read as taken and changed; the "
             "reading as taken is the reference, card by card (`onze_vision/conditions.py`).", "",
             f"- Black and white (one-channel JPEG): {grey.get('judged colourless', 0)} of {conditions['photos']} "
             f"judged colourless; of {grey['cards']} suited cards {grey.get('found', 0)} found, "
             f"{grey.get('same rank', 0)} with their rank; red cards with their colour kept "
             f"{grey.get('red: colour kept', 0)} of {grey.get('red', 0)}; cards read or offered right "
             f"(the alternative is the other colour) {_fmt(grey['read_or_offered_right_share'])}, read right "
             f"{_fmt(grey['read_right_share'])}; reported blurred {_fmt(grey['warned_share'])}.", "",
             f"- As taken: {_fmt(conditions['as taken']['warned_share'])} of the photos reported "
             "blurred (the blur gauge; a warning where none is due). The last column of each table is the "
             "share of the changed photos reported blurred.", "",
             "| light (channel factors B, G, R; noise) | cards found | read right | reported blurred |",
             "|---|---|---|---|"]
    for name, (factors, noise) in LIGHTS.items():
        shares = conditions["light"][name]
        lines.append(f"| {name} ({', '.join(f'{f:g}' for f in factors)}; {noise:g}) | "
                     f"{_fmt(shares['found_share'])} | {_fmt(shares['read_right_share'])} | "
                     f"{_fmt(shares['warned_share'])} |")
    lines += ["", "| blur (share of the photo's long side) | cards found | read right | reported blurred |",
              "|---|---|---|---|"]
    for name, (kind, share) in BLURS.items():
        shares = conditions["blur"][name]
        lines.append(f"| {name} ({kind}, {share:g}) | {_fmt(shares['found_share'])} | "
                     f"{_fmt(shares['read_right_share'])} | {_fmt(shares['warned_share'])} |")
    lines += ["", "| seen from lower down (far edge over near edge) | cards found | read right | read twice | "
              "reported blurred |", "|---|---|---|---|---|"]
    for name, far_share in TILTS.items():
        shares = conditions["tilt"][name]
        lines.append(f"| {name} ({far_share:g}) | {_fmt(shares['found_share'])} | "
                     f"{_fmt(shares['read_right_share'])} | {_fmt(shares['read_twice_share'])} | "
                     f"{_fmt(shares['warned_share'])} |")
    return lines


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
