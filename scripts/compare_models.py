"""Compare model folders on what a new network must not lose, before one ships.

Each folder (ONNX networks and ``detector.json``, as ``models/``) is measured on:
the real photos as taken (rank recall, invented cards per photo), the real photos made
grey, in bad light, blurred and tilted (``onze_vision.conditions``: cards found and read right,
against that folder's own reading as taken), and the held-out scenes of the tuning sets
(mAP50, card recall, card precision, the Joker's index recall: the weakest code, and the
cards offered as possibly missed: how many, how many right, the recall with them taken), with
each later folder's mAP50 less the first's over 95 % of the scenes resampled alike (a paired
bootstrap, ``onze_vision.evaluate.resample``: a difference whose interval holds 0 may be the
draw of the scenes, not the networks). The
bar's sets (``onze-val``, ``far-val``) are not used: a network is chosen here, and
measured there once, by ``onze-vision evaluate``. ``--with KEY=JSON`` adds a column: the
first folder with one ``detector.json`` value changed (a runtime constant is chosen here too).

    python scripts/compare_models.py models runs/candidate
    python scripts/compare_models.py models runs/candidate --tuning datasets/onze320 --every 6
    python scripts/compare_models.py models runs/candA runs/candB --tuning datasets/echo-tune320 --scenes-only
    python scripts/compare_models.py models --with 'code_weights={}' --with 'code_weights={"JK": 2}'
"""

from __future__ import annotations

import argparse
import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from onze_vision.shared import real_photos_dir
from onze_vision.conditions import CONDITIONS_EVERY, evaluate_conditions
from onze_vision.detector import CARD_CODES, CONFIG_FILE, CardDetector, DetectorConfig, InvalidModelError
from onze_vision.detector_config import CONFIG_KEYS
from onze_vision.evaluate import evaluate_real_photos, evaluate_synthetic
from onze_vision.evaluate.resample import SceneScores, interval

REPO = Path(__file__).resolve().parents[1]
TUNING_SETS = ("onze960", "onze320", "far-tune", "four-tune960", "joker-tune960")


def measure(detector: CardDetector, realphotos: Path | None, tuning: list[Path], every: int,
            resampled: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
    """The figures of one detector (see the module's docstring), the real photos' left out
    where ``realphotos`` is None; ``resampled``, when given, gets each tuning set's mAP50 on
    the scenes resampled (:meth:`SceneScores.resampled_map50`)."""
    row: dict[str, Any] = {} if realphotos is None else real_photo_figures(detector, realphotos, every)
    for folder in tuning:
        readings = SceneScores(len(CARD_CODES))
        # resamples=0: the resamples are drawn once, below, not also for an interval no row shows.
        scenes = evaluate_synthetic(detector, folder, progress=lambda _: None, scenes=readings, resamples=0)
        if resampled is not None:
            resampled[folder.name] = readings.resampled_map50()
        cards = scenes.get("cards") or {}
        row[f"{folder.name}: mAP50 / card recall / precision"] = (
            scenes["map50"], cards.get("recall") or 0.0, cards.get("precision") or 0.0)
        row[f"{folder.name}: Joker indices read right"] = scenes["recall_per_class"].get("JK")
        fixes = cards.get("alternatives") or {}
        row[f"{folder.name}: possibly missed per scene / right share / card recall with fixes taken"] = (
            fixes.get("maybe_per_scene"), fixes.get("maybe_right_share"), fixes.get("recall_after_fixes"))
    return row


def real_photo_figures(detector: CardDetector, realphotos: Path, every: int) -> dict[str, Any]:
    """The real photos' figures of one detector: as taken, and made grey, dark, blurred and tilted."""
    real = evaluate_real_photos(detector, realphotos, progress=lambda _: None)
    row: dict[str, Any] = {"real photos: rank recall / invented": (real["rank_recall"], real["invented_per_photo"]),
                           "real photos: offered as possibly missed / of them on no card, per photo": (
                               real["offered_per_photo"], real["offered_off_cards_per_photo"])}
    conditions = evaluate_conditions(detector, realphotos, every=every)
    row["grey: read or offered right"] = conditions["grey"]["read_or_offered_right_share"]
    for group in ("light", "blur"):
        for name, shares in conditions[group].items():
            row[f"{name}: found / read right"] = (shares["found_share"], shares["read_right_share"])
    for name, shares in conditions["tilt"].items():
        row[f"{name}: found / read right / read twice"] = (
            shares["found_share"], shares["read_right_share"], shares["read_twice_share"])
    blurs = conditions["blur"]
    row[f"reported blurred: as taken / {' / '.join(blurs)}"] = (
        conditions["as taken"]["warned_share"], *(shares["warned_share"] for shares in blurs.values()))
    return row


def with_setting(folder: Path, setting: str) -> DetectorConfig:
    """The config of ``folder`` with one value changed: ``setting`` is ``KEY=JSON``.

    Raises:
        ValueError: ``setting`` has no ``=``, its value is not JSON, its key is no
            ``detector.json`` key, or the config refuses the value; the folder's own
            ``detector.json`` is not valid (``InvalidModelError``).
    """
    key, equals, text = setting.partition("=")
    if not equals:
        raise ValueError("expected KEY=JSON, e.g. 'code_weights={\"JK\": 2}'")
    known = {field.name for field in fields(DetectorConfig)} | set(CONFIG_KEYS)
    if key not in known:
        raise ValueError(f"{key!r} is not a detector.json key")
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(f"{text!r} is not JSON") from None
    try:  # the value read as detector.json reads it, then put into the folder's own config
        changed = DetectorConfig.from_dict({key: value})
    except (TypeError, IndexError) as error:
        raise ValueError(str(error)) from None
    name = CONFIG_KEYS.get(key, key)
    return replace(DetectorConfig.from_json(folder / CONFIG_FILE), **{name: getattr(changed, name)})


def _cell(value: Any) -> str:
    if isinstance(value, tuple):
        return " / ".join(_cell(v) for v in value)
    return "-" if value is None else f"{value:.4f}"


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", type=Path, nargs="+", help="model folders (the first is the reference)")
    parser.add_argument("--realphotos", type=Path, default=real_photos_dir())
    parser.add_argument("--every", type=int, default=CONDITIONS_EVERY,
                        help=f"change every N-th real photo (default {CONDITIONS_EVERY})")
    parser.add_argument("--tuning", type=Path, nargs="*", default=[REPO / "datasets" / name for name in TUNING_SETS],
                        help="held-out scenes to compare on (missing folders are skipped)")
    parser.add_argument("--with", dest="settings", action="append", default=[], metavar="KEY=JSON",
                        help="also measure the first folder with this detector.json value (repeatable)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--scenes-only", action="store_true",
                        help="the tuning scenes alone, not the real photos (minutes, where the real photos take half "
                             "an hour a folder): to narrow candidates; measure the one to ship in full")
    args = parser.parse_args(argv)
    if not args.scenes_only and not (args.realphotos / "manifest.json").exists():
        parser.error(f"no manifest.json in '{args.realphotos}'")
    missing = [str(folder) for folder in args.models if not (folder / "index_detector.onnx").exists()]
    if missing:
        parser.error(f"no index_detector.onnx in {', '.join(missing)}")
    tuning = [folder for folder in args.tuning if (folder / "images").is_dir()]
    if args.scenes_only and not tuning:
        parser.error("--scenes-only and no tuning set found: nothing to measure "
                     f"(looked for images/ in {', '.join(map(str, args.tuning)) or 'no folder'})")
    try:
        columns = {str(folder): CardDetector(folder) for folder in args.models}
    except InvalidModelError as error:  # a detector.json or network the runtime refuses
        parser.error(str(error))
    for setting in args.settings:
        try:
            config = with_setting(args.models[0], setting)
        except ValueError as error:
            parser.error(f"--with {setting!r}: {error}")
        columns[f"{args.models[0]} with {setting}"] = CardDetector(args.models[0], config=config)

    resampled: dict[str, dict[str, np.ndarray]] = {name: {} for name in columns}
    realphotos = None if args.scenes_only else args.realphotos
    table = {name: measure(detector, realphotos, tuning, args.every, resampled[name])
             for name, detector in columns.items()}
    first = next(iter(columns))
    for name in table:   # the same resamples of the same scenes: the difference is paired
        for folder in tuning:
            table[name][f"{folder.name}: mAP50 less the first's, 95 % of resampled scenes"] = interval(
                resampled[name][folder.name] - resampled[first][folder.name])
    rows = list(next(iter(table.values())))
    print("| figure | " + " | ".join(f"`{name}`" for name in table) + " |")
    print("|---|" + "---|" * len(table))
    for row in rows:
        print(f"| {row} | " + " | ".join(_cell(figures[row]) for figures in table.values()) + " |")
    if args.json:
        args.json.write_text(json.dumps(table, indent=2) + "\n")
    return table


if __name__ == "__main__":
    main()
