"""The two public questions: :func:`check_down` (the cards laid down make exactly the hand's
contract) and :func:`find_contract` (the contract inside a whole hand, leaving the fewest
points).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from onze_vision.cards import Card, format_cards, parse_cards
from onze_vision.scoring import check_hand_size, check_possible
from onze_vision.variants import Contract, Variant, get_variant

from .explain import _melds_text, explain
from .laid import _melds_as_laid, _wilds_as_laid
from .meld import GoDown, Meld
from .search import arrange


def _prepare(
    variant: Variant | str,
    hand: int,
    cards: Iterable[Card | str],
    players: int | None,
    decks: int | None,
) -> tuple[Variant, Contract, list[Card]]:
    v = get_variant(variant)
    contract = v.contract(hand)
    card_list = parse_cards(cards)
    check_hand_size(card_list)
    check_possible(card_list, v, players=players, decks=decks)
    return v, contract, card_list


def check_down(
    variant: Variant | str,
    hand: int,
    cards: Iterable[Card | str],
    *,
    players: int | None = None,
    decks: int | None = None,
) -> GoDown:
    """Do ``cards`` form exactly hand ``hand``'s contract, every card used?

    Raises:
        UnknownVariantError, InvalidRoundError, InvalidCardError: bad input.
        TooManyCardsError: more than :data:`MAX_HAND_CARDS` cards.
        ImpossibleHandError: cards the decks cannot hold (``players``/``decks`` as in
            :func:`onze_vision.scoring.check_possible`).
    """
    v, contract, card_list = _prepare(variant, hand, cards, players, decks)
    found = arrange(v, contract, card_list, use_all=True)
    if found is None:
        points = sum(v.card_value(c) for c in card_list)
        reason = explain(v, hand, card_list, use_all=True)
        return GoDown(False, [], list(card_list), reason, v.name, hand, points)
    melds = _melds_as_laid(v, contract, card_list) or _wilds_as_laid(found[0], card_list)
    return GoDown(True, melds, [], None, v.name, hand, 0)


def find_contract(
    variant: Variant | str,
    hand: int,
    cards: Iterable[Card | str],
    *,
    players: int | None = None,
    decks: int | None = None,
) -> GoDown:
    """Find hand ``hand``'s contract inside a whole hand, leaving the fewest points.

    In a hand where one may go down only by going out in the same turn (a variant's
    ``splash_hands``), the contract must take every card but at most one, the discard.

    Raises:
        The same errors as :func:`check_down`.
    """
    v, contract, card_list = _prepare(variant, hand, cards, players, decks)
    found = arrange(v, contract, card_list, use_all=False)
    if found is None:
        points = sum(v.card_value(c) for c in card_list)
        reason = explain(v, hand, card_list, use_all=False)
        return GoDown(False, [], list(card_list), reason, v.name, hand, points)
    melds, leftover, points = found
    if hand in v.splash_hands and len(leftover) > 1:
        # Here one may go down only by going out in the same turn (llenroc's hand 7): no
        # one else is down to lay cards off on, so at most the discard may be left.
        going_out = _going_out(v, contract, card_list)
        if going_out is None:
            reason = (f"Hand {hand} needs {contract}; found it: {_melds_text(melds)}, but "
                      f"{format_cards(leftover)} would be left: in hand {hand} of {v.name} one may go down "
                      f"only by going out in the same turn (a splash), keeping at most one card to discard.")
            return GoDown(False, [], list(card_list), reason, v.name, hand,
                          sum(v.card_value(c) for c in card_list))
        melds, leftover = going_out
        points = sum(v.card_value(c) for c in leftover)
    return GoDown(True, melds, leftover, None, v.name, hand, points)


def _going_out(v: Variant, contract: Contract, cards: Sequence[Card]) -> tuple[list[Meld], list[Card]] | None:
    """The contract laid with every card, or with all but one card, the discard (the
    dearest such card); ``None`` when neither can be done."""
    whole = arrange(v, contract, cards, use_all=True)
    if whole is not None:
        return whole[0], []
    for discard in sorted(dict.fromkeys(cards), key=v.card_value, reverse=True):
        rest = list(cards)
        rest.remove(discard)
        found = arrange(v, contract, rest, use_all=True)
        if found is not None:
            return found[0], [discard]
    return None
