"""A photo saved mirrored (a selfie camera, a webcam): read again flipped back where its
weakest card reads unsure (``mirror_below``), its cards' boxes on the photo as it is; and a
card read a Joker unsure is flagged to check (``check_floors``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fake_models import SHIPPED
from onze_vision.detections import Detections
from onze_vision.detector_config import DetectorConfig, InvalidModelError
from onze_vision.imageio import read_image_file
from onze_vision.pairing import pair_indices
from onze_vision.synth.codes import CARD_CODES

DATA = Path(__file__).parent / "data"
needs_models = pytest.mark.skipif(not SHIPPED, reason="models/ has no trained ONNX models yet")


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan")])
def test_mirror_below_outside_0_to_1_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="mirror_below must be between 0 and 1"):
        DetectorConfig(mirror_below=value)


@needs_models
@pytest.mark.parametrize("photo", sorted(DATA.glob("*.jpg")), ids=lambda path: path.name)
def test_a_mirrored_photo_reads_as_the_photo_did_with_its_boxes_mirrored(photo: Path) -> None:
    from onze_vision.detector import CardDetector

    detector = CardDetector()
    assert detector.config.mirror_below == 0.7
    as_taken = detector.detect_cards(photo)
    assert not as_taken.mirrored and "mirrored" not in as_taken.to_dict()
    image = read_image_file(photo, what="photo")
    flipped = detector.detect_cards(np.ascontiguousarray(image[:, ::-1]))
    assert flipped.mirrored and flipped.to_dict()["mirrored"] is True
    width = image.shape[1]
    # The same cards, each where the mirror put it, listed left to right on the photo given.
    expected = sorted(((card.card, width - card.box[2]) for card in as_taken.cards), key=lambda pair: pair[1])
    assert [card.card for card in flipped.cards] == [code for code, _ in expected]
    assert np.allclose([card.box[0] for card in flipped.cards], [x for _, x in expected], atol=2.0)


@needs_models
def test_without_mirror_below_a_mirrored_photo_reads_worse() -> None:
    from onze_vision.detector import CardDetector

    detector = CardDetector(config=replace(CardDetector().config, mirror_below=0.0))
    image = read_image_file(DATA / "web_edje_IMG_2571.jpg", what="photo")
    as_taken = detector.detect_cards(image)
    flipped = detector.detect_cards(np.ascontiguousarray(image[:, ::-1]))
    assert not flipped.mirrored
    assert sorted(c.card for c in flipped.cards) != sorted(c.card for c in as_taken.cards)


def _one_index(code: str, confidence: float) -> Detections:
    return Detections(np.array([[10, 10, 30, 40]], np.float32), np.array([confidence], np.float32),
                      np.array([CARD_CODES.index(code)]), {"down": np.array([[0.0, 1.0]], np.float32)})


@pytest.mark.parametrize(("code", "confidence", "check"), [
    pytest.param("JK", 0.44, True, id="a Joker read at 0.44 is checked"),
    pytest.param("JK", 0.65, False, id="a Joker read at 0.65 is not"),
    pytest.param("JD", 0.44, False, id="another code at 0.44 is not (check_below 0.4)"),
    pytest.param("JD", 0.35, True, id="another code under check_below is"),
])
def test_a_card_read_under_its_codes_check_floor_is_flagged(code: str, confidence: float, check: bool) -> None:
    config = DetectorConfig(check_below=0.4, check_floors=(("JK", 0.6),))
    [card] = pair_indices(_one_index(code, confidence), config)
    assert card.check is check


def test_config_reads_check_floors_as_an_object(tmp_path: Path) -> None:
    (tmp_path / "detector.json").write_text(json.dumps({"check_floors": {"JK": 0.6}}))
    assert DetectorConfig.from_json(tmp_path / "detector.json").check_floors == (("JK", 0.6),)


@pytest.mark.parametrize(("check_floors", "says"), [
    ({"ZZ": 0.6}, "check_floors: 'ZZ' is not a card code"),
    ({"JK": 1.5}, "check_floors: the floor of 'JK' must be between 0 and 1, got 1.5"),
    ([["JK", 0.6]], "check_floors must be an object of code: confidence"),
])
def test_bad_check_floors_are_refused(tmp_path: Path, check_floors: object, says: str) -> None:
    (tmp_path / "detector.json").write_text(json.dumps({"check_floors": check_floors}))
    with pytest.raises(InvalidModelError, match=f"not a valid detector config: .*{says}"):
        DetectorConfig.from_json(tmp_path / "detector.json")


@needs_models
def test_detect_says_a_photo_was_read_flipped_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from onze_vision.cli import main
    from onze_vision.conditions import mirrored

    photo = tmp_path / "selfie.jpg"
    photo.write_bytes(mirrored(DATA / "web_edje_IMG_2571.jpg")[0])
    assert main(["detect", str(photo)]) == 0
    assert "this photo was saved mirrored" in capsys.readouterr().out
    assert main(["score", "--variant", "onze", "--photo", str(photo)]) == 0
    assert "this photo was saved mirrored" in capsys.readouterr().err
