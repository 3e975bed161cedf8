"""``scripts/grey_photos.py``: the real photos made grey, read by the shipped models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from onze_vision.detector import DEFAULT_MODEL_DIR, DETECTOR_FILE, DetectedCard

DATA = Path(__file__).parent / "data"


def card(code: str, x: float, alternative: str | None = None) -> DetectedCard:
    return DetectedCard(code, 0.9, (x, 10.0, x + 50.0, 90.0), alternative=alternative)


def test_each_colour_card_is_followed_to_its_grey_reading(load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("grey_photos")
    colour = [card("9H", 0), card("QS", 100), card("JK", 200), card("AD", 300)]
    grey = [card("9S", 2, "9H"), card("QS", 101, "QD"), card("JK", 200), card("AS", 600)]   # the AD not found
    counts = script.compare(colour, grey)
    assert (counts["cards"], counts["found"], counts["same rank"]) == (3, 2, 2)
    assert (counts["red: colour kept"], counts["red: read right"], counts["red: read or offered right"]) == (0, 0, 1)
    assert (counts["black: colour kept"], counts["black: read right"]) == (1, 1)


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / DETECTOR_FILE).exists(), reason="needs the shipped models")
def test_the_test_photos_made_grey_are_judged_colourless_and_keep_their_ranks(
        load_script: Callable[[str], ModuleType], capsys: pytest.CaptureFixture[str]) -> None:
    counts = load_script("grey_photos").main(["--photos", str(DATA)])
    assert counts["photos"] == counts["judged colourless"] == 4
    assert counts["cards"] == counts["found"] == counts["same rank"] == counts["red"] + counts["black"] == 10
    for colour in ("red", "black"):
        assert counts[f"{colour}: read or offered right"] >= counts[f"{colour}: read right"]
    assert capsys.readouterr().out.startswith("4 photos, 4 judged colourless when grey")
