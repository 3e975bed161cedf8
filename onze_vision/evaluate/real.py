"""Real photos (Edje: whole-card boxes, rank only for 9-A): a labelled card is found when a
detected card of the same rank lies on it (the detected box's centre is inside the labelled
box); a detected card lying on no labelled card is invented."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from onze_vision.detector import CardDetector
from onze_vision.evaluate.common import OPERATING_POINT_EVERY, Progress, print_progress, rank_of
from onze_vision.pairing import DetectedCard


def evaluate_real_photos(
    detector: CardDetector | None, root: Path, limit: int | None = None, progress: Progress = print_progress,
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
        assert detector is not None  # used only when no reader is given, and then a detector is (checked below)
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
            ranks_here = [rank_of(code) for code, hit in zip(codes, on_label[:, j]) if hit]
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
