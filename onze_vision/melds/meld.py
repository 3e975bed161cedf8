"""One meld as laid and a go-down's answer (:class:`Meld`, :class:`GoDown`), and the rules a
meld as laid must keep, checked apart from the search (:func:`meld_problems`; the tests lean
on it to check what the search finds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from onze_vision.cards import Card, format_cards
from onze_vision.variants import RUN_MIN, SET_MIN, MeldKind, Variant, get_variant

_LONGEST_RUN = 13  # A..K or 2..A: a run never holds the same Ace twice (no wrapping)


@dataclass(frozen=True)
class Meld:
    """A set or a run as laid on the table.

    Attributes:
        kind: ``"set"`` or ``"run"``.
        cards: the cards in order (a run from low to high).
        stands_for: per card, the card a wild stands for; ``None`` for natural cards.
    """

    kind: MeldKind
    cards: tuple[Card, ...]
    stands_for: tuple[Card | None, ...]

    @property
    def wilds(self) -> dict[int, Card]:
        """Index in :attr:`cards` -> the card that wild stands for."""
        return {i: card for i, card in enumerate(self.stands_for) if card is not None}

    @property
    def represented(self) -> tuple[Card, ...]:
        """The cards as they count: each wild replaced by what it stands for."""
        return tuple(s if s is not None else c for c, s in zip(self.cards, self.stands_for))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: kind, cards, wilds (index as a string -> card code)."""
        return {
            "kind": self.kind,
            "cards": [card.code for card in self.cards],
            "wilds": {str(i): card.code for i, card in self.wilds.items()},
        }

    def __str__(self) -> str:
        return format_cards(self.cards)


@dataclass(frozen=True)
class GoDown:
    """The answer of :func:`check_down` or :func:`find_contract`.

    Attributes:
        valid: the contract is made.
        melds: the arrangement, in the contract's order (empty when not valid).
        leftover: cards not in any meld (all the cards when not valid).
        reason: why not, in words; ``None`` when valid.
        variant: the variant's name.
        hand: the hand number (1-7).
        leftover_points: the points of :attr:`leftover` under the variant.
    """

    valid: bool
    melds: list[Meld]
    leftover: list[Card]
    reason: str | None
    variant: str = ""
    hand: int = 0
    leftover_points: int = 0

    def goes_out(self, *, whole_hand: bool) -> bool:
        """Whether this contract, found in a whole hand (``whole_hand``: :func:`find_contract`),
        goes out: in a hand one may go down in only by going out (a variant's
        ``splash_hands``, llenroc's 7th), the cards left are the discard, not points."""
        return whole_hand and self.valid and self.hand in get_variant(self.variant).splash_hands

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: valid, melds, leftover, leftover_points, reason."""
        return {
            "valid": self.valid,
            "melds": [meld.to_dict() for meld in self.melds],
            "leftover": [card.code for card in self.leftover],
            "leftover_points": self.leftover_points,
            "reason": self.reason,
        }


def _run_position(card: Card, index: int, length: int, variant: Variant) -> int:
    """Where ``card`` sits in a run read low to high; an Ace is low first, high last."""
    if card.rank != 1:
        return card.rank
    if index == 0 and variant.ace_low:
        return 1
    if index == length - 1 and variant.ace_high:
        return 14
    if index == 0 and length > 1:
        return 1  # an Ace where the variant forbids it: reported by the caller
    return 14


def meld_problems(meld: Meld, variant: Variant | str) -> list[str]:
    """Every rule ``meld``, as laid (order and stand-ins), breaks under ``variant``.

    Structural faults (wrong kind of card, not a set or run at all) stop at the first;
    the variant's own limits (size, wilds, suits, Aces; a red Ace laid as wild where it is
    not) are all listed.
    """
    v = get_variant(variant)
    shown = format_cards(meld.cards)
    if len(meld.cards) != len(meld.stands_for):
        return [f"every card needs its stand-in entry: {shown}"]
    if meld.kind not in ("set", "run"):
        return [f"unknown meld kind {meld.kind!r}"]
    wild_flags = [s is not None for s in meld.stands_for]
    problems: list[str] = []
    for card, stand in zip(meld.cards, meld.stands_for):
        if (stand is not None) != v.is_wild(card):
            if card.is_red_ace and not v.red_aces_wild and stand is not None:
                # Laid as if wild: the meld's other rules are still checked as laid, so a
                # near miss is not told as one rule away when the meld breaks more.
                problems.append(f"{card} is not wild in {v.name}, where red Aces are plain Aces "
                                f"(wild: {v.wild_cards_text}): {shown}")
                continue
            state = "wild" if v.is_wild(card) else "not wild"
            return [*problems, f"{card} is {state} in {v.name}: {shown}"]
        if stand is None and card.is_joker:
            return [*problems, f"{v.name} is played without Jokers: {shown}"]
        if stand is not None and stand.is_joker:
            return [*problems, f"a wild card cannot stand for a Joker: {shown}"]
    wilds = sum(wild_flags)
    naturals = len(meld.cards) - wilds
    hint = " (red Aces are wild)" if v.red_aces_wild and any(c.is_red_ace for c in meld.cards) else ""
    least = SET_MIN if meld.kind == "set" else RUN_MIN
    if len(meld.cards) < least:
        return [*problems, f"A {meld.kind} needs at least {least} cards: {shown}"]
    rep = meld.represented
    if meld.kind == "set":
        if len({card.rank for card in rep}) != 1:
            return [*problems, f"A set is cards of one rank: {shown}"]
    else:
        positions = [_run_position(card, i, len(rep), v) for i, card in enumerate(rep)]
        if any(b != a + 1 for a, b in zip(positions, positions[1:])) or len(rep) > _LONGEST_RUN:
            # An Ace at both ends (A..K A) is consecutive, but it goes round the corner too.
            if 1 in positions[1:] or 14 in positions[:-1] or len(rep) > _LONGEST_RUN:
                return [*problems, f"A run never goes round the corner (K A 2): {shown}"]
            return [*problems, f"A run is consecutive ranks, low to high: {shown}"]
        if v.runs_same_suit and len({card.suit for card in rep}) != 1:
            problems.append(f"A run is all one suit in {v.name}: {shown}")
        if any(
            card.rank == 1 and ((pos == 1 and not v.ace_low) or (pos == 14 and not v.ace_high))
            for card, pos in zip(rep, positions)
        ):
            problems.append(f"Aces in runs are {v.ace_text} in {v.name}: {shown}")
        if not v.wilds_may_touch and any(a and b for a, b in zip(wild_flags, wild_flags[1:])):
            problems.append(f"Wild cards may not sit side by side in a run in {v.name}{hint}: {shown}")
    if v.exact_melds and len(meld.cards) != least:
        problems.append(
            f"In {v.name} a {meld.kind} is laid down with exactly {least} cards "
            f"(add the others later): {shown}"
        )
    if naturals < v.min_naturals:
        if v.min_naturals == 1:
            problems.append(f"A meld of only wild cards is not allowed in {v.name}: {shown}")
        else:
            problems.append(
                f"Every meld needs at least {v.min_naturals} natural cards in {v.name}{hint}: {shown}"
            )
    if meld.kind == "set" and v.max_set_wilds is not None and wilds > v.max_set_wilds:
        word = "one wild card" if v.max_set_wilds == 1 else f"{v.max_set_wilds} wild cards"
        problems.append(f"A set holds at most {word} in {v.name}{hint}: {shown}")
    return problems


def meld_problem(meld: Meld, variant: Variant | str) -> str | None:
    """The first rule ``meld`` breaks under ``variant``, in words; ``None`` if valid."""
    problems = meld_problems(meld, variant)
    return problems[0] if problems else None


def is_valid_meld(meld: Meld, variant: Variant | str) -> bool:
    """True if ``meld``, as laid (order and stand-ins), is valid under ``variant``."""
    return meld_problem(meld, variant) is None
