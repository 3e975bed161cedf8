"""Camera blur in generated scenes: a smear or a defocus sized by the index, the same
scenes with and without it, labels untouched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from onze_vision.synth.blur import camera_blur, motion_kernel
from onze_vision.synth.dataset import make_dataset
from support import needs_art


@pytest.mark.parametrize("length", [1, 2, 7, 20])
@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0, 135.0])
def test_a_smear_keeps_the_image_brightness(length: int, angle: float) -> None:
    assert motion_kernel(length, angle).sum() == pytest.approx(1.0, abs=1e-5)


def test_a_horizontal_smear_is_one_row() -> None:
    kernel = motion_kernel(5)
    assert np.count_nonzero(kernel) == 5 and np.count_nonzero(kernel[2]) == 5


@pytest.mark.parametrize("angle, spread_axis", [(0.0, 1), (90.0, 0)])
def test_a_smear_spreads_a_dot_along_its_direction(angle: float, spread_axis: int) -> None:
    dot = np.zeros((31, 31), np.float32)
    dot[15, 15] = 1.0
    smeared = cv2.filter2D(dot, -1, motion_kernel(9, angle))
    rows, cols = np.nonzero(smeared > 1e-3)
    extent = (np.ptp(rows), np.ptp(cols))
    assert extent[spread_axis] >= 7 and extent[1 - spread_axis] <= 2


@pytest.mark.parametrize("length", [0, -3])
def test_a_smear_shorter_than_a_pixel_is_refused(length: int) -> None:
    with pytest.raises(ValueError, match=str(length)):
        motion_kernel(length)


def test_blur_grows_with_the_index_it_is_sized_by() -> None:
    image = np.zeros((64, 64, 3), np.uint8)
    image[:, 32:] = 255  # one sharp edge

    def edge_width(index_px: float) -> int:
        row = camera_blur(np.random.default_rng(4), image, index_px)[32, :, 0].astype(int)
        return int(((row > 10) & (row < 245)).sum())

    assert edge_width(10) < edge_width(40)


def test_a_blur_for_an_index_of_no_height_is_refused() -> None:
    with pytest.raises(ValueError, match="not 0"):
        camera_blur(np.random.default_rng(0), np.zeros((8, 8, 3), np.uint8), 0)


@needs_art
def test_blurred_scenes_are_the_same_scenes_and_labels_with_softer_pixels(tmp_path: Path, art_cache: Path) -> None:
    common = dict(train_images=4, val_images=0, seed=5, workers=1, art_cache=art_cache,
                  train_decks=["anglo"], val_decks=["paris"], progress=False)
    make_dataset(tmp_path / "plain", **common)
    make_dataset(tmp_path / "blurred", blurred_share=1.0, **common)
    for labels in (tmp_path / "plain/labels/train").iterdir():
        assert labels.read_text() == (tmp_path / "blurred/labels/train" / labels.name).read_text()
    plain_metas = [json.loads(line) for line in (tmp_path / "plain/meta/train.jsonl").read_text().splitlines()]
    blurred_metas = [json.loads(line) for line in (tmp_path / "blurred/meta/train.jsonl").read_text().splitlines()]
    for plain, blurred in zip(plain_metas, blurred_metas):
        assert blurred.pop("blurred") is True and blurred == plain
        sharp = cv2.imread(str(tmp_path / "plain" / plain["image"]), cv2.IMREAD_GRAYSCALE)
        soft = cv2.imread(str(tmp_path / "blurred" / plain["image"]), cv2.IMREAD_GRAYSCALE)
        assert cv2.Laplacian(soft, cv2.CV_64F).var() < cv2.Laplacian(sharp, cv2.CV_64F).var()
    assert "--blurred 1" in (tmp_path / "blurred/data.yaml").read_text()


def test_a_blurred_share_outside_0_to_1_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="blurred_share.*-0.1"):
        make_dataset(tmp_path, train_images=1, val_images=0, blurred_share=-0.1, progress=False)


def test_the_command_line_refuses_a_blurred_share_over_1(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "onze_vision", "make-dataset", "--out", str(tmp_path / "d"),
                             "--train", "1", "--val", "0", "--blurred", "3"], capture_output=True, text=True)
    assert result.returncode == 2 and "--blurred" in result.stderr and "not 3" in result.stderr
    assert not (tmp_path / "d").exists()
