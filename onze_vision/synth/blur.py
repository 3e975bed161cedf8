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

from onze_vision.deblur import Shake

#: A shaken hand: a straight smear this many index heights long, in any direction.
SHAKE_INDEX_SHARE: tuple[float, float] = (0.08, 0.4)
#: Out of focus: a Gaussian whose sigma is this many index heights.
DEFOCUS_INDEX_SHARE: tuple[float, float] = (0.03, 0.1)
#: Of the blurred scenes, the share shaken (the others out of focus).
SHAKE_SHARE = 0.6


def motion_kernel(length: int, angle_deg: float = 0.0) -> np.ndarray:
    """A straight smear ``length`` pixels long at ``angle_deg`` (0: horizontal), summing to 1
    (the smear :class:`~onze_vision.deblur.Shake` undoes)."""
    if length < 1:
        raise ValueError(f"a smear is at least 1 pixel long, not {length}")
    return Shake(float(length), angle_deg).kernel()


def shake_path_kernel(rng: np.random.Generator, extent: float) -> np.ndarray:
    """A hand's wandering path while the shutter is open, as a smear kernel summing to 1,
    its longer side ``extent`` pixels.

    The camera's position drifts with some inertia, pulled back towards where it started
    and now and then jerked (after the random-trajectory model of Boracchi and Foi, 2012):
    the path curves, where :func:`motion_kernel` is straight.
    """
    if extent <= 0:
        raise ValueError(f"a smear's extent must be positive, not {extent}")
    steps = 2000
    path = np.zeros(steps, complex)
    velocity = np.exp(1j * rng.uniform(0, 2 * np.pi))
    anxiety, pull = rng.uniform(0.02, 0.2), rng.uniform(0.0, 0.3)
    for step in range(1, steps):
        change = anxiety * complex(rng.normal(), rng.normal()) - pull * path[step - 1] * 0.01
        if rng.random() < 0.002:   # a jerk of the hand
            change += 2 * np.exp(1j * rng.uniform(0, 2 * np.pi))
        velocity = (velocity + change) / abs(velocity + change)
        path[step] = path[step - 1] + velocity * 0.01
    path -= path.mean()
    path *= extent / max(np.ptp(path.real), np.ptp(path.imag), 1e-6)
    size = int(np.ceil(extent)) + 3
    size += 1 - size % 2   # odd: the path's centre on the kernel's centre pixel
    kernel = np.zeros((size, size), np.float32)
    x, y = path.real + size / 2 - 0.5, path.imag + size / 2 - 0.5
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    for dx, dy, weight in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
        np.add.at(kernel, (np.clip(y0 + dy, 0, size - 1), np.clip(x0 + dx, 0, size - 1)), weight)
    return kernel / kernel.sum()


def camera_blur(rng: np.random.Generator, image: np.ndarray, index_px: float) -> np.ndarray:
    """The image shaken (:data:`SHAKE_INDEX_SHARE`) or out of focus
    (:data:`DEFOCUS_INDEX_SHARE`), in proportion to an index ``index_px`` tall."""
    if index_px <= 0:
        raise ValueError(f"index height must be positive, not {index_px}")
    if rng.random() < SHAKE_SHARE:
        length = max(2, round(rng.uniform(*SHAKE_INDEX_SHARE) * index_px))
        return cv2.filter2D(image, -1, motion_kernel(length, rng.uniform(0, 180)))
    return cv2.GaussianBlur(image, (0, 0), rng.uniform(*DEFOCUS_INDEX_SHARE) * index_px)
