"""A straight shake is found in the photo itself and undone (onze_vision.deblur), and the
runtime keeps the reading with the shake undone only where it reads surer."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from fake_models import SHIPPED
from onze_vision.conditions import blurred
from onze_vision.deblur import MIN_LENGTH, Shake, estimate_shake, undo_shake
from onze_vision.synth.blur import motion_kernel, shake_path_kernel

DATA = Path(__file__).parent / "data"
PHOTO = DATA / "web_edje_IMG_2560.jpg"   # four cards on a wooden table, 378x504
needs_models = pytest.mark.skipif(not SHIPPED, reason="models/ has no trained ONNX models yet")


def smeared(length: int, angle: float) -> np.ndarray:
    return cv2.filter2D(cv2.imread(str(PHOTO)), -1, motion_kernel(length, angle))


def angle_apart(a: float, b: float) -> float:
    return min(abs(a - b) % 180, 180 - abs(a - b) % 180)


@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0, 135.0])
@pytest.mark.parametrize("length", [5, 9, 16])
def test_a_straight_smear_is_found_to_its_length_and_direction(length: int, angle: float) -> None:
    shake = estimate_shake(smeared(length, angle))
    assert shake is not None
    # On the pixel grid a diagonal smear's far end lies up to a pixel and a half from its length.
    assert abs(shake.length - length) <= 1.5 and angle_apart(shake.angle, angle) <= 8


@pytest.mark.parametrize("angle", [0.0, 60.0])
def test_undoing_the_smear_found_brings_the_photo_back(angle: float) -> None:
    sharp = cv2.imread(str(PHOTO)).astype(np.float32)
    shaken = smeared(12, angle)
    shake = estimate_shake(shaken)
    assert shake is not None
    undone = undo_shake(shaken, shake)
    assert undone.shape == shaken.shape and undone.dtype == np.uint8
    # The middle, away from the edges the mirrored padding guesses at. The finest grain the
    # smear wiped out is not brought back, but the edges are: nearer the photo as taken, and
    # more than three times as sharp as shaken.
    middle = (slice(40, -40), slice(40, -40))
    before = np.abs(shaken.astype(np.float32) - sharp)[middle].mean()
    after = np.abs(undone.astype(np.float32) - sharp)[middle].mean()
    assert after < 0.9 * before
    edges = lambda image: cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()  # noqa: E731
    assert edges(undone) > 3 * edges(shaken)


def test_a_photo_too_small_to_show_a_smear_shows_none() -> None:
    assert estimate_shake(np.full((6, 6, 3), 128, np.uint8)) is None
    assert MIN_LENGTH >= 1


@pytest.mark.parametrize(("length", "angle"), [(1, 0.0), (7, 0.0), (7, 45.0), (12, 100.0)])
def test_the_shake_kernel_is_the_generators_straight_smear(length: int, angle: float) -> None:
    kernel = Shake(float(length), angle).kernel()
    assert kernel.sum() == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_array_equal(kernel, motion_kernel(length, angle))


@pytest.mark.parametrize("seed", range(5))
def test_a_wandering_hands_path_is_as_wide_as_asked_and_not_straight(seed: int) -> None:
    kernel = shake_path_kernel(np.random.default_rng(seed), 15.0)
    assert kernel.sum() == pytest.approx(1.0, abs=1e-5) and kernel.shape[0] % 2 == 1
    rows, cols = np.nonzero(kernel > 1e-4)
    assert 13 <= max(np.ptp(rows), np.ptp(cols)) <= 17
    # Not a line: the spread across its main direction is a real share of the spread along it.
    weights = kernel[rows, cols]
    points = np.stack([cols, rows], 1).astype(float)
    centred = points - np.average(points, axis=0, weights=weights)
    spread = np.linalg.eigvalsh(np.cov(centred.T, aweights=weights))
    assert spread[0] > 0.01 * spread[1]
    np.testing.assert_array_equal(kernel, shake_path_kernel(np.random.default_rng(seed), 15.0))


@needs_models
def test_a_photo_shaken_straight_is_read_as_taken_with_its_shake_undone() -> None:
    from onze_vision.detector import CardDetector

    detector = CardDetector()
    assert detector.config.undo_shake
    taken = detector.detect_cards(PHOTO)
    shaken = detector.detect_cards(blurred(PHOTO, "motion", 0.018))
    assert shaken.blurred and shaken.unshaken   # still reported blurred: the photo is
    assert [card.card for card in shaken.cards] == [card.card for card in taken.cards] == ["10C", "KC", "QS", "QD"]
    for was, now in zip(taken.cards, shaken.cards):
        assert np.abs(np.subtract(was.box, now.box)).max() < 8
    assert shaken.to_dict()["unshaken"] is True and "unshaken" not in taken.to_dict()
    # Without it, the same photo loses cards (two of the four with the CPU members alone, three since
    # the GPU-taught member) and reads none that is not there.
    as_before = CardDetector(config=replace(detector.config, undo_shake=False))
    unchanged = as_before.detect_cards(blurred(PHOTO, "motion", 0.018))
    assert not unchanged.unshaken
    assert {card.card for card in unchanged.cards} < {card.card for card in taken.cards}


@needs_models
def test_a_sharp_photo_is_read_once_and_never_unshaken() -> None:
    from onze_vision.detector import CardDetector

    detector = CardDetector()
    for photo in sorted(DATA.glob("*.jpg")):
        reading = detector.detect_cards(photo)
        assert not reading.blurred and not reading.unshaken


@needs_models
def test_detect_says_a_photo_was_read_with_its_shake_undone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from onze_vision.cli import main

    photo = tmp_path / "shaken.jpg"
    photo.write_bytes(blurred(PHOTO, "motion", 0.018))
    assert main(["detect", str(photo)]) == 0
    out = capsys.readouterr().out
    assert "4 cards" in out and "this photo looks blurred" in out
    assert "(the cards were read with the shake taken out of the photo)" in out
    assert main(["detect", "--json", str(photo)]) == 0
    assert '"unshaken": true' in capsys.readouterr().out
