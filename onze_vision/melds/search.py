"""The exact search behind every go-down question (:func:`arrange`).

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
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from onze_vision.cards import SUITS, Card, parse_cards
from onze_vision.variants import RUN_MIN, SET_MIN, Contract, Variant, get_variant

from .meld import _LONGEST_RUN, Meld

_INF = 1 << 20
_ALL_WILD_SET_RANK = 13  # an all-wild set is shown as Kings (any rank would do)


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
