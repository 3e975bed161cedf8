"""Choose when a photo is reported blurred (``blur_warn_from`` in detector.json).

The real photos *outside* the sample evaluate's conditions read (every ``--every``-th from
the first; these are the others) are read as taken, shaken (a straight smear of a random
direction, 1.0 % and 1.8 % of the long side) and out of focus (a Gaussian of sigma 0.4 %
and 0.8 %). For each ``blur_warn_from`` of the sweep: the share of photos warned in each
condition, and of the cards the photo as taken has, how many each condition lost on the
photos warned and on those not warned. Sharp generated scenes (``--tuning``) guard against
warning where nothing is blurred.

    python scripts/sweep_blur_warning.py --models runs/gauge-ship --from 0.1 0.12 0.15 0.2
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from onze_vision.shared import real_photos_dir
from onze_vision.conditions import CONDITIONS_EVERY, compare_readings, jpeg_bytes
from onze_vision.detector import CardDetector
from onze_vision.synth.blur import motion_kernel

REPO = Path(__file__).resolve().parents[1]

Change = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def _shaken(share: float) -> Change:
    def change(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        length = max(2, round(share * max(image.shape[:2])))
        return cv2.filter2D(image, -1, motion_kernel(length, rng.uniform(0, 180)))
    return change


def _out_of_focus(share: float) -> Change:
    def change(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return cv2.GaussianBlur(image, (0, 0), share * max(image.shape[:2]))
    return change


#: The conditions of the sweep, by name.
CHANGES: dict[str, Change] = {
    "as taken": lambda image, rng: image,
    "shaken 1.0 %": _shaken(0.010),
    "shaken 1.8 %": _shaken(0.018),
    "out of focus 0.4 %": _out_of_focus(0.004),
    "out of focus 0.8 %": _out_of_focus(0.008),
}


def read_conditions(detector: CardDetector, photos: list[Path], seed: int = 0) -> list[dict[str, object]]:
    """Per photo and condition: the smear the gauge reads, and the cards found / of the photo as taken."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    for photo in photos:
        image = cv2.imread(str(photo))
        reference = detector.detect_cards(photo).cards
        for name, change in CHANGES.items():
            reading = detector.detect_cards(jpeg_bytes(change(image, rng), photo))
            counts = compare_readings(reference, reading.cards)
            rows.append({"photo": photo.name, "condition": name, "smear": reading.smear,
                         "cards": counts["cards"], "found": counts["found"]})
    return rows


def sweep(rows: list[dict[str, object]], thresholds: list[float]) -> dict[float, dict[str, str]]:
    """Per threshold and condition: 'warned share (cards lost on warned / on the others)'."""
    table: dict[float, dict[str, str]] = {}
    for threshold in thresholds:
        line: dict[str, str] = {}
        for name in CHANGES:
            mine = [r for r in rows if r["condition"] == name]
            lost = {True: 0, False: 0}   # cards lost on the photos warned / not warned
            for r in mine:
                lost[r["smear"] is not None and r["smear"] >= threshold] += int(r["cards"]) - int(r["found"])
            warned = sum(r["smear"] is not None and r["smear"] >= threshold for r in mine)
            line[name] = f"{warned / max(len(mine), 1):.3f} ({lost[True]} / {lost[False]})"
        table[threshold] = line
    return table


def sharp_scenes(detector: CardDetector, folder: Path) -> list[float | None]:
    """The smear read on each held-out scene of a generated dataset."""
    return [detector.detect_cards(path).smear for path in sorted((folder / "images" / "val").glob("*.jpg"))]


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="thresholds", type=float, nargs="+",
                        default=[0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.2, 0.25], metavar="SMEAR",
                        help="blur_warn_from values to try, in index sizes")
    parser.add_argument("--models", type=Path, default=REPO / "models", help="models folder with blur_gauge.onnx")
    parser.add_argument("--realphotos", type=Path, default=real_photos_dir())
    parser.add_argument("--every", type=int, default=CONDITIONS_EVERY,
                        help=f"leave out every N-th real photo, evaluate's conditions sample (default {CONDITIONS_EVERY})")
    parser.add_argument("--tuning", type=Path, nargs="*",
                        default=[REPO / "datasets" / name for name in ("onze960", "far-tune")],
                        help="sharp held-out scenes that should not be warned (missing folders are skipped)")
    parser.add_argument("--limit", type=int, default=None, help="read only the first N of those photos")
    parser.add_argument("--json", type=Path, default=None, help="write every reading's smear here")
    args = parser.parse_args(argv)

    detector = CardDetector(args.models)
    if detector.blur_gauge is None:
        parser.error(f"no blur gauge in '{args.models}' (onze-vision train --stage blur-gauge)")
    manifest = args.realphotos / "manifest.json"
    if not manifest.exists():
        parser.error(f"no manifest.json in '{args.realphotos}'")
    entries = json.loads(manifest.read_text(encoding="utf-8"))
    photos = [args.realphotos / entry["image"] for i, entry in enumerate(entries) if i % args.every][:args.limit]
    rows = read_conditions(detector, photos)
    table = sweep(rows, args.thresholds)
    scenes = {folder.name: sharp_scenes(detector, folder) for folder in args.tuning if (folder / "images").is_dir()}

    print(f"{len(photos)} real photos outside the conditions sample; warned share (cards lost on the "
          f"photos warned / not warned)")
    print("| " + " | ".join(["blur_warn_from", *CHANGES, *(f"{name} warned" for name in scenes)]) + " |")
    print("|---" * (1 + len(CHANGES) + len(scenes)) + "|")
    for threshold, line in table.items():
        guards = [f"{sum(s is not None and s >= threshold for s in smears)} / {len(smears)}"
                  for smears in scenes.values()]
        print("| " + " | ".join([f"{threshold:g}", *line.values(), *guards]) + " |")
    result = {"rows": rows, "table": {str(k): v for k, v in table.items()}, "scenes": scenes}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
