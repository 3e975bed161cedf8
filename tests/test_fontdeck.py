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
    assert all(d.split == "train" and d.has_joker for d in FONT_DECKS)
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


def test_a_font_deck_loads_every_card_and_its_joker(tmp_path: Path):
    source = next(d for d in FONT_DECKS if d.name == SAMPLE[0])
    art = load_deck(source, tmp_path)
    assert set(art.codes) == set(CARD_CODES)
    cached = load_deck(source, tmp_path)  # read back from the cache, boxes included
    assert cached.index_boxes == art.index_boxes


def test_a_font_deck_cached_before_jokers_is_drawn_again(tmp_path: Path):
    source = next(d for d in FONT_DECKS if d.name == SAMPLE[0])
    art = load_deck(source, tmp_path)
    cache = tmp_path / "decks" / f"{source.name}.npz"
    with np.load(cache) as data:
        old = {key: data[key] for key in data.files if key != "drawing"}
    keep = [i for i, code in enumerate(old["codes"]) if code != "JK"]
    np.savez(cache, codes=old["codes"][keep], boxes=old["boxes"][keep], finder=old["finder"],
             **{f"card_{n}": old[f"card_{i}"] for n, i in enumerate(keep)})
    assert "JK" in load_deck(source, tmp_path).codes
    assert load_deck(source, tmp_path).index_boxes == art.index_boxes


def _decks_with_joker_mark(mark: str) -> list[str]:
    return [d.name for d in FONT_DECKS if style_for(d.name).joker_mark == mark][:2]


@pytest.mark.parametrize("mark", ["word", "star"])
def test_every_joker_mark_is_drawn_by_some_font_deck(mark: str):
    assert _decks_with_joker_mark(mark)


@pytest.mark.parametrize("name", _decks_with_joker_mark("word"))
def test_a_word_joker_stacks_joker_down_its_corner(name: str):
    deck = painter(name)
    joker, (x1, y1, x2, y2) = deck.draw("JK")
    _, (nx1, ny1, nx2, ny2) = deck.draw("7S")
    # Five letters stacked: a tall narrow column that starts where the ranks start.
    assert (y2 - y1) > 1.25 * (ny2 - ny1) and (y2 - y1) > 2 * (x2 - x1)
    assert abs(y1 - ny1) <= 2 and x1 < nx2
    turned = joker[::-1, ::-1]  # the same mark, within a grey level of resampling
    assert np.abs(joker[y1:y2, x1:x2, :3].astype(int) - turned[y1:y2, x1:x2, :3]).max() <= 2


@pytest.mark.parametrize("name", _decks_with_joker_mark("star"))
def test_a_star_joker_marks_its_corner_with_a_star_of_rank_size(name: str):
    deck = painter(name)
    joker, (x1, y1, x2, y2) = deck.draw("JK")
    rank_height = style_for(name).rank_height * CARD_HEIGHT
    assert 0.8 * rank_height <= y2 - y1 <= 1.6 * rank_height
    assert 0.6 <= (x2 - x1) / (y2 - y1) <= 1.3
    turned = joker[::-1, ::-1]  # the same mark, within a grey level of resampling
    assert np.abs(joker[y1:y2, x1:x2, :3].astype(int) - turned[y1:y2, x1:x2, :3]).max() <= 2


def test_a_missing_font_says_which_file(tmp_path: Path):
    source = DeckSource("font-nowhere", "font", "/nonexistent/Nowhere.ttf", "none", "train", has_joker=False)
    with pytest.raises(ArtNotInstalledError, match="/nonexistent/Nowhere.ttf"):
        load_deck(source, tmp_path)
