"""Undo a straight camera shake, so that a shaken photo can be read a second time.

A hand that moves while the shutter is open smears every point of the photo along the
same path. Where that path is straight (a short exposure, one jerk of the hand), its
length and direction show in the photo itself: the smear's spectrum has evenly spaced
zeros across its direction, and the spectrum's log, transformed again (the cepstrum),
has a deep negative peak one smear length from its centre along it. Knowing the smear,
a Wiener filter divides it back out of the photo's spectrum, holding back where the
smear left nothing to recover.

Measured on the real photos smeared (``models/HISTORY.md``, the shake run): a straight
smear is found to the pixel and undone, and a shaken photo then reads nearly as taken;
a curved one (a slower, wandering hand) is not straight, the filter does not help, and
the runtime keeps the first reading (see :meth:`~onze_vision.detector.CardDetector.detect_cards`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: The longest smear looked for, as a share of the photo's long side (the shaken photos
#: the project measures are smeared by 1.8 %; a phone's own stabiliser keeps most under).
MAX_SHARE = 0.05
#: Shorter smears (in pixels) are not looked for: the cepstrum's centre holds the photo's
#: own content, and a pixel or two of smear is the sensor's own softness.
MIN_LENGTH = 3.0
#: The photo's noise against its signal in the Wiener filter: lower sharpens harder and
#: brings up noise and JPEG blocks; 0.01 read best on the shaken tuning photos.
NOISE_TO_SIGNAL = 0.01


@dataclass(frozen=True)
class Shake:
    """A straight smear: ``length`` pixels at ``angle`` degrees (0: along the photo's
    rows; counter-clockwise as seen, in [0, 180))."""

    length: float
    angle: float

    def kernel(self) -> np.ndarray:
        """The smear as a convolution kernel (a line of ones, summing to 1)."""
        length = max(1, round(self.length))
        kernel: np.ndarray = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        if self.angle % 180:
            centre = (length / 2 - 0.5, length / 2 - 0.5)
            kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D(centre, self.angle, 1.0), (length, length))
            kernel = kernel / max(float(kernel.sum()), 1e-6)
        return kernel


def estimate_shake(image_bgr: np.ndarray, max_share: float = MAX_SHARE) -> Shake | None:
    """The straight smear the photo's cepstrum shows, or None when the photo is too small
    to show one.

    The deepest point of the cepstrum within ``max_share`` of the long side, and at least
    :data:`MIN_LENGTH` pixels off its centre, is taken as the smear's far end.
    On a photo smeared some other way (out of focus, a curved path) this still names a
    line: whether undoing it helps is for the caller to judge by reading both.
    """
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    height, width = grey.shape
    # A Hann window: the photo's edges would otherwise add a cross of their own to the spectrum.
    window = np.outer(np.hanning(height), np.hanning(width)).astype(np.float32)
    # The log spectrum is real and even, so half of it (rfft2) gives the whole cepstrum.
    spectrum = np.log(np.abs(np.fft.rfft2((grey - grey.mean()) * window)) + 1e-3)
    cepstrum = np.fft.fftshift(np.fft.irfft2(spectrum, s=(height, width)))
    reach = min(int(max_share * max(height, width)) + 2, height // 2 - 1, width // 2 - 1)
    if reach < 4:
        return None
    cy, cx = height // 2, width // 2
    dy, dx = np.mgrid[-reach:reach + 1, -reach:reach + 1]
    near = cepstrum[cy - reach:cy + reach + 1, cx - reach:cx + reach + 1].copy()
    radius = np.hypot(dy, dx)
    near[(radius < MIN_LENGTH) | (radius > reach)] = np.inf
    row, col = np.unravel_index(int(np.argmin(near)), near.shape)
    return Shake(float(radius[row, col]), float(np.degrees(np.arctan2(-dy[row, col], dx[row, col])) % 180))


def undo_shake(image_bgr: np.ndarray, shake: Shake, noise_to_signal: float = NOISE_TO_SIGNAL) -> np.ndarray:
    """The photo with ``shake`` divided back out (a Wiener filter), uint8 BGR of its size.

    The photo is mirrored out by twice the smear first, so the filter's wrap-around
    lands on copies of the photo's own edge rather than on the opposite side.
    """
    kernel = shake.kernel()
    pad = 2 * max(kernel.shape)
    padded = cv2.copyMakeBorder(image_bgr, pad, pad, pad, pad, cv2.BORDER_REFLECT).astype(np.float32)
    height, width = padded.shape[:2]
    # The kernel centred on the origin, as the FFT's circular convolution wants it.
    placed = np.zeros((height, width), np.float32)
    placed[:kernel.shape[0], :kernel.shape[1]] = kernel
    placed = np.roll(placed, (-(kernel.shape[0] // 2), -(kernel.shape[1] // 2)), axis=(0, 1))
    response = np.fft.rfft2(placed)
    inverse = np.conj(response) / (np.abs(response) ** 2 + noise_to_signal)
    out = np.empty_like(padded)
    for channel in range(padded.shape[2]):
        out[..., channel] = np.fft.irfft2(np.fft.rfft2(padded[..., channel]) * inverse, s=(height, width))
    return np.clip(out[pad:-pad, pad:-pad] + 0.5, 0, 255).astype(np.uint8)
