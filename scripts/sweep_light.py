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
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from onze_vision.detector import CardDetector
from onze_vision.evaluate import evaluate_real_photos, evaluate_synthetic

# The comparison of two readings of one photo is grey_photos.py's, beside this script
# (found also when this file is imported from elsewhere, as the tests do).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from grey_photos import compare  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

#: Bad light as channel factors (B, G, R) and sensor noise (grey levels): a warm lamp
#: takes most of the blue; a dim room takes the light, and the camera's noise stays.
LIGHTS: dict[str, tuple[tuple[float, float, float], float]] = {
    "very warm": ((0.45, 0.75, 1.35), 0.0),
    "dim": ((0.35, 0.35, 0.35), 4.0),
    "dark": ((0.2, 0.2, 0.2), 4.0),
}


def in_light(path: Path, factors: tuple[float, float, float], noise: float, seed: int = 0) -> bytes:
    """The photo as a JPEG taken in that light."""
    image = cv2.imread(str(path)).astype(np.float32) * np.array(factors, np.float32)
    if noise:
        image += np.random.default_rng(seed).normal(0.0, noise, image.shape)
    ok, data = cv2.imencode(".jpg", np.clip(image, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise ValueError(f"cannot encode '{path}'")
    return data.tobytes()


def main(argv: list[str] | None = None) -> dict[float, dict[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="balance_from", type=float, nargs="+", default=[0.0, 1.25, 1.5, 2.0],
                        metavar="GAIN", help="balance_from values to try (0: never)")
    parser.add_argument("--max-gain", type=float, default=None, help="balance_max_gain (default: the shipped one)")
    parser.add_argument("--realphotos", type=Path, default=REPO.parent / "shared" / "realphotos" / "edje")
    parser.add_argument("--every", type=int, default=3, help="darken every N-th real photo (default 3)")
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
    photos = sorted(p for p in args.realphotos.glob("*/*") if p.suffix.lower() in (".jpg", ".jpeg"))[::args.every]
    if not photos:
        parser.error(f"no photos under '{args.realphotos}'")
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
                counts.update(compare(reference[photo], detector.detect_cards(lit[name, photo]).cards))
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
