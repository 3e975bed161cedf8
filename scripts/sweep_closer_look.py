"""Choose when and how closely the detector looks again at small indices (``zoom_*``).

Each setting of the grid reads the given synthetic sets and real photos again (the
closer look changes what is located, so nothing can be cached) and prints, per set,
mAP50, card recall, scenes read exactly and how often the closer look was taken; for
the real photos rank recall and invented cards per photo. Choose on sets the bar is not
measured on (``datasets/far-tune``: far shots, ``datasets/onze960``/``onze320``), then
measure the choice with ``onze-vision evaluate``.

    python scripts/sweep_closer_look.py --data datasets/far-tune --below 0 16 20 24 --target 40
    python scripts/sweep_closer_look.py --data datasets/far-small --blind-tiles 0 4 6 9   # far-tune has no blind case
"""

from __future__ import annotations

import argparse
import itertools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from onze_vision.detections import Detections
from onze_vision.detector import CONFIG_FILE, CardDetector, DetectorConfig
from onze_vision.evaluate import evaluate_real_photos, evaluate_synthetic

REPO = Path(__file__).resolve().parents[1]


def counting_looks(detector: CardDetector) -> list[int]:
    """Count the detector's looks: ``[looks]``, one per photo plus one per closer look."""
    looks = [0]
    locate = detector._indices.locate

    def counted(image: np.ndarray, *args: Any, **kwargs: Any) -> Detections:
        looks[0] += 1
        return locate(image, *args, **kwargs)

    detector._indices.locate = counted  # type: ignore[method-assign]
    return looks


def measure(config: DetectorConfig, models: Path, data: list[Path], realphotos: Path | None,
            limit: int | None) -> dict[str, Any]:
    """The figures of one setting on every set."""
    detector = CardDetector(models, config=config)
    looks = counting_looks(detector)
    row: dict[str, Any] = {}
    for root in data:
        looks[0] = 0
        result = evaluate_synthetic(detector, root, limit, progress=lambda _: None)
        cards = result.get("cards") or {}
        row[root.name] = {"map50": round(result["map50"], 4), "card_recall": round(cards.get("recall") or 0, 4),
                          "card_precision": round(cards.get("precision") or 0, 4),
                          "exact": round(cards.get("exact_scene_rate") or 0, 4),
                          "closer_looks": looks[0] - result["images"], "images": result["images"]}
    if realphotos is not None:
        looks[0] = 0
        result = evaluate_real_photos(detector, realphotos, limit, progress=lambda _: None)
        row["real"] = {key: result[key] for key in ("rank_recall", "invented_per_photo", "exact_photo_rate")}
        row["real"]["closer_looks"] = looks[0] - result["photos"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, default=REPO / "models")
    parser.add_argument("--data", type=Path, nargs="+", required=True, metavar="DIR", help="synthetic sets")
    parser.add_argument("--realphotos", type=Path, default=None, metavar="DIR", help="e.g. ../shared/realphotos/edje")
    parser.add_argument("--limit", type=int, default=None, help="at most this many images per set")
    grid_options = (("--below", float, "zoom_below"), ("--target", float, "zoom_target"),
                    ("--tiles", int, "zoom_tiles"), ("--margin", float, "zoom_margin"),
                    ("--floor", float, "zoom_floor"), ("--min-gain", float, "zoom_min_gain"),
                    ("--blind-tiles", int, "zoom_blind_tiles"))
    for option, kind, field in grid_options:
        parser.add_argument(option, type=kind, nargs="+", default=None, help=f"{field} values (default: the shipped one)")
    args = parser.parse_args()

    shipped = DetectorConfig.from_json(args.models / CONFIG_FILE)
    names = [field for _, _, field in grid_options]
    values = [getattr(args, option[2:].replace("-", "_")) or [getattr(shipped, field)]
              for option, _, field in grid_options]
    for setting in itertools.product(*values):
        chosen = dict(zip(names, setting))
        row = {**chosen, **measure(replace(shipped, **chosen), args.models, args.data, args.realphotos, args.limit)}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
