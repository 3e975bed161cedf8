"""A go-down shown as the player laid it: the melds cut from the cards in the order they were
laid (:func:`_melds_as_laid`), and each wild card back beside the cards it was laid with
(:func:`_wilds_as_laid`). The search's own grouping is kept where the cards were laid in no
order.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

from onze_vision.cards import Card
from onze_vision.variants import RUN_MIN, SET_MIN, Contract, MeldKind, Variant

from .meld import Meld
from .search import arrange


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
