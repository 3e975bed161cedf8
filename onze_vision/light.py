"""Even out a photo's light before it is read: white cards made white again.

A photo under a warm lamp turns the cards' white orange, and a dim one turns it grey;
the networks learned cards whose white is near white. The cards are the brightest thing
on most tables, so the brightest pixels of each colour channel say what white became:
each channel is scaled so that its bright end (:data:`WHITE_PERCENTILE`) reaches
:data:`TARGET_WHITE` ("white patch" balance), never darker, and by at most a given gain.
"""

from __future__ import annotations

import cv2
import numpy as np

from onze_vision.imageio import sample_grid

#: The share of a channel's pixels below its "white": the brightest 0.1 % are taken as
#: the cards' white. A far shot's cards cover little of the photo; at 99.5 the table's
#: own colour was taken for white in 9 of the 40 far shots of ``datasets/far-tune``, at
#: 99.9 in 1 (``scripts/sweep_light.py``).
WHITE_PERCENTILE = 99.9

#: The level white is brought to: what white card faces measure in well-lit photos.
TARGET_WHITE = 230.0


def light_gains(image_bgr: np.ndarray, max_gain: float) -> np.ndarray:
    """Per-channel gains (B, G, R), each 1 to ``max_gain``, that make the photo's white white.

    Args:
        image_bgr: The decoded photo, HxWx3 BGR.
        max_gain: The largest gain a channel is given (a photo with no white in it
            would otherwise be blown out).
    """
    sample = sample_grid(image_bgr)
    # The percentile from each channel's histogram: a few times faster than sorting.
    white = np.array([_level_at(cv2.calcHist([sample], [channel], None, [256], [0, 256]).ravel(),
                                WHITE_PERCENTILE) for channel in range(3)], np.float64)
    white = np.maximum(white, 1.0)
    brightest = float(white.max())
    # Balance the channels to the brightest one, then lift all when even that is dim.
    gains = brightest / white * max(1.0, TARGET_WHITE / brightest)
    return np.clip(gains, 1.0, max_gain)


def _level_at(histogram: np.ndarray, percentile: float) -> float:
    """The grey level under which ``percentile`` % of a histogram's pixels lie."""
    return float(np.searchsorted(np.cumsum(histogram), histogram.sum() * percentile / 100.0))


def apply_gains(image_bgr: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The photo with each channel multiplied by its gain (rounded, saturating at 255)."""
    levels = np.arange(256, dtype=np.float64)[:, None] * np.asarray(gains, np.float64)[None, :]
    table = np.clip(np.rint(levels), 0, 255).astype(np.uint8).reshape(256, 1, 3)
    return cv2.LUT(image_bgr, table)
