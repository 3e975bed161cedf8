"""Which of a photo's Joker corners are one Joker: the geometry, apart from the networks.

A Joker's corner is read worse than a rank's, and read wrong it costs most, so its corners
get rules of their own once the classifier has read them (:class:`~onze_vision.detector.CardDetector`
calls these):

- where the players showed the deck's own Joker (:mod:`onze_vision.jokers`), an index that
  looks like it is read as a Joker (:func:`read_as_the_decks_joker`);
- JOKER spelt down a corner is boxed twice by the detector, whole and in part; one box is
  kept (:func:`one_box_per_spelt_joker`);
- a star reads the same every way up, so its corners tell no way down to pair them by; two
  star corners lying a card's diagonal apart are given that diagonal's ways down
  (:func:`jokers_turned_as_pairs`), measured in pixels from the photo's other cards or in
  mark sizes from the Joker's look (:func:`corner_distance`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from onze_vision.cards import CARD_CODES, JOKER_CODE
from onze_vision.detections import Detections, box_ios
from onze_vision.detector_config import DetectorConfig
from onze_vision.pairing import index_size, unit_vectors

__all__ = ["read_as_the_decks_joker", "one_box_per_spelt_joker", "corner_distance", "jokers_turned_as_pairs",
           "TELLS_DOWN_MIN", "SPELT_JOKER_OVERLAP", "SPELT_JOKER_SAME_WAY", "SPELT_JOKER_ALONG",
           "JOKER_DISTANCE_FACTOR"]


def read_as_the_decks_joker(probs: np.ndarray, score: np.ndarray, likeness: np.ndarray,
                            alike: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Copies of ``probs`` and the detector ``score`` with every index that looks like the
    game's Joker (``alike``: its ``likeness`` at least ``joker_like_min``) read as a Joker, as
    surely as it looks like it: its detector score raised to its likeness, its Joker
    probability 1. The detector scores the marks of a Joker it was not taught low (a ringed
    star: 0.05-0.5), and the classifier may read them as anything."""
    probs, score = probs.copy(), np.asarray(score, np.float32).copy()
    probs[alike] = 0.0
    probs[alike, CARD_CODES.index(JOKER_CODE)] = 1.0
    score[alike] = np.maximum(score[alike], likeness[alike])
    return probs, score


#: How long the mean of a mark's ways down, read from its four quarter turns and turned
#: back, is at least for the mark to tell its way down (1: all four agree).
TELLS_DOWN_MIN = 0.9


#: Two boxes read as Jokers that overlap by at least this much of the smaller, whose ways
#: down agree (cosine at least ``SPELT_JOKER_SAME_WAY``) and which lie one beyond the other
#: along them (cosine at least ``SPELT_JOKER_ALONG``), are one JOKER spelt down a corner,
#: boxed twice (joker-look960: the same readings from 0.3 to 0.5 and 0.8 to 0.9).
SPELT_JOKER_OVERLAP = 0.5
SPELT_JOKER_SAME_WAY = 0.9
SPELT_JOKER_ALONG = 0.9


def one_box_per_spelt_joker(indices: Detections) -> Detections:
    """``indices`` with the boxes of one JOKER word boxed twice kept once (the surer): the
    detector boxes the word spelt down a corner whole and again in part (its last letters),
    and the two overlap too little for the nested-box filter. Two cards' Joker corners in a
    fan lie side by side, not one beyond the other along their way down."""
    jokers = np.flatnonzero(indices.class_id == CARD_CODES.index(JOKER_CODE))
    if len(jokers) < 2:
        return indices
    down = unit_vectors(indices.data["down"][jokers])
    centres = indices.center[jokers]
    overlap = box_ios(indices.xyxy[jokers], indices.xyxy[jokers])
    dropped: set[int] = set()
    for a, b in sorted(itertools.combinations(range(len(jokers)), 2),
                       key=lambda pair: -overlap[pair[0], pair[1]]):
        if a in dropped or b in dropped or overlap[a, b] < SPELT_JOKER_OVERLAP:
            continue
        if float(down[a] @ down[b]) < SPELT_JOKER_SAME_WAY:
            continue
        offset = centres[b] - centres[a]
        length = float(np.linalg.norm(offset))
        way = unit_vectors(down[a] + down[b])   # their shared way down (they agree, so it is not zero)
        if length > 0 and abs(float(offset @ way)) / length < SPELT_JOKER_ALONG:
            continue
        dropped.add(b if indices.confidence[jokers[a]] >= indices.confidence[jokers[b]] else a)
    if not dropped:
        return indices
    keep = np.ones(len(indices), bool)
    keep[jokers[sorted(dropped)]] = False
    return indices[keep]


#: How far from the expected distance (as a factor, either way) two Joker corners whose
#: marks tell no way down may lie and be paired by it.
JOKER_DISTANCE_FACTOR = 1.33


def corner_distance(two: np.ndarray) -> float | None:
    """How far apart, in mark sizes, a Joker's two corners ``two`` (boxes) lie; None for one."""
    if len(two) < 2:
        return None
    centres, size = (two[:, :2] + two[:, 2:]) / 2, index_size(two[:, 2:] - two[:, :2])
    return float(np.linalg.norm(centres[1] - centres[0]) / max(size.mean(), 1e-6))


def jokers_turned_as_pairs(xyxy: np.ndarray, down: np.ndarray, alike: np.ndarray, distance: float | None,
                            config: DetectorConfig, pixels: float | None = None,
                            may_pair: np.ndarray | None = None) -> np.ndarray:
    """``down`` with the ways down of Joker corners (``alike``) whose marks tell no way down
    (a star reads the same every way up; its ways down as read are anyone's guess) set by
    where their partners lie, for the pairing: two such corners that lie ``pixels`` apart,
    or where that is None, ``distance`` mark sizes (within :data:`JOKER_DISTANCE_FACTOR`
    either way), are one Joker's top-left and bottom-right corners, each seeing the other
    along the card's diagonal, where ``may_pair`` ([K, K] over the ``alike`` rows) lets
    them. Nearest the expected distance pair first."""
    rows = np.flatnonzero(alike)
    if (distance is None and pixels is None) or len(rows) < 2:
        return down
    centres = (xyxy[rows, :2] + xyxy[rows, 2:]) / 2
    size = index_size(xyxy[rows, 2:] - xyxy[rows, :2])
    candidates = []
    for a, b in itertools.combinations(range(len(rows)), 2):
        if may_pair is not None and not may_pair[a, b]:
            continue
        expected = pixels if pixels is not None else float(distance or 0.0) * (size[a] + size[b]) / 2
        miss = abs(math.log(max(float(np.linalg.norm(centres[b] - centres[a])), 1e-6) / max(expected, 1e-6)))
        if miss <= math.log(JOKER_DISTANCE_FACTOR):
            candidates.append((miss, a, b))
    down = down.copy()
    turn = math.atan2(config.center_offset[1], config.center_offset[0])  # the diagonal, from the top-left's down
    cos, sin = math.cos(turn), math.sin(turn)
    paired: set[int] = set()
    for _, a, b in sorted(candidates):
        if a in paired or b in paired:
            continue
        vx, vy = unit_vectors(centres[b] - centres[a])
        # The top left's down, turned back from the diagonal its partner lies along.
        first = np.array([cos * vx - sin * vy, sin * vx + cos * vy], dtype=down.dtype)
        down[rows[a]], down[rows[b]] = first, -first
        paired |= {a, b}
    return down
