"""How blurred a photo is, read on its index crops (the blur gauge at run time).

A shaken or out-of-focus photo loses cards, and nothing in the cards that were read says
so. The blur gauge (``blur_gauge.onnx``, trained by ``onze-vision train --stage
blur-gauge``; see :mod:`onze_vision.training.blur_gauge`) reads, on each crop the
classifier reads, the smear as a share of the index's size. Crops are cut at their
index's scale, so the same smear reads the same on a far shot and a close-up, where a
measure of the whole photo changes with what the photo shows. The photo's smear is the
median over its named indices: one index on a pip-like pattern does not decide it. Only
named ones: on crops of the table's texture, which it never learned, it reads blur where
there is none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onze_vision.indexcrop import CROP_SIZE

GAUGE_FILE = "blur_gauge.onnx"

#: The photo's smear is read on at most this many crops (its most confident indices): a
#: median needs no more, and a photo of two decks spread out has over a hundred.
MOST_CROPS = 32


class BlurGauge:
    """The blur gauge's ONNX session; thread-safe, as onnxruntime sessions are.

    Args:
        session: An onnxruntime session of ``blur_gauge.onnx``: input [N, 3, 48, 48] RGB
            crops in [0, 1] (the classifier's, :data:`~onze_vision.indexcrop.CROP_SIZE`),
            output ``smear`` [N] in index sizes.

    Raises:
        ValueError: The session does not have that contract.
    """

    def __init__(self, session: Any) -> None:
        inputs, outputs = session.get_inputs(), session.get_outputs()
        if len(inputs) != 1 or len(outputs) != 1 or list(inputs[0].shape[1:]) != [3, CROP_SIZE, CROP_SIZE]:
            raise ValueError(
                f"the blur gauge must take crops [N, 3, {CROP_SIZE}, {CROP_SIZE}] and give one smear each; it takes "
                f"{[(i.name, i.shape) for i in inputs]} and gives {[o.name for o in outputs]}")
        self._session = session
        self._input = inputs[0].name

    def smear(self, crops: np.ndarray) -> np.ndarray:
        """Each crop's smear, in index sizes (about 0 for a sharp crop)."""
        if len(crops) == 0:
            return np.zeros(0, np.float32)
        return np.asarray(self._session.run(None, {self._input: crops})[0], np.float32).reshape(-1)

    def photo_smear(self, crops: np.ndarray, confidence: np.ndarray) -> float | None:
        """The median smear of the :data:`MOST_CROPS` most confident crops; None for none."""
        if len(crops) == 0:
            return None
        keep = np.argsort(-np.asarray(confidence))[:MOST_CROPS]
        return float(np.median(self.smear(crops[keep])))
