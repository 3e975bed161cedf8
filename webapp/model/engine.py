"""The rules engine (:mod:`onze_vision`) as the sheet asks it: variants described for a form,
what a hand may score, a hand's cards scored or a go-down checked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from onze_vision.cards import CARD_CODES, Card, parse_cards
from onze_vision.melds import check_down, find_contract
from onze_vision.messages import quoted
from onze_vision.scoring import check_possible, score_hand
from onze_vision.variants import VARIANTS, Variant, get_variant

from .inputs import HANDS, InputError, parse_hand_number

#: The most players the sheet has room for: as many as any variant is played by (its
#: new-game form has a name slot for each).
MAX_PLAYERS = max(variant.max_players for variant in VARIANTS.values())
#: The variant a form offers first: the engine's first.
DEFAULT_VARIANT = next(iter(VARIANTS))


def all_variants() -> list[Variant]:
    """The engine's variants, in its order."""
    return list(VARIANTS.values())


def variant_info(variant: Variant) -> dict[str, Any]:
    """JSON-ready facts about a variant: names, player limits, the seven contracts."""
    return {
        "name": variant.name,
        "title": variant.title,
        "min_players": variant.min_players,
        "max_players": variant.max_players,
        "has_splash": bool(variant.has_splash),
        "summary": variant_summary(variant),
        "hands": [{"number": n, "contract": str(variant.contract(n)),
                   "cards_dealt": variant.cards_dealt(n)} for n in HANDS],
    }


def variant_summary(variant: Variant) -> str:
    """One line a player can choose a variant by: players, wild cards, runs, Aces, splash."""
    ace = {(True, True): "Ace low or high", (True, False): "Ace low",
           (False, True): "Ace high", (False, False): "no Ace"}[(variant.ace_low, variant.ace_high)]
    # The title's words in brackets ("the Caldwell family rules") lead: the list shows the name alone.
    aside = variant.title.partition(" (")[2].rstrip(")")
    # What tells the variants apart: the wild cards' limits, the suits and Ace of a run,
    # melds laid at their least size only, a splash.
    limits = "no limit" if variant.min_naturals == 0 and variant.max_set_wilds is None and variant.wilds_may_touch \
        else variant.wild_limits_text
    parts = [*([aside] if aside else []), f"{variant.min_players}-{variant.max_players} players",
             f"wild: {variant.wild_cards_text} ({limits})",
             f"runs: {'one suit' if variant.runs_same_suit else 'any suits'}, {ace}"]
    if variant.exact_melds:
        parts.append("go down with exactly 3-card sets and 4-card runs")
    if variant.has_splash:
        parts.append("a splash doubles")
    return " · ".join(parts)


def is_doubled(variant: Variant, hand: int, splash: bool) -> bool:
    """A splash doubles the other players' scores; Llenroc's hand 7 always does (the engine says)."""
    return variant.doubles(hand, bool(splash) and bool(variant.has_splash))


def max_card_value(variant: Variant) -> int:
    """The value of the variant's dearest card (Jokers only where it has them)."""
    values = []
    for code in CARD_CODES:
        try:
            values.append(variant.card_value(Card.from_code(code)))
        except ValueError:  # a card this variant does not use (Jokers in ons)
            continue
    return max(values)


def max_points(variant: Variant, hand: int, doubled: bool) -> int:
    """The most a typed score may be: twice the cards dealt, all at the dearest value.

    A real hand rarely holds more than the cards dealt plus a few bought ones, so a
    number above this is a typing slip (an extra digit), not a score.
    """
    most = 2 * variant.cards_dealt(hand) * max_card_value(variant)
    return most * 2 if doubled else most


def parse_card_list(value: str | Sequence[str] | None) -> list[str]:
    """Card codes from text ("7h, 10s QH") or a list; the engine parses each one."""
    if value is None:
        return []
    if isinstance(value, str):
        tokens = [t for t in re.split(r"[\s,;]+", value) if t]
    elif isinstance(value, (list, tuple)):
        tokens = []
        for item in value:
            if not isinstance(item, str):
                raise InputError(f"Cards must be given as codes like \"QH\", not {quoted(item)}.")
            tokens.extend(t for t in re.split(r"[\s,;]+", item) if t)
    else:
        raise InputError(f"Cards must be a list of codes like [\"QH\", \"10S\"], not {quoted(value)}.")
    return [str(card) for card in parse_cards(tokens)]


def score_cards(variant_name: str, cards: str | Sequence[str] | None, *, players: int | None = None,
                decks: int | None = None, splash: bool = False, hand: int | None = None) -> dict[str, Any]:
    """Points of the cards left in a hand (``HandScore.to_dict()``); refuses impossible hands."""
    variant = get_variant(variant_name)
    codes = parse_card_list(cards)
    parsed = parse_cards(codes)
    check_possible(parsed, variant, players=players, decks=decks)
    result = score_hand(parsed, variant, players=players, decks=decks, splash=splash, hand=hand).to_dict()
    result["variant"] = variant.name
    return result


def check_go_down(variant_name: str, hand: int | str, cards: str | Sequence[str] | None, *,
                  whole_hand: bool = False, players: int | None = None,
                  decks: int | None = None) -> dict[str, Any]:
    """Whether the cards make the hand's contract (``GoDown.to_dict()`` plus the contract);
    ``players``/``decks`` (a game's) refuse cards its decks cannot hold."""
    variant = get_variant(variant_name)
    number = parse_hand_number(hand)
    codes = parse_card_list(cards)
    if not codes:
        raise InputError("No cards to check: type or photograph the cards laid down.")
    check = find_contract if whole_hand else check_down
    found = check(variant, number, parse_cards(codes), players=players, decks=decks)
    return {**found.to_dict(), "variant": variant.name, "hand": number, "contract": str(variant.contract(number)),
            "cards": codes, "mode": "hand" if whole_hand else "down",
            "going_out": found.goes_out(whole_hand=whole_hand)}
