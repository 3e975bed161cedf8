"""Index crops for the classifier, cut from generated scenes exactly as the runtime cuts them.

Positives are the labelled corner indices with their boxes jittered the way a detector's
boxes wander; negatives ("none") are boxes of index size anywhere else in the scene:
pips, court-card art, card edges, the table, and in scenes with print
(``make-dataset --printed``) words of it. Those teach the classifier to veto the
detector's false alarms.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from onze_vision.detections import box_iou
from onze_vision.imageio import read_image_file
from onze_vision.indexcrop import CROP_SIZE, crop_index
from onze_vision.synth.codes import CARD_CODES, RANKS, SUITS

RANK_CLASSES: tuple[str, ...] = (*RANKS, "JK", "none")  # 15
NONE_RANK = len(RANK_CLASSES) - 1
JOKER_RANK = RANK_CLASSES.index("JK")


@dataclass
class CropSet:
    """Crops and their targets, as numpy arrays."""

    images: np.ndarray  # [N, S, S, 3] BGR uint8
    rank: np.ndarray  # [N] index into RANK_CLASSES
    suit: np.ndarray  # [N] index into SUITS, -1 for Jokers and none
    down: np.ndarray  # [N, 2], zeros for none

    def __len__(self) -> int:
        return len(self.rank)


def code_targets(code: str) -> tuple[int, int]:
    """(rank class, suit class) of a card code."""
    if code == "JK":
        return JOKER_RANK, -1
    return RANKS.index(code[:-1]), SUITS.index(code[-1])


def jitter_box(rng: np.random.Generator, box: np.ndarray) -> np.ndarray:
    """Move and resize a box the way a detector's prediction differs from the truth."""
    w, h = box[2] - box[0], box[3] - box[1]
    cx = (box[0] + box[2]) / 2 + rng.normal(0, 0.07) * w
    cy = (box[1] + box[3]) / 2 + rng.normal(0, 0.07) * h
    w *= np.exp(rng.normal(0, 0.1))
    h *= np.exp(rng.normal(0, 0.1))
    return np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])


def build_crops(
    dataset: Path, split: str, negatives_per_scene: float = 3.0, seed: int = 0, limit: int | None = None,
    print_negatives_per_scene: float = 4.0,
) -> CropSet:
    """Cut the crops of one split of a generated dataset.

    In a scene with print, ``print_negatives_per_scene`` more negatives (on average) are
    index-sized boxes centred on its words: print cut the way an index is.
    """
    rng = np.random.default_rng(seed)
    images, ranks, suits, downs = [], [], [], []
    lines = (dataset / "meta" / f"{split}.jsonl").read_text().splitlines()
    for line in lines[:limit]:
        meta = json.loads(line)
        scene = read_image_file(dataset / meta["image"], what="scene")
        h, w = scene.shape[:2]
        boxes = np.array([label["box"] for label in meta["labels"]], dtype=np.float64).reshape(-1, 4)
        for label, box in zip(meta["labels"], boxes):
            images.append(crop_index(scene, jitter_box(rng, box)))
            rank, suit = code_targets(label["code"])
            ranks.append(rank)
            suits.append(suit)
            downs.append(label["down"])
        sizes = (boxes[:, 2:] - boxes[:, :2]) if len(boxes) else np.array([[20.0, 30.0]])
        negatives = []
        for _ in range(rng.poisson(negatives_per_scene)):
            bw, bh = sizes[rng.integers(len(sizes))] * np.exp(rng.normal(0, 0.3, 2))
            x, y = rng.uniform(0, max(1, w - bw)), rng.uniform(0, max(1, h - bh))
            negatives.append([x, y, x + bw, y + bh])
        words = np.array(meta.get("printed", []), dtype=np.float64).reshape(-1, 4)
        for _ in range(rng.poisson(print_negatives_per_scene) if len(words) else 0):
            word = words[rng.integers(len(words))]
            cx, cy = rng.uniform(word[0], word[2]), rng.uniform(word[1], word[3])
            bw, bh = sizes[rng.integers(len(sizes))] * np.exp(rng.normal(0, 0.3, 2))
            negatives.append([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2])
        for box in np.array(negatives, np.float64).reshape(-1, 4):
            # On an index (print under a card's index too): the index is what shows there.
            if len(boxes) and box_iou(box, boxes).max() > 0.15:
                continue
            images.append(crop_index(scene, box))
            ranks.append(NONE_RANK)
            suits.append(-1)
            downs.append([0.0, 0.0])
    return _crop_set(images, ranks, suits, downs)


#: A detector as the miner sees it: a BGR image in, index boxes with scores out.
Locator = Callable[[np.ndarray], "tuple[np.ndarray, np.ndarray]"]


def mine_detector_crops(
    dataset: Path, split: str, locate: Locator, limit: int | None = None,
    positive_iou: float = 0.5, negative_iou: float = 0.1,
) -> CropSet:
    """Crops cut around a detector's own boxes on generated scenes.

    Random boxes rarely land on what fools a detector (suit pips, court-card art, card
    edges), and jitter only imitates how its boxes wander. So run the detector itself:
    a box on a labelled index (IoU >= ``positive_iou``) becomes a crop of that card, cut
    exactly where the runtime would cut it; a box on no index (IoU < ``negative_iou``
    with every label) becomes a "none" crop: a hard negative. Boxes in between are
    ambiguous and skipped.

    Args:
        dataset: A folder from ``make-dataset``.
        split: "train" (never mine the held-out decks the classifier is measured on).
        locate: Returns (xyxy [N, 4], scores [N]) for a BGR image.
        limit: Use only the first ``limit`` scenes.
    """
    images, ranks, suits, downs = [], [], [], []
    for line in (dataset / "meta" / f"{split}.jsonl").read_text().splitlines()[:limit]:
        meta = json.loads(line)
        scene = read_image_file(dataset / meta["image"], what="scene")
        truth = np.array([label["box"] for label in meta["labels"]], dtype=np.float64).reshape(-1, 4)
        found, _ = locate(scene)
        for box in np.asarray(found, dtype=np.float64).reshape(-1, 4):
            overlap = box_iou(box, truth)[0] if len(truth) else np.zeros(0)
            best = int(overlap.argmax()) if len(overlap) else -1
            if best >= 0 and overlap[best] >= positive_iou:
                label = meta["labels"][best]
                rank, suit = code_targets(label["code"])
                down = label["down"]
            elif best < 0 or overlap[best] < negative_iou:
                rank, suit, down = NONE_RANK, -1, [0.0, 0.0]
            else:
                continue
            images.append(crop_index(scene, box))
            ranks.append(rank)
            suits.append(suit)
            downs.append(down)
    return _crop_set(images, ranks, suits, downs)


def _crop_set(images: list[np.ndarray], ranks: list[int], suits: list[int], downs: list) -> CropSet:
    return CropSet(
        np.stack(images) if images else np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8),
        np.array(ranks, np.int64),
        np.array(suits, np.int64),
        np.array(downs, np.float32).reshape(-1, 2),
    )


def probs_index(rank: int, suit: int) -> int:
    """Column of the classifier's 54-way ``probs`` output for a (rank, suit) target."""
    if rank == NONE_RANK:
        return len(CARD_CODES)
    if rank == JOKER_RANK:
        return CARD_CODES.index("JK")
    return CARD_CODES.index(RANKS[rank] + SUITS[suit])
