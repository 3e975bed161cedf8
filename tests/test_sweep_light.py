"""``scripts/sweep_light.py``: real photos in bad light, read with and without evening it out."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from onze_vision.shared import real_photos_dir
from onze_vision.detector import DEFAULT_MODEL_DIR, DETECTOR_FILE

EDJE = real_photos_dir()   # $ONZE_SHARED, else ../shared beside the checkout


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / DETECTOR_FILE).exists() or not EDJE.is_dir(),
                    reason="needs the shipped models and ../shared/realphotos/edje")
def test_a_sweep_row_per_setting_with_each_light_and_the_guards(
        load_script: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("sweep_light")
    whole = script.evaluate_real_photos
    monkeypatch.setattr(script, "evaluate_real_photos",   # the guard on 10 photos, not 363
                        lambda detector, root, progress: whole(detector, root, limit=10, progress=progress))
    table = script.main(["--from", "0", "1.5", "--every", "90", "--tuning"])
    assert list(table) == [0.0, 1.5]
    assert all(list(row) == ["very warm", "dim", "dark", "real photos as taken"] for row in table.values())

    def found(setting: float, light: str) -> int:
        return int(re.match(r"(\d+) found", table[setting][light]).group(1))

    for light in script.LIGHTS:
        assert found(1.5, light) >= found(0.0, light)
    assert table[0.0]["real photos as taken"] == table[1.5]["real photos as taken"]
    assert capsys.readouterr().out.splitlines()[0].startswith("balance_from 0: very warm: ")
