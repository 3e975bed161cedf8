"""Index detections made by hand for the tests of pairing and of the pipeline: the corner
indices of a card at a given place and turn, as the detector and classifier would give them.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from onze_vision.cards import CARD_CODES
from onze_vision.detections import Detections
from onze_vision.detector_config import DetectorConfig


# The indices made here are 8 x 20 boxes: aspect 2.5, so the rotation correction is exact.
CONFIG = DetectorConfig(center_offset=(2.5, 1.9), pair_max_angle=10.0, pair_max_dot=-0.5, index_aspect=2.5)
INDEX_WH = (8.0, 20.0)  # an upright index box, in pixels
#: The same for a deck with an index in all four corners.
FOUR_CORNERS = replace(CONFIG, four_corners=True, side_max_angle=10.0, pair_distance=(1.0, 12.0))


def rotate(vector: tuple[float, float], degrees: float) -> np.ndarray:
    """``vector`` turned ``degrees`` clockwise on the image (y points down)."""
    angle = math.radians(degrees)
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * vector[0] - s * vector[1], s * vector[0] + c * vector[1]])


def card_indices(centre: tuple[float, float], code: str, degrees: float = 0.0,
                 corners: tuple[str, ...] = ("tl", "br"), score: float = 0.9) -> list[tuple]:
    """The index detections of one card lying at ``centre``, turned ``degrees`` clockwise.

    Corners "tl" and "br" (its turned copy), and on a four-corner deck "tr" and "bl".
    """
    rows = []
    size = math.sqrt(INDEX_WH[0] * INDEX_WH[1])
    a, b = CONFIG.center_offset
    for corner in corners:
        down = rotate((0.0, 1.0) if corner in ("tl", "tr") else (0.0, -1.0), degrees)
        right = np.array([down[1], -down[0]])
        side = 1.0 if corner in ("tl", "br") else -1.0  # an index on the card's left or right, as it reads
        index_centre = np.asarray(centre) - size * (a * down + side * b * right)
        # The axis-aligned box of the turned index.
        w, h = np.abs(rotate((INDEX_WH[0], 0), degrees)) + np.abs(rotate((0, INDEX_WH[1]), degrees))
        box = [index_centre[0] - w / 2, index_centre[1] - h / 2, index_centre[0] + w / 2, index_centre[1] + h / 2]
        rows.append((box, score, CARD_CODES.index(code), down))
    return rows


def detections(*cards: list[tuple]) -> Detections:
    """The rows of :func:`card_indices` of every card, as one set of index detections."""
    rows = [row for card in cards for row in card]
    return Detections([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
                      {"down": np.array([r[3] for r in rows], np.float32)})


def reading(*code_probs: tuple[str, float]) -> np.ndarray:
    """A classifier output row: the given codes' probabilities, the rest spread evenly."""
    row = np.zeros(len(CARD_CODES) + 1)
    for code, prob in code_probs:
        row[CARD_CODES.index(code) if code != "none" else len(CARD_CODES)] = prob
    rest = [i for i in range(len(row)) if row[i] == 0]
    row[rest] = (1.0 - row.sum()) / len(rest)
    return row.astype(np.float32)


def index_boxes(*centres: tuple[float, float], size: float = 100.0) -> np.ndarray:
    """Square index boxes of side ``size`` at ``centres`` (full-photo pixels)."""
    return np.array([[x - size / 2, y - size / 2, x + size / 2, y + size / 2] for x, y in centres], np.float32)
