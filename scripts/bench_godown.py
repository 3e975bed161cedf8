#!/usr/bin/env python
"""Time go-down validation: worst case and median per variant (not a test).

For each variant and each of several hand generators it times ``check_down`` (every
card laid down, with the reason when not valid) and ``find_contract`` (whole-hand
mode) on thousands of random hands, and prints the median, the 99th percentile and
the worst time in milliseconds.

Generators:
    wild4-h7    13 cards with 4 wild cards, hand 7 (the stated worst case)
    dense-h7    13 cards: 4 wilds and 9 naturals of one suit in a narrow window
                (the most candidate runs per card)
    made-h7     three real runs from the shoe, some cards swapped for wilds, shuffled
    any-hand    random hand 1-7, the cards dealt for it plus the one drawn

Usage::

    python scripts/bench_godown.py            # 2000 hands per generator and variant
    python scripts/bench_godown.py -n 500 --variant once
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

from onze_vision.cards import JOKER, RANKS, SUITS, Card
from onze_vision.melds import check_down, find_contract
from onze_vision.variants import VARIANTS, Variant

Hand = tuple[int, list[Card]]


def shoe(variant: Variant) -> list[Card]:
    """Every card of the largest game: max decks, with their Jokers."""
    decks = variant.max_decks
    cards = [Card(rank, suit) for suit in SUITS for rank in range(1, 14)] * decks
    return cards + [JOKER] * (decks * variant.jokers_per_deck)


def wild_cards(variant: Variant) -> list[Card]:
    return [card for card in shoe(variant) if variant.is_wild(card)]


def natural_cards(variant: Variant) -> list[Card]:
    return [card for card in shoe(variant) if not variant.is_wild(card)]


def wild4_h7(variant: Variant, rng: random.Random) -> Hand:
    return 7, rng.sample(wild_cards(variant), 4) + rng.sample(natural_cards(variant), 9)


def dense_h7(variant: Variant, rng: random.Random) -> Hand:
    suit = rng.choice(SUITS)
    low = rng.randint(2, 4)
    window = [c for c in natural_cards(variant) if c.suit == suit and low <= c.rank < low + 10]
    return 7, rng.sample(wild_cards(variant), 4) + rng.sample(window, 9)


def made_h7(variant: Variant, rng: random.Random) -> Hand:
    cards: list[Card] = []
    for _ in range(3):
        start = rng.randint(2, 9)
        length = rng.choice((4, 4, 4, 5))
        suit = rng.choice(SUITS)
        cards += [Card(start + i, suit) for i in range(length) if start + i <= 13]
    cards = cards[:13]
    wilds = wild_cards(variant)
    for _ in range(rng.randint(0, 3)):
        cards[rng.randrange(len(cards))] = rng.choice(wilds)
    rng.shuffle(cards)
    return 7, cards


def any_hand(variant: Variant, rng: random.Random) -> Hand:
    hand = rng.randint(1, 7)
    return hand, rng.sample(shoe(variant), variant.cards_dealt(hand) + 1)


GENERATORS: dict[str, Callable[[Variant, random.Random], Hand]] = {
    "wild4-h7": wild4_h7,
    "dense-h7": dense_h7,
    "made-h7": made_h7,
    "any-hand": any_hand,
}


def time_ms(
    function: Callable[..., object], variant: Variant, hand: int, cards: list[Card], clock: Callable[[], float]
) -> tuple[float, bool]:
    start = clock()
    result = function(variant, hand, cards, decks=8)  # the shoe check is not the point here
    return (clock() - start) * 1000, bool(result.valid)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--hands", type=int, default=2000, help="hands per generator and variant")
    parser.add_argument("--variant", action="append", choices=sorted(VARIANTS), help="only these variants")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time with this process's CPU clock instead of the wall clock "
        "(steadier on a machine busy with other work)",
    )
    args = parser.parse_args(argv)
    clock = time.process_time if args.cpu else time.perf_counter
    print(f"clock: {'process CPU time' if args.cpu else 'wall time'}; {args.hands} hands per row")
    names = args.variant or list(VARIANTS)
    print(f"{'variant':10} {'hands':9} {'mode':13} {'valid':>6} {'median':>8} {'p99':>8} {'worst':>8}  (ms)")
    worst_overall = 0.0
    for name in names:
        variant = VARIANTS[name]
        for label, generate in GENERATORS.items():
            rng = random.Random(f"{args.seed}-{name}-{label}")
            hands = [generate(variant, rng) for _ in range(args.hands)]
            for mode, function in (("check_down", check_down), ("find_contract", find_contract)):
                times, valid = [], 0
                for hand, cards in hands:
                    ms, ok = time_ms(function, variant, hand, cards, clock)
                    times.append(ms)
                    valid += ok
                times.sort()
                p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
                worst_overall = max(worst_overall, times[-1])
                print(
                    f"{name:10} {label:9} {mode:13} {valid:6d} {statistics.median(times):8.3f} "
                    f"{p99:8.3f} {times[-1]:8.3f}"
                )
            sys.stdout.flush()
    print(f"worst of all: {worst_overall:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
