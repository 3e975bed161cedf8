"""Synthetic held-out decks (Ultralytics-format dataset, one box per visible corner index,
class = index into CARD_CODES): the pipeline's index detections (detector box + classifier
code, before pairing) scored with COCO-style mAP (101-point interpolation), per-class
recall and a confusion matrix of codes, with look-alike pairs called out; and the cards
after pairing against the generator's scene records."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from onze_vision.detections import Detections, box_iou
from onze_vision.detector import CARD_CODES, CardDetector, DetectorConfig
from onze_vision.evaluate.common import (
    IMAGE_SUFFIXES,
    IOU_THRESHOLDS,
    LABEL_SETS,
    RANK_LEGIBLE,
    RANK_SHOWN_BANDS,
    READINGS,
    SIZE_BANDS,
    Progress,
    interpolated_ap,
    is_red,
    print_progress,
    rank_of,
)
from onze_vision.evaluate.resample import RESAMPLES, SceneScores, interval
from onze_vision.pairing import DetectedCard, pair_groups, pair_indices, possibly_missed, split_at_operating_point

# Look-alikes users complain about: (name, predicate on (true code, predicted code)).
LOOKALIKES: tuple[tuple[str, Callable[[str, str], bool]], ...] = (
    ("6 <-> 9", lambda t, p: {rank_of(t), rank_of(p)} == {"6", "9"}),
    ("8 <-> 6", lambda t, p: {rank_of(t), rank_of(p)} == {"8", "6"}),
    ("Q <-> 9", lambda t, p: {rank_of(t), rank_of(p)} == {"Q", "9"}),
    ("spades <-> clubs (same rank)", lambda t, p: rank_of(t) == rank_of(p) and {t[-1], p[-1]} == {"S", "C"}),
    ("hearts <-> diamonds (same rank)", lambda t, p: rank_of(t) == rank_of(p) and {t[-1], p[-1]} == {"H", "D"}),
    ("red <-> black Ace", lambda t, p: rank_of(t) == rank_of(p) == "A" and is_red(t) != is_red(p)),
)


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
    gt_xyxy: np.ndarray, gt_class: np.ndarray | None, thresholds: Sequence[float] | np.ndarray,
) -> np.ndarray:
    """COCO greedy matching: [P, T] bool, True where a prediction is a true positive.

    Predictions are taken best score first; each takes the unmatched ground truth (of
    its class, when classes are given) with the highest IoU >= the threshold.
    """
    return match_with_ignored(pred_xyxy, pred_score, pred_class, gt_xyxy, gt_class, thresholds)[0]


def match_with_ignored(
    pred_xyxy: np.ndarray, pred_score: np.ndarray, pred_class: np.ndarray | None,
    gt_xyxy: np.ndarray, gt_class: np.ndarray | None, thresholds: Sequence[float] | np.ndarray,
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
    hits = tp[np.argsort(-scores, kind="stable")].astype(np.float64)
    return interpolated_ap(np.cumsum(hits), np.cumsum(1.0 - hits), n_gt)


def evaluate_synthetic(
    detector: CardDetector, root: Path, limit: int | None = None, progress: Progress = print_progress,
    scenes: SceneScores | None = None, resamples: int = RESAMPLES,
) -> dict[str, Any]:
    """mAP50, mAP50-95, per-class recall and the code confusion matrix on index boxes.

    mAP uses every index the pipeline reports at detector confidence 0.001 (as
    Ultralytics' val does), each with the one code it is read as; recall and the
    confusion matrix use the runtime thresholds. ``map50_every_code`` is reported beside
    it for comparison with Ultralytics' figures: its val scores every box for every class
    (``multi_label``), so a box read 6H can still match a 5H at its lower 5H score.
    ``map50_interval`` is the central 95 % of the mAP50 of ``resamples`` resamples of the
    scenes (:mod:`~onze_vision.evaluate.resample`): how far the figure would move on another
    draw of as many scenes; ``scenes``, when given, is filled with each scene's readings, to
    compare detectors on the same resamples.
    """
    images = synthetic_images(root)[:limit]
    config = detector.config
    n_codes = len(CARD_CODES)
    scenes = SceneScores(n_codes) if scenes is None else scenes
    if len(scenes):
        raise ValueError(f"evaluate_synthetic fills an empty SceneScores; this one holds {len(scenes)} scenes already")
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
    breakdown: dict[tuple[str, str], dict[str, Any]] = {
        (labels, band): {"scores": defaultdict(list), "tp": defaultdict(list), "gt": np.zeros(n_codes, np.int64)}
        for labels in LABEL_SETS for band, _, _ in SIZE_BANDS}
    metas = load_scene_meta(root)
    # Labels read right / wrong / missed, by how much of their rank half shows.
    by_rank_shown: dict[str, Counter[str]] = {band: Counter() for band, _, _ in RANK_SHOWN_BANDS}
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
        scenes.add(indices.class_id, indices.confidence, tp[:, 0], gt_class)
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
            for label_row, record in enumerate(records):
                tally = by_corner[record.get("corner", "?")]
                tally["labels"] += 1
                tally["located"] += label_row in located_rows
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
        of_matched = int(matched[sorted(involved)].sum()) if involved else 0
        errors = sum(count for _, _, count in pairs)
        lookalikes.append({"pair": name, "errors": errors, "of_matched": of_matched,
                           "rate": errors / of_matched if of_matched else None,
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
        "map50_interval": list(interval(scenes.resampled_map50(resamples))) if present.any() and resamples else None,
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
    for code in map(int, np.flatnonzero(gt_count)):  # plain ints, as _add_by_class files them
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
            np.array([label["box"] for label in labels], np.float32), np.ones(len(labels)),
            np.array([CARD_CODES.index(label["code"]) for label in labels], np.int64),
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
