"""The points of the cards left in a hand when someone goes out.

    >>> score_hand(parse_cards("QH JK 7S"), "once").points
    47
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from onze_vision.cards import Card, parse_cards
from onze_vision.messages import quoted
from onze_vision.variants import ImpossibleHandError, Variant, get_variant

__all__ = ["MAX_HAND_CARDS", "HandScore", "ImpossibleHandError", "InvalidDeckCountError", "TooManyCardsError",
           "check_hand_size",
           "check_possible", "resolve_decks", "score_hand"]

#: The most cards one player's hand (or go-down) may hold: the 13 dealt in hand 7 and as
#: many again drawn or bought. The exact go-down search grows fast past it (36 cards with
#: Jokers took 17 s), and no hand at a table reaches it.
MAX_HAND_CARDS = 26


class TooManyCardsError(ValueError):
    """More than :data:`MAX_HAND_CARDS` cards were given as one player's hand or go-down."""


class InvalidDeckCountError(ValueError):
    """A number of decks that is not a whole number of one or more; the message quotes it."""

    def __init__(self, decks: object) -> None:
        self.decks = decks
        super().__init__(f"decks must be a positive whole number, not {quoted(decks)}")


def check_hand_size(cards: Iterable[Card | str]) -> None:
    """Refuse more cards than one player can hold.

    Raises:
        TooManyCardsError: more than :data:`MAX_HAND_CARDS` cards, saying how many.
    """
    # A string of codes counts its cards, not its letters; a list (the callers' parsed cards)
    # or an iterator is counted as it is, not parsed a second time.
    count = len(parse_cards(cards)) if isinstance(cards, str) else sum(1 for _ in cards)
    if count > MAX_HAND_CARDS:
        raise TooManyCardsError(
            f"{count} cards: a hand holds at most {MAX_HAND_CARDS} "
            f"(13 dealt and as many drawn or bought), so these cannot be one player's hand or go-down"
        )


def resolve_decks(variant: Variant, *, players: int | None = None, decks: int | None = None) -> int:
    """Decks in play: ``decks`` if given, else from ``players``, else the variant's most."""
    if decks is not None:
        if type(decks) is not int or decks < 1:   # True is not one deck
            raise InvalidDeckCountError(decks)
        return decks
    if players is not None:
        return variant.decks_for(players)
    return variant.max_decks


def check_possible(
    cards: Iterable[Card | str],
    variant: Variant | str,
    *,
    players: int | None = None,
    decks: int | None = None,
) -> None:
    """Refuse cards the game's decks cannot hold.

    With D decks there are at most D copies of each card and ``jokers_per_deck``·D
    Jokers. Without ``players`` or ``decks`` the variant's largest deck count is used.

    Raises:
        ImpossibleHandError: naming the first card with too many copies.
        InvalidPlayerCountError: ``players`` outside the variant's range.
    """
    variant = get_variant(variant)
    deck_count = resolve_decks(variant, players=players, decks=decks)
    counts = Counter(parse_cards(cards))
    # Jokers first: "played without Jokers" says more than a copy too many of another card.
    for card in sorted(counts, key=lambda card: (not card.is_joker, card)):
        copies = counts[card]
        if card.is_joker:
            jokers = deck_count * variant.jokers_per_deck
            if jokers == 0:
                raise ImpossibleHandError(
                    f"{variant.name} is played without Jokers: JK cannot be in a hand", card
                )
            if copies > jokers:
                raise ImpossibleHandError(
                    f"impossible hand: {copies} × JK, but {deck_count} decks in {variant.name} "
                    f"hold only {jokers} Jokers",
                    card,
                )
        elif copies > deck_count:
            raise ImpossibleHandError(
                f"impossible hand: {copies} × {card}, but {deck_count} decks in "
                f"{variant.name} hold only {deck_count} of each card",
                card,
            )


@dataclass(frozen=True)
class HandScore:
    """A scored hand.

    Attributes:
        variant: the variant's name.
        cards: the cards scored, in the order given.
        breakdown: each card with its points (before any doubling).
        doubled: the total was doubled: a splash, or a hand whose rules always double it.
        points: the hand's score.
        splash: the hand was said to be a splash (Llenroc's hand 7 doubles without one).
    """

    variant: str
    cards: list[Card]
    breakdown: list[tuple[Card, int]]
    doubled: bool
    points: int
    splash: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: variant, cards, points, breakdown, doubled, splash."""
        return {
            "variant": self.variant,
            "cards": [card.code for card in self.cards],
            "points": self.points,
            "breakdown": [{"card": card.code, "points": points} for card, points in self.breakdown],
            "doubled": self.doubled,
            "splash": self.splash,
        }


def score_hand(
    cards: Iterable[Card | str],
    variant: Variant | str,
    *,
    players: int | None = None,
    decks: int | None = None,
    splash: bool = False,
    hand: int | None = None,
) -> HandScore:
    """Score the cards left in a hand.

    Args:
        cards: the leftover cards (codes are parsed).
        variant: a :class:`Variant` or its name.
        players: players at the table, for the impossible-hand check.
        decks: decks in play (overrides ``players``).
        splash: someone went down and out in one turn: the score doubles.
        hand: the hand number; a splash-only hand (Llenroc's 7th) always doubles.

    Raises:
        ImpossibleHandError: cards the decks cannot hold, naming the card.
        TooManyCardsError: more than :data:`MAX_HAND_CARDS` cards.
        NoSplashError: ``splash`` in a variant without the splash rule.
        TypeError: ``splash`` is not True or False.
    """
    variant = get_variant(variant)
    card_list = parse_cards(cards)
    check_hand_size(card_list)
    check_possible(card_list, variant, players=players, decks=decks)
    doubled = variant.doubles(hand, splash)
    breakdown = [(card, variant.card_value(card)) for card in card_list]
    total = sum(points for _, points in breakdown)
    return HandScore(
        variant=variant.name,
        cards=card_list,
        breakdown=breakdown,
        doubled=doubled,
        points=total * 2 if doubled else total,
        splash=splash,
    )
