"""The committed training recipe: ``onze-vision train``.

Stage 1, the detector: Ultralytics YOLO built from ``yolo11n.yaml`` (no downloaded
weights), trained as ONE class, "a corner index", on the generated scenes. One class
localises fast on a CPU; telling 53 cards apart is the classifier's job.
Stage 2, the classifier: :mod:`onze_vision.training.classifier` on crops cut from the
same scenes. Export: both to ONNX in ``--out`` (``runs/ship`` by default; ``models/`` is
what ships) plus ``detector.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from onze_vision.sharpness import GAUGE_FILE
from onze_vision.training.halfweights import store_half_weights

DETECTOR_EXPORT_SIZE = 640  # the runtime reads photos at this letterbox size
MINING_CONF = 0.05  # detector score down to which its boxes become classifier crops


def _quiet_ultralytics() -> None:
    """Ultralytics must never reach the network here, and must use both cores."""
    os.environ["YOLO_OFFLINE"] = "true"  # the word true: "1" is not honoured
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    os.environ.setdefault("YOLO_VERBOSE", "true")


def _offline_font() -> Path:
    """The font Ultralytics' dataset check asks for (``Arial.ttf``), put where it looks first.

    ``check_font`` looks in Ultralytics' settings folder, then among the system's fonts, and
    else asks the network for the file, whatever ``YOLO_OFFLINE`` says (a look-up here, a
    download on a machine online). Matplotlib, which Ultralytics needs, ships DejaVu Sans:
    its copy under that name only ever labels plots, so any font will do.
    """
    from matplotlib import get_data_path
    from ultralytics.utils import USER_CONFIG_DIR

    font = Path(USER_CONFIG_DIR) / "Arial.ttf"
    if not font.is_file():
        font.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf", font)
    return font


def train_detector(args: argparse.Namespace) -> Path:
    """Train the one-class corner-index detector; return its final checkpoint.

    The final (annealed) weights ship, not Ultralytics' ``best.pt``: that one is picked
    by mAP on the held-out synthetic decks, which did not follow the real photos (the
    shipped run: epoch 2 of 3 had the better synthetic mAP50, 0.32 vs 0.27, and the
    worse real-photo rank recall, 0.977 vs 0.988 at the chosen operating points).
    """
    _quiet_ultralytics()
    import torch
    import ultralytics.utils.torch_utils as torch_utils
    from ultralytics import YOLO
    from ultralytics.utils import SETTINGS

    SETTINGS.update({"sync": False})
    _offline_font()
    threads = os.cpu_count() or 1
    torch_utils.NUM_THREADS = threads  # Ultralytics leaves one core idle otherwise
    torch.set_num_threads(threads)
    runs = Path(args.runs).resolve()  # Ultralytics puts a relative project under its own runs folder
    last = runs / "detector" / "weights" / "last.pt"
    if args.resume and last.exists():
        model = YOLO(str(last))
        model.train(resume=True)
    else:
        # From yaml (nothing is downloaded), or on from an earlier run's checkpoint.
        weights = getattr(args, "weights", None)
        model = YOLO(weights) if weights else YOLO("yolo11n.yaml")
        freeze, lr0 = getattr(args, "freeze", None), getattr(args, "lr0", None)
        # Ultralytics' "auto" optimizer ignores lr0: a rate of one's own needs it named.
        optimizer = {"optimizer": "AdamW", "lr0": lr0} if lr0 is not None else {}
        model.train(
            data=str(detector_data_yaml(Path(args.data), [Path(p) for p in getattr(args, "detector_data", []) or []], runs)),
            single_cls=True,  # the labels keep their card class for the classifier and evaluation
            epochs=args.epochs,
            # A wall-clock budget (a lent GPU's lease) overrides epochs; None trains --epochs.
            time=getattr(args, "hours", None),
            imgsz=args.imgsz,
            batch=args.batch,
            device=args.device,
            workers=args.workers,
            fraction=args.fraction,
            project=str(runs),
            name="detector",
            exist_ok=True,
            # Ultralytics drops the loaded checkpoint's weights when pretrained is False.
            pretrained=bool(weights),
            amp=False,  # the AMP check would download yolo11n.pt
            plots=False,
            seed=0,
            deterministic=False,
            cos_lr=True,
            warmup_epochs=0.3 if weights else 3.0,  # a fine-tune needs no long warm-up
            close_mosaic=1,
            fliplr=0.0,  # mirrored indices do not exist on real cards
            degrees=0.0,  # scenes are already rotated
            scale=0.35,
            mosaic=1.0,
            patience=100,
            val=True,
            freeze=freeze,
            **optimizer,
        )
    return last


def detector_data_yaml(dataset: Path, extra: list[Path], runs: Path) -> Path:
    """The ``data.yaml`` the detector trains on: ``dataset``'s, or one that adds the
    training images of ``extra`` datasets (validation stays on ``dataset``'s held-out decks)."""
    if not extra:
        return dataset / "data.yaml"
    import yaml

    base = yaml.safe_load((dataset / "data.yaml").read_text())
    root = Path(base.get("path", dataset))
    root = root if root.is_absolute() else (dataset / root).resolve()
    train = [str((root / base["train"]).resolve())]
    for other in extra:
        spec = yaml.safe_load((other / "data.yaml").read_text())
        if spec["names"] != base["names"]:
            raise ValueError(f"'{other}' has other class names than '{dataset}'")
        other_root = Path(spec.get("path", other))
        other_root = other_root if other_root.is_absolute() else (other / other_root).resolve()
        train.append(str((other_root / spec["train"]).resolve()))
    merged = {**base, "path": str(root), "train": train, "val": str((root / base["val"]).resolve())}
    runs.mkdir(parents=True, exist_ok=True)
    out = runs / "detector_data.yaml"
    out.write_text(yaml.safe_dump(merged, sort_keys=False))
    return out


def export_detector(checkpoint: Path, out_dir: Path) -> None:
    """Export the detector to ONNX at the runtime's size and ship the .pt beside it."""
    _quiet_ultralytics()
    from ultralytics import YOLO

    out_dir.mkdir(parents=True, exist_ok=True)
    model = YOLO(str(checkpoint))
    onnx_path = Path(model.export(format="onnx", imgsz=DETECTOR_EXPORT_SIZE, simplify=True, opset=17, dynamic=False))
    shutil.copyfile(onnx_path, out_dir / "index_detector.onnx")
    # Stored as float16, as Ultralytics stores the .pt; computed as float32 (half the file).
    store_half_weights(out_dir / "index_detector.onnx")
    # A bare checkpoint (no optimizer state, half the size) is what predict needs.
    from ultralytics.utils.torch_utils import strip_optimizer

    shutil.copyfile(checkpoint, out_dir / "index_detector.pt")
    strip_optimizer(str(out_dir / "index_detector.pt"))


def fit_center_offset(dataset: Path, split: str = "train", limit: int = 3000) -> dict[str, float]:
    """Fit where a card's centre lies from its index: centre = box centre + s (a down + b right).

    s is sqrt(box w * h); right is down turned a quarter (dx, dy) -> (dy, -dx).
    """
    a_values, b_values = [], []
    lines = (dataset / "meta" / f"{split}.jsonl").read_text().splitlines()[:limit]
    for line in lines:
        meta = json.loads(line)
        centres = {card["card_id"]: card["center"] for card in meta["cards"]}
        for label in meta["labels"]:
            x1, y1, x2, y2 = label["box"]
            if x1 <= 0 or y1 <= 0:  # clipped boxes misstate their size
                continue
            s = float(np.sqrt((x2 - x1) * (y2 - y1)))
            down = np.array(label["down"])
            right = np.array([down[1], -down[0]])
            delta = np.array(centres[label["card_id"]]) - [(x1 + x2) / 2, (y1 + y2) / 2]
            a_values.append(float(delta @ down) / s)
            b_values.append(float(delta @ right) / s)
    a, b = np.median(a_values), np.median(b_values)
    spread = float(np.percentile(np.hypot(np.array(a_values) - a, np.array(b_values) - b), 90))
    return {"a": round(float(a), 3), "b": round(float(b), 3), "spread_p90": round(spread, 3)}


def write_detector_json(out_dir: Path, dataset: Path, extra: dict[str, object] | None = None) -> dict[str, object]:
    """Runtime constants: sizes, thresholds, and the corner pairing geometry."""
    offset = fit_center_offset(dataset)
    config: dict[str, object] = {
        "imgsz": DETECTOR_EXPORT_SIZE,
        # The shipped models' operating point (scripts/sweep_thresholds.py chooses it on every
        # 4th edje photo and --write stores it): 0.5/0.35 found all 172 ranks there and invented
        # none, and 0.996 / 0.004 on the other 272 photos.
        "detector_conf": 0.5,
        "nms_iou": 0.5,
        "classifier_min_prob": 0.35,
        "nested_overlap": 0.85,
        # An index read below 0.95 (its card's two corners read together) is read again
        # from its crop turned a quarter, a half and three quarters, the four readings
        # averaged (chosen on the held-out scenes of datasets/onze3 with the classifier of
        # then, see models/HISTORY.md: mAP50 0.853 centred alone, 0.867 moved, 0.872 turned,
        # 0.875 both). Four crops moved 0.05 of the box were read too until the six-member
        # classifier read as well without them: tuning scenes' mAP50 0.9215 -> 0.9214 at 320 px,
        # 0.968 -> 0.966 / 0.939 -> 0.941 / 0.948 -> 0.955 at 960 (echo, four-corner, Joker
        # scenes), a full hand's classifier time 578 -> 327 ms (the run "fewer views").
        "crop_shift": 0.0,
        "crop_turns": True,
        "reread_below": 0.95,
        # A card read under 0.9 with another code at 0.1 or more is shown unsure, with that
        # code one tap away (chosen on the held-out scenes of datasets/onze960 and onze320:
        # 0.13 of cards flagged, 0.73 of the wrong readings among them, 0.41 fixed by the
        # alternative; 4 of 671 cards flagged on the real photos; models/HISTORY.md).
        "unsure_below": 0.9,
        "alternative_min": 0.1,
        # A card read at a confidence under 0.4 is shown to check even with no alternative
        # to offer (the same held-out scenes: 8 more of 1,093 cards flagged, 3 of them
        # wrong, against 3.6 % wrong among all; 0.5 flags 18, 4 wrong. On the real photos
        # 2 of 671 cards, one of them a J read as a Joker; models/HISTORY.md).
        "check_below": 0.4,
        # An index left out by the operating point, with a detector score of 0.3 or more and its
        # code at 0.2 or more, on no card read, is offered as a card possibly missed (the same
        # held-out scenes: 0.28 offered a scene, 0.38 of them right, card recall 0.881 -> 0.898;
        # 6 offered on the 363 real photos).
        "maybe_conf": 0.3,
        "maybe_prob": 0.2,
        # Indices under 22 px at the detector's input (the smallest it trains on: 11 px in a
        # 320-px scene, enlarged twice) are looked at again where the photo has at least twice
        # the pixels: the cards' part of it, decoded finer, in up to 4 tiles, so that an index
        # measures 40 px (chosen on datasets/far-tune, far shots: card recall 0.64 -> 0.93;
        # no change on the real photos; scripts/sweep_closer_look.py, models/HISTORY.md).
        "zoom_below": 22.0,
        "zoom_target": 40.0,
        "zoom_tiles": 4,
        "zoom_min_gain": 2.0,
        "zoom_floor": 0.25,
        "zoom_margin": 3.0,
        # A first look that finds no index at all sees the whole photo again in 4 tiles, about
        # twice as closely, and places the closer look with what that finds (chosen on
        # datasets/far-small, far shots with 25-60 px indices: card recall 0.82 -> 0.89;
        # 9 tiles 0.90 for 50 % more looks; scripts/sweep_closer_look.py, models/HISTORY.md).
        "zoom_blind_tiles": 4,
        # A photo whose first look finds no sure index is also looked at three times smaller:
        # a close-up of one card has indices larger than the detector was taught (the real
        # photos' single indices enlarged to 150 / 180 / 250 px at the input: found 0.27 /
        # 0.12 / 0.01 -> 0.93 / 0.96 / 0.97; 2x: 0.64 / 0.79 / 0.52; the close-up run,
        # models/HISTORY.md).
        "step_back": 3.0,
        # A photo whose white needs a channel gain of 1.5 or more (a warm lamp, a dim room)
        # has its channels scaled to make the cards' white white, by at most 3 (chosen with
        # scripts/sweep_light.py: real photos every 3rd made very warm / dim / dark, cards
        # found 204 / 218 / 171 -> 224 / 226 / 216 of 226; the real photos as taken and the
        # held-out scenes of datasets/onze960, onze320 and far-tune read exactly as before).
        "balance_from": 1.5,
        "balance_max_gain": 3.0,
        # A photo whose indices the blur gauge (blur_gauge.onnx) reads smeared by 0.08 of an
        # index or more (their median) is reported blurred. Chosen with
        # scripts/sweep_blur_warning.py on the 242 real photos outside evaluate's conditions
        # sample, by a rule set before the sweep: the lowest threshold warning at most 1 in 50
        # of them as taken (0.012; 0.07: 0.021). Their shaken copies (a 1.8 % smear) are warned
        # 0.955, and every card those lost lies on a photo warned; 0 of the sharp held-out
        # scenes of datasets/onze960 and far-tune are warned.
        "blur_warn_from": 0.08,
        "center_offset": [offset["a"], offset["b"]],
        # Two corners of one card see each other on the card's diagonal (the direction of
        # center_offset) within this many degrees, 1-12 index sizes apart (pair_distance): on the true
        # boxes 0.999 of training-design cards and 0.996 of held-out ones group right. 20,
        # not 15: a photo taken from lower down bends the diagonal (real photos with their
        # far edge at half the near one: cards read twice 15 -> 2 of 226; the true boxes of
        # 3,000 training scenes: 1 false pair more).
        "pair_max_angle": 20.0,
        # A card's two corners read opposite ways: their ways down differ by 120 degrees or more.
        "pair_max_dot": -0.5,
        # Two corners on one diagonal are read together as one card when the chance that their
        # readings name the same code is 0.05 or more; lower, they are two cards that merely
        # lie on a diagonal.
        "pair_min_agreement": 0.05,
        # Decks with an index in all four corners: top right pairs with bottom left on the
        # other diagonal, and the indices of one side join (straight down or straight across
        # from each other, within 20 degrees; across only in a photo where a four-corner card
        # showed). The two sides' indices of jumbo designs lie 1.1 index sizes apart, hence
        # 1.0. Chosen on datasets/four-tune960 (cards counted once: precision 0.58 -> 0.91;
        # 12 degrees 0.85, 25 degrees 0.93 with a card lost on datasets/onze960) with no card
        # changed on the two-corner tuning sets; models/HISTORY.md.
        "four_corners": True,
        "side_max_angle": 20.0,
        # Links join cheapest first, a link costing its angle's miss plus 0.1 per index size
        # its indices lie apart: of two as straight, the nearer (two cards of one rank side
        # by side). On the true boxes, cards grouped wrong: datasets/four-tune960 74 -> 26
        # (with the photo's links formed again at once, corner_grouping), onze960 4 -> 2,
        # onze320 2 -> 0, onze3 10 -> 2; 0.03-0.125 alike, 0.25 and up lose four-corner cards.
        "link_distance_cost": 0.1,
        # Where a photo shows such a deck (or the player says so), the detector looks at it
        # mirrored too: taught top-left and bottom-right indices, it located 0.667 / 0.756 of
        # the top-right / bottom-left ones whose rank shows, mirrored 0.969 / 0.976
        # (four-tune960 mAP50 0.8775 -> 0.9056; models/HISTORY.md).
        "mirrored_look": True,
        # A Joker's probability is weighed three times against the other codes' before an
        # index is named, once per card: on a design not taught, its mark reads low even where
        # it is the best reading (held-out Jokers read right 0.42 -> 0.50 at 320 px, 0.48 ->
        # 0.68 at 960 px; one more invented card in the 363 real photos; models/HISTORY.md).
        "code_weights": {"JK": 3.0},
        # An index read a Joker at 0.6 or more is offered as possibly missed down to a detector
        # score of 0.05, not maybe_conf's 0.3: the detector scores marks it was not taught low
        # (tigullio's ringed star). Chosen on the tuning sets (scripts/compare_models.py):
        # joker-tune960 card recall with the offers taken 0.900 -> 0.910, onze320 0.879 ->
        # 0.884, the rest unchanged; offers on no card of the real photos 0.022 -> 0.036 a
        # photo (0.02 and 0.5: 0.917, and 0.072 a photo; models/HISTORY.md).
        "maybe_floors": {"JK": [0.05, 0.6]},
        # A photo reported blurred is read again with the straight shake its cepstrum shows
        # undone, kept where its cards read surer: real photos shaken straight, cards found
        # 0.810 -> 0.991; out of focus 0.987 -> 0.996; shaken on a curved path 0.929 -> 0.925;
        # as taken unchanged (the shake and close-up run, models/HISTORY.md).
        "undo_shake": True,
        # A photo whose cards read under 0.7 on average, that reads none, or that shows a
        # four-corner deck no one said (a two-corner deck in a mirror shows its indices in the
        # other corners) is read again mirrored left to right, and that reading kept where its
        # cards read surer, each counted once per corner paired: a selfie camera or a webcam
        # may save what it shows mirrored. Chosen on the real photos the conditions do not use
        # (every 3rd from the 2nd): 119 of 121 mirrored copies flipped, and
        # none of the 1,210 other changed copies; 1 of 121 as taken read twice, and of the
        # far shots 23 of 80 (the weakest card under 0.75 instead: 49; models/HISTORY.md).
        "mirror_below": 0.7,
        # A card read a Joker under 0.6 is flagged to check: a Jack's J cut from its suit
        # reads as one, and a Joker counts 20-30 points.
        "check_floors": {"JK": 0.6},
        # An index at least this alike to a game's own Joker, shown once, is read as one: on the
        # cached features of joker-look960, with one other scene's Jokers, 0.85 read 60 -> 88
        # and 233 -> 240 Joker boxes of two unseen designs with none read otherwise, where 0.8
        # put Jokers on 11 boxes of no index (models/HISTORY.md, the deck's-own-Joker run).
        "joker_like_min": 0.85,
        "pair_distance": [1.0, 12.0],
        "center_spread_p90": offset["spread_p90"],
        "classes": "onze_vision.synth.codes.CARD_CODES + ['none']",
        **(extra or {}),
    }
    (out_dir / "detector.json").write_text(json.dumps(config, indent=2) + "\n")
    return config


def _cached(cache: Path, stamp: str, compute):
    """The crop set saved at ``cache`` when it was made from the same inputs (``stamp``), else ``compute()`` saved there."""
    from onze_vision.training.crops import CropSet

    if cache.exists():
        data = np.load(cache)
        if str(data["stamp"]) == stamp:
            return CropSet(data["images"], data["rank"], data["suit"], data["down"])
    crops = compute()
    np.savez(cache, images=crops.images, rank=crops.rank, suit=crops.suit, down=crops.down, stamp=np.array(stamp))
    return crops


def _dataset_stamp(dataset: Path) -> str:
    """What tells one cutting of ``dataset``'s crops from another: how crops are cut, and the
    dataset's summary (recipe, counts, time)."""
    from onze_vision.indexcrop import CUT_VERSION

    summary = (dataset / "summary.json").read_text() if (dataset / "summary.json").exists() else ""
    return f"cut {CUT_VERSION}:{summary}"


def cached_crops(dataset: Path, split: str, runs: Path, seed: int):
    """Cut a split's classifier crops once; later runs read them back (minutes saved)."""
    from onze_vision.training.crops import build_crops

    stamp = _dataset_stamp(dataset)
    return _cached(runs / f"crops_{dataset.name}_{split}.npz", stamp, lambda: build_crops(dataset, split, seed=seed))


def mined_crops(dataset: Path, model_dir: Path, runs: Path, scenes: int):
    """Crops around the boxes ``model_dir``'s detector finds on training scenes (cached).

    The detector reads each scene exactly as the runtime reads a photo (letterboxed to
    its input size), at a score threshold below the runtime's, so the crops cover the
    boxes that decide an operating point. Only ``index_detector.onnx`` (and
    ``detector.json`` when present) is needed.
    """
    from onze_vision.detector import CONFIG_FILE, DETECTOR_FILE, DetectorConfig, IndexDetector
    from onze_vision.training.crops import mine_detector_crops

    detector_file = model_dir / DETECTOR_FILE
    if not detector_file.exists():
        raise FileNotFoundError(f"--mine-with {model_dir}: no {DETECTOR_FILE} there")
    # The detector and the scenes it mined: a dataset made again under the same name (a warm
    # GPU machine's datasets/gpu with other SCENES) is mined again, not read back.
    stamp = f"{detector_file.stat().st_mtime_ns}:{detector_file.stat().st_size}:{_dataset_stamp(dataset)}"

    def mine():
        detector = IndexDetector(detector_file)
        config = DetectorConfig.from_json(model_dir / CONFIG_FILE)
        floor = min(MINING_CONF, config.conf_threshold)

        def locate(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            boxes = detector.locate(image, floor, config.iou_threshold)
            return boxes.xyxy, boxes.confidence

        return mine_detector_crops(dataset, "train", locate, limit=scenes)

    return _cached(runs / f"mined_{dataset.name}_{scenes}.npz", stamp, mine)


def concat_crops(sets: list):
    """One crop set from several."""
    from onze_vision.training.crops import CropSet

    return CropSet(*(np.concatenate([getattr(s, f) for s in sets]) for f in ("images", "rank", "suit", "down")))


def classifier_crops(args: argparse.Namespace, dataset: Path, runs: Path):
    """The classifier's (train, val) crops: cut from ``dataset`` and any ``--classifier-data``, plus
    those on the ``--mine-with`` detector's boxes; each set cached under ``runs``.

    Raises:
        FileNotFoundError: ``--mine-with`` names a folder without a detector.
    """
    from onze_vision.training.crops import NONE_RANK

    sets = [dataset, *(Path(p) for p in getattr(args, "classifier_data", []) or [])]
    train = concat_crops([cached_crops(d, "train", runs, seed=0) for d in sets])
    mine_with = getattr(args, "mine_with", None)
    if mine_with:
        mined = mined_crops(dataset, Path(mine_with), runs, getattr(args, "mine_scenes", 4000))
        print(f"crops on the detector's own boxes: {len(mined)} "
              f"({int((mined.rank == NONE_RANK).sum())} hard negatives)", flush=True)
        train = concat_crops([train, mined])
    val = concat_crops([cached_crops(d, "val", runs, seed=1) for d in sets])
    print(f"classifier crops: {len(train)} train, {len(val)} val (held-out decks)", flush=True)
    return train, val


def train_gauge(args: argparse.Namespace, dataset: Path, runs: Path, out_dir: Path) -> dict[str, float]:
    """Train the blur gauge on the dataset's training scenes and export it beside the others."""
    import torch

    from onze_vision.training.blur_gauge import (
        evaluate_gauge, export_blur_gauge, gauge_crops, save_blur_gauge, train_blur_gauge,
    )

    torch.set_num_threads(os.cpu_count() or 1)
    seed = getattr(args, "classifier_seed", 0)
    crops, smear = gauge_crops(dataset, "train", seed=seed, limit=getattr(args, "gauge_scenes", 3000))
    val_crops, val_smear = gauge_crops(dataset, "val", seed=seed + 1)
    print(f"blur gauge: {len(crops)} training crops, {len(val_crops)} held-out", flush=True)
    model = train_blur_gauge(crops, smear, getattr(args, "gauge_minutes", 12.0), seed=seed,
                             log=lambda m: print(m, flush=True))
    metrics = evaluate_gauge(model, val_crops, val_smear)
    print(f"blur gauge on held-out decks: {metrics}", flush=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    save_blur_gauge(model, runs / "blur_gauge.pt")
    export_blur_gauge(model, out_dir / "blur_gauge.onnx")
    (runs / "blur_gauge_metrics.json").write_text(json.dumps(metrics, indent=2))
    return metrics


def train_all(args: argparse.Namespace) -> int:
    """Run the stages asked for; return the exit status.

    ``crops`` cuts and caches the classifier's crops and trains nothing: on a lent GPU the
    minutes that cutting and mining take are then known before the training budget is set.
    """
    dataset = Path(args.data)
    out_dir = Path(args.out)
    if not (dataset / "data.yaml").exists():
        print(f"onze-vision train: no dataset at {dataset} (run onze-vision make-dataset first)", file=sys.stderr)
        return 2
    runs = Path(args.runs)
    runs.mkdir(parents=True, exist_ok=True)
    if args.stage in ("all", "detector"):
        checkpoint = train_detector(args)
        export_detector(checkpoint, out_dir)
    if args.stage in ("all", "classifier", "crops"):
        import torch

        from onze_vision.training.classifier import (
            evaluate_classifier, export_classifier, join_shares, load_classifier_ensemble, save_classifier, torch_device,
            train_classifier, without_newest,
        )

        try:  # before minutes of cutting crops: a device this machine lacks is refused at once
            device = torch_device(getattr(args, "device", "cpu") if args.stage != "crops" else "cpu")
        except ValueError as error:
            print(f"onze-vision train: {error}", file=sys.stderr)
            return 2
        torch.set_num_threads(os.cpu_count() or 1)
        try:
            train, val = classifier_crops(args, dataset, runs)
        except FileNotFoundError as error:
            print(f"onze-vision train: {error} (train the detector first, or name a models folder)", file=sys.stderr)
            return 2
        if args.stage == "crops":
            return 0
        init = getattr(args, "classifier_init", None)
        model = train_classifier(train, val, args.classifier_minutes, runs / "classifier.pt",
                                 batch=getattr(args, "classifier_batch", 128), lr=getattr(args, "classifier_lr", 3e-3),
                                 seed=getattr(args, "classifier_seed", 0),
                                 log=lambda m: print(m, flush=True), init=Path(init) if init else None,
                                 widen=getattr(args, "classifier_widen", None),
                                 width=getattr(args, "classifier_width", 32), device=device)
        # The trained model's figures, or an ensemble's with the trained member's inside.
        metrics: Mapping[str, object] = evaluate_classifier(model, val)
        print(f"classifier on held-out decks: {metrics}", flush=True)
        ensemble_with = getattr(args, "ensemble_with", None)
        members, shares = [model], [1.0]
        if ensemble_with:
            named, named_shares = load_classifier_ensemble(Path(ensemble_with))
            share = getattr(args, "member_share", None)
            if getattr(args, "replace_newest", False):
                # A continued member takes its earlier self's place, and its share unless told.
                named, named_shares, replaced_share = without_newest(named, named_shares)
                share = replaced_share if share is None else share
            # The trained member's share of the vote: as one more equal member unless told.
            members, shares = [*named, model], join_shares(named_shares, share)
        if len(members) > 1:
            metrics = {"trained": metrics, "ensemble": evaluate_classifier(members, val, shares=shares),
                       "members": len(members), "shares": shares}
            print(f"ensemble of {len(members)} (shares {', '.join(f'{w:.3f}' for w in shares)}) on held-out decks: "
                  f"{metrics['ensemble']}", flush=True)
        out_dir.mkdir(parents=True, exist_ok=True)
        export_classifier(members, out_dir / "index_classifier.onnx", shares=shares)
        save_classifier(members, out_dir / "index_classifier.pt", shares=shares)  # to continue training from
        (runs / "classifier_metrics.json").write_text(json.dumps(metrics, indent=2))
    if args.stage == "blur-gauge":  # changes no runtime constant: detector.json is left alone
        train_gauge(args, dataset, runs, out_dir)
        return 0
    if args.stage == "export":
        last = runs / "detector" / "weights" / "last.pt"
        if not last.is_file():  # Ultralytics would look a missing checkpoint up on the network
            print(f"onze-vision train: --stage export: no detector run in {runs} (no {last.relative_to(runs)}); "
                  "train one with --stage detector, or name the --runs that holds it", file=sys.stderr)
            return 2
        export_detector(last, out_dir)
    if args.stage == "classifier" and (out_dir / "detector.json").is_file():
        # A classifier changes none of its constants, and the operating point chosen there
        # (scripts/sweep_thresholds.py --write) must not be written over by the defaults.
        print(f"{out_dir / 'detector.json'} kept as it is", flush=True)
    else:
        write_detector_json(out_dir, dataset)
    print(f"models written to {out_dir}: read photos with them with onze-vision detect --models {out_dir} PHOTO",
          flush=True)
    if not (out_dir / GAUGE_FILE).exists():
        # The gauge trains apart (--stage blur-gauge); without one nothing is reported blurred.
        print(f"{out_dir} has no {GAUGE_FILE}: copy models/{GAUGE_FILE} there, or train one with --stage "
              "blur-gauge, for photos too blurred to trust to be reported", flush=True)
    return 0
