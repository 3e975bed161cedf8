"""Why cards do not make a contract, in a player's words (:func:`explain`).

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
from dataclasses import replace
from typing import Any

from onze_vision.cards import RANKS, Card, format_cards, parse_cards
from onze_vision.variants import RUN_MIN, SET_MIN, Contract, MeldKind, Variant, get_variant

from .meld import Meld, meld_problems
from .search import arrange

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
