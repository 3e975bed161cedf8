"""Choose when the runtime evens out a photo's light (``balance_from`` in detector.json).

Real photos (every ``--every``-th) are darkened or tinted the way bad light does it; each
is read at every ``balance_from`` of the sweep and compared with the reading of the photo
as taken (with the light left alone): cards found at their place, and read as in good
light. The guards beside them: the real photos as taken (rank recall and invented cards
on all of them) and the held-out scenes of the tuning sets, which must read as before.

    python scripts/sweep_light.py --from 0 1.25 1.5 2.0
    python scripts/sweep_light.py --from 0 1.5 --tuning datasets/onze960 datasets/far-tune
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

from onze_vision.shared import real_photos_dir
from onze_vision.conditions import CONDITIONS_EVERY, LIGHTS, compare_readings, in_light
from onze_vision.detector import CardDetector
from onze_vision.evaluate import evaluate_real_photos, evaluate_synthetic

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> dict[float, dict[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="balance_from", type=float, nargs="+", default=[0.0, 1.25, 1.5, 2.0],
                        metavar="GAIN", help="balance_from values to try (0: never)")
    parser.add_argument("--max-gain", type=float, default=None, help="balance_max_gain (default: the shipped one)")
    parser.add_argument("--realphotos", type=Path, default=real_photos_dir())
    parser.add_argument("--every", type=int, default=CONDITIONS_EVERY,
                        help=f"darken every N-th real photo (default {CONDITIONS_EVERY})")
    parser.add_argument("--tuning", type=Path, nargs="*",
                        default=[REPO / "datasets" / name for name in ("onze960", "onze320", "far-tune")],
                        help="held-out scenes that must read as before (missing folders are skipped)")
    parser.add_argument("--models", type=Path, default=None)
    args = parser.parse_args(argv)

    shipped = CardDetector() if args.models is None else CardDetector(args.models)
    base = replace(shipped.config, balance_from=0.0)
    if args.max_gain is not None:
        base = replace(base, balance_max_gain=args.max_gain)
    as_taken = CardDetector(shipped.model_dir, config=base)
    manifest = args.realphotos / "manifest.json"
    if not manifest.exists():
        parser.error(f"no manifest.json in '{args.realphotos}'")
    # The photos evaluate's conditions use (onze_vision.conditions), in the manifest's order.
    photos = [args.realphotos / entry["image"] for entry in json.loads(manifest.read_text(encoding="utf-8"))][::args.every]
    reference = {photo: as_taken.detect_cards(photo).cards for photo in photos}
    lit = {(name, photo): in_light(photo, *LIGHTS[name]) for name in LIGHTS for photo in photos}
    tuning = [folder for folder in args.tuning if (folder / "images").is_dir()]

    table: dict[float, dict[str, str]] = {}
    for balance_from in args.balance_from:
        detector = CardDetector(shipped.model_dir, config=replace(base, balance_from=balance_from))
        row: dict[str, str] = {}
        for name in LIGHTS:
            counts: Counter[str] = Counter()
            for photo in photos:
                counts.update(compare_readings(reference[photo], detector.detect_cards(lit[name, photo]).cards))
            right = counts["red: read right"] + counts["black: read right"]
            row[name] = f"{counts['found']} found, {right} right of {counts['cards']}"
        real = evaluate_real_photos(detector, args.realphotos, progress=lambda _: None)
        row["real photos as taken"] = f"{real['rank_recall']:.4f} / {real['invented_per_photo']:.4f}"
        for folder in tuning:
            scenes = evaluate_synthetic(detector, folder, progress=lambda _: None)
            cards = scenes.get("cards") or {}
            row[folder.name] = (f"{scenes['map50']:.4f} / {cards.get('recall') or 0:.4f} / "
                                f"{cards.get('precision') or 0:.4f}")
        table[balance_from] = row
        print(f"balance_from {balance_from:g}: " + "; ".join(f"{k}: {v}" for k, v in row.items()), flush=True)
    print(f"({len(photos)} real photos in each light; real photos as taken: rank recall / invented per photo; "
          "held-out scenes: mAP50 / card recall / card precision)")
    return table


if __name__ == "__main__":
    main()
