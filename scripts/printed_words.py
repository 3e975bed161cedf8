"""Does print on the table turn into cards? Read generated scenes with print and their twins without.

``onze-vision make-dataset --printed 1`` draws print (score sheets, labels, book covers) on
the table under the cards from a random state of its own, so the same seed without
``--printed`` gives the same scenes without the print. This reads both sets with the
shipped runtime (or ``--models DIR``) and counts, per scene:

- cards read on no labelled index ("invented"), and how many of those lie on a word of print;
- card recall (each true card's code read in the scene, counted as multisets) and scenes read
  exactly, so a classifier that rejects print is seen to keep the cards.

    onze-vision make-dataset --out datasets/printed-val960 --train 0 --val 200 --seed 43 \\
        --size 960 --index-px 33 180 --printed 1
    onze-vision make-dataset --out datasets/unprinted-val960 --train 0 --val 200 --seed 43 \\
        --size 960 --index-px 33 180
    python scripts/printed_words.py datasets/printed-val960 datasets/unprinted-val960
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from onze_vision.detections import box_ioa  # noqa: E402
from onze_vision.detector import CardDetector, DetectedCard  # noqa: E402
from onze_vision.evaluate import visible_cards  # noqa: E402

#: A card is on a labelled index when that much of the label's box lies inside the card's box.
ON_LABEL = 0.3


def invented_cards(cards: list[DetectedCard], meta: dict[str, Any]) -> tuple[int, int]:
    """(cards read on no labelled index, those of them that touch a word of print)."""
    labels = np.array([label["box"] for label in meta["labels"]], np.float64).reshape(-1, 4)
    words = np.array(meta.get("printed", []), np.float64).reshape(-1, 4)
    invented = on_print = 0
    for card in cards:
        box = np.array(card.box, np.float64)
        if len(labels) and box_ioa(box, labels).max() >= ON_LABEL:
            continue
        invented += 1
        # A word touches the card when any of it lies inside the card's box.
        if len(words) and box_ioa(box, words).max() > 0:
            on_print += 1
    return invented, on_print


def read_set(detector: CardDetector, root: Path, limit: int | None = None) -> dict[str, Any]:
    """Read every validation scene of a generated set; the per-set figures."""
    metas = [json.loads(line) for line in (root / "meta" / "val.jsonl").read_text().splitlines()][:limit]
    tally: Counter = Counter()
    seconds = []
    for meta in metas:
        started = time.perf_counter()
        reading = detector.detect_cards(root / meta["image"])
        seconds.append(time.perf_counter() - started)
        truth = Counter(visible_cards(meta).values())
        read = Counter(card.card for card in reading.cards)
        right = sum((truth & read).values())
        invented, on_print = invented_cards(reading.cards, meta)
        tally["scenes"] += 1
        tally["with_print"] += bool(meta.get("printed"))
        tally["cards"] += sum(truth.values())
        tally["read"] += len(reading.cards)
        tally["right"] += right
        tally["exact"] += truth == read
        tally["invented"] += invented
        tally["on_print"] += on_print
        tally["scenes_inventing"] += invented > 0
    scenes = max(tally["scenes"], 1)
    return {
        "set": str(root),
        "scenes": tally["scenes"],
        "scenes_with_print": tally["with_print"],
        "cards": tally["cards"],
        "card_recall": tally["right"] / tally["cards"] if tally["cards"] else None,
        "card_precision": tally["right"] / tally["read"] if tally["read"] else None,
        "exact_scene_rate": tally["exact"] / scenes,
        "invented_per_scene": tally["invented"] / scenes,
        "invented_on_print_per_scene": tally["on_print"] / scenes,
        "scenes_inventing": tally["scenes_inventing"] / scenes,
        "ms_median": 1000 * float(np.median(seconds)) if seconds else None,
    }


def format_table(rows: list[dict[str, Any]]) -> str:
    """A markdown table of the per-set figures."""
    lines = ["| set | scenes (with print) | card recall | card precision | scenes exact | invented per scene "
             "(on print) | scenes inventing | ms median |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(
            f"| {Path(row['set']).name} | {row['scenes']} ({row['scenes_with_print']}) | {row['card_recall']:.3f} "
            f"| {row['card_precision']:.3f} | {row['exact_scene_rate']:.3f} | {row['invented_per_scene']:.3f} "
            f"({row['invented_on_print_per_scene']:.3f}) | {row['scenes_inventing']:.3f} | {row['ms_median']:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", type=Path, help="generated dataset folders (their val split is read)")
    parser.add_argument("--models", type=Path, default=None, help="models folder (default: the shipped models)")
    parser.add_argument("--limit", type=int, default=None, help="read only the first N scenes of each set")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    for root in args.sets:
        if not (root / "meta" / "val.jsonl").exists():
            print(f"printed_words: {root} is not a generated dataset (no meta/val.jsonl)", file=sys.stderr)
            return 2
    detector = CardDetector(args.models) if args.models else CardDetector()
    rows = [read_set(detector, root, args.limit) for root in args.sets]
    print(format_table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
