"""The crop of a corner index that the index classifier reads.

Training (crops cut from generated scenes) and inference (crops cut around the
detector's boxes) must cut exactly the same way, so both call :func:`crop_index`.
The crop is a square centred on the box, ``CROP_CONTEXT`` times its longer side,
so a rotated index keeps its proportions and the suit pip under the rank stays
inside: that pip is what tells a 6 from an upside-down 9.

At run time an index can be read from several crops (:func:`crop_views`): the centred
one and four moved a little off the detector's box, whose readings are averaged.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 48
CROP_CONTEXT = 1.3
NONE_CLASS = "none"


def crop_index(
    image_bgr: np.ndarray,
    box: tuple[float, float, float, float] | np.ndarray,
    size: int = CROP_SIZE,
    context: float = CROP_CONTEXT,
) -> np.ndarray:
    """Return the ``size`` x ``size`` BGR uint8 crop around ``box`` (x1, y1, x2, y2).

    Pixels outside the image are filled by replicating the border.
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
    interpolation = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    return cv2.warpAffine(
        image_bgr, matrix, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE
    )


def view_boxes(
    box: tuple[float, float, float, float] | np.ndarray, shift: float
) -> list[tuple[float, float, float, float]]:
    """``box`` itself, then (``shift`` > 0) moved by ``shift`` x its longer side left, right, up and down.

    Raises:
        ValueError: ``shift`` is negative.
    """
    if shift < 0:
        raise ValueError(f"crop shift must be >= 0, got {shift}")
    x1, y1, x2, y2 = (float(v) for v in box)
    if shift == 0:
        return [(x1, y1, x2, y2)]
    step = shift * max(x2 - x1, y2 - y1)
    moves = ((0.0, 0.0), (-step, 0.0), (step, 0.0), (0.0, -step), (0.0, step))
    return [(x1 + dx, y1 + dy, x2 + dx, y2 + dy) for dx, dy in moves]


def crop_views(
    image_bgr: np.ndarray, box: tuple[float, float, float, float] | np.ndarray, shift: float
) -> list[np.ndarray]:
    """The crops of :func:`view_boxes`: one (``shift`` 0) or five views of one index."""
    return [crop_index(image_bgr, view) for view in view_boxes(box, shift)]


def crops_to_tensor(crops: list[np.ndarray]) -> np.ndarray:
    """Stack BGR uint8 crops into the classifier's input: float32 NCHW RGB in [0, 1]."""
    if not crops:
        return np.zeros((0, 3, CROP_SIZE, CROP_SIZE), dtype=np.float32)
    batch = np.stack(crops)[..., ::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))
