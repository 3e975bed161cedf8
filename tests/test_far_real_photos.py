"""Real photos framed as far shots: the photo and its labelled boxes move together."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest


@pytest.fixture(scope="module")
def far(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("far_real_photos")


def test_a_photo_is_enlarged_onto_a_plain_4000_px_table(far: ModuleType) -> None:
    photo = np.full((300, 400, 3), 90, np.uint8)
    photo[100:200, 150:250] = 250  # a bright "card" in the middle
    frame, scale, (left, top) = far.frame_photo(photo, 1600, np.random.default_rng(0))
    assert frame.shape == (3000, 4000, 3) and scale == 4.0
    assert 0 <= left <= 4000 - 1600 and 0 <= top <= 3000 - 1200
    # The card lands where its box, scaled and moved, says; the table is the photo's border colour.
    assert frame[top + 600, left + 800].tolist() == [250, 250, 250]
    assert abs(float(np.median(frame)) - 90) < 3


def test_the_manifest_moves_each_box_with_its_photo(far: ModuleType, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    photo = np.full((300, 400, 3), 90, np.uint8)
    cv2.imwrite(str(real / "a.jpg"), photo)
    (real / "manifest.json").write_text(json.dumps(
        [{"image": "a.jpg", "width": 400, "height": 300, "cards": [{"rank": "Q", "box": [150, 100, 250, 200]}]}]))
    out = tmp_path / "far"
    out.mkdir()
    far.make_far_set(real, out, 1600, seed=3, limit=None)
    entry = json.loads((out / "manifest.json").read_text())[0]
    frame, scale, (left, top) = far.frame_photo(photo, 1600, np.random.default_rng(3))
    assert entry["cards"][0]["box"] == [150 * scale + left, 100 * scale + top, 250 * scale + left, 200 * scale + top]
    assert cv2.imread(str(out / entry["image"])).shape == (3000, 4000, 3)


@pytest.mark.parametrize(("below", "blind_tiles", "expected"), [
    (None, None, [("first look only", 0.0, 4), ("with the closer look under 22 px", 22.0, 0),
                  ("and the blind look in 4 tiles", 22.0, 4)]),
    (16.0, 0, [("first look only", 0.0, 4), ("with the closer look under 16 px", 16.0, 0)]),
    (None, 9, [("first look only", 0.0, 4), ("with the closer look under 22 px", 22.0, 0),
               ("and the blind look in 9 tiles", 22.0, 9)]),
])
def test_each_photo_is_read_without_and_with_each_closer_look(far: ModuleType, below: float | None,
                                                             blind_tiles: int | None, expected: list) -> None:
    from onze_vision.detector import DetectorConfig

    shipped = DetectorConfig(zoom_below=22.0, zoom_blind_tiles=4)
    ways = far.readings(shipped, below, blind_tiles)
    assert [(name, config.zoom_below, config.zoom_blind_tiles) for name, config in ways] == expected
