"""Cards: canonical codes, forgiving parsing, clear errors."""

from __future__ import annotations

import dataclasses
import re

import pytest

from onze_vision.cards import (
    CARD_CODES,
    JOKER,
    RANKS,
    SUITS,
    Card,
    InvalidCardError,
    format_cards,
    parse_cards,
)


def test_card_codes_are_the_53_canonical_codes_suit_major_then_joker() -> None:
    assert len(CARD_CODES) == 53
    assert CARD_CODES[:13] == tuple(rank + "S" for rank in RANKS)
    assert CARD_CODES[13] == "AH"
    assert CARD_CODES[-1] == "JK"
    assert SUITS == ("S", "H", "D", "C")


@pytest.mark.parametrize("code", CARD_CODES)
def test_every_canonical_code_round_trips(code: str) -> None:
    card = Card.from_code(code)
    assert str(card) == card.code == code
    assert CARD_CODES[card.index] == code


@pytest.mark.parametrize(
    ("text", "code"),
    [
        pytest.param("qh", "QH", id="lower case"),
        pytest.param("TH", "10H", id="T for ten"),
        pytest.param("th", "10H", id="t for ten, lower case"),
        pytest.param("10♥", "10H", id="suit symbol"),
        pytest.param("Q♥", "QH", id="face card with suit symbol"),
        pytest.param("a♠️", "AS", id="symbol with emoji variation selector"),
        pytest.param("7♢", "7D", id="white suit symbol"),
        pytest.param("k♣", "KC", id="club symbol"),
        pytest.param(" 9s ", "9S", id="surrounding spaces"),
        pytest.param("joker", "JK", id="the word joker"),
        pytest.param("JOKER", "JK", id="JOKER upper case"),
        pytest.param("jk", "JK", id="jk lower case"),
        pytest.param("🃏", "JK", id="joker emoji"),
    ],
)
def test_parsing_is_forgiving_and_printing_canonical(text: str, code: str) -> None:
    assert Card.from_code(text).code == code


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param("1H", id="1 is not a rank"),
        pytest.param("11S", id="11 is not a rank"),
        pytest.param("QX", id="X is not a suit"),
        pytest.param("Q", id="rank without suit"),
        pytest.param("H", id="suit without rank"),
        pytest.param("", id="empty"),
        pytest.param("HQ", id="suit before rank"),
        pytest.param("JKH", id="joker with a suit"),
    ],
)
def test_a_code_that_is_not_a_card_is_an_error_quoting_it(bad: str) -> None:
    with pytest.raises(InvalidCardError) as caught:
        Card.from_code(bad)
    assert repr(bad) in str(caught.value)
    assert caught.value.code == bad
    assert isinstance(caught.value, ValueError)


def test_parse_cards_names_the_first_bad_code() -> None:
    with pytest.raises(InvalidCardError, match="'ZZ'"):
        parse_cards(["QH", "ZZ", "10S"])


@pytest.mark.parametrize("sent", [b"QH", bytearray(b"QH 10S"), None, 7])
def test_parse_cards_refuses_what_is_no_list_of_codes_quoting_it(sent: object) -> None:
    # Bytes were iterated as numbers: "81 is not a card".
    with pytest.raises(InvalidCardError, match=f"^{re.escape(repr(sent))} is not a card"):
        parse_cards(sent)  # type: ignore[arg-type]


def test_parse_cards_takes_a_list_or_one_string_with_spaces_or_commas() -> None:
    expected = [Card.from_code(c) for c in ("QH", "10S", "JK")]
    assert parse_cards(["qh", "10s", "joker"]) == expected
    assert parse_cards("QH, 10s JK") == expected
    assert parse_cards("") == []


def test_properties_of_jokers_red_cards_and_aces() -> None:
    assert JOKER.is_joker and not JOKER.is_red and JOKER.suit is None
    assert Card.from_code("AH").is_red_ace and Card.from_code("AD").is_red_ace
    assert not Card.from_code("AS").is_red_ace and Card.from_code("AS").is_ace
    assert Card.from_code("7D").is_red and not Card.from_code("7C").is_red
    assert Card.from_code("QH").name == "Queen of hearts"


def test_cards_are_immutable_and_hashable_values() -> None:
    card = Card.from_code("QH")
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = 5  # type: ignore[misc]
    assert card == Card(12, "H")
    assert len({card, Card.from_code("qh"), Card.from_code("Q♥")}) == 1
    assert repr(card) == "Card.from_code('QH')"
    assert eval(repr(card)) == card   # what is shown is how to make it, as python-chess shows a Move


def test_constructing_a_card_that_does_not_exist_is_an_error() -> None:
    # The message quotes what was asked for, so the caller sees which part is wrong.
    with pytest.raises(InvalidCardError, match="'rank 14 suit H' is not a card"):
        Card(14, "H")
    with pytest.raises(InvalidCardError, match="'rank 5 suit X' is not a card"):
        Card(5, "X")


@pytest.mark.parametrize(("rank", "suit"), [("Q", "H"), (None, None), (12.0, "H"), (True, "H"), (12, 3),
                                           (0, "S")])
def test_a_card_made_of_anything_but_a_rank_number_and_a_suit_letter_is_refused(rank: object, suit: object) -> None:
    with pytest.raises(InvalidCardError, match=re.escape(f"rank {rank!r} suit {suit!r}")):
        Card(rank, suit)  # type: ignore[arg-type]


def test_cards_are_written_from_cards_or_from_codes_alike() -> None:
    assert format_cards(["qh", Card.from_code("10S"), "joker"]) == format_cards("QH 10S JK") == "QH 10S JK"
    with pytest.raises(InvalidCardError, match="'QX' is not a card"):
        format_cards(["QH", "QX"])


def test_cards_sort_by_rank_then_suit_with_jokers_last() -> None:
    cards = parse_cards("JK KC 2D AS 2S")
    assert format_cards(sorted(cards)) == "AS 2S 2D KC JK"
