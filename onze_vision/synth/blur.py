"""Camera blur for generated scenes: a shaken hand or a lens out of focus.

The scenes' own sensor model blurs by a pixel or two at most; real phone photos of a hand
can be smeared by a fifth of an index or more (``onze_vision.conditions`` measures what
that costs on the real photos). A share of a dataset's scenes (``make-dataset --blurred``)
gets one of these blurs, sized by the scene's own index height so the smear is the same
share of an index at every scale.
The blur is applied to the finished scene, after its sensor noise and JPEG (as
``conditions`` blurs a real photo); a camera blurs before its sensor adds noise, so these
scenes are a little cleaner than a real blurred photo.
"""

from __future__ import annotations

import cv2
import numpy as np

#: A shaken hand: a straight smear this many index heights long, in any direction.
SHAKE_INDEX_SHARE: tuple[float, float] = (0.08, 0.4)
#: Out of focus: a Gaussian whose sigma is this many index heights.
DEFOCUS_INDEX_SHARE: tuple[float, float] = (0.03, 0.1)
#: Of the blurred scenes, the share shaken (the others out of focus).
SHAKE_SHARE = 0.6


def motion_kernel(length: int, angle_deg: float = 0.0) -> np.ndarray:
    """A straight smear ``length`` pixels long at ``angle_deg`` (0: horizontal), summing to 1."""
    if length < 1:
        raise ValueError(f"a smear is at least 1 pixel long, not {length}")
    kernel: np.ndarray = np.zeros((length, length), np.float32)  # replaced by its warp below
    kernel[length // 2, :] = 1.0 / length
    if angle_deg % 180:
        centre = (length / 2 - 0.5, length / 2 - 0.5)
        kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D(centre, angle_deg, 1.0), (length, length))
        kernel = kernel / max(float(kernel.sum()), 1e-6)
    return kernel


def camera_blur(rng: np.random.Generator, image: np.ndarray, index_px: float) -> np.ndarray:
    """The image shaken (:data:`SHAKE_INDEX_SHARE`) or out of focus
    (:data:`DEFOCUS_INDEX_SHARE`), in proportion to an index ``index_px`` tall."""
    if index_px <= 0:
        raise ValueError(f"index height must be positive, not {index_px}")
    if rng.random() < SHAKE_SHARE:
        length = max(2, round(rng.uniform(*SHAKE_INDEX_SHARE) * index_px))
        return cv2.filter2D(image, -1, motion_kernel(length, rng.uniform(0, 180)))
    return cv2.GaussianBlur(image, (0, 0), rng.uniform(*DEFOCUS_INDEX_SHARE) * index_px)
