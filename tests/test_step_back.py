"""A close-up of one card: indices larger than the detector was taught are found with the
photo seen smaller (``step_back``), and a photo with sure indices is looked at once."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from fake_models import SHIPPED
from onze_vision.detector_config import DetectorConfig

DATA = Path(__file__).parent / "data"
needs_models = pytest.mark.skipif(not SHIPPED, reason="models/ has no trained ONNX models yet")


@pytest.mark.parametrize("value", [0.5, 1.0, -2.0, float("nan")])
def test_a_step_back_is_never_or_smaller(value: float) -> None:
    with pytest.raises(ValueError, match="step_back must be 0 .never. or above 1"):
        DetectorConfig(step_back=value)
    assert DetectorConfig(step_back=0.0).step_back == 0.0 and DetectorConfig(step_back=3.0).step_back == 3.0


def close_up(photo: Path, index_px: float) -> tuple[np.ndarray, str]:
    """The photo's surest index and the card around it cut out and enlarged to a 3000-px
    close-up in which the index is ``index_px`` tall at the detector's 640-px input."""
    from onze_vision.detector import CardDetector, CLASS_NAMES

    image = cv2.imread(str(photo))
    indices = CardDetector().read_indices(photo)
    best = int(np.argmax(indices.confidence))
    x1, y1, x2, y2 = indices.xyxy[best]
    size = float(np.sqrt((x2 - x1) * (y2 - y1)))
    long_side = size * 640 / index_px   # of the cut, in the photo's pixels
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    left, top = int(max(0, cx - 0.375 * long_side)), int(max(0, cy - long_side / 2))
    cut = image[top:int(top + long_side), left:int(left + 0.75 * long_side)]
    factor = 3000 / max(cut.shape[:2])
    return cv2.resize(cut, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC), CLASS_NAMES[int(indices.class_id[best])]


@needs_models
def test_an_index_too_large_for_the_detector_is_found_stepping_back() -> None:
    from onze_vision.detector import CardDetector

    detector = CardDetector()
    assert detector.config.step_back == 3.0
    image, code = close_up(DATA / "vision_edje_IMG_2383.jpg", 200)
    assert code == "AH"
    assert [card.card for card in detector.detect_cards(image).cards] == ["AH"]
    as_before = CardDetector(config=replace(detector.config, step_back=0.0))
    assert as_before.detect_cards(image).cards == []


@needs_models
def test_a_photo_with_sure_indices_is_not_looked_at_stepping_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from onze_vision.detector import CardDetector

    detector = CardDetector()
    stepped: list[tuple[int, ...]] = []
    original = detector._step_back

    def recording(image: np.ndarray, *args: object) -> object:
        stepped.append(image.shape)
        return original(image, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(detector, "_step_back", recording)
    for photo in sorted(DATA.glob("*.jpg")):
        assert detector.detect_cards(photo).cards
    assert stepped == []
    # A plain texture (no index at all) is looked at stepping back, and nothing is read there.
    noise = cv2.GaussianBlur(np.random.default_rng(0).integers(0, 255, (300, 400, 3)).astype(np.uint8), (0, 0), 1.5)
    # Once as it is and once mirrored (a photo that reads no card may have been saved mirrored).
    assert detector.detect_cards(noise).cards == [] and stepped == [(300, 400, 3)] * 2
