"""Joining corner indices into cards (no model): which corners are one card, two decks'
identical cards, four-corner decks, reading a card's corners together, and what is
offered beside a card (its runner-up, its other colour, cards possibly missed).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from onze_vision.cards import CARD_CODES
from onze_vision.detections import Detections
from onze_vision.detector_config import DetectorConfig
from onze_vision.pairing import (
    DetectedCard,
    InvalidReadingError,
    card_corner_distance,
    index_size,
    other_colour,
    pair_grouping,
    pair_groups,
    pair_indices,
    possibly_missed,
    read_corners_together,
    runner_up,
)
from synthetic_indices import CONFIG, FOUR_CORNERS, INDEX_WH, card_indices, detections, reading


def test_two_corners_of_one_card_are_one_card() -> None:
    cards = pair_indices(detections(card_indices((100, 150), "QH")), CONFIG)
    assert [(c.card, c.corners) for c in cards] == [("QH", 2)]
    box = cards[0].box
    # The union of both index boxes spans the card's two index corners around its centre.
    assert box[0] < 100 < box[2] and box[1] < 150 < box[3]


@pytest.mark.parametrize("degrees", [0, 30, 90, 135, 180, 250])
def test_turned_card_still_pairs(degrees: float) -> None:
    cards = pair_indices(detections(card_indices((400, 300), "7C", degrees)), CONFIG)
    assert [(c.card, c.corners) for c in cards] == [("7C", 2)]


def test_rotation_correction_is_what_pairs_a_turned_card() -> None:
    # At 45 degrees the axis-aligned box of an index is ~1.5x larger: uncorrected, the
    # corners look too close together for their size.
    turned = detections(card_indices((400, 300), "7C", 45))
    upright_size = math.sqrt(INDEX_WH[0] * INDEX_WH[1])
    apart = 2 * upright_size * math.hypot(*CONFIG.center_offset)
    limits = (0.8 * apart / upright_size, 20.0)
    plain = replace(CONFIG, pair_distance=limits, index_aspect=0.0)
    corrected = replace(CONFIG, pair_distance=limits, index_aspect=2.5)
    assert len(pair_indices(turned, plain)) == 2
    assert len(pair_indices(turned, corrected)) == 1


@pytest.mark.parametrize("index_scale", [0.7, 1.0, 1.7, 2.5])
def test_pairing_does_not_depend_on_how_large_the_index_is_drawn(index_scale: float) -> None:
    # A jumbo-index deck: the same card with its indices drawn larger (or smaller).
    rows = []
    for (x1, y1, x2, y2), score, code, down in card_indices((300, 300), "9D", 30):
        cx, cy, half_w, half_h = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) / 2, (y2 - y1) / 2
        box = [cx - half_w * index_scale, cy - half_h * index_scale, cx + half_w * index_scale, cy + half_h * index_scale]
        rows.append((box, score, code, down))
    assert [c.corners for c in pair_indices(detections(rows), CONFIG)] == [2]


def test_two_decks_same_card_side_by_side_are_two_cards() -> None:
    left = card_indices((100, 150), "AH")
    right = card_indices((170, 150), "AH")
    cards = pair_indices(detections(left, right), CONFIG)
    assert [(c.card, c.corners) for c in cards] == [("AH", 2), ("AH", 2)]
    # Only the top-left indices visible (overlapping, same orientation): still two.
    only_tl = pair_indices(detections(card_indices((100, 150), "AH", corners=("tl",)),
                                      card_indices((125, 150), "AH", corners=("tl",))), CONFIG)
    assert [(c.card, c.corners) for c in only_tl] == [("AH", 1), ("AH", 1)]


def test_rotated_copies_far_apart_are_two_cards() -> None:
    # Same code, opposite "down", but their predicted centres are far apart.
    upright = card_indices((100, 150), "9S", corners=("tl",))
    upside_down = card_indices((400, 150), "9S", 180, corners=("tl",))
    cards = pair_indices(detections(upright, upside_down), CONFIG)
    assert [(c.card, c.corners) for c in cards] == [("9S", 1), ("9S", 1)]


def test_different_codes_never_pair() -> None:
    tl = card_indices((100, 150), "6D", corners=("tl",))
    br = card_indices((100, 150), "9D", corners=("br",))
    assert sorted(c.card for c in pair_indices(detections(tl, br), CONFIG)) == ["6D", "9D"]


def test_corners_read_as_two_suits_of_one_colour_are_one_card_named_by_the_surer_corner() -> None:
    tl = card_indices((100, 150), "KH", corners=("tl",))
    br = card_indices((100, 150), "KD", corners=("br",))
    rows = detections(tl, br)
    rows.confidence[:] = [0.9, 0.6]
    assert [(c.card, c.corners, c.confidence) for c in pair_indices(rows, CONFIG)] == [("KH", 2, pytest.approx(0.9))]
    rows.confidence[:] = [0.5, 0.8]
    assert [(c.card, c.corners) for c in pair_indices(rows, CONFIG)] == [("KD", 2)]


def test_two_cards_of_one_rank_in_two_colours_never_pair() -> None:
    tl = card_indices((100, 150), "KH", corners=("tl",))
    br = card_indices((100, 150), "KS", corners=("br",))
    assert sorted(c.card for c in pair_indices(detections(tl, br), CONFIG)) == ["KH", "KS"]


@pytest.mark.parametrize("degrees", [0, 35, 90, 200])
@pytest.mark.parametrize("shown", [
    ("tl", "tr", "bl", "br"),  # a card lying alone
    ("tl", "bl"),  # the left strip of a fan
    ("tr", "br"),  # the right strip of a fan held the other way
    ("tr", "bl"),  # the other diagonal
    ("tl", "br"),  # the diagonal, as on every deck
    ("tl", "tr", "br"),
    ("tl", "tr", "bl"),
])
def test_the_corners_a_four_corner_card_shows_are_one_card(shown: tuple[str, ...], degrees: float) -> None:
    cards = pair_indices(detections(card_indices((300, 300), "8S", degrees, corners=shown)), FOUR_CORNERS)
    assert [(c.card, c.corners) for c in cards] == [("8S", len(shown))]


def test_without_four_corners_a_four_corner_card_is_counted_more_than_once() -> None:
    corners = card_indices((300, 300), "8S", corners=("tl", "tr", "bl", "br"))
    assert sorted(c.corners for c in pair_indices(detections(corners), CONFIG)) == [1, 1, 2]


def test_a_fan_of_a_four_corner_deck_counts_each_card_once() -> None:
    # Each card shows its left strip (top-left and bottom-left indices); the last shows all four.
    codes = ["2C", "5H", "JD", "KS", "10D"]
    fan = [card_indices((200 + 20 * i, 300), code, degrees=-20 + 10 * i,
                        corners=("tl", "tr", "bl", "br") if i == len(codes) - 1 else ("tl", "bl"))
           for i, code in enumerate(codes)]
    cards = pair_indices(detections(*fan), FOUR_CORNERS)
    assert sorted((c.card, c.corners) for c in cards) == sorted(
        [(code, 2) for code in codes[:-1]] + [(codes[-1], 4)])


def test_a_corner_of_another_card_never_makes_a_fifth() -> None:
    # Two identical cards, the second shifted by one card width: its top-left index lies
    # where the first card's top-right one would, but a card has one top-left corner.
    size = math.sqrt(INDEX_WH[0] * INDEX_WH[1])
    width = 2 * CONFIG.center_offset[1] * size
    first = card_indices((300, 300), "QD", corners=("tl", "tr", "bl", "br"))
    second = card_indices((300 + width, 300), "QD", corners=("tl", "br"))
    cards = pair_indices(detections(first, second), FOUR_CORNERS)
    assert sorted(c.corners for c in cards) == [2, 4]


def test_short_sides_join_only_where_the_photo_shows_a_four_corner_deck() -> None:
    # Two cards of one rank and colour side by side in a row of a two-corner deck, only
    # their top-left indices showing: they lie as one four-corner card's top corners.
    size = math.sqrt(INDEX_WH[0] * INDEX_WH[1])
    width = 2 * CONFIG.center_offset[1] * size
    row = [card_indices((300, 300), "7H", corners=("tl",)), card_indices((300 + width, 300), "7D", corners=("tl",))]
    assert [c.corners for c in pair_indices(detections(*row), FOUR_CORNERS)] == [1, 1]
    # With a card elsewhere in the photo joined along its long side, the deck has four corners.
    elsewhere = card_indices((300, 700), "3C", corners=("tl", "bl"))
    cards = pair_indices(detections(*row, elsewhere), FOUR_CORNERS)
    assert sorted(c.corners for c in cards) == [2, 2]


@pytest.mark.parametrize("listed_first", ["covered card", "covering card"])
def test_a_diagonal_to_the_next_card_takes_no_corner_from_a_straighter_side(listed_first: str) -> None:
    # Two four-corner cards of one rank side by side, the first's right half under the
    # second: the second's bottom-left index lies exactly where the first's bottom right
    # would, on its diagonal. The first card's own long side is as straight and nearer.
    size = math.sqrt(INDEX_WH[0] * INDEX_WH[1])
    width = 2 * CONFIG.center_offset[1] * size
    covered = card_indices((300, 300), "9S", corners=("tl", "bl"))
    covering = card_indices((300 + width, 300), "9C", corners=("tl", "tr", "bl", "br"))
    cards = [covered, covering] if listed_first == "covered card" else [covering, covered]
    nearer_first = replace(FOUR_CORNERS, link_distance_cost=0.1)
    assert sorted((c.card, c.corners) for c in pair_indices(detections(*cards), nearer_first)) == [("9C", 4), ("9S", 2)]


@pytest.mark.parametrize("link_distance_cost, groups", [
    (0.0, [(0, 1), (2,)]),  # the angle alone ties, and the first-listed link wins
    (0.1, [(0,), (1, 2)]),  # the nearer of two links as straight
])
def test_of_two_corners_as_straight_on_the_diagonal_the_nearer_is_taken(
        link_distance_cost: float, groups: list[tuple[int, ...]]) -> None:
    # A second 4D's bottom-right index lies farther along the first card's diagonal (its
    # top left under the first card): rows 0 (its bottom right), 1 and 2 (the first card).
    size = math.sqrt(INDEX_WH[0] * INDEX_WH[1])
    a, b = CONFIG.center_offset
    further = 3 * size * np.array([b, a]) / math.hypot(a, b)  # down and to the right, along the diagonal
    first = card_indices((300, 300), "4D")
    second = card_indices(tuple(np.array([300.0, 300.0]) + further), "4D", corners=("br",))
    config = replace(CONFIG, link_distance_cost=link_distance_cost)
    assert pair_groups(detections(second, first), config) == groups


def _top_strips_of_a_column(codes: list[str]) -> Detections:
    """Cards laid in a column, each covering all but the top strip of the one above it:
    only the top-left and top-right indices show (a four-corner deck)."""
    size = math.sqrt(INDEX_WH[0] * INDEX_WH[1])
    return detections(*(card_indices((300, 300 + 3 * size * i), code, corners=("tl", "tr"))
                        for i, code in enumerate(codes)))


@pytest.mark.parametrize(("corners", "counted"), [
    ("auto", [1] * 6),  # nothing else in the photo shows the deck has four corners: each card twice
    ("four", [2] * 3),  # the player said so: each card once
    ("two", [1] * 6),
])
def test_a_column_of_top_strips_is_read_as_the_deck_is_said_to_be(corners: str, counted: list[int]) -> None:
    cards = pair_indices(_top_strips_of_a_column(["KH", "KD", "5C"]), FOUR_CORNERS.for_deck(corners))
    assert sorted(c.corners for c in cards) == counted


def test_a_two_corner_deck_never_joins_more_than_a_cards_diagonal() -> None:
    lone = detections(card_indices((300, 300), "8S", corners=("tl", "tr", "bl", "br")))
    assert sorted(c.corners for c in pair_indices(lone, FOUR_CORNERS.for_deck("two"))) == [1, 1, 2]
    assert [c.corners for c in pair_indices(lone, FOUR_CORNERS.for_deck("auto"))] == [4]


@pytest.mark.parametrize(("shown", "corners", "seen"), [
    (("tl", "tr", "bl", "br"), "auto", True),   # a four-corner card lying alone shows its deck
    (("tl", "bl"), "auto", True),               # so does the left strip of a fan (a long side)
    (("tl", "br"), "auto", False),              # a diagonal pair: any deck
    (("tl", "tr"), "auto", False),              # a top strip alone: two two-corner cards could lie so
    (("tl", "tr"), "four", True),               # ... unless the deck was said to have four corners
    (("tl", "tr", "bl", "br"), "two", False),   # a deck said to have two never shows four
])
def test_a_photo_shows_a_four_corner_deck_where_a_card_joins_other_than_on_its_diagonal(
        shown: tuple[str, ...], corners: str, seen: bool) -> None:
    indices = detections(card_indices((300, 300), "6D", corners=shown))
    assert pair_grouping(indices, FOUR_CORNERS.for_deck(corners)).four_corner_deck_seen is seen


def test_two_identical_two_corner_cards_overlapping_in_a_row_stay_two() -> None:
    # The second card covers the first one's right side, its bottom-right index with it.
    size = math.sqrt(INDEX_WH[0] * INDEX_WH[1])
    width = 2 * CONFIG.center_offset[1] * size
    first = card_indices((300, 300), "AH", corners=("tl",))
    second = card_indices((300 + width, 300), "AH", corners=("tl", "br"))
    cards = pair_indices(detections(first, second), FOUR_CORNERS)
    assert sorted((c.card, c.corners) for c in cards) == [("AH", 1), ("AH", 2)]


def test_every_corner_of_a_four_corner_card_is_read_together() -> None:
    rows = card_indices((300, 300), "5H", corners=("tl", "tr", "bl", "br"))
    xyxy = np.array([r[0] for r in rows])
    down = np.array([r[3] for r in rows])
    probs = np.full((4, len(CARD_CODES) + 1), 0.001)
    probs[:, CARD_CODES.index("5H")] = 0.9
    probs[0, CARD_CODES.index("6H")], probs[0, CARD_CODES.index("5H")] = 0.6, 0.3  # the top left blurred
    probs[3] = probs[0]  # and its diagonal partner, the bottom right, blurred alike
    joint = read_corners_together(xyxy, probs, down, np.full(4, 0.9), FOUR_CORNERS)
    assert [CARD_CODES[i] for i in joint.argmax(axis=1)] == ["5H"] * 4  # the other two corners settle it
    # With four corners off, only the diagonal pair is read together, and it stays wrong.
    joint = read_corners_together(xyxy, probs, down, np.full(4, 0.9), FOUR_CORNERS.for_deck("two"))
    assert [CARD_CODES[i] for i in joint.argmax(axis=1)] == ["6H", "5H", "5H", "6H"]
    assert sorted(c.corners for c in pair_indices(detections(rows), FOUR_CORNERS)) == [4]


def test_fanned_hand_single_indices_are_cards() -> None:
    fan = [card_indices((100 + 18 * i, 150), code, degrees=-20 + 10 * i, corners=("tl",))
           for i, code in enumerate(["2C", "5H", "JK", "KS", "10D"])]
    cards = pair_indices(detections(*fan), CONFIG)
    assert [c.card for c in cards] == ["2C", "5H", "JK", "KS", "10D"]
    assert all(c.corners == 1 for c in cards)


def test_greedy_pairs_closest_first() -> None:
    # One card's two corners plus a stray top-left index of the same code nearby.
    card = card_indices((100, 150), "8S")
    stray = card_indices((106, 150), "8S", corners=("tl",))
    cards = pair_indices(detections(card, stray), CONFIG)
    assert sorted(c.corners for c in cards) == [1, 2]
    paired = next(c for c in cards if c.corners == 2)
    single = next(c for c in cards if c.corners == 1)
    assert paired.box[0] < single.box[0]  # the true top-left index paired, not the stray


def test_diagonal_angle_and_distance_come_from_config() -> None:
    pair = detections(card_indices((100, 150), "QH"))
    assert len(pair_indices(pair, CONFIG)) == 1
    # A card twice as wide for its height lies on another diagonal.
    assert len(pair_indices(pair, replace(CONFIG, center_offset=(2.5, 3.8)))) == 2
    assert len(pair_indices(pair, replace(CONFIG, pair_distance=(1.5, 3.0)))) == 2


def test_confidence_is_best_of_pair() -> None:
    rows = card_indices((100, 150), "KD")
    rows[0] = (*rows[0][:1], 0.4, *rows[0][2:])
    cards = pair_indices(detections(rows), CONFIG)
    assert cards[0].confidence == pytest.approx(0.9)
    assert cards[0].to_dict()["card"] == "KD" and len(cards[0].to_dict()["box"]) == 4


@pytest.mark.parametrize(("cards", "marked", "unsure"), [
    ([("JK", ("tl",)), ("JK", ("br",))], [True, True], [True, True]),      # one star's corners, or two Jokers
    ([("JK", ("tl", "br"))], [True, True], [True]),                       # paired by chance: maybe two
    ([("JK", ("tl",)), ("JK", ("br",))], [True, False], [False, False]),   # one marked corner alone: one Joker
    ([("JK", ("tl",)), ("QH", ("tl",))], [True, True], [False, False]),    # a Queen's count is never a guess
    ([("JK", ("tl",)), ("JK", ("br",))], [False, False], [False, False]),
], ids=["two Jokers", "one Joker", "one marked", "not a Joker", "none marked"])
def test_a_jokers_count_is_unsure_where_its_corners_paired_by_chance(cards: list, marked: list[bool],
                                                                     unsure: list[bool]) -> None:
    indices = detections(*(card_indices((150 + 300 * i, 200), code, corners=corners)
                           for i, (code, corners) in enumerate(cards)))
    indices.data["count_unsure"] = np.array(marked)
    read = pair_indices(indices, CONFIG)
    assert [card.count_unsure for card in read] == unsure
    assert [card.is_unsure for card in read] == unsure
    assert [card.to_dict().get("count_unsure", False) for card in read] == unsure


def test_no_indices_no_cards() -> None:
    empty = Detections.empty()
    empty.data["down"] = np.zeros((0, 2), np.float32)
    assert pair_indices(empty, CONFIG) == []


UNSURE = replace(CONFIG, unsure_below=0.9, alternative_min=0.1)


@pytest.mark.parametrize(("probs", "code", "offered"), [
    ([("8H", 0.97)], "8H", None),                                # sure: nothing to check
    ([("8H", 0.62), ("6H", 0.30)], "8H", "6H"),                  # unsure: the runner-up is offered
    ([("8H", 0.85), ("8D", 0.12)], "8H", "8D"),                  # just under the line, other suit
    ([("8H", 0.62), ("none", 0.36)], "8H", None),                # unsure whether it is an index at all
    ([("8H", 0.62), ("6H", 0.30)], "6H", "8H"),                  # the code read need not be the top one
])
def test_an_unsure_reading_offers_its_runner_up(probs: list, code: str, offered: str | None) -> None:
    assert runner_up(reading(*probs), CARD_CODES.index(code), UNSURE) == offered


def test_alternatives_are_off_by_default() -> None:
    assert runner_up(reading(("8H", 0.4), ("6H", 0.39)), CARD_CODES.index("8H")) is None


def test_a_card_carries_its_best_corners_alternative_into_its_json() -> None:
    rows = card_indices((100, 150), "8H") + card_indices((300, 150), "KS")
    found = detections(rows)
    found.data["probs"] = np.stack([reading(("8H", 0.6), ("6H", 0.35))] * 2 + [reading(("KS", 0.99))] * 2)
    eight, king = pair_indices(found, UNSURE)
    assert (eight.card, eight.alternative, eight.is_unsure) == ("8H", "6H", True)
    assert eight.to_dict()["alternative"] == "6H"
    assert (king.alternative, king.is_unsure) == (None, False)
    assert set(king.to_dict()) == {"card", "confidence", "box"}


@pytest.mark.parametrize(("alternative", "check", "count_unsure", "doubt"), [
    (None, False, False, None),              # a sure reading: nothing to check
    ("6H", False, False, "alternative"),
    (None, True, False, "faint"),
    (None, False, True, "joker_count"),
    ("6H", True, True, "alternative"),       # the next most likely code is what a player can act on
    (None, True, True, "faint"),             # a weak reading is said before the Joker's count
])
def test_a_card_says_one_doubt_the_alternative_first_then_a_faint_reading_then_a_jokers_count(
        alternative: str | None, check: bool, count_unsure: bool, doubt: str | None) -> None:
    card = DetectedCard("8H", 0.5, (0.0, 0.0, 10.0, 10.0), alternative=alternative, check=check,
                        count_unsure=count_unsure)
    assert card.doubt == doubt
    assert card.is_unsure == (doubt is not None)


@pytest.mark.parametrize("card", [
    DetectedCard("QH", 0.97, (12.0, 30.5, 40.0, 71.0)),
    DetectedCard("8H", 0.41, (0.0, 0.0, 10.0, 10.0), alternative="6H", check=True),
    DetectedCard("JK", 0.88, (5.0, 5.0, 25.0, 45.0), count_unsure=True),
])
def test_a_card_written_out_reads_back_as_itself(card: DetectedCard) -> None:
    assert DetectedCard.from_dict(card.to_dict()) == card
    assert DetectedCard.from_dict(card.to_dict()).doubt == card.doubt


@pytest.mark.parametrize(("data", "quoted"), [
    (["QH", 0.9], "not ['QH', 0.9]"),
    ({"card": "QH", "box": [0, 0, 9, 9]}, "no 'confidence'"),
    ({"card": "QX", "confidence": 0.9, "box": [0, 0, 9, 9]}, "'card' is 'QX'"),
    ({"card": "QH", "confidence": 0.9, "box": [0, 0, 9, 9], "alternative": "Q"}, "'alternative' is 'Q'"),
    ({"card": "QH", "confidence": 1.5, "box": [0, 0, 9, 9]}, "'confidence' is 1.5"),
    ({"card": "QH", "confidence": 0.9, "box": [0, 0, 9]}, "'box' is [0, 0, 9]"),
    ({"card": "QH", "confidence": 0.9, "box": [0, 0, 9, 9], "check": "yes"}, "'check' is 'yes'"),
])
def test_a_card_reading_that_is_not_one_is_refused_quoting_what_is_wrong(data: object, quoted: str) -> None:
    with pytest.raises(InvalidReadingError, match=re.escape(quoted)):
        DetectedCard.from_dict(data)  # type: ignore[arg-type]


@pytest.mark.parametrize(("check_below", "flagged"), [(0.0, [False, False]), (0.5, [True, False]),
                                                      (0.95, [True, True])])
def test_a_card_read_under_check_below_is_to_be_checked_without_an_alternative(
        check_below: float, flagged: list[bool]) -> None:
    rows = card_indices((100, 150), "8H", score=0.3) + card_indices((300, 150), "KS", score=0.9)
    cards = pair_indices(detections(rows), replace(CONFIG, check_below=check_below))
    assert [card.check for card in cards] == flagged
    assert [card.is_unsure for card in cards] == flagged
    assert [card.to_dict().get("check", False) for card in cards] == flagged
    assert all(card.alternative is None for card in cards)


@pytest.mark.parametrize(("probs", "code", "offered"), [
    ([("8S", 0.9), ("8H", 0.02), ("8D", 0.05)], "8S", "8D"),   # a black reading: the likelier red suit
    ([("8C", 0.9), ("8H", 0.05), ("8D", 0.02)], "8C", "8H"),
    ([("QH", 0.9), ("QS", 0.01), ("QC", 0.03)], "QH", "QC"),   # a red reading: the likelier black suit
    ([("AD", 0.9)], "AD", "AS"),                                # no opinion: the first of the pair
    ([("JK", 0.9)], "JK", None),                                # a Joker has no suit
])
def test_without_colour_a_card_offers_its_rank_in_the_other_colour(probs: list, code: str,
                                                                   offered: str | None) -> None:
    assert other_colour(reading(*probs), CARD_CODES.index(code)) == offered


def test_in_a_photo_without_colour_the_other_colour_replaces_the_runner_up() -> None:
    rows = card_indices((100, 150), "8S") + card_indices((300, 150), "JK")
    found = detections(rows)
    found.data["probs"] = np.stack([reading(("8S", 0.6), ("6S", 0.3), ("8H", 0.05))] * 2
                                   + [reading(("JK", 0.6), ("QS", 0.3))] * 2)
    assert [c.alternative for c in pair_indices(found, UNSURE)] == ["6S", "QS"]
    assert [c.alternative for c in pair_indices(found, UNSURE, colourless=True)] == ["8H", "QS"]


def test_indices_without_probabilities_give_cards_without_alternatives() -> None:
    assert [card.alternative for card in pair_indices(detections(card_indices((100, 150), "8H")), UNSURE)] == [None]


def test_a_candidate_on_no_card_read_is_offered_as_possibly_missed() -> None:
    read = detections(card_indices((100, 150), "KS"))
    candidate = detections(card_indices((300, 150), "7H", corners=("tl",), score=0.35))
    assert [c.card for c in possibly_missed(read, candidate, CONFIG)] == ["7H"]


def test_a_candidate_over_a_read_index_is_that_index_seen_again() -> None:
    read = detections(card_indices((100, 150), "KS", corners=("tl",)))
    again = detections(card_indices((101, 151), "KC", corners=("tl",), score=0.35))
    assert possibly_missed(read, again, CONFIG) == []


def test_the_other_corner_of_a_card_read_is_not_offered() -> None:
    top, bottom = card_indices((100, 150), "KS")
    assert possibly_missed(detections([top]), detections([(*bottom[:1], 0.35, *bottom[2:])]), CONFIG) == []


def test_two_candidate_corners_of_one_card_are_one_card_offered() -> None:
    candidates = detections(card_indices((300, 150), "7H", score=0.35))
    offered = possibly_missed(detections(card_indices((100, 150), "KS")), candidates, CONFIG)
    assert [(c.card, c.corners) for c in offered] == [("7H", 2)]


def joint_codes(rows: list[tuple], probs: list[np.ndarray], config: DetectorConfig = CONFIG) -> list[str]:
    """The code each index is read as after :func:`read_corners_together`."""
    xyxy = np.array([r[0] for r in rows])
    down = np.array([r[3] for r in rows], np.float32)
    score = np.array([r[1] for r in rows])
    joint = read_corners_together(xyxy, np.stack(probs), down, score, config)
    assert np.allclose(joint.sum(axis=1), 1.0, atol=1e-5)
    return [(CARD_CODES + ("none",))[int(i)] for i in joint.argmax(axis=1)]


SHARP_5H = reading(("5H", 0.9), ("6H", 0.05))


BLURRED_5H = reading(("6H", 0.6), ("5H", 0.3))


@pytest.mark.parametrize(("sharp", "blurred", "read_as"), [
    (SHARP_5H, BLURRED_5H, "5H"),  # a blurred corner is outvoted by its sharp partner
    (reading(("JK", 0.8)), reading(("JD", 0.5), ("JK", 0.4)), "JK"),
    (reading(("8C", 0.95)), reading(("none", 0.55), ("8C", 0.4)), "8C"),  # a half-hidden corner is not vetoed
])
def test_a_cards_two_corners_are_read_together(sharp: np.ndarray, blurred: np.ndarray, read_as: str) -> None:
    rows = card_indices((300, 200), "5H", degrees=20)
    assert joint_codes(rows, [sharp, blurred]) == [read_as, read_as]
    assert joint_codes(rows[::-1], [blurred, sharp]) == [read_as, read_as]


def test_corners_of_two_cards_that_cannot_agree_are_read_apart() -> None:
    # The geometry of one card, but one corner says 5H and the other KS: two cards.
    rows = card_indices((300, 200), "5H")
    assert joint_codes(rows, [SHARP_5H, reading(("KS", 0.95))]) == ["5H", "KS"]


def test_indices_off_the_diagonal_are_read_apart() -> None:
    first = card_indices((100, 150), "5H", corners=("tl",))
    second = card_indices((180, 150), "5H", corners=("tl",))  # fanned: same orientation
    assert joint_codes(first + second, [SHARP_5H, BLURRED_5H]) == ["5H", "6H"]


def test_only_confident_detections_are_read_together() -> None:
    sharp = card_indices((300, 200), "5H", corners=("tl",))
    faint = card_indices((300, 200), "5H", corners=("br",), score=CONFIG.conf_threshold / 2)
    assert joint_codes(sharp + faint, [SHARP_5H, BLURRED_5H]) == ["5H", "6H"]


def test_joint_reading_can_be_turned_off() -> None:
    rows = card_indices((300, 200), "5H")
    off = replace(CONFIG, pair_min_agreement=1.5)
    assert joint_codes(rows, [SHARP_5H, BLURRED_5H], off) == ["5H", "6H"]


@pytest.mark.parametrize(("rows", "config"), [
    (1, CONFIG),  # one index: nothing to read together
    (2, replace(CONFIG, pair_min_agreement=1.5)),  # the joint reading turned off
    (2, CONFIG),
], ids=["one index", "turned off", "a card"])
def test_corners_read_together_are_a_new_array_the_caller_may_change(rows: int, config: DetectorConfig) -> None:
    indices = detections(card_indices((300, 200), "5H"))[:rows]
    read = np.stack([reading(("5H", 0.9)), reading(("5H", 0.6), ("6H", 0.3))])[:rows]
    probs = read.copy()
    joint = read_corners_together(indices.xyxy, probs, indices.data["down"], indices.confidence, config)
    joint[:] = 0.0
    assert not np.shares_memory(joint, probs)
    np.testing.assert_array_equal(probs, read)


def test_index_size_needs_no_way_down_without_an_aspect() -> None:
    wh = np.array([[20.0, 45.0], [0.0, 10.0]])
    np.testing.assert_array_equal(index_size(wh), np.sqrt([900.0, 0.0]))
    np.testing.assert_array_equal(index_size(wh), index_size(wh, np.array([[0.0, 1.0], [1.0, 0.0]]), 0.0))
    with pytest.raises(ValueError, match="down vector"):
        index_size(wh, None, 2.5)


def _card_corners_apart(*cards: list[tuple]) -> float | None:
    indices = detections(*cards)
    probs = np.stack([reading((CARD_CODES[code], 0.95)) for code in indices.class_id])
    return card_corner_distance(indices.xyxy, probs, indices.data["down"], indices.confidence, CONFIG)


def _apart(card: list[tuple]) -> float:
    one = detections(card)
    return float(np.linalg.norm(one.center[1] - one.center[0]))


@pytest.mark.parametrize("degrees", [0.0, 35.0, 190.0])
def test_how_far_apart_a_cards_corners_lie_is_read_from_the_cards_that_show_both(degrees: float) -> None:
    card = card_indices((200, 200), "7S", degrees=degrees)
    assert _card_corners_apart(card) == pytest.approx(_apart(card))
    # Every card of one deck is one size: the photo's cards agree, a lone corner says nothing.
    others = [card_indices((400, 200), "KD", degrees=degrees), card_indices((600, 500), "2C", corners=("tl",))]
    assert _card_corners_apart(card, *others) == pytest.approx(_apart(card))


@pytest.mark.parametrize("cards", [
    [card_indices((200, 200), "7S", corners=("tl",)), card_indices((400, 200), "KD", corners=("br",))],
    [card_indices((200, 200), "7S", score=0.2)],           # located too faintly to trust
], ids=["no card shows both corners", "faint"])
def test_a_photo_without_a_card_showing_both_corners_says_nothing_of_their_distance(cards: list) -> None:
    assert _card_corners_apart(*cards) is None
    nothing = np.zeros((0, 4), np.float32)
    assert card_corner_distance(nothing, np.zeros((0, len(CARD_CODES) + 1)), np.zeros((0, 2)), np.zeros(0), CONFIG) is None


def test_corners_read_unsure_say_nothing_of_their_distance() -> None:
    indices = detections(card_indices((200, 200), "7S"))
    unsure = np.stack([reading(("7S", 0.6), ("7C", 0.3))] * 2)
    config = replace(CONFIG, unsure_below=0.9)
    assert card_corner_distance(indices.xyxy, unsure, indices.data["down"], indices.confidence, config) is None
