"""``scripts/sweep_blur_warning.py``: when a photo is reported blurred, chosen on real photos."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from onze_vision.shared import real_photos_dir
from onze_vision.detector import DEFAULT_MODEL_DIR
from onze_vision.sharpness import GAUGE_FILE

EDJE = real_photos_dir()   # $ONZE_SHARED, else ../shared beside the checkout


def test_each_threshold_counts_the_photos_warned_and_the_cards_lost_on_each_side(
        load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("sweep_blur_warning")
    rows = [{"condition": "as taken", "smear": 0.05, "cards": 2, "found": 2},
            {"condition": "as taken", "smear": 0.15, "cards": 3, "found": 3},
            {"condition": "shaken 1.8 %", "smear": 0.30, "cards": 2, "found": 0},
            {"condition": "shaken 1.8 %", "smear": None, "cards": 3, "found": 0}]   # nothing named: no smear
    table = script.sweep(rows, [0.1, 0.2])
    assert table[0.1]["as taken"] == "0.500 (0 / 0)"
    assert table[0.2]["as taken"] == "0.000 (0 / 0)"
    # The photo with no smear is never warned; its 3 lost cards count among the others.
    assert table[0.2]["shaken 1.8 %"] == "0.500 (2 / 3)"
    assert table[0.2]["out of focus 0.8 %"] == "0.000 (0 / 0)"   # a condition without rows


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / GAUGE_FILE).exists() or not EDJE.is_dir(),
                    reason="needs the shipped models with the blur gauge and ../shared/realphotos/edje")
def test_the_sweep_warns_of_shaken_copies_more_than_of_photos_as_taken(
        load_script: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str]) -> None:
    result = load_script("sweep_blur_warning").main(["--limit", "6", "--tuning", "--from", "0.15"])
    smears = {name: [r["smear"] for r in result["rows"] if r["condition"] == name]
              for name in ("as taken", "shaken 1.8 %")}
    assert len(smears["as taken"]) == 6 and None not in smears["as taken"]
    assert max(smears["as taken"]) < min(s for s in smears["shaken 1.8 %"] if s is not None)
    assert "| 0.15 |" in capsys.readouterr().out


def test_models_without_a_gauge_are_refused(load_script: Callable[[str], ModuleType], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    shutil.copytree(DEFAULT_MODEL_DIR, tmp_path / "models", ignore=shutil.ignore_patterns("*.pt", "evaluation*",
                                                                                         GAUGE_FILE))
    with pytest.raises(SystemExit) as stop:
        load_script("sweep_blur_warning").main(["--models", str(tmp_path / "models")])
    assert stop.value.code == 2 and "no blur gauge in" in capsys.readouterr().err
