"""The real photos framed as far shots: does the closer look read real cards as well?

No public real photo shows a whole table from far away. This frames each real photo
(``../shared/realphotos/edje``) as one: enlarged so that its long side is ``--side`` px,
pasted at a random place of a 4000x3000 plain table (its border colour, with noise), and
saved as a phone JPEG. Its cards keep their real look; their indices are as small in the
frame as in a far shot, and the runtime's first look (the JPEG decoded at a quarter) sees
them at a fraction of the photo's own pixels. The labelled boxes move with the photo.
Prints rank recall, invented cards per photo and photos read exactly with the closer look
off and on (and the blind look, where the first look finds nothing), and the median
milliseconds per photo.

    python scripts/far_real_photos.py --side 1600
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from onze_vision.shared import real_photos_dir
from onze_vision.detector import CardDetector, DetectedCard, DetectorConfig
from onze_vision.evaluate import evaluate_real_photos

REPO = Path(__file__).resolve().parents[1]
FRAME = (4000, 3000)
JPEG_QUALITY = 90


def frame_photo(image: np.ndarray, side: int, rng: np.random.Generator) -> tuple[np.ndarray, float, tuple[int, int]]:
    """The photo enlarged to a long side of ``side`` on a plain 4000x3000 table: (frame, scale, (left, top))."""
    height, width = image.shape[:2]
    scale = side / max(height, width)
    photo = cv2.resize(image, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_CUBIC)
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]]).reshape(-1, 3)
    table = np.median(border, axis=0)
    frame = np.clip(rng.normal(table, 4.0, (FRAME[1], FRAME[0], 3)), 0, 255).astype(np.uint8)
    left = int(rng.integers(0, FRAME[0] - photo.shape[1] + 1))
    top = int(rng.integers(0, FRAME[1] - photo.shape[0] + 1))
    frame[top:top + photo.shape[0], left:left + photo.shape[1]] = photo
    return frame, scale, (left, top)


def make_far_set(realphotos: Path, out: Path, side: int, seed: int, limit: int | None) -> Path:
    """Write the framed JPEGs and their manifest (boxes moved with the photo) into ``out``."""
    rng = np.random.default_rng(seed)
    manifest = json.loads((realphotos / "manifest.json").read_text(encoding="utf-8"))[:limit]
    framed = []
    for number, entry in enumerate(manifest):
        image = cv2.imread(str(realphotos / entry["image"]), cv2.IMREAD_COLOR)
        frame, scale, (left, top) = frame_photo(image, side, rng)
        name = f"far_{number:04d}.jpg"
        cv2.imwrite(str(out / name), frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        cards = [{**card, "box": [card["box"][0] * scale + left, card["box"][1] * scale + top,
                                  card["box"][2] * scale + left, card["box"][3] * scale + top]}
                 for card in entry["cards"]]
        framed.append({"image": name, "width": FRAME[0], "height": FRAME[1], "cards": cards})
    (out / "manifest.json").write_text(json.dumps(framed), encoding="utf-8")
    return out


def measure(detector: CardDetector, root: Path) -> dict[str, Any]:
    """Rank recall, invented per photo, exact photos and ms per photo (bytes to card list)."""
    times: list[float] = []

    def reader(path: Path) -> list[DetectedCard]:
        data = path.read_bytes()
        start = time.perf_counter()
        cards = detector.detect_cards(data).cards
        times.append((time.perf_counter() - start) * 1000)
        return cards

    result = evaluate_real_photos(None, root, reader=reader, progress=lambda _: None)
    return {"rank_recall": round(result["rank_recall"], 4),
            "invented_per_photo": round(result["invented_per_photo"], 4),
            "exact_photo_rate": round(result["exact_photo_rate"], 4),
            "median_ms": round(statistics.median(times), 1), "photos": result["photos"],
            "worst": [{key: photo[key] for key in ("image", "missed", "invented")}
                      for photo in result["worst_photos"][:8]]}


def readings(shipped: DetectorConfig, below: float | None = None,
             blind_tiles: int | None = None) -> list[tuple[str, DetectorConfig]]:
    """The ways each framed photo is read: the first look alone, then with the closer look
    (``below``: its ``zoom_below``, default the shipped one), then, when the blind look has
    tiles (``blind_tiles``, default the shipped count), with that too."""
    closer = shipped if below is None else replace(shipped, zoom_below=below)
    blind = closer.zoom_blind_tiles if blind_tiles is None else blind_tiles
    ways = [("first look only", replace(shipped, zoom_below=0.0)),
            (f"with the closer look under {closer.zoom_below:g} px", replace(closer, zoom_blind_tiles=0))]
    if blind > 0:
        ways.append((f"and the blind look in {blind} tiles", replace(closer, zoom_blind_tiles=blind)))
    return ways


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, default=REPO / "models")
    parser.add_argument("--realphotos", type=Path, default=real_photos_dir())
    parser.add_argument("--side", type=int, default=1600, help="the photo's long side in the 4000-px frame")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None, help="at most this many photos")
    parser.add_argument("--below", type=float, default=None,
                        help="zoom_below of the closer look (default: the shipped one)")
    parser.add_argument("--blind-tiles", type=int, default=None,
                        help="zoom_blind_tiles of the blind look (default: the shipped one; 0: none)")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="write the framed photos here (default: a temporary folder)")
    args = parser.parse_args()

    shipped = CardDetector(args.models).config
    with tempfile.TemporaryDirectory(prefix="onze-far-real-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        root = make_far_set(args.realphotos, folder, args.side, args.seed, args.limit)
        for name, config in readings(shipped, args.below, args.blind_tiles):
            row = {"side": args.side, "reading": name, **measure(CardDetector(args.models, config=config), root)}
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
