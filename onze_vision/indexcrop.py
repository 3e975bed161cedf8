"""The crop of a corner index that the index classifier reads.

Training (crops cut from generated scenes) and inference (crops cut around the
detector's boxes) must cut exactly the same way, so both call :func:`crop_index`.
The crop is a square centred on the box, ``CROP_CONTEXT`` times its longer side,
so a rotated index keeps its proportions and the suit pip under the rank stays
inside: that pip is what tells a 6 from an upside-down 9.

At run time an index can be read from several crops (:func:`reading_views`): the centred
one, four moved a little off the detector's box and three turned a quarter, a half and
three quarters, whose readings are averaged.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

CROP_SIZE = 48
CROP_CONTEXT = 1.3
NONE_CLASS = "none"
#: How :func:`crop_index` cuts, in the stamp of cached training crops: raise it when the cut
#: changes, so crops cut the old way are cut again (2: a shrunk index smoothed first; 3: shrunk
#: more than 4 times, averaged over blocks before).
CUT_VERSION = 3


def crop_index(
    image_bgr: np.ndarray,
    box: tuple[float, float, float, float] | np.ndarray,
    size: int = CROP_SIZE,
    context: float = CROP_CONTEXT,
) -> np.ndarray:
    """Return the ``size`` x ``size`` BGR uint8 crop around ``box`` (x1, y1, x2, y2).

    An index larger than the crop is smoothed as it is shrunk, so its strokes are averaged,
    not sampled. Pixels outside the image are filled by replicating the border.
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1, 1.0) * context
    cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
    scale = size / side
    # Affine map from the square around the box to the output crop.
    matrix = np.array(
        [[scale, 0.0, size / 2.0 - cx * scale], [0.0, scale, size / 2.0 - cy * scale]],
        dtype=np.float32,
    )
    if scale < 1.0:
        # warpAffine samples one source point per crop pixel (it takes no INTER_AREA): an index
        # shrunk more than that aliases, its strokes kept or dropped by where they fall. Smooth
        # the part the crop is cut from first, as much as the shrinking needs.
        # Shrunk more than 4 times, the part is first averaged over k x k blocks (cheap, where
        # the Gaussian's cost grows with the square of its width): 2-4 times are left to it.
        k = max(1, int(1.0 / scale) // 2)
        sigma = (1.0 / (scale * k) - 1.0) / 2.0
        pad = k * (int(np.ceil(3.0 * sigma)) + 2)
        left, top = int(np.floor(cx - side / 2.0)) - pad, int(np.floor(cy - side / 2.0)) - pad
        right, bottom = int(np.ceil(cx + side / 2.0)) + pad, int(np.ceil(cy + side / 2.0)) + pad
        right, bottom = right + (left - right) % k, bottom + (top - bottom) % k  # whole blocks
        part = _region(image_bgr, left, top, right, bottom)
        if k > 1:
            part = cv2.resize(part, ((right - left) // k, (bottom - top) // k), interpolation=cv2.INTER_AREA)
        image_bgr = cv2.GaussianBlur(part, (0, 0), sigma)
        # Block j's centre is pixel left + k j + (k - 1) / 2 of the photo.
        matrix[:, :2] *= k
        matrix[:, 2] += scale * (np.array([left, top], dtype=np.float32) + (k - 1) / 2.0)
    return cv2.warpAffine(
        image_bgr, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def _region(image: np.ndarray, left: int, top: int, right: int, bottom: int) -> np.ndarray:
    """``image[top:bottom, left:right]``, its pixels beyond the image's edge repeating it."""
    height, width = image.shape[:2]
    if 0 <= left and 0 <= top and right <= width and bottom <= height:
        return image[top:bottom, left:right]
    rows = np.clip(np.arange(top, bottom), 0, height - 1)
    cols = np.clip(np.arange(left, right), 0, width - 1)
    return image[rows[:, None], cols[None, :]]


class View(NamedTuple):
    """One way to cut an index for the classifier.

    Attributes:
        dx: Box moved right by this share of its longer side (negative: left).
        dy: Box moved down by this share of its longer side (negative: up).
        turns: The crop then turned this many quarter turns counter-clockwise as displayed,
            as the classifier's training turns its crops.
    """

    dx: float = 0.0
    dy: float = 0.0
    turns: int = 0


def reading_views(shift: float, turned: bool) -> list[View]:
    """The centred upright view, then with ``shift`` > 0 four moved by ``shift`` left, right,
    up and down, and when ``turned`` the centred crop turned one, two and three quarter turns.

    Raises:
        ValueError: ``shift`` is negative.
    """
    if shift < 0:
        raise ValueError(f"crop shift must be >= 0, got {shift}")
    views = [View()]
    if shift > 0:
        views += [View(-shift, 0.0), View(shift, 0.0), View(0.0, -shift), View(0.0, shift)]
    if turned:
        views += [View(turns=turns) for turns in (1, 2, 3)]
    return views


def crop_view(image_bgr: np.ndarray, box: tuple[float, float, float, float] | np.ndarray, view: View) -> np.ndarray:
    """The :func:`crop_index` crop of ``box`` as ``view`` cuts it."""
    x1, y1, x2, y2 = (float(v) for v in box)
    step = max(x2 - x1, y2 - y1)
    dx, dy = view.dx * step, view.dy * step
    crop = crop_index(image_bgr, (x1 + dx, y1 + dy, x2 + dx, y2 + dy))
    return np.ascontiguousarray(np.rot90(crop, view.turns)) if view.turns % 4 else crop


def turn_back(down: np.ndarray, turns: np.ndarray | int) -> np.ndarray:
    """``down`` vectors read from crops turned ``turns`` quarter turns, in the unturned crop.

    A quarter turn counter-clockwise takes (x, y) to (y, -x) in image coordinates (y
    down); this undoes ``turns`` of them. ``turns`` broadcasts against ``down[..., 0]``.
    """
    angle = np.asarray(turns) * (np.pi / 2)
    cos, sin = np.rint(np.cos(angle)), np.rint(np.sin(angle))
    x, y = down[..., 0], down[..., 1]
    return np.stack([x * cos - y * sin, x * sin + y * cos], axis=-1).astype(down.dtype)


def crops_to_tensor(crops: list[np.ndarray]) -> np.ndarray:
    """Stack BGR uint8 crops into the classifier's input: float32 NCHW RGB in [0, 1]."""
    if not crops:
        return np.zeros((0, 3, CROP_SIZE, CROP_SIZE), dtype=np.float32)
    batch = np.stack(crops)[..., ::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))
