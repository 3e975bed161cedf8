"""Hand scoring: points of the cards left, splash doubling, impossible hands."""

from __future__ import annotations

import re

import pytest

from onze_vision.cards import Card, parse_cards
from onze_vision.scoring import (MAX_HAND_CARDS, HandScore, ImpossibleHandError, InvalidDeckCountError, TooManyCardsError,
                                 check_hand_size, check_possible, score_hand)
from onze_vision.variants import InvalidPlayerCountError, NoSplashError


@pytest.mark.parametrize(
    ("variant", "cards", "points"),
    [
        pytest.param("llenroc", "JK AH AS KD 10C 2H", 20 + 15 + 15 + 10 + 10 + 2, id="llenroc: Joker 20, every Ace 15"),
        pytest.param("onze", "JK AH AS KD 10C 2H", 30 + 30 + 20 + 10 + 10 + 2, id="onze: Joker and red Ace 30, black Ace 20"),
        pytest.param("scorecard", "JK AD AC JD 10C 9H", 30 + 30 + 20 + 10 + 10 + 9, id="scorecard: 10 counts 10"),
        pytest.param("once", "JK AH AS QD 10C 2H", 30 + 30 + 15 + 10 + 10 + 2, id="once: black Ace 15, wilds 30"),
        pytest.param("ons", "AH AS KD 10C 2H", 25 + 15 + 10 + 10 + 2, id="ons: red Ace 25, black Ace 15"),
        pytest.param("once", "", 0, id="no cards left: 0 (the player who went out)"),
    ],
)
def test_points_are_the_sum_of_the_card_values(variant: str, cards: str, points: int) -> None:
    assert score_hand(parse_cards(cards), variant).points == points


def test_breakdown_gives_each_card_its_points_in_order() -> None:
    result = score_hand(["QH", "JK", "7S"], "once")
    assert isinstance(result, HandScore)
    assert result.breakdown == [
        (Card.from_code("QH"), 10),
        (Card.from_code("JK"), 30),
        (Card.from_code("7S"), 7),
    ]
    assert result.to_dict() == {
        "variant": "once",
        "cards": ["QH", "JK", "7S"],
        "points": 47,
        "breakdown": [
            {"card": "QH", "points": 10},
            {"card": "JK", "points": 30},
            {"card": "7S", "points": 7},
        ],
        "doubled": False,
        "splash": False,
    }


def test_a_splash_doubles_the_score_in_llenroc() -> None:
    result = score_hand(["9H", "KS"], "llenroc", splash=True)
    assert result.points == 38 and result.splash and result.doubled
    assert [points for _, points in result.breakdown] == [9, 10]  # per card, before doubling


def test_llenroc_hand_7_always_doubles_because_it_ends_in_a_splash() -> None:
    result = score_hand(["9H"], "llenroc", hand=7)
    assert result.points == 18 and result.doubled and not result.splash
    assert score_hand(["9H"], "llenroc", hand=6).points == 9


def test_a_splash_in_a_variant_without_the_rule_is_an_error() -> None:
    with pytest.raises(NoSplashError, match="once has no splash rule"):
        score_hand(["9H"], "once", splash=True)


@pytest.mark.parametrize(
    ("variant", "cards", "kwargs", "named"),
    [
        pytest.param("once", "QH QH QH", {}, "QH", id="three QH with two decks"),
        pytest.param("onze", "JK JK JK JK JK", {}, "JK", id="five Jokers with two decks"),
        pytest.param("ons", "JK", {}, "JK", id="a Joker in ons"),
        pytest.param("ons", "8S 8S 8S JK", {}, "JK", id="a Joker in ons said before a copy too many"),
        pytest.param("llenroc", "7S 7S 7S", {"players": 5}, "7S", id="llenroc 5 players: 2 decks"),
        pytest.param("llenroc", "7S 7S 7S 7S 7S", {}, "7S", id="llenroc at most 4 decks"),
        pytest.param("once", "2C 2C 2C", {"decks": 2}, "2C", id="explicit deck count"),
    ],
)
def test_an_impossible_hand_is_refused_naming_the_card(
    variant: str, cards: str, kwargs: dict[str, int], named: str
) -> None:
    with pytest.raises(ImpossibleHandError, match=named) as caught:
        score_hand(parse_cards(cards), variant, **kwargs)
    assert caught.value.card == Card.from_code(named)


@pytest.mark.parametrize(
    ("variant", "cards", "kwargs"),
    [
        pytest.param("once", "QH QH JK JK JK JK", {}, id="two of each card and four Jokers with two decks"),
        pytest.param("llenroc", "7S 7S 7S", {"players": 6}, id="llenroc 6 players: 3 decks"),
        pytest.param("llenroc", "7S 7S 7S 7S", {}, id="llenroc without players: up to 4 decks"),
    ],
)
def test_a_possible_hand_passes(variant: str, cards: str, kwargs: dict[str, int]) -> None:
    check_possible(parse_cards(cards), variant, **kwargs)
    assert score_hand(parse_cards(cards), variant, **kwargs).points > 0


def test_players_outside_the_variant_are_an_error() -> None:
    with pytest.raises(InvalidPlayerCountError, match="onze is played by 3 to 7 players, not 9"):
        score_hand(["QH"], "onze", players=9)


# 26 distinct cards: two decks hold them all, so only the count can refuse the 27th.
_TWENTY_SIX = [f"{rank}{suit}" for rank in ("2", "3", "4", "5", "6", "7", "8") for suit in "CDHS"][:26]


def test_a_hand_of_as_many_cards_as_a_player_can_hold_is_scored() -> None:
    assert len(score_hand(_TWENTY_SIX, "llenroc").cards) == MAX_HAND_CARDS == 26


def test_more_cards_than_a_player_can_hold_are_not_one_hand() -> None:
    with pytest.raises(TooManyCardsError, match=r"^27 cards: a hand holds at most 26 \(13 dealt and as many "
                                                r"drawn or bought\), so these cannot be one player's hand or go-down$"):
        score_hand([*_TWENTY_SIX, "9C"], "llenroc")


def test_a_hand_is_counted_in_cards_however_it_is_given() -> None:
    check_hand_size("QH " * 26)   # 26 cards, not 78 characters
    with pytest.raises(TooManyCardsError, match="^27 cards"):
        check_hand_size(iter(["QH"] * 27))


@pytest.mark.parametrize(("decks", "shown"), [(0, "0"), (-1, "-1"), (True, "True"), (1.0, "1.0"), ("2", "'2'"),
                                              (-10**5000, "a number of about 5001 digits")],
                         ids=["none", "fewer than none", "True", "a float", "text", "a 5001-digit number below none"])
def test_a_number_of_decks_is_a_whole_number_of_one_or_more(decks: object, shown: str) -> None:
    with pytest.raises(InvalidDeckCountError, match=f"^decks must be a positive whole number, not {re.escape(shown)}$"):
        score_hand(["QH"], "once", decks=decks)  # type: ignore[arg-type]


@pytest.mark.parametrize("splash", ["yes", "no", 1, None])
def test_splash_is_true_or_false_not_a_truthy_value(splash: object) -> None:
    with pytest.raises(TypeError, match="splash is True or False"):
        score_hand(["9H"], "llenroc", splash=splash)  # type: ignore[arg-type]
