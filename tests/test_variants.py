"""Variants are data: the table in docs/rules.md, one entry per variant."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from onze_vision.cards import Card
from onze_vision.melds import check_down
from onze_vision.shared import shared_dir
from onze_vision.variants import (
    CONTRACTS,
    VARIANTS,
    Contract,
    InvalidContractError,
    InvalidPlayerCountError,
    InvalidRoundError,
    InvalidVariantError,
    UnknownVariantError,
    Variant,
    get_variant,
)

ALL = list(VARIANTS)


def test_a_card_is_valued_and_judged_wild_from_its_code_as_from_the_card() -> None:
    once = get_variant("once")
    for code in ("JK", "AH", "AS", "QH", "7C"):
        assert once.card_value(code) == once.card_value(Card.from_code(code))
        assert once.is_wild(code) == once.is_wild(Card.from_code(code))


def test_a_long_unknown_name_is_quoted_cut_not_whole() -> None:
    with pytest.raises(UnknownVariantError) as refused:
        get_variant("x" * 100_000)
    assert len(str(refused.value)) < 200 and "(100002 characters)" in str(refused.value)
    with pytest.raises(InvalidPlayerCountError, match="not a number of about 5001 digits"):
        get_variant("once").decks_for(10**5000)


def test_the_five_variants_in_order() -> None:
    assert ALL == ["llenroc", "onze", "scorecard", "once", "ons"]


RULES_DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


@pytest.mark.parametrize("name", ALL)
def test_each_variant_has_its_column_in_the_rules_document(name: str) -> None:
    header = next(line for line in RULES_DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| | `"))
    assert f"`{name}` [{VARIANTS[name].source}]" in header


@pytest.mark.parametrize("name", ALL)
def test_each_variant_names_the_text_it_comes_from(name: str) -> None:
    seeds = shared_dir() / "seeds"
    if not seeds.is_dir():
        pytest.skip(f"the rules' texts are not here ({seeds}; set ONZE_SHARED)")
    source = VARIANTS[name].source
    assert len(list(seeds.glob(f"{source}_*.txt"))) == 1, f"{name}'s source {source!r} names no one text {source}_*.txt in {seeds}"


@pytest.mark.parametrize("name", ["once", "ONCE", " Once "])
def test_get_variant_ignores_case_and_spaces(name: str) -> None:
    assert get_variant(name) is VARIANTS["once"]


def test_an_unknown_variant_names_itself_and_the_known_ones() -> None:
    with pytest.raises(UnknownVariantError) as caught:
        get_variant("rummy")
    message = str(caught.value)
    assert "'rummy'" in message
    assert all(name in message for name in ALL)


@pytest.mark.parametrize(
    ("hand", "sets", "runs", "text"),
    [
        (1, 2, 0, "two sets"),
        (2, 1, 1, "one set + one run"),
        (3, 0, 2, "two runs"),
        (4, 3, 0, "three sets"),
        (5, 2, 1, "two sets + one run"),
        (6, 1, 2, "two runs + one set"),
        (7, 0, 3, "three runs"),
    ],
)
@pytest.mark.parametrize("name", ALL)
def test_each_hands_contract_is_the_same_in_every_variant(
    name: str, hand: int, sets: int, runs: int, text: str
) -> None:
    contract = get_variant(name).contract(hand)
    assert (contract.sets, contract.runs, str(contract)) == (sets, runs, text)


@pytest.mark.parametrize(("hand", "said"), [
    (0, "hand 0 does not exist: Onze is played over hands 1 to 7"),
    (8, "hand 8 does not exist: Onze is played over hands 1 to 7"),
    (-1, "hand -1 does not exist: Onze is played over hands 1 to 7"),
    ("1", "a hand is a whole number from 1 to 7, not '1' (str)"),
    (True, "a hand is a whole number from 1 to 7, not True (bool)"),
])
def test_a_hand_outside_1_to_7_is_an_error(hand: object, said: str) -> None:
    said = re.escape(said)
    with pytest.raises(InvalidRoundError, match=said):
        VARIANTS["onze"].contract(hand)  # type: ignore[arg-type]
    with pytest.raises(InvalidRoundError, match=said):
        VARIANTS["onze"].cards_dealt(hand)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "deal"),
    [
        ("llenroc", [6, 7, 8, 9, 10, 11, 12]),
        ("onze", [11, 11, 11, 11, 11, 11, 13]),
        ("scorecard", [11, 11, 11, 11, 11, 11, 13]),
        ("once", [11, 11, 11, 11, 11, 11, 13]),
        ("ons", [11, 11, 11, 11, 11, 11, 13]),
    ],
)
def test_cards_dealt_per_hand(name: str, deal: list[int]) -> None:
    assert [get_variant(name).cards_dealt(hand) for hand in range(1, 8)] == deal


@pytest.mark.parametrize(
    ("name", "players", "decks", "jokers"),
    [
        pytest.param("llenroc", 2, 2, 4, id="llenroc 2 decks up to 5 players (low end)"),
        pytest.param("llenroc", 5, 2, 4, id="llenroc 2 decks up to 5 players"),
        pytest.param("llenroc", 6, 3, 6, id="llenroc 3 decks for 6"),
        pytest.param("llenroc", 7, 4, 8, id="llenroc 4 decks for 7 (chosen)"),
        pytest.param("llenroc", 8, 4, 8, id="llenroc 4 decks for 8"),
        pytest.param("onze", 3, 2, 4, id="onze 2 decks with Jokers"),
        pytest.param("scorecard", 7, 2, 4, id="scorecard 2 decks with Jokers"),
        pytest.param("once", 2, 2, 4, id="once 2 decks with Jokers"),
        pytest.param("ons", 8, 2, 0, id="ons 2 decks, no Jokers (chosen)"),
    ],
)
def test_decks_and_jokers_by_player_count(name: str, players: int, decks: int, jokers: int) -> None:
    variant = get_variant(name)
    assert variant.decks_for(players) == decks
    assert variant.jokers_for(players) == jokers


@pytest.mark.parametrize(
    ("name", "too_few", "too_many"),
    [("llenroc", 1, 9), ("onze", 2, 8), ("scorecard", 2, 8), ("once", 1, 7), ("ons", 1, 9)],
)
def test_player_counts_outside_the_range_are_errors(name: str, too_few: int, too_many: int) -> None:
    variant = get_variant(name)
    for players in (too_few, too_many):
        with pytest.raises(InvalidPlayerCountError, match=f"not {players}"):
            variant.decks_for(players)


# Value of each card class per variant: (Joker, red Ace, black Ace, J/Q/K, 10, 2, 9).
VALUES = {
    "llenroc": (20, 15, 15, 10, 10, 2, 9),
    "onze": (30, 30, 20, 10, 10, 2, 9),
    "scorecard": (30, 30, 20, 10, 10, 2, 9),
    "once": (30, 30, 15, 10, 10, 2, 9),
    "ons": (None, 25, 15, 10, 10, 2, 9),
}
CLASS_CARDS = ("JK", "AH", "AS", "QC", "10D", "2H", "9S")


# A sixth variant needs its row in each of these tables; said plainly, not as a KeyError.
@pytest.mark.parametrize("table", ["VALUES", "WILD", "ACE_POSITIONS"])
def test_every_variant_has_its_row_in_the_tables_below(table: str) -> None:
    missing = [name for name in ALL if name not in globals()[table]]
    assert not missing, f"add {missing} to {table} in tests/test_variants.py"


@pytest.mark.parametrize("name", ALL)
def test_card_values_for_every_card_class(name: str) -> None:
    variant = get_variant(name)
    for code, value in zip(CLASS_CARDS, VALUES[name]):
        if value is not None:
            assert variant.card_value(Card.from_code(code)) == value, code
    for code in ("JS", "KH", "AD", "AC"):
        same_class = {"JS": "QC", "KH": "QC", "AD": "AH", "AC": "AS"}[code]
        assert variant.card_value(Card.from_code(code)) == variant.card_value(Card.from_code(same_class))


# Which cards are wild: (Joker, AH, AD, AS, AC, 2H).
WILD = {
    "llenroc": (True, False, False, False, False, False),
    "onze": (True, True, True, False, False, False),
    "scorecard": (True, True, True, False, False, False),
    "once": (True, True, True, False, False, False),
    "ons": (False, True, True, False, False, False),
}


@pytest.mark.parametrize("name", ALL)
def test_which_cards_are_wild(name: str) -> None:
    variant = get_variant(name)
    codes = ("JK", "AH", "AD", "AS", "AC", "2H")
    assert tuple(variant.is_wild(Card.from_code(c)) for c in codes) == WILD[name]


# Where an Ace may go in a run: (low, high).
ACE_POSITIONS = {"llenroc": (True, True), "onze": (True, False), "scorecard": (True, True), "once": (True, False),
                 "ons": (False, True)}


@pytest.mark.parametrize(("name", "low", "high"), [(name, *where) for name, where in ACE_POSITIONS.items()])
def test_ace_positions_in_runs(name: str, low: bool, high: bool) -> None:
    variant = get_variant(name)
    assert (variant.ace_low, variant.ace_high) == (low, high)


def test_only_llenroc_splashes_and_its_hand_7_always_doubles() -> None:
    assert [v.name for v in VARIANTS.values() if v.has_splash] == ["llenroc"]
    llenroc = VARIANTS["llenroc"]
    assert llenroc.doubles(7) and not llenroc.doubles(6) and llenroc.doubles(6, splash=True)


def test_contracts_are_data_shared_by_the_variants() -> None:
    assert all(v.contracts == CONTRACTS for v in VARIANTS.values())
    assert Contract.of(sets=2, runs=1) == CONTRACTS[4]
    assert Contract(("run", "run", "set")).min_cards == 11


def test_to_dict_states_every_rule_as_json_data() -> None:
    data = VARIANTS["once"].to_dict()
    assert data["name"] == "once"
    assert data["runs_same_suit"] is False
    assert data["wild_limits"]["max_set_wilds"] == 1
    assert data["contracts"][5]["text"] == "two runs + one set"
    assert data["decks"] == {str(p): 2 for p in range(2, 7)}


@pytest.mark.parametrize(("make", "said"), [
    (lambda: Contract(("set", "pair")), "a contract is a tuple of 'set' and 'run', not ('set', 'pair')"),
    (lambda: Contract(["set"]), "a contract is a tuple of 'set' and 'run', not ['set']"),  # a list would be unhashable
    (lambda: Contract.of(sets=-1), "a contract has a whole number of sets, none or more, not -1"),
    (lambda: Contract.of(runs=1.5), "a contract has a whole number of runs, none or more, not 1.5"),
])
def test_a_contract_is_of_sets_and_runs_only(make: object, said: str) -> None:
    with pytest.raises(InvalidContractError, match=f"^{re.escape(said)}$"):
        make()  # type: ignore[operator]


def test_a_sixth_variant_is_one_more_entry() -> None:
    # No code changes: a new Variant value works with the whole engine.
    sixth = dataclasses.replace(
        VARIANTS["onze"], name="sixth", runs_same_suit=False, exact_melds=True, black_ace_value=5
    )
    assert isinstance(sixth, Variant)
    assert sixth.card_value(Card.from_code("AS")) == 5
    assert check_down(sixth, 2, "7H 7S JK 3C 4D 5H 6S").valid
    assert not check_down(sixth, 2, "7H 7S JK 3C 4D 5H 6S 7C").valid


@pytest.mark.parametrize(("change", "said"), [
    ({"contracts": CONTRACTS + CONTRACTS[-2:]}, "sixth: contracts gives 9 hands; a game has 7 (hands 1-7), one entry each"),
    ({"deal": (11, 11, 11, 12, 12)}, "sixth: deal gives 5 hands; a game has 7 (hands 1-7), one entry each"),
    ({"max_players": 100}, "sixth: decks_by_players does not reach 100 players"),
    ({"min_players": 5, "max_players": 4}, "sixth: 5-4 players is no range"),
    ({"has_splash": True, "splash_hands": (8,)}, "sixth: splash_hands (8,) names a hand outside 1-7"),
])
def test_a_variant_entry_that_cannot_describe_a_game_is_refused_when_made(change: dict[str, object], said: str) -> None:
    with pytest.raises(InvalidVariantError, match=f"^{re.escape(said)}$"):
        dataclasses.replace(VARIANTS["onze"], name="sixth", **change)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "players", "hand", "left"),
    [
        ("ons", 8, 7, 0),  # 8 x 13 = 104: every card of two decks without Jokers
        ("ons", 8, 6, 16),  # 8 x 11 of 104
        ("ons", 7, 7, 13),  # 7 x 13 of 104
        ("onze", 7, 7, 17),  # 7 x 13 of 108: two decks with their Jokers
        ("once", 6, 7, 30),  # 6 x 13 of 108
        ("llenroc", 8, 7, 120),  # 8 x 12 of four decks of 54
        ("llenroc", 5, 1, 78),  # 5 x 6 of two decks of 54
    ],
)
def test_cards_left_after_the_deal(name: str, players: int, hand: int, left: int) -> None:
    assert get_variant(name).cards_left_after_deal(players, hand) == left


def test_only_ons_with_eight_players_has_a_hand_it_cannot_deal() -> None:
    short = {(name, players): variant.short_deals(players)
             for name, variant in VARIANTS.items()
             for players in range(variant.min_players, variant.max_players + 1)
             if variant.short_deals(players)}
    assert short == {("ons", 8): (7,)}


@pytest.mark.parametrize(
    ("players", "dealt", "jokers_per_deck", "left", "dealable"),
    [
        (2, 52, 0, 0, False),  # nothing left
        (3, 35, 1, 1, False),  # a card to turn up, none to draw
        (2, 51, 0, 2, True),  # one to turn up, one to draw
        (3, 34, 1, 4, True),
    ],
)
def test_a_deal_must_leave_a_card_to_turn_up_and_one_to_draw(
    players: int, dealt: int, jokers_per_deck: int, left: int, dealable: bool
) -> None:
    two_decks = dataclasses.replace(get_variant("ons"), deal=(dealt,) * 7, jokers_per_deck=jokers_per_deck)
    assert two_decks.cards_left_after_deal(players, 7) == left
    assert two_decks.can_deal(players, 7) is dealable
    assert two_decks.short_deals(players) == (() if dealable else (1, 2, 3, 4, 5, 6, 7))


@pytest.mark.parametrize(
    ("players", "dealt", "jokers_per_deck", "reason"),
    [
        (2, 52, 0, "2 players × 52 cards take every card of the 2 decks, leaving no stock to draw from"),
        (3, 35, 1, "3 players × 35 cards take all but 1 card of the 2 decks, leaving no stock to draw from"),
        (2, 53, 0, "2 players × 53 cards take more cards than the 2 decks hold, leaving no stock to draw from"),
        (2, 51, 0, None),  # a card to turn up and one to draw: nothing to say
    ],
)
def test_a_short_deal_says_why_in_one_sentence(players: int, dealt: int, jokers_per_deck: int, reason: str | None) -> None:
    two_decks = dataclasses.replace(get_variant("ons"), deal=(dealt,) * 7, jokers_per_deck=jokers_per_deck)
    assert two_decks.short_deal_reason(players, 7) == reason


def test_cards_left_refuses_a_player_count_the_variant_is_not_played_by() -> None:
    with pytest.raises(InvalidPlayerCountError, match="onze is played by 3 to 7 players, not 8"):
        get_variant("onze").cards_left_after_deal(8, 1)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rules_in_words_say_what_every_variant_shares(name: str) -> None:
    words = dict(VARIANTS[name].rules_in_words())
    assert words["sets"].startswith("3 or more cards of one rank")
    assert words["runs"].startswith("4 or more consecutive ranks") and "K A 2 is not a run" in words["runs"]
    assert words["go-down"].startswith("the hand's contract and nothing more")
    assert "the one who went out scores 0" in words["scoring"] and "lowest total wins" in words["scoring"]


@pytest.mark.parametrize(("name", "wild"), [
    ("llenroc", "Jokers; red Aces are ordinary Aces"),
    ("onze", "Jokers and red Aces; a red Ace is wild even in a set of Aces"),
    ("ons", "red Aces; a red Ace is wild even in a set of Aces"),
])
def test_the_rules_say_whether_a_red_ace_is_wild(name: str, wild: str) -> None:
    assert dict(VARIANTS[name].rules_in_words())["wild cards"].startswith(wild)


def test_llenrocs_rules_say_hand_7_is_gone_down_only_by_splashing() -> None:
    assert "in hand 7 one may go down only by splashing" in dict(VARIANTS["llenroc"].rules_in_words())["splash"]
