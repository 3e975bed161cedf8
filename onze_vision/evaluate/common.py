"""The bars the detector must meet and what the parts of the evaluation share."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from onze_vision.cards import RED_SUITS

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


Progress = Callable[[str], None]


def interpolated_ap(tp_cum: np.ndarray, fp_cum: np.ndarray, labels: float) -> float:
    """COCO 101-point interpolated AP from the cumulative true and false positives of the
    readings, best score first (counts, or weighted counts of resampled scenes)."""
    if not len(tp_cum):
        return 0.0
    recall = tp_cum / labels
    drawn = tp_cum + fp_cum
    # Weighted, a reading of a scene not drawn adds nothing: precision as before it (0 at the start).
    precision = np.divide(tp_cum, drawn, out=np.zeros(len(tp_cum)), where=drawn > 0)
    # Precision envelope: the best precision at this recall or any higher one.
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    index = np.searchsorted(recall, RECALL_POINTS, side="left")
    sampled = np.where(index < len(envelope), envelope[np.minimum(index, len(envelope) - 1)], 0.0)
    return float(sampled.mean())


def rank_of(code: str) -> str:
    return code if code == "JK" else code[:-1]


def is_red(code: str) -> bool:
    return code[-1] in RED_SUITS


def print_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
