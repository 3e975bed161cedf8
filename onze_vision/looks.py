"""Where to look again: the part of a photo whose corner indices are too small at the
detector's input (a far shot), cut into input-sized tiles decoded finer
(:func:`plan_closer_look`), and the whole photo in tiles when a first look finds nothing
(:func:`plan_blind_look`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from onze_vision.detector_config import DetectorConfig
from onze_vision.pairing import index_size


#: Neighbouring tiles of a closer look overlap by this many index sizes, so that an index
#: cut by one tile's edge lies whole in the next.
TILE_OVERLAP = 2.5


@dataclass(frozen=True)
class CloserLook:
    """Where the detector looks a second time, and how closely (:func:`plan_closer_look`).

    Attributes:
        region: x1, y1, x2, y2 of the part of the photo the first look's indices lie in,
            grown by the margin, in full-photo pixels.
        input_scale: Detector input pixels per full-photo pixel it is seen at.
        tiles: The squares (x1, y1, x2, y2, full-photo pixels, within the photo) the
            detector is given one at a time; together they cover ``region``.
    """

    region: tuple[float, float, float, float]
    input_scale: float
    tiles: tuple[tuple[float, float, float, float], ...] = ()


def _tile_starts(low: float, high: float, side: float, overlap: float, limit: float) -> list[float]:
    """Starts of the fewest tiles of ``side`` overlapping by ``overlap`` that cover
    [low, high], kept within [0, limit]."""
    span = high - low
    # Less a hair: a side fitted to the span exactly must not round up to one tile more.
    count = 1 if span <= side else math.ceil((span - overlap) / (side - overlap) - 1e-9)
    if count == 1:
        starts = [low + (span - side) / 2]
    else:
        step = (span - side) / (count - 1)
        starts = [low + i * step for i in range(count)]
    return [min(max(start, 0.0), max(limit - side, 0.0)) for start in starts]


def plan_closer_look(xyxy: np.ndarray, det_score: np.ndarray, photo_size: tuple[int, int],
                     input_scale: float, input_side: int, config: DetectorConfig) -> CloserLook | None:
    """Whether and where to look again at small indices (``zoom_below``), or None.

    Args:
        xyxy: Boxes of the first look, in full-photo pixels.
        det_score: Their detector scores; those of at least ``zoom_floor`` count.
        photo_size: (width, height) of the full photo.
        input_scale: Detector input pixels per full-photo pixel in the first look.
        input_side: The detector's (square) input side.
        config: ``zoom_below``, ``zoom_target``, ``zoom_tiles``, ``zoom_min_gain``,
            ``zoom_floor``, ``zoom_margin``.

    The region is the box around those indices grown by ``zoom_margin`` index sizes
    (their median), within the photo. It is seen so that the median index measures
    ``zoom_target`` input pixels, in as many input-sized tiles as that takes, or less
    closely when it would take more than ``zoom_tiles`` tiles or more pixels than the
    photo has; and only when that enlarges it by ``zoom_min_gain`` or more.
    """
    found = np.asarray(det_score) >= config.zoom_floor
    if config.zoom_below <= 0 or not found.any():
        return None
    boxes = np.asarray(xyxy, np.float64)[found]
    size = float(np.median(index_size(boxes[:, 2:] - boxes[:, :2])))
    if size <= 0 or size * input_scale >= config.zoom_below:
        return None
    width, height = photo_size
    margin = config.zoom_margin * size
    x1, y1 = max(0.0, boxes[:, 0].min() - margin), max(0.0, boxes[:, 1].min() - margin)
    x2, y2 = min(float(width), boxes[:, 2].max() + margin), min(float(height), boxes[:, 3].max() + margin)
    overlap = TILE_OVERLAP * size
    # Never past the photo's own pixels: enlarging them further only blurs (a small
    # photo the first look already enlarged gets no second look).
    scale = min(config.zoom_target / size, _closest_fit((x1, y1, x2, y2), overlap, input_side, config.zoom_tiles),
                1.0)
    if scale < config.zoom_min_gain * input_scale:
        return None
    return CloserLook((x1, y1, x2, y2), scale, _tiles((x1, y1, x2, y2), input_side / scale, overlap, photo_size))


#: A blind look is taken only when it enlarges the photo at least this much: the indices
#: a first look finds nothing of measure under about 12 input pixels, and the detector
#: finds them from about 16 (``models/HISTORY.md``).
BLIND_MIN_GAIN = 1.5


def plan_blind_look(photo_size: tuple[int, int], input_scale: float, input_side: int,
                    config: DetectorConfig) -> CloserLook | None:
    """Where to look again when the first look found no index (``zoom_blind_tiles``), or None.

    Args:
        photo_size: (width, height) of the full photo.
        input_scale: Detector input pixels per full-photo pixel in the first look.
        input_side: The detector's (square) input side.
        config: ``zoom_blind_tiles``, ``zoom_below``.

    A photo of a table from far away can hold cards whose indices are too small for the
    first look to find any, so there is nothing to place a closer look with. The whole
    photo is then seen as closely as ``zoom_blind_tiles`` input-sized tiles allow, never
    past its own pixels, when that enlarges it ``BLIND_MIN_GAIN`` times or more. Tiles
    overlap by the largest index the closer look is for (``zoom_below`` at the first
    look's scale), so each index lies whole in one of them.
    """
    if config.zoom_blind_tiles <= 0 or config.zoom_below <= 0 or input_scale <= 0:
        return None
    width, height = photo_size
    region = (0.0, 0.0, float(width), float(height))
    overlap = config.zoom_below / input_scale
    scale = min(_closest_fit(region, overlap, input_side, config.zoom_blind_tiles), 1.0)
    if scale < BLIND_MIN_GAIN * input_scale:
        return None
    return CloserLook(region, scale, _tiles(region, input_side / scale, overlap, photo_size))


def _closest_fit(region: tuple[float, float, float, float], overlap: float, input_side: int,
                 max_tiles: int) -> float:
    """The largest scale (input pixels per photo pixel) at which ``region`` fits in at most
    ``max_tiles`` input-sized tiles overlapping by ``overlap`` photo pixels."""
    x1, y1, x2, y2 = region
    return max(min(input_side * cols / (x2 - x1 + (cols - 1) * overlap),
                   input_side * rows / (y2 - y1 + (rows - 1) * overlap))
               for cols in range(1, max_tiles + 1) for rows in range(1, max_tiles // cols + 1))


def _tiles(region: tuple[float, float, float, float], side: float, overlap: float,
           photo_size: tuple[int, int]) -> tuple[tuple[float, float, float, float], ...]:
    """Squares of ``side`` photo pixels, overlapping by ``overlap``, covering ``region`` within the photo."""
    x1, y1, x2, y2 = region
    width, height = photo_size
    return tuple((tx, ty, min(tx + side, float(width)), min(ty + side, float(height)))
                 for ty in _tile_starts(y1, y2, side, overlap, height)
                 for tx in _tile_starts(x1, x2, side, overlap, width))
