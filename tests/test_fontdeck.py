"""Font decks: procedural card faces whose corner index is drawn in an installed typeface."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from onze_vision.synth.art import CARD_HEIGHT, DECKS, ArtNotInstalledError, DeckSource, find_index_box, load_deck
from onze_vision.synth.codes import CARD_CODES
from onze_vision.synth.fontdeck import PIP_FONTS, FontDeckPainter, style_for

FONT_DECKS = [d for d in DECKS if d.kind == "font"]
MISSING = [d.origin for d in FONT_DECKS if not Path(d.origin).exists()] + [str(p) for p in PIP_FONTS if not p.exists()]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"fonts missing (bash scripts/test.sh installs them): {MISSING[:3]}")

# One serif, one condensed sans, one with old-style figures: different index shapes.
SAMPLE = ["font-nimbusroman-bold", "font-robotocondensed-bold", "font-ebgaramond12-regular"]


def painter(name: str) -> FontDeckPainter:
    source = next(d for d in FONT_DECKS if d.name == name)
    return FontDeckPainter(source.name, Path(source.origin), CARD_HEIGHT)


def ink_box(card: np.ndarray) -> tuple[int, int, int, int] | None:
    return find_index_box(card)


def test_font_decks_train_and_never_hold_out():
    assert len(FONT_DECKS) >= 20
    assert all(d.split == "train" and not d.has_joker for d in FONT_DECKS)
    assert len({d.name for d in DECKS}) == len(DECKS)


def test_the_same_name_draws_the_same_deck():
    assert style_for("font-a") == style_for("font-a")
    assert style_for("font-a") != style_for("font-b")
    first, again = painter(SAMPLE[0]).draw("QH"), painter(SAMPLE[0]).draw("QH")
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]


@pytest.mark.parametrize("name", SAMPLE)
@pytest.mark.parametrize("code", ["AS", "7D", "10H", "QC", "KS"])
def test_the_drawn_index_box_is_where_the_ink_finder_sees_the_index(name: str, code: str):
    card, box = painter(name).draw(code)
    assert card.shape[0] == CARD_HEIGHT and card.shape[2] == 4
    found = ink_box(card)
    assert found is not None
    # Same box within 2 px on each side; the finder dilates ink by one pixel.
    assert np.abs(np.subtract(found, box)).max() <= 2, (found, box)


@pytest.mark.parametrize("name", SAMPLE)
def test_the_opposite_corner_holds_the_same_index_turned(name: str):
    card, (x1, y1, x2, y2) = painter(name).draw("9S")
    turned = card[::-1, ::-1]
    assert np.array_equal(card[y1:y2, x1:x2, :3], turned[y1:y2, x1:x2, :3])


def test_red_suits_are_drawn_red_and_black_suits_dark():
    deck = painter(SAMPLE[1])
    for code, red in (("5H", True), ("5D", True), ("5S", False), ("5C", False)):
        card, (x1, y1, x2, y2) = deck.draw(code)
        index = card[y1:y2, x1:x2, :3].reshape(-1, 3).astype(int)
        inked = index[index.sum(axis=1) < 500]
        b, g, r = inked.mean(axis=0)
        assert bool(r - max(b, g) > 60) == red, (code, b, g, r)


def test_a_font_deck_loads_every_card_but_the_joker(tmp_path: Path):
    source = next(d for d in FONT_DECKS if d.name == SAMPLE[0])
    art = load_deck(source, tmp_path)
    assert set(art.codes) == set(CARD_CODES) - {"JK"}
    cached = load_deck(source, tmp_path)  # read back from the cache, boxes included
    assert cached.index_boxes == art.index_boxes


def test_a_missing_font_says_which_file(tmp_path: Path):
    source = DeckSource("font-nowhere", "font", "/nonexistent/Nowhere.ttf", "none", "train", has_joker=False)
    with pytest.raises(ArtNotInstalledError, match="/nonexistent/Nowhere.ttf"):
        load_deck(source, tmp_path)
