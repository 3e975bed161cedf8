"""Go-down validation: do these cards make a hand's contract, and how?

Two questions, both answered by one exact search:

* :func:`check_down` — the cards a player lays down must form exactly the hand's
  contract, every card used;
* :func:`find_contract` — find the contract inside a whole hand, leaving the cards
  worth the fewest points.

The search
----------
Wild cards are interchangeable inside melds (any wild stands for any card), so only
their *number* matters while searching; natural cards are grouped into *types*
(identical cards, so the second deck's 7H is not tried separately from the first's).

The search repeatedly takes the smallest natural card still unplaced. Melds are
built whole, so that card is either the smallest natural of a meld not built yet,
or (in whole-hand mode) left over — and then every copy of it is left over, which
keeps each arrangement reachable exactly once. For a set the choice is how many
cards of its rank join it; for a run, which natural cards of its suit (or of any
suit) join it on either side, with the holes between them to be filled by wilds.

For each meld the search knows the interval of wild counts it can take (a set of 2
naturals takes 1 or more wilds, a run with one hole takes 1 plus up to the room at
its ends…), so placing the wilds is a sum of intervals checked at the end. It
prunes on the wilds left, on the cards needed for the melds left, and (whole hand)
on the points already left over (branch and bound).

Why an answer is "no"
---------------------
When the cards are not a valid go-down, :func:`explain` first retries with one rule
relaxed at a time (wild limits, run suits, Ace position, exact meld sizes): if the
cards *would* be valid with one meld at fault, the rule they break is named with the
meld that breaks it. A relaxed search returns one arrangement, which may put two melds
at fault where another puts one, so the groups of cards that could be the faulty meld
are then tried one by one, and the near miss breaking the fewest rules is kept.
Otherwise it finds the largest part of the contract that the cards do make and says
what is missing and which cards are left over.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from onze_vision.cards import RANKS, SUITS, Card, format_cards, parse_cards
from onze_vision.scoring import MAX_HAND_CARDS, TooManyCardsError, check_hand_size, check_possible
from onze_vision.variants import (
    RUN_MIN,
    SET_MIN,
    Contract,
    MeldKind,
    Variant,
    get_variant,
)

__all__ = [
    "MAX_HAND_CARDS",
    "GoDown",
    "TooManyCardsError",
    "Meld",
    "arrange",
    "check_down",
    "explain",
    "find_contract",
    "is_valid_meld",
    "is_valid_run",
    "is_valid_set",
    "meld_problem",
    "meld_problems",
]

_INF = 1 << 20
_LONGEST_RUN = 13  # A..K or 2..A: a run never holds the same Ace twice (no wrapping)
_ALL_WILD_SET_RANK = 13  # an all-wild set is shown as Kings (any rank would do)


# ---------------------------------------------------------------------------
# Melds and results
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# Checking one meld as laid (independent of the search; the tests lean on it)
# ---------------------------------------------------------------------------
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


def is_valid_set(cards: Iterable[Card | str], variant: Variant | str) -> bool:
    """True if ``cards``, in any order, make one valid set (wilds placed as needed).

    The meld's shape only: whether the game's decks hold that many copies is
    :func:`~onze_vision.scoring.check_possible`'s to say (:func:`check_down` asks both).
    """
    return arrange(variant, Contract(("set",)), parse_cards(cards), use_all=True) is not None


def is_valid_run(cards: Iterable[Card | str], variant: Variant | str) -> bool:
    """True if ``cards``, in any order, make one valid run (wilds placed as needed).

    The meld's shape only: whether the game's decks hold that many copies is
    :func:`~onze_vision.scoring.check_possible`'s to say (:func:`check_down` asks both).
    """
    return arrange(variant, Contract(("run",)), parse_cards(cards), use_all=True) is not None


# ---------------------------------------------------------------------------
# The exact search
# ---------------------------------------------------------------------------
# A meld under construction: (kind, naturals as ((position, type), ...), lo, hi, a, b).
# For a set, position is 0; a and b are a run's lowest and highest natural positions.
_Entry = tuple[str, tuple[tuple[int, int], ...], int, int, int, int]


@dataclass
class _Solution:
    melds: list[_Entry]
    wilds_used: int
    skipped: list[int]  # per type, copies left over
    points: int


class _Search:
    """One exact search over a fixed multiset of cards (see the module docstring)."""

    def __init__(self, variant: Variant, contract: Contract, cards: Sequence[Card], use_all: bool):
        v = variant
        self.v = v
        self.cards = cards
        self.contract = contract
        self.use_all = use_all
        self.touch = v.wilds_may_touch
        self.exact = v.exact_melds
        self.min_nat = v.min_naturals
        self.max_set_wilds = _INF if v.max_set_wilds is None else v.max_set_wilds
        self.lo_bound, self.hi_bound = v.run_bounds

        wild_idx = [i for i, card in enumerate(cards) if v.is_wild(card)]
        # The costliest wilds go into melds first (whole-hand mode leaves the cheapest).
        self.wild_order = sorted(wild_idx, key=lambda i: -v.card_value(cards[i]))
        self.W = len(wild_idx)
        values = [v.card_value(cards[i]) for i in self.wild_order]
        # wild_tail[u]: points of the wilds left over when u wilds are used.
        self.wild_tail = [sum(values[u:]) for u in range(self.W + 1)]

        # Natural cards grouped into types: identical for every rule that applies.
        groups: dict[tuple[int, int], list[int]] = {}
        for i, card in enumerate(cards):
            if i in wild_idx:
                continue
            if v.runs_same_suit:
                key = (card.rank, SUITS.index(card.suit))
            else:  # suits never matter; the value still may (red or black Ace)
                key = (card.rank, -v.card_value(card))
            groups.setdefault(key, []).append(i)
        keys = sorted(groups)
        self.n = len(keys)
        self.pools = [groups[k] for k in keys]
        self.counts = [len(p) for p in self.pools]
        self.t_card = [cards[p[0]] for p in self.pools]
        self.t_rank = [k[0] for k in keys]
        self.t_value = [v.card_value(c) for c in self.t_card]
        self.t_group = [k[1] if v.runs_same_suit else 0 for k in keys]
        self.t_positions = [v.run_positions(c) for c in self.t_card]
        self.rank_types: dict[int, list[int]] = {}
        ngroups = 4 if v.runs_same_suit else 1
        self.pos_types: list[list[list[int]]] = [[[] for _ in range(15)] for _ in range(ngroups)]
        for t in range(self.n):
            self.rank_types.setdefault(self.t_rank[t], []).append(t)
            for pos in self.t_positions[t]:
                self.pos_types[self.t_group[t]][pos].append(t)
        self.remaining = sum(self.counts)
        self.skip = [0] * self.n
        self.stack: list[_Entry] = []
        self.best: _Solution | None = None
        self.best_points = _INF
        # Wild-count intervals of the melds made of wilds only (None: not allowed).
        self.all_wild = {"set": self._set_interval(0), "run": self._all_wild_run_interval()}

    # -- wild-count intervals ------------------------------------------------
    def _set_interval(self, naturals: int) -> tuple[int, int] | None:
        if naturals < self.min_nat:
            return None
        if self.exact:
            if naturals > SET_MIN:
                return None
            lo = hi = SET_MIN - naturals
        else:
            lo, hi = max(0, SET_MIN - naturals), self.max_set_wilds
        return (lo, hi) if lo <= hi else None

    def _all_wild_run_interval(self) -> tuple[int, int] | None:
        if self.min_nat > 0 or not self.touch:
            return None
        longest = min(_LONGEST_RUN, self.hi_bound - self.lo_bound + 1)
        return (RUN_MIN, RUN_MIN if self.exact else longest)

    def _run_interval(self, naturals: int, a: int, b: int) -> tuple[int, int] | None:
        """Wild counts a run with ``naturals`` naturals spanning positions a..b can take."""
        if naturals < self.min_nat:
            return None
        span = b - a + 1
        holes = span - naturals
        lo_b = max(self.lo_bound, 2) if b == 14 else self.lo_bound
        hi_b = min(self.hi_bound, 13) if a == 1 else self.hi_bound
        room_low, room_high = a - lo_b, hi_b - b
        if not self.touch:  # a wild at an end touches nothing but a natural; one per end
            room_low, room_high = min(room_low, 1), min(room_high, 1)
        extra = min(room_low + room_high, _LONGEST_RUN - span)
        if self.exact:
            need = RUN_MIN - span
            if need < 0 or need > extra:
                return None
            return (holes + need, holes + need)
        lo = holes + max(0, RUN_MIN - span)
        hi = holes + extra
        return (lo, hi) if lo <= hi else None

    # -- candidate melds ------------------------------------------------------
    def _set_options(self, t: int) -> list[tuple[tuple[tuple[int, int], ...], int, int]]:
        """Sets whose smallest natural is type ``t``: (naturals, lo, hi)."""
        same = [u for u in self.rank_types[self.t_rank[t]] if u > t and self.counts[u] > 0]
        ranges = [range(self.counts[t], 0, -1)] + [range(self.counts[u], -1, -1) for u in same]
        kinds = [t] + same
        out = []
        for ks in itertools.product(*ranges):
            total = sum(ks)
            interval = self._set_interval(total)
            if interval is None:
                continue
            naturals = tuple((0, u) for u, k in zip(kinds, ks) for _ in range(k))
            out.append((naturals, interval[0], interval[1]))
        return out

    def _extend(self, group: int, p: int, step: int, budget: int) -> list[tuple[int, tuple[tuple[int, int], ...], int]]:
        """Naturals on one side of position ``p``: (end position, (position, type) outward, holes)."""
        out: list[tuple[int, tuple[tuple[int, int], ...], int]] = [(p, (), 0)]
        max_gap = budget if self.touch else min(1, budget)
        table = self.pos_types[group]
        counts = self.counts
        lo_b, hi_b = self.lo_bound, self.hi_bound
        todo = [out[0]]
        while todo:
            end, placed, holes = todo.pop()
            for gap in range(0, max_gap + 1):
                if holes + gap > budget:
                    break
                q = end + step * (gap + 1)
                if q < lo_b or q > hi_b or abs(q - p) >= _LONGEST_RUN:
                    break
                for u in table[q]:
                    if counts[u] > 0:
                        item = (q, placed + ((q, u),), holes + gap)
                        out.append(item)
                        todo.append(item)
        return out

    def _run_options(self, t: int, budget: int) -> list[tuple[tuple[tuple[int, int], ...], int, int, int, int]]:
        """Runs whose smallest natural is type ``t``: (naturals low to high, lo, hi, a, b)."""
        out = []
        group = self.t_group[t]
        for p in self.t_positions[t]:
            # Below the smallest natural nothing is left, except under a high Ace.
            lows = self._extend(group, p, -1, budget) if p == 14 else [(p, (), 0)]
            highs = self._extend(group, p, +1, budget)
            opener = ((p, t),)
            for a, low, low_holes in lows:
                low = low[::-1]
                for b, high, high_holes in highs:
                    holes = low_holes + high_holes
                    if holes > budget or b - a + 1 > _LONGEST_RUN:
                        continue
                    interval = self._run_interval(b - a + 1 - holes, a, b)
                    if interval is None or interval[0] > budget:
                        continue
                    out.append((low + opener + high, interval[0], interval[1], a, b))
        # Longer runs first: whole-hand mode finds good bounds sooner.
        out.sort(key=lambda item: -len(item[0]))
        return out

    # -- depth-first search ---------------------------------------------------
    def run(self) -> _Solution | None:
        kinds = self.contract.melds
        self._dfs(0, kinds.count("set"), kinds.count("run"), 0, 0, 0, None)
        return self.best

    def _take(self, naturals: tuple[tuple[int, int], ...], sign: int) -> None:
        for _, u in naturals:
            self.counts[u] -= sign
        self.remaining -= sign * len(naturals)

    def _dfs(
        self,
        start: int,
        sets_left: int,
        runs_left: int,
        sum_lo: int,
        sum_hi: int,
        skipped: int,
        previous: tuple[int, str, Any] | None,
    ) -> bool:
        """Place the smallest unplaced natural; True stops the whole search."""
        counts = self.counts
        t = start
        while t < self.n and counts[t] == 0:
            t += 1
        if t == self.n:
            return self._leaf(sets_left, runs_left, sum_lo, sum_hi, skipped)
        if self.use_all:
            if sets_left == 0 and runs_left == 0:
                return False
            if not (sets_left and runs_left) and self._too_few_melds(t, sets_left, runs_left):
                return False
        else:
            if skipped >= self.best_points:
                return False
            if self.remaining + self.W - sum_lo < SET_MIN * sets_left + RUN_MIN * runs_left:
                return False
        budget = self.W - sum_lo
        if sets_left:
            for naturals, lo, hi in self._set_options(t):
                if lo > budget:
                    continue
                key = (t, "set", naturals)
                # Two melds opened by the same type: take them in one order only.
                if previous is not None and previous[:2] == key[:2] and naturals < previous[2]:
                    continue
                self._take(naturals, 1)
                self.stack.append(("set", naturals, lo, hi, 0, 0))
                stop = self._dfs(t, sets_left - 1, runs_left, sum_lo + lo, sum_hi + hi, skipped, key)
                self.stack.pop()
                self._take(naturals, -1)
                if stop:
                    return True
        if runs_left:
            for naturals, lo, hi, a, b in self._run_options(t, budget):
                key = (t, "run", naturals)
                if previous is not None and previous[:2] == key[:2] and naturals < previous[2]:
                    continue
                self._take(naturals, 1)
                self.stack.append(("run", naturals, lo, hi, a, b))
                stop = self._dfs(t, sets_left, runs_left - 1, sum_lo + lo, sum_hi + hi, skipped, key)
                self.stack.pop()
                self._take(naturals, -1)
                if stop:
                    return True
        if not self.use_all:
            # Leave type t over: every copy of it, so each arrangement is reached once.
            c = counts[t]
            counts[t] = 0
            self.skip[t] = c
            self.remaining -= c
            stop = self._dfs(
                t + 1, sets_left, runs_left, sum_lo, sum_hi, skipped + c * self.t_value[t], None
            )
            self.remaining += c
            self.skip[t] = 0
            counts[t] = c
            return stop
        return False

    def _too_few_melds(self, t: int, sets_left: int, runs_left: int) -> bool:
        """Every card used and one kind of meld left: can that many melds hold the cards?

        Sets only: one set per rank still held. Runs only: a run holds one card per
        rank and (unless suits are free) one suit, so each suit needs as many runs as
        its most repeated card.
        """
        counts = self.counts
        if not runs_left:
            return len({self.t_rank[u] for u in range(t, self.n) if counts[u]}) > sets_left
        deepest: dict[int, int] = {}
        for u in range(t, self.n):
            if counts[u] > deepest.get(self.t_group[u], 0):
                deepest[self.t_group[u]] = counts[u]
        return sum(deepest.values()) > runs_left

    def _leaf(self, sets_left: int, runs_left: int, sum_lo: int, sum_hi: int, skipped: int) -> bool:
        extra: list[_Entry] = []
        for kind, left in (("set", sets_left), ("run", runs_left)):
            if left:
                interval = self.all_wild[kind]
                if interval is None:
                    return False
                lo, hi = interval
                sum_lo += lo * left
                sum_hi += hi * left
                extra += [(kind, (), lo, hi, 0, 0)] * left
        if sum_lo > self.W:
            return False
        if self.use_all:
            if self.W > sum_hi:
                return False
            self.best = _Solution(self.stack + extra, self.W, list(self.skip), 0)
            return True
        used = min(self.W, sum_hi)
        points = skipped + self.wild_tail[used]
        if points < self.best_points:
            self.best_points = points
            self.best = _Solution(self.stack + extra, used, list(self.skip), points)
        return self.best_points == 0

    # -- turning a solution into melds ---------------------------------------------
    def build(self, solution: _Solution) -> tuple[list[Meld], list[Card]]:
        """The melds (in contract order) and the leftover cards (in input order)."""
        cards = self.cards
        pools = [list(p) for p in self.pools]
        wild_pool = list(self.wild_order[: solution.wilds_used])
        leftover = list(self.wild_order[solution.wilds_used:])
        for t, c in enumerate(solution.skipped):
            leftover += pools[t][:c]
            del pools[t][:c]
        # Wild counts: each meld its least, then the rest where there is room.
        spare = solution.wilds_used - sum(entry[2] for entry in solution.melds)
        made: list[Meld] = []
        for kind, naturals, lo, hi, a, b in solution.melds:
            give = min(spare, hi - lo)
            spare -= give
            wilds = [cards[wild_pool.pop(0)] for _ in range(lo + give)]
            natural_cards = [(pos, cards[pools[u].pop(0)]) for pos, u in naturals]
            if kind == "set":
                made.append(self._build_set([c for _, c in natural_cards], wilds))
            else:
                made.append(self._build_run(natural_cards, wilds, a, b))
        assert not wild_pool and spare == 0
        order = {kind: i for i, kind in reversed(list(enumerate(self.contract.melds)))}
        made.sort(key=lambda m: (order[m.kind], m.represented[0].sort_key))
        return made, [cards[i] for i in sorted(leftover)]

    def _build_set(self, naturals: list[Card], wilds: list[Card]) -> Meld:
        naturals = sorted(naturals, key=lambda c: SUITS.index(c.suit))
        # A set of wilds only: Aces where every one is an Ace (the red Aces of ons laid as a
        # set of Aces, not as Kings a King could later claim), else the dearest rank.
        rank = naturals[0].rank if naturals else 1 if all(w.rank == 1 for w in wilds) else _ALL_WILD_SET_RANK
        present = {c.suit for c in naturals}
        # Where red Aces are wild, a wild in a set of Aces stands for a black one:
        # "JK = AH" would name a card that is itself wild.
        natural_suits = [s for s in SUITS if not (rank == 1 and self.v.is_wild(Card(1, s)))]
        # A wild stands for a suit the set lacks, where there is one (two decks: any suit).
        suits = [s for s in natural_suits if s not in present] + natural_suits * len(wilds)
        stands = [Card(rank, suits[i]) for i in range(len(wilds))]
        return Meld("set", tuple(naturals) + tuple(wilds), (None,) * len(naturals) + tuple(stands))

    def _build_run(self, naturals: list[tuple[int, Card]], wilds: list[Card], a: int, b: int) -> Meld:
        if not naturals:  # wilds only: shown as the lowest run the variant allows
            a = self.lo_bound
            b = a + len(wilds) - 1
            slots: dict[int, Card] = {}
            suit_at: dict[int, str | None] = {pos: SUITS[0] for pos in range(a, b + 1)}
        else:
            slots = dict(naturals)
            span = b - a + 1
            holes = span - len(naturals)
            extra = len(wilds) - holes
            lo_b = max(self.lo_bound, 2) if b == 14 else self.lo_bound
            hi_b = min(self.hi_bound, 13) if a == 1 else self.hi_bound
            cap_high, cap_low = hi_b - b, a - lo_b
            if not self.touch:
                cap_high, cap_low = min(cap_high, 1), min(cap_low, 1)
            high = min(extra, cap_high)
            a, b = a - (extra - high), b + high
            suit_at = {}
            suit = naturals[0][1].suit
            for pos in range(a, b + 1):
                if pos in slots:
                    suit = slots[pos].suit
                suit_at[pos] = suit
            # Any-suit runs: a wild below the first natural takes that natural's suit.
        cards: list[Card] = []
        stands: list[Card | None] = []
        wild_iter = iter(wilds)
        for pos in range(a, b + 1):
            if pos in slots:
                cards.append(slots[pos])
                stands.append(None)
            else:
                cards.append(next(wild_iter))
                stands.append(Card(1 if pos == 14 else pos, suit_at[pos]))
        return Meld("run", tuple(cards), tuple(stands))


def arrange(
    variant: Variant | str,
    contract: Contract,
    cards: Iterable[Card | str],
    *,
    use_all: bool,
) -> tuple[list[Meld], list[Card], int] | None:
    """Search ``cards`` for ``contract``: (melds, leftover, leftover points) or ``None``.

    With ``use_all`` every card must be in a meld; otherwise the arrangement leaving
    the fewest points is returned.
    """
    v = get_variant(variant)
    cards = parse_cards(cards)
    if use_all and (
        len(cards) < contract.min_cards or (v.exact_melds and len(cards) != contract.min_cards)
    ):
        return None  # too few cards (or, with exact melds, not exactly enough)
    search = _Search(v, contract, cards, use_all)
    solution = search.run()
    if solution is None:
        return None
    melds, leftover = search.build(solution)
    return melds, leftover, sum(v.card_value(c) for c in leftover)


# ---------------------------------------------------------------------------
# Explanations
# ---------------------------------------------------------------------------
# One rule relaxed at a time: if the cards become valid, that rule is the near miss.
_RELAXATIONS: tuple[dict[str, Any], ...] = (
    {"min_naturals": 0, "max_set_wilds": None, "wilds_may_touch": True},
    {"runs_same_suit": False},
    {"ace_low": True, "ace_high": True},
    {"exact_melds": False},
    # Red Aces played as wild where they are plain Aces (llenroc), the commonest slip
    # between families' rules: the meld then says "AH is not wild in llenroc".
    {"red_aces_wild": True},
)
_EVERY_RELAXATION: dict[str, Any] = {key: value for change in _RELAXATIONS for key, value in change.items()}
# Above this many cards, the search for the one faulty meld is not tried (2**n subsets).
_FAULT_SEARCH_MAX_CARDS = 16


# A near miss, ranked: (rules broken, cards laid between the faulty meld's own), the rules.
_Fault = tuple[tuple[int, int, int], list[str]]


def _fault(meld: Meld, problems: list[str], cards: Sequence[Card]) -> _Fault:
    """Rank a near miss: fewest rules broken, then the faulty meld laid most together, then
    (a run) the fewest cards off its most common suit.

    Players lay a meld's cards side by side, so a meld whose cards were given apart
    (one borrowed from another meld) is the less likely reading of what they meant; and
    of two cards laid alike, the run's own suit's is the one they put in the run (7D in
    3D 4D 5H 6D 7D, not the set's 7C).
    """
    free = list(range(len(cards)))
    places = []
    for card in meld.cards:
        place = next(i for i in free if cards[i] == card)
        free.remove(place)
        places.append(place)
    scatter = max(places) - min(places) + 1 - len(places)
    suits = [card.suit for card in meld.cards if not card.is_joker]
    off_suit = len(suits) - max(map(suits.count, set(suits)), default=0) if meld.kind == "run" else 0
    return (len(problems), scatter, off_suit), problems


def _rule_and_cards(problem: str) -> tuple[str, str]:
    """A problem split into its rule and the cards it quotes (after the last ": ")."""
    rule, _, shown = problem.rpartition(": ")
    return (rule, shown) if rule else (problem, "")


def _one_meld_at_fault(melds: Sequence[Meld], variant: Variant, cards: Sequence[Card]) -> _Fault | None:
    """The near miss when one of ``melds`` breaks the variant's rules, or several break
    the very same rules (two 4-card sets where sets are laid with exactly 3); else ``None``.
    """
    broken = [(meld, problems) for meld in melds if (problems := meld_problems(meld, variant))]
    if len(broken) == 1:
        return _fault(*broken[0], cards)
    # Melds breaking different rules are no near miss, and "no set can be made" is as true.
    split = [[_rule_and_cards(problem) for problem in problems] for _, problems in broken]
    if not broken or len({tuple(rule for rule, _ in rules) for rules in split}) != 1:
        return None
    faults = [_fault(meld, problems, cards) for meld, problems in broken]
    # Ranked after every one-meld miss: the rules broken are counted once per meld.
    rank = (sum(f[0][0] for f in faults), sum(f[0][1] for f in faults), sum(f[0][2] for f in faults))
    # Each rule once, quoting every meld that breaks it.
    return rank, [f"{rule}: {' and '.join(rules[i][1] for rules in split)}" for i, (rule, _) in enumerate(split[0])]


def _relaxed_variants(v: Variant) -> list[Variant]:
    """``v`` with one rule relaxed at a time, then with every rule relaxed; each once."""
    out: list[Variant] = []
    for change in (*_RELAXATIONS, _EVERY_RELAXATION):
        relaxed = replace(v, **change)
        if relaxed != v and relaxed not in out:
            out.append(relaxed)
    return out


def _could_be_one_meld(kind: MeldKind, cards: Sequence[Card], v: Variant) -> bool:
    """A cheap test before the search: the naturals of a set share a rank, a run's differ."""
    # A red Ace may be played as wild where it is not (a near miss the search names).
    ranks = [card.rank for card in cards if not (v.is_wild(card) or card.is_red_ace)]
    return len(set(ranks)) <= 1 if kind == "set" else len(set(ranks)) == len(ranks)


# One rule broken by a meld laid together: none is nearer. (Cards off a run's suit only
# break ties: a run of one off-suit card is the commonest near miss, and searching on for
# one of none would cost it the full search, ten times the time.)
_NEAREST: tuple[int, int] = (1, 0)


def _faulty_meld(v: Variant, contract: Contract, cards: Sequence[Card],
                 relaxed_variants: Sequence[Variant]) -> _Fault | None:
    """Search every split of ``cards`` into one meld breaking rules and the rest valid.

    The arrangement a relaxed search returns may put two melds at fault where another
    has only one, or borrow a card from another meld; this looks at each group of
    cards that could be the one faulty meld and keeps the nearest miss. ``relaxed_variants``
    are :func:`_relaxed_variants` of ``v``, made once by the caller.
    """
    best: _Fault | None = None
    seen: set[tuple[MeldKind, tuple[str, ...]]] = set()
    for kind in dict.fromkeys(contract.melds):
        rest_contract = _missing(contract, Contract((kind,)))
        least = SET_MIN if kind == "set" else RUN_MIN
        for size in range(least, len(cards) - rest_contract.min_cards + 1):
            for picked in itertools.combinations(range(len(cards)), size):
                group = [cards[i] for i in picked]
                key = (kind, tuple(sorted(str(card) for card in group)))
                if key in seen or not _could_be_one_meld(kind, group, v):
                    continue
                seen.add(key)
                others = [card for i, card in enumerate(cards) if i not in picked]
                if arrange(v, rest_contract, others, use_all=True) is None:
                    continue
                for relaxed in relaxed_variants:
                    found = arrange(relaxed, Contract((kind,)), group, use_all=True)
                    problems = found and meld_problems(found[0][0], v)
                    if found and problems:
                        fault = _fault(found[0][0], problems, cards)
                        if best is None or fault[0] < best[0]:
                            best = fault
                if best is not None and best[0][:2] == _NEAREST:
                    return best
    return best


def _near_miss(v: Variant, contract: Contract, cards: Sequence[Card]) -> str | None:
    """One meld breaking the variant's own rules (the nearest such miss), in words; else ``None``."""
    # Relaxing never loses an arrangement, so when relaxing everything finds none,
    # no single rule is to blame.
    if arrange(replace(v, **_EVERY_RELAXATION), contract, cards, use_all=True) is None:
        return None
    best: _Fault | None = None
    relaxed_variants = _relaxed_variants(v)
    for relaxed in relaxed_variants:
        found = arrange(relaxed, contract, cards, use_all=True)
        fault = found and _one_meld_at_fault(found[0], v, cards)
        if fault and (best is None or fault[0] < best[0]):
            best = fault
    if (best is None or best[0][:2] > _NEAREST) and len(cards) <= _FAULT_SEARCH_MAX_CARDS:
        searched = _faulty_meld(v, contract, cards, relaxed_variants)
        if searched is not None and (best is None or searched[0] < best[0]):
            best = searched
    if best is None:
        return None
    split = [_rule_and_cards(problem) for problem in best[1]]
    if len(split) > 1 and len({shown for _, shown in split}) == 1 and split[0][1]:
        # Two rules one meld breaks: the meld quoted once, after both.
        rules = [rule for rule, _ in split]
        return f"{', and '.join([rules[0], *(_sentence_inside(rule) for rule in rules[1:])])}: {split[0][1]}."
    return " ".join(problem + "." for problem in best[1])


def _melds_text(melds: Sequence[Meld]) -> str:
    return ", ".join(str(m) for m in melds)


def _sub_contracts(contract: Contract, size: int) -> list[Contract]:
    seen: dict[tuple[MeldKind, ...], None] = {}
    for picked in itertools.combinations(contract.melds, size):
        seen.setdefault(picked)
    return [Contract(kinds) for kinds in seen]


def _missing(contract: Contract, found: Contract) -> Contract:
    rest = list(contract.melds)
    for kind in found.melds:
        rest.remove(kind)
    return Contract(tuple(rest))


def explain(variant: Variant | str, hand: int, cards: Iterable[Card | str], *, use_all: bool = True) -> str:
    """Why ``cards`` do not make hand ``hand``'s contract, in a player's words."""
    v = get_variant(variant)
    contract = v.contract(hand)
    cards = parse_cards(cards)
    head = f"Hand {hand} needs {contract}"
    if not cards:
        return f"{head}; no cards were given."
    full = arrange(v, contract, cards, use_all=False) if use_all else None
    if use_all:
        near_miss = _near_miss(v, contract, cards)
        if near_miss:
            # The contract may be there too, a card or two over: say so, or a card laid by
            # mistake beside a run reads as the run's fault ("a run is all one suit: 2D 3C 4C
            # 5C 6C" for an extra 2D) with nothing to tell the player the rest is right.
            without = (f" Without {format_cards(full[1])}, the cards make it: {_melds_text(full[0])}."
                       if full is not None else "")
            all_wild = _all_wild_hint(cards, v, near_miss) if full is None else ""
            return f"{head}, but {_sentence_inside(near_miss)}{without}{all_wild}"
    if full is not None:
        melds, leftover, _ = full
        # Cards left over that make a meld themselves were laid as one: say it so.
        extra = next((kind for kind in ("set", "run")
                      if arrange(v, Contract((kind,)), leftover, use_all=True) is not None), None)
        if extra is not None:
            return (
                f"{head}; found it ({_melds_text(melds)}), but {format_cards(leftover)} is an extra "
                f"{extra}: only the contract's melds may be laid down when going down."
            )
        return (
            f"{head}; found it: {_melds_text(melds)}, but {format_cards(leftover)} "
            f"{'is' if len(leftover) == 1 else 'are'} left over: every card laid down must "
            f"belong to the contract's melds (no extra meld)."
        )
    size_note = ""
    if len(cards) < contract.min_cards:
        size_note = (f" ({len(cards)} card{'' if len(cards) == 1 else 's'}; "
                     f"the contract needs at least {contract.min_cards})")
    for size in range(len(contract.melds) - 1, 0, -1):
        best: tuple[Contract, list[Meld], list[Card], int] | None = None
        for sub in _sub_contracts(contract, size):
            found = arrange(v, sub, cards, use_all=False)
            if found is not None and (best is None or found[2] < best[3]):
                best = (sub, found[0], found[1], found[2])
        if best is not None:
            sub, melds, leftover, _ = best
            rest = f" Left over: {format_cards(leftover)}." if leftover else ""
            return (
                f"{head}{size_note}; found {sub}: {_melds_text(melds)}; missing "
                f"{_missing(contract, sub)}.{rest}{_wrap_hint(cards, contract, v)}"
                f"{_gap_hint(cards, contract, _missing(contract, sub), v, size)}"
                f"{_pairs_hint(leftover, _missing(contract, sub), v)}"
            )
    kinds = " or ".join(dict.fromkeys(contract.melds))
    return (f"{head}{size_note}; no {kinds} can be made from {format_cards(cards)}."
            f"{_wrap_hint(cards, contract, v)}{_gap_hint(cards, contract, contract, v, 0)}{_pairs_hint(cards, contract, v)}")


def _sentence_inside(text: str) -> str:
    """``text`` to follow a comma: its first word lower-cased unless it is a card code ("AH")."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if (first[1:].islower() and first != "Aces") or first == "A" else text


_KING, _ACE, _TWO = 13, 1, 2


def _run_groups(cards: Sequence[Card], variant: Variant) -> list[list[Card]]:
    """The cards a run could be laid from, as a player sees them: every card but Jokers (a
    red Ace laid in a run is meant as an Ace, wild or not), by suit where runs keep one."""
    ranked = [c for c in cards if not c.is_joker]
    return [[c for c in ranked if c.suit == suit] for suit in "CDHS"] if variant.runs_same_suit else [ranked]


def _wrap_hint(cards: Sequence[Card], contract: Contract, variant: Variant) -> str:
    """A sentence for a run that would need to wrap round the Ace (K-A-2), a common
    mistake no variant allows; "" when the cards hold none."""
    if "run" not in contract.melds:
        return ""
    for group in _run_groups(cards, variant):
        if {_KING, _ACE, _TWO} <= {c.rank for c in group}:
            return " Runs never wrap round the Ace: K-A-2 is not a run."
    return ""


def _makes_more(v: Variant, contract: Contract, cards: Sequence[Card], made: int) -> bool:
    """Whether more than ``made`` of ``contract``'s melds can be made from ``cards``."""
    return any(arrange(v, sub, cards, use_all=False) is not None
               for size in range(len(contract.melds), made, -1) for sub in _sub_contracts(contract, size))


def _gap_hint(cards: Sequence[Card], contract: Contract, missing: Contract, variant: Variant, made: int,
              *, tried: int = 3) -> str:
    """A sentence for a run laid with one card missing inside it ("3D 4D 6D 7D has a gap: it
    needs 5D"), the card a player most needs named; "" when the cards hold no such run.

    Looked for among the cards of one suit (any suits where runs mix them): a stretch of
    at least a run's length with exactly one rank missing, at least ``RUN_MIN - 1`` of its
    ranks there, the Ace at the end the variant plays it; and said only where that card
    would let more than the ``made`` melds of ``contract`` be made (a wild may fill the gap
    already, or the stretch be a run found with a card over), trying the first ``tried``.
    """
    if "run" not in missing.melds:
        return ""
    for group in _run_groups(cards, variant):
        by_rank: dict[int, Card] = {}
        for card in group:
            by_rank.setdefault(card.rank, card)
            if card.rank == _ACE and variant.ace_high:
                by_rank.setdefault(_KING + 1, card)
        if _ACE in by_rank and not variant.ace_low:
            del by_rank[_ACE]
        ranks = sorted(by_rank)
        for first in range(len(ranks)):
            for last in range(len(ranks) - 1, first, -1):
                span = ranks[last] - ranks[first] + 1
                present = last - first + 1
                if not (span >= RUN_MIN and span - present == 1 and present >= RUN_MIN - 1):
                    continue
                if tried == 0:
                    return ""
                tried -= 1
                absent = next(r for r in range(ranks[first], ranks[last]) if r not in by_rank)
                laid = [by_rank[r] for r in ranks[first:last + 1]]
                rank = "A" if absent == _KING + 1 else RANKS[absent - 1]
                suit = laid[0].suit
                assert suit is not None   # no Joker in a run group
                gap = Card.from_code(rank + suit)
                if not _makes_more(variant, contract, [*cards, gap], made):
                    continue
                wild = " or a wild card in its place" if variant.jokers_wild or variant.red_aces_wild else ""
                needed = gap.code if variant.runs_same_suit else f"a {rank}"
                return f" {format_cards(laid)} has a gap: it needs {needed}{wild} to be a run."
    return ""


def _pairs_hint(cards: Sequence[Card], contract: Contract, variant: Variant, *, named: int = 3) -> str:
    """A sentence for the pairs among ``cards`` (two natural cards of a rank, a third
    missing) where the contract still needs a set: "7H 7S and 9D 9S are pairs: a set needs
    a third card or a wild card." (at most ``named`` of them); "" where there is none."""
    if "set" not in contract.melds:
        return ""
    naturals = [c for c in cards if not variant.is_wild(c)]
    by_rank: dict[int, list[Card]] = {}
    for card in naturals:
        by_rank.setdefault(card.rank, []).append(card)
    pairs = [group for group in by_rank.values() if len(group) == SET_MIN - 1][:named]
    if not pairs:
        return ""
    wild = " or a wild card" if variant.jokers_wild or variant.red_aces_wild else ""
    said = " and ".join(format_cards(pair) for pair in pairs)
    return f" {said} {'is a pair' if len(pairs) == 1 else 'are pairs'}: a set needs a third card{wild}."


def _all_wild_hint(cards: Sequence[Card], variant: Variant, said: str) -> str:
    """A sentence for wild cards laid side by side as a meld of their own (``SET_MIN`` or
    more in a row, as players lay a meld's cards) where the variant wants natural cards in
    every meld (once, onze), unless ``said`` (the reason given) already speaks of them."""
    if variant.min_naturals < 1 or "natural" in said:
        return ""
    row: list[Card] = []
    for card in [*cards, None]:
        if card is not None and variant.is_wild(card):
            row.append(card)
            continue
        if len(row) >= SET_MIN:
            need = "a natural card" if variant.min_naturals == 1 else f"at least {variant.min_naturals} natural cards"
            return (f" {format_cards(row)}, laid together, would be a meld of only wild cards: not allowed in "
                    f"{variant.name}, where each needs {need}.")
        row = []
    return ""


# ---------------------------------------------------------------------------
# The two public questions
# ---------------------------------------------------------------------------
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


def _melds_as_laid(v: Variant, contract: Contract, laid: Sequence[Card]) -> list[Meld] | None:
    """The contract's melds as the cards were laid, meld after meld: ``laid`` cut into
    consecutive groups that are each a valid meld of the contract, in the contract's order;
    None where no cut is (cards typed in no order, or read from a photo of a heap).

    The search groups cards its own way: a 7S laid with the 7s may be shown at the end of the
    run of spades, and a Joker laid with the set standing in the run; a go-down typed or laid
    one meld after the other is shown as the player made it. The cuts are tried group by
    group from the first card, each group searched once and only after the groups before it
    are melds (a group too short for its kind, or leaving too few cards for the melds after
    it, is not tried); a cut whose runs were all laid in order ends the search.
    """
    least = {"set": SET_MIN, "run": RUN_MIN}
    found: dict[tuple[MeldKind, int, int], Meld | None] = {}

    def meld(kind: MeldKind, start: int, end: int) -> Meld | None:
        """The group ``laid[start:end]`` as one meld of ``kind``, or None."""
        if (kind, start, end) not in found:
            made = arrange(v, Contract((kind,)), laid[start:end], use_all=True)
            found[kind, start, end] = made[0][0] if made is not None else None
        return found[kind, start, end]

    def disorder(made: Meld, start: int, end: int) -> int:
        """Cards of a run not laid in its order (either way up); a set's order is free."""
        if made.kind == "set":
            return 0
        group = laid[start:end]
        return min(sum(a != b for a, b in zip(group, made.cards)),
                   sum(a != b for a, b in zip(group, reversed(made.cards))))

    best: tuple[int, list[Meld]] | None = None

    def cut(start: int, kinds: tuple[MeldKind, ...], made: list[Meld], cost: int) -> bool:
        """Cut ``laid[start:]`` into ``kinds``; True once a cut of cost 0 is found."""
        nonlocal best
        if best is not None and cost >= best[0]:
            return False   # no better than a cut found already
        if not kinds:
            if best is None or cost < best[0]:
                best = (cost, made)
            return cost == 0
        for i, kind in enumerate(kinds):
            if kind in kinds[:i]:
                continue   # two sets left: the first is the same choice as the second
            rest = kinds[:i] + kinds[i + 1:]
            after = sum(least[k] for k in rest)
            ends = [len(laid)] if not rest else range(start + least[kind], len(laid) - after + 1)
            for end in ends:
                if v.exact_melds and end - start != least[kind]:
                    continue
                group = meld(kind, start, end)
                if group is not None and cut(end, rest, [*made, group], cost + disorder(group, start, end)):
                    return True
        return False

    cut(0, contract.melds, [], 0)
    if best is None:
        return None
    # Each kind's melds in the order laid, the kinds in the contract's order.
    return [m for kind in dict.fromkeys(contract.melds) for m in best[1] if m.kind == kind]


def _wilds_as_laid(melds: Sequence[Meld], laid: Sequence[Card], *, most: int = 6) -> list[Meld]:
    """``melds`` with their wild cards put back in the melds the player laid them beside.

    Any wild card may fill any wild place (the rules count wilds, not which they are), so the
    search may show a Joker in the set and a red Ace in the run where the player laid them the
    other way round; and which is where matters at the table (a Joker in a run may be swapped
    for the card it stands for, in scorecard). Each arrangement of the wild cards over the wild
    places is scored by how far each lies, as laid, from its meld's natural cards; the nearest
    is kept (the search's own on a tie). At most ``most`` wild places are tried (720 orders).
    """
    places = [(m, i) for m, meld in enumerate(melds) for i in meld.wilds]
    wilds = [melds[m].cards[i] for m, i in places]
    if len(set(wilds)) < 2 or len(places) > most:
        return list(melds)
    where: dict[Card, list[int]] = {}
    for position, card in enumerate(laid):
        where.setdefault(card, []).append(position)

    def spot(card: Card, used: dict[Card, int]) -> int:
        """Where the next of ``card`` not ``used`` yet was laid (two decks: two of a card)."""
        n = used.get(card, 0)
        used[card] = n + 1
        return where[card][min(n, len(where[card]) - 1)]

    spans = []
    for meld in melds:
        # The laid places of its natural cards, in meld order.
        taken: dict[Card, int] = {}
        spots = [spot(card, taken) for card, stands in zip(meld.cards, meld.stands_for)
                 if stands is None and card in where]
        spans.append((min(spots), max(spots)) if spots else None)

    def cost(order: tuple[Card, ...]) -> int:
        used: dict[Card, int] = {}
        total = 0
        for (m, _), card in zip(places, order):
            at, span = spot(card, used), spans[m]
            total += 0 if span is None else max(span[0] - at, 0, at - span[1])
        return total

    # The first order is the search's own: it is kept on a tie.
    best = min(dict.fromkeys(itertools.permutations(wilds)), key=cost)
    if best == tuple(wilds):
        return list(melds)
    cards = [list(meld.cards) for meld in melds]
    for (m, i), card in zip(places, best):
        cards[m][i] = card
    return [replace(meld, cards=tuple(cards[m])) for m, meld in enumerate(melds)]


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
