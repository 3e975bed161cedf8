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
from fake_models import make_fake_models

from onze_vision.detector import CARD_CODES


def far_shot(tmp_path: Path, score: float) -> tuple[Path, Path]:
    """(models, scenes): fake models whose detector finds one 8-px box scoring ``score`` at
    320 px, and one plain 4000x3000 far shot labelled with a 20x20-px QH index at its centre."""
    models = tmp_path / "models"
    models.mkdir()
    make_fake_models(models, [[160, 160, 8, 8, score]], 320, "QH")
    scenes = tmp_path / "far"
    (scenes / "images").mkdir(parents=True)
    (scenes / "labels").mkdir()
    cv2.imwrite(str(scenes / "images" / "a.jpg"), np.full((3000, 4000, 3), 200, np.uint8))
    (scenes / "labels" / "a.txt").write_text(f"{CARD_CODES.index('QH')} 0.5 0.5 0.005 0.00667\n")
    return models, scenes


def sweep_rows(sweep: ModuleType, models: Path, scenes: Path, options: list[str],
               monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    """Run the sweep over ``scenes`` with ``options``; the rows it prints."""
    monkeypatch.setattr(sys, "argv", ["sweep_closer_look.py", "--models", str(models), "--data", str(scenes), *options])
    sweep.main()
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_each_setting_prints_its_figures_and_counts_the_closer_looks(
        tmp_path: Path, load_script: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # One 4000x3000 far shot where the fake detector finds an 8-px index (100 photo px) at 320 px.
    models, scenes = far_shot(tmp_path, score=0.9)

    rows = sweep_rows(load_script("sweep_closer_look"), models, scenes, ["--below", "0", "22", "--tiles", "2"],
                      monkeypatch, capsys)
    assert [(row["zoom_below"], row["zoom_tiles"], row["far"]["closer_looks"]) for row in rows] == [(0.0, 2, 0), (22.0, 2, 1)]
    # The first look's 100-px box misses the 20x20 label; the closer look boxes it as it is.
    assert [row["far"]["map50"] for row in rows] == [0.0, 1.0]


def test_the_blind_look_is_swept_and_its_tiles_counted(
        tmp_path: Path, load_script: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake detector's only box scores 0.2, under zoom_floor (0.25): the first look finds
    # no index to place a closer look with, so only the blind look (2x2 tiles) looks again.
    models, scenes = far_shot(tmp_path, score=0.2)

    rows = sweep_rows(load_script("sweep_closer_look"), models, scenes, ["--below", "22", "--blind-tiles", "0", "4"],
                      monkeypatch, capsys)
    assert [(row["zoom_blind_tiles"], row["far"]["closer_looks"]) for row in rows] == [(0, 0), (4, 4)]
