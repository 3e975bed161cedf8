"""How the shipped models read photos without colour: the real photos made grey.

Each photo is read as it is and as a one-channel (black-and-white) JPEG of itself. The
colour reading is the reference (the real photos are labelled with ranks only, and their
suits are read right in colour). For each suited card of the colour reading, the grey
reading's card at the same place (box IoU >= 0.5) is compared with it: same rank, colour
kept, and whether the card read or its alternative is the right one.

    python scripts/grey_photos.py                      # the 363 real photos
    python scripts/grey_photos.py --photos tests/data  # a quick look
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import cv2

from onze_vision.detector import CardDetector, DetectedCard

REPO = Path(__file__).resolve().parents[1]
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


def box_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def grey_jpeg(path: Path) -> bytes:
    """The photo as a black-and-white phone photo would be: a one-channel JPEG."""
    ok, data = cv2.imencode(".jpg", cv2.imread(str(path), cv2.IMREAD_GRAYSCALE), [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise ValueError(f"cannot make a grey copy of '{path}'")
    return data.tobytes()


def compare(colour: list[DetectedCard], grey: list[DetectedCard]) -> Counter[str]:
    """Count, over the suited cards read in colour, what the grey reading made of each."""
    counts: Counter[str] = Counter()
    for card in colour:
        if card.card == "JK":
            continue
        counts["cards"] += 1
        twin = max(grey, key=lambda other: box_iou(card.box, other.box), default=None)
        if twin is None or box_iou(card.box, twin.box) < 0.5:
            continue
        counts["found"] += 1
        if twin.card[:-1] != card.card[:-1]:
            continue
        counts["same rank"] += 1
        colour_name = "red" if card.card[-1] in "HD" else "black"
        counts[colour_name] += 1
        counts[f"{colour_name}: colour kept"] += (twin.card[-1] in "HD") == (colour_name == "red")
        counts[f"{colour_name}: read right"] += twin.card == card.card
        counts[f"{colour_name}: read or offered right"] += card.card in (twin.card, twin.alternative)
    return counts


def main(argv: list[str] | None = None) -> Counter[str]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", type=Path, default=REPO.parent / "shared" / "realphotos" / "edje",
                        help="folder of photos, searched one level down too (default: the edje real photos)")
    parser.add_argument("--models", type=Path, default=None, help="models folder (default: the shipped one)")
    args = parser.parse_args(argv)
    photos = sorted(p for p in [*args.photos.glob("*"), *args.photos.glob("*/*")]
                    if p.suffix.lower() in PHOTO_SUFFIXES)
    if not photos:
        parser.error(f"no photos in '{args.photos}'")
    detector = CardDetector() if args.models is None else CardDetector(args.models)
    counts: Counter[str] = Counter()
    for photo in photos:
        grey = detector.detect_cards(grey_jpeg(photo))
        counts["photos"] += 1
        counts["judged colourless"] += grey.colourless
        counts.update(compare(detector.detect_cards(photo).cards, grey.cards))
    print(f"{counts['photos']} photos, {counts['judged colourless']} judged colourless when grey")
    print(f"{counts['cards']} suited cards read in colour; in grey {counts['found']} found at their place, "
          f"{counts['same rank']} with the same rank")
    for colour_name in ("red", "black"):
        total = counts[colour_name]
        if total:
            print(f"  {colour_name} {total}: colour kept {counts[colour_name + ': colour kept']}, "
                  f"read right {counts[colour_name + ': read right']}, read or offered right "
                  f"{counts[colour_name + ': read or offered right']} "
                  f"({counts[colour_name + ': read or offered right'] / total:.2f})")
    return counts


if __name__ == "__main__":
    main()
