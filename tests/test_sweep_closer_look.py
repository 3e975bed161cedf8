"""The closer-look sweep: one row per setting, the closer looks counted."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest
from test_detector import make_fake_models

from onze_vision.detector import CARD_CODES


def test_each_setting_prints_its_figures_and_counts_the_closer_looks(
        tmp_path: Path, load_script: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # One 4000x3000 far shot where the fake detector finds an 8-px index (100 photo px) at 320 px.
    models = tmp_path / "models"
    models.mkdir()
    make_fake_models(models, [[160, 160, 8, 8, 0.9]], 320, "QH")
    scenes = tmp_path / "far"
    (scenes / "images").mkdir(parents=True)
    (scenes / "labels").mkdir()
    cv2.imwrite(str(scenes / "images" / "a.jpg"), np.full((3000, 4000, 3), 200, np.uint8))
    (scenes / "labels" / "a.txt").write_text(f"{CARD_CODES.index('QH')} 0.5 0.5 0.005 0.00667\n")

    sweep = load_script("sweep_closer_look")
    monkeypatch.setattr(sys, "argv", ["sweep_closer_look.py", "--models", str(models), "--data", str(scenes),
                                      "--below", "0", "22", "--tiles", "2"])
    sweep.main()
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(row["zoom_below"], row["zoom_tiles"], row["far"]["closer_looks"]) for row in rows] == [(0.0, 2, 0), (22.0, 2, 1)]
    # The first look's 100-px box misses the 20x20 label; the closer look boxes it as it is.
    assert [row["far"]["map50"] for row in rows] == [0.0, 1.0]
