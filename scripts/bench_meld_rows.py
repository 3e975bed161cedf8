#!/usr/bin/env python
"""How a go-down photographed as rows of melds is listed: row by row, or left to right.

A go-down lies on the table as rows, one meld a row, each row of overlapping cards laid
left to right and each row laid below (and partly over) the one before. The go-down page
and ``check-down --photo`` list a photo's cards row by row, each row left to right
(:func:`onze_vision.detections.reading_order`), so that each meld's cards come together
and the melds are shown as laid (:func:`onze_vision.melds.check_down`). This draws such
go-downs of the held-out designs through the generator's camera (tilt, light, blur, noise),
reads them with the shipped models, and counts the photos whose cards, as listed, come
row after row (every row's cards together, the rows in order; cards not read are left out
of the count, cards read twice or not matched to one card spoil it), for the reading order
and for plain left to right. A measurement, not a test.

Usage::

    python scripts/bench_meld_rows.py                 # 60 photos, 1280x960
    python scripts/bench_meld_rows.py --scenes 200 --seed 3
"""

from __future__ import annotations

import argparse
import math
import sys

import cv2
import numpy as np

from onze_vision.cards import RANKS, SUITS
from onze_vision.detections import reading_order
from onze_vision.detector import CardDetector
from onze_vision.synth.art import load_decks
from onze_vision.synth.backgrounds import BackgroundBank
from onze_vision.synth.scenes import Scene, compose_scene, place_card

SIZE = (1280, 960)


def go_down(rng: np.random.Generator, decks: list, bank: BackgroundBank) -> tuple[Scene, list[int]]:
    """One go-down of 2-3 rows of 3-5 cards: the scene, and each placed card's row."""
    deck = decks[int(rng.integers(len(decks)))]
    rows = int(rng.integers(2, 4))
    card_h = rng.uniform(0.22, 0.34) * SIZE[1]
    card_w = card_h * 0.7
    step_x, step_y = card_w * rng.uniform(0.2, 0.4), card_h * rng.uniform(0.45, 1.1)
    turn = rng.normal(0, 6)   # a photo taken from the player's seat: rows run roughly across
    a = math.radians(turn)
    placed, row_of = [], []
    widest = 5
    origin = np.array([SIZE[0] / 2 - (widest - 1) * step_x / 2, SIZE[1] / 2 - (rows - 1) * step_y / 2])
    for row in range(rows):
        for col in range(int(rng.integers(3, widest + 1))):
            code = f"{RANKS[int(rng.integers(len(RANKS)))]}{SUITS[int(rng.integers(len(SUITS)))]}"
            if code not in deck.cards:
                code = next(iter(deck.cards))
            dx, dy = col * step_x + rng.normal(0, card_w * 0.03), row * step_y + rng.normal(0, card_h * 0.03)
            centre = origin + [dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)]
            placed.append(place_card(deck, code, (float(centre[0]), float(centre[1])), turn + rng.normal(0, 2), card_h))
            row_of.append(row)
    return compose_scene(rng, placed, bank, SIZE, layout="melds"), row_of


def rows_in_order(rows: list[int]) -> bool:
    """True where every row's cards come together and the rows in order."""
    return all(a <= b for a, b in zip(rows, rows[1:]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", default=None, help="folder of the ONNX models (default: the shipped ones)")
    args = parser.parse_args(argv)
    decks = load_decks(split="val")
    bank = BackgroundBank()
    detector = CardDetector(args.models) if args.models else CardDetector()
    counted = by_rows = by_x = spoilt = 0
    for i in range(args.scenes):
        rng = np.random.default_rng([args.seed, i])
        scene, row_of = go_down(rng, decks, bank)
        ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        reading = detector.detect_cards(jpeg.tobytes())
        # Each card read, matched to the placed card whose top-left index its box starts at.
        tops = {label.card_id: label.box for label in scene.labels if label.corner == "tl"}
        matched = []
        for card in reading.cards:
            x1, y1 = card.box[:2]
            near = min(tops, key=lambda c: math.hypot(tops[c][0] - x1, tops[c][1] - y1), default=None)
            far = near is None or math.hypot(tops[near][0] - x1, tops[near][1] - y1) > (tops[near][3] - tops[near][1])
            matched.append(None if far else near)
        if not matched or None in matched or len(set(matched)) < len(matched):
            spoilt += 1
            continue
        counted += 1
        boxes = [card.box for card in reading.cards]
        by_rows += rows_in_order([row_of[matched[j]] for j in reading_order(boxes)])
        by_x += rows_in_order([row_of[matched[j]] for j in sorted(range(len(boxes)), key=lambda j: boxes[j][:2])])
    print(f"{args.scenes} go-down photos ({SIZE[0]}x{SIZE[1]}, held-out designs, 2-3 rows of 3-5 cards); "
          f"{counted} read with every card matched to one placed card ({spoilt} not)")
    if counted:
        print(f"  listed row after row: reading order {by_rows / counted:.3f}, left to right {by_x / counted:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
