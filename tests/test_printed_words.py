"""scripts/printed_words.py: cards read on no labelled index, and those of them on print."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from onze_vision.detector import DetectedCard
from support import needs_art


@pytest.fixture(scope="module")
def printed_words(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("printed_words")


META = {
    "labels": [{"box": [100, 100, 120, 130], "code": "QH", "card_id": 0}],
    "printed": [[300, 300, 360, 320]],
}


@pytest.mark.parametrize(
    ("box", "invented", "on_print"),
    [
        ((98, 98, 122, 133), 0, 0),      # on its labelled index: read, not invented
        ((98, 98, 260, 330), 0, 0),      # a two-corner card's box holds its index
        ((200, 200, 220, 230), 1, 0),    # on the table: invented, not on print
        ((340, 305, 356, 330), 1, 1),    # on a word of print
    ],
)
def test_a_card_is_invented_when_it_holds_no_labelled_index(
    printed_words: ModuleType, box: tuple[float, ...], invented: int, on_print: int
) -> None:
    card = DetectedCard("3C", 0.9, box)
    assert printed_words.invented_cards([card], META) == (invented, on_print)


def test_a_folder_that_is_no_dataset_is_refused(printed_words: ModuleType, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert printed_words.main([str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err


@needs_art
def test_the_shipped_models_read_printed_twins(printed_words: ModuleType, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from onze_vision.synth.dataset import make_dataset

    common = dict(train_images=0, val_images=3, seed=2, workers=1, art_cache=tmp_path / "art",
                  train_decks=["anglo"], val_decks=["anglo"], image_size=640, index_px=(30.0, 60.0), progress=False)
    make_dataset(tmp_path / "printed", printed_share=1.0, **common)
    make_dataset(tmp_path / "plain", **common)
    assert printed_words.main([str(tmp_path / "printed"), str(tmp_path / "plain"),
                               "--json", str(tmp_path / "out.json")]) == 0
    table = capsys.readouterr().out
    assert "| printed | 3 (3) |" in table and "| plain | 3 (0) |" in table
    import json

    printed, plain = json.loads((tmp_path / "out.json").read_text())
    assert printed["cards"] == plain["cards"] > 0  # twins: the same cards
    assert 0.5 <= plain["card_recall"] <= 1.0 and printed["invented_per_scene"] >= 0
