"""``onze-vision make-dataset`` and ``onze-vision train``: the detector's recipe."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from onze_vision.commands.checks import (
    above,
    at_least,
    first,
    refuse,
    share,
    train_extra_problem,
    writable_folder,
)
from onze_vision.detector_config import DETECTOR_FILE  # light: loads no model
from onze_vision.places import in_checkout, project_dir

if TYPE_CHECKING:
    from onze_vision.training.classifier import IndexClassifier

#: Where datasets/ and runs/ are by default: the checkout; an installed package's is the
#: current folder (site-packages is no place for gigabytes a reinstall would delete).
REPO = project_dir()
#: How the help texts say where that is.
WHERE = "in the checkout" if in_checkout() else "in the current folder"


def _make_dataset(args: argparse.Namespace) -> int:
    from onze_vision.synth.art import ArtNotInstalledError
    from onze_vision.synth.dataset import WorkerDiedError, deck_names, make_dataset
    from onze_vision.synth.printed import PrintFontNotInstalledError

    problem = _dataset_args_problem(args)
    if problem:
        return refuse("make-dataset", problem)
    out = Path(args.out)
    if args.overwrite:
        remove_dataset_files(out)

    try:
        summary = make_dataset(
            out,
            train_images=args.train,
            val_images=args.val,
            seed=args.seed,
            image_size=args.size,
            workers=args.workers,
            index_px=tuple(args.index_px),
            val_decks=deck_names(args.val_designs),
            printed_share=args.printed,
            blurred_share=args.blurred,
            four_corner_share=args.four_corners,
            joker_share=args.jokers,
            number_decks=args.number_decks,
            glyph_decks=args.glyph_decks,
        )
    except (ArtNotInstalledError, PrintFontNotInstalledError, WorkerDiedError) as error:
        print(f"onze-vision make-dataset: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"onze-vision make-dataset: cannot write the dataset in '{out}': {error.strerror or error}",
              file=sys.stderr)
        return 2
    print(json.dumps(summary.__dict__, indent=2))
    return 0


# What make-dataset writes in its folder; --overwrite removes these and nothing else.
DATASET_FILES = ("images", "labels", "meta", "data.yaml", "summary.json", "contact_sheet_train.png",
                 "contact_sheet_val.png")


def remove_dataset_files(out: Path) -> None:
    """Remove an earlier dataset from ``out`` (a new one with fewer scenes would leave its extras)."""
    import shutil

    for name in DATASET_FILES:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


# A card must fit whole in a scene with room around it.
MIN_SCENE_PX = 64


def _dataset_args_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with make-dataset's options, quoting the value; None when they make sense."""
    import math

    low, high = args.index_px
    if not str(args.out).strip():
        return "--out is empty: name the dataset's folder, e.g. datasets/onze"
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        return f"--out '{out}' is a file, not a folder"
    if out.is_dir() and any(out.iterdir()) and not args.overwrite:
        return (f"'{out}' already holds files: a new dataset there would mix with them. Choose another "
                f"--out, or pass --overwrite to replace the dataset in it")
    if args.train < 0 or args.val < 0:
        return f"--train {args.train} --val {args.val}: scene counts are 0 or more"
    if args.train + args.val == 0:
        return "--train 0 --val 0 makes no scene"
    if seed := at_least("--seed", args.seed, 0, "numpy's generators take no negative seed"):
        return seed
    if args.size < MIN_SCENE_PX:
        return f"--size {args.size}: scenes are at least {MIN_SCENE_PX} pixels"
    if args.workers is not None and args.workers < 1:
        return f"--workers {args.workers}: at least 1 process"
    if not (math.isfinite(low) and math.isfinite(high) and 0 < low <= high < args.size):
        return (f"--index-px {low:g} {high:g}: the index heights need 0 < MIN <= MAX < the scene size "
                f"({args.size})")
    for option, part in (("--printed", args.printed), ("--blurred", args.blurred),
                         ("--four-corners", args.four_corners), ("--jokers", args.jokers)):
        if not 0.0 <= part <= 1.0:
            return f"{option} is a share of scenes from 0 to 1, not {part:g}"
    return None


#: The detector's largest stride: its input side is a multiple of it.
DETECTOR_STRIDE = 32

# --device forms both stages take (Ultralytics for the detector, torch_device for the
# classifier); a list of CUDA indices trains the detector on several GPUs, never the classifier.
DEVICE_FORMS = re.compile(r"cpu|mps|cuda(:\d+)?|\d+(,\d+)*")
DEVICE_NAMES = "cpu, a CUDA index such as 0 (0,1: the detector on two GPUs), cuda:N, or mps"
# Stages that train on --device: crops cut on the CPU, the blur gauge trains there, export trains nothing.
TRAINS_ON_DEVICE = ("all", "detector", "classifier")
# Stages that read the classifier options (--classifier-init, --ensemble-with).
TRAINS_CLASSIFIER = ("all", "classifier")


def _train_args_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with train's options, quoting the value; None when they make sense.

    Checked before anything is written or trained: Ultralytics would refuse some of these
    only with a traceback, and the classifier's files would be read after the detector's hours.
    """
    numbers = first(
        at_least("--epochs", args.epochs, 1),
        above("--hours", args.hours, 0, "hours of detector training"),
        at_least("--imgsz", args.imgsz, DETECTOR_STRIDE, "pixels: one stride of the detector"),
        at_least("--batch", args.batch, 1, "images per step"),
        at_least("--workers", args.workers, 0, "0 loads the images in the training process"),
        share("--fraction", args.fraction, "the share of the training images used"),
        at_least("--mine-scenes", args.mine_scenes, 1),
        at_least("--classifier-minutes", args.classifier_minutes, 0, "0 ships --classifier-init as it is"),
        at_least("--classifier-width", args.classifier_width, 2, "its first stage has W/2 channels"),
        at_least("--classifier-batch", args.classifier_batch, 1, "crops per step"),
        above("--classifier-lr", args.classifier_lr, 0),
        at_least("--classifier-seed", args.classifier_seed, 0),
        above("--gauge-minutes", args.gauge_minutes, 0),
        at_least("--gauge-scenes", args.gauge_scenes, 1),
        at_least("--classifier-widen", args.classifier_widen, 1),
        at_least("--freeze", args.freeze, 1, "layers"),
        above("--lr0", args.lr0, 0),
    )
    if numbers:
        return numbers
    if args.imgsz % DETECTOR_STRIDE:
        # Ultralytics would round it up with a warning and train at another size than asked.
        return f"--imgsz {args.imgsz}: must be a multiple of {DETECTOR_STRIDE} (the detector's stride)"
    if args.stage in TRAINS_CLASSIFIER and args.classifier_minutes == 0 and args.classifier_init is None:
        return ("--classifier-minutes 0 ships --classifier-init as it is, and none is given: "
                "an untrained classifier would be shipped")
    member_share = getattr(args, "member_share", None)
    if member_share is not None and not 0.0 < member_share < 1.0:   # False for NaN
        return (f"--member-share {member_share:g}: must be above 0 and below 1 (at 1 the members of "
                f"--ensemble-with would have no vote: leave --ensemble-with out to ship the trained one alone)")
    if member_share is not None and args.ensemble_with is None:
        return f"--member-share {member_share:g}: a share of an ensemble's vote, and no --ensemble-with names the rest"
    if getattr(args, "replace_newest", False) and args.ensemble_with is None:
        return "--replace-newest: replaces the newest member of an ensemble, and no --ensemble-with names one"
    if mining := _mine_with_problem(args):
        return mining
    last = Path(args.runs) / "detector" / "weights" / "last.pt"
    if args.resume and args.stage in ("all", "detector") and not last.is_file():
        # Ultralytics would start over from the yaml without a word: hours spent not resuming.
        return f"--resume: no run to resume in --runs '{args.runs}' (no {last.relative_to(args.runs)})"
    for option, folders in (("--detector-data", args.detector_data), ("--classifier-data", args.classifier_data)):
        for folder in folders:
            if not (Path(folder) / "data.yaml").is_file():
                return f"{option} '{folder}': no dataset there (no data.yaml; run onze-vision make-dataset first)"
    return first(
        writable_folder("--out", Path(args.out)),
        writable_folder("--runs", Path(args.runs)),
        _device_problem(args.device, args.stage),
        _weights_problem(args.weights),
        _classifier_files_problem(args),
    )


def _mine_with_problem(args: argparse.Namespace) -> str | None:
    """--mine-with names a detector: checked now, not after the detector has trained and been
    exported into --out. It may be --out itself when this run trains the detector that writes
    it there."""
    if args.mine_with is None or args.stage not in ("all", "classifier", "crops"):
        return None
    folder = Path(args.mine_with)
    if (folder / DETECTOR_FILE).is_file():
        return None
    if args.stage == "all" and folder.resolve() == Path(args.out).resolve():
        return None
    return f"--mine-with '{folder}': no {DETECTOR_FILE} there (a models folder, e.g. models)"


def _device_problem(device: str, stage: str) -> str | None:
    """A --device of a form neither stage takes, or one this machine lacks for the stage that uses it."""
    text = device.strip()
    if not DEVICE_FORMS.fullmatch(text):
        return f"--device '{device}' is not a device: use {DEVICE_NAMES}"
    indices = [int(index) for index in re.findall(r"\d+", text)]
    if len(indices) > 1 and stage in TRAINS_CLASSIFIER:
        return (f"--device '{device}': the classifier trains on one device; name one (e.g. {indices[0]}), "
                f"or train the detector alone on several (--stage detector)")
    if stage not in TRAINS_ON_DEVICE or text == "cpu":
        return None
    try:
        import torch
    except ImportError:   # train says itself that it needs the train extra
        return None
    if text == "mps":
        has_mps = torch.backends.mps.is_available()
        return None if has_mps else f"--device '{device}' asks for MPS, and this machine's PyTorch has none"
    if not torch.cuda.is_available():
        return f"--device '{device}' asks for CUDA, and this machine's PyTorch sees no CUDA GPU"
    count = torch.cuda.device_count()
    if any(index >= count for index in indices):
        return (f"--device '{device}': this machine has {count} CUDA GPU{'' if count == 1 else 's'} "
                f"(0 to {count - 1})")
    return None


def _first_line(error: Exception, path: Path) -> str:
    """An exception's message on one line, short (a state dict's mismatch lists every key),
    saying "it" for ``path`` (the message around it quotes it already)."""
    lines = str(error).strip().splitlines()
    text = lines[0].strip() if lines else type(error).__name__
    text = re.sub(r"^ERROR[^\w/.'\"]*", "", text).replace(f"'{path}'", "it").replace(str(path), "it")
    return text if len(text) <= 160 else text[:157] + "..."


def _weights_problem(weights: str | None) -> str | None:
    """--weights is a detector checkpoint Ultralytics loads (checked now, not after the dataset is cached)."""
    if weights is None:
        return None
    path = Path(weights)
    if not path.is_file():
        return f"--weights '{weights}': no such file"
    if path.suffix != ".pt":   # Ultralytics would look a name it does not know up on the network
        return (f"'{weights}' is not a detector checkpoint (a .pt a detector run saved, "
                f"e.g. runs/detector/weights/last.pt)")
    from onze_vision.training.recipe import _quiet_ultralytics

    _quiet_ultralytics()   # offline, as training loads it
    try:
        from ultralytics import YOLO

        YOLO(str(path))
    except ImportError:
        return None
    except Exception as error:   # what a wrong file raises is as varied as what it holds
        return f"'{weights}' is not a detector checkpoint ({_first_line(error, path)})"
    return None


def _classifier_files_problem(args: argparse.Namespace) -> str | None:
    """--classifier-init and --ensemble-with load as classifiers, and --classifier-widen widens.

    A wrong file here would otherwise surface as an unpickler's KeyError after the crops
    were cut (and, with --ensemble-with, after the classifier had trained).
    """
    init, ensemble = args.classifier_init, args.ensemble_with
    if args.stage not in TRAINS_CLASSIFIER or (init is None and ensemble is None and args.classifier_widen is None):
        return None
    try:
        import torch  # noqa: F401  (the classifier's module needs it)
    except ImportError:   # train says itself that it needs the train extra
        return None
    top = args.classifier_width * 4   # a fresh network's last stage
    for option, path in (("--classifier-init", init), ("--ensemble-with", ensemble)):
        if path is None:
            continue
        members = _load_classifier_members(option, Path(path), onnx=option == "--classifier-init")
        if isinstance(members, str):
            return members
        if option == "--ensemble-with" and getattr(args, "replace_newest", False) and len(members) < 2:
            return (f"--replace-newest: '{path}' holds {len(members)} classifier, and replacing it leaves no "
                    f"ensemble (leave --ensemble-with out to ship the trained one alone)")
        if option == "--classifier-init":
            top = members[-1].rank.in_features   # training continues the newest
    if args.classifier_widen is not None and args.classifier_widen < top:
        return (f"--classifier-widen {args.classifier_widen}: the network's last stage already has {top} "
                f"channels, and widening cannot narrow it")
    return None


def _load_classifier_members(option: str, path: Path, onnx: bool) -> list[IndexClassifier] | str:
    """The classifiers ``path`` holds (an ensemble's members, newest last), as training will
    load them; else the problem, quoting the path."""
    import numpy as np
    import torch

    from onze_vision.indexcrop import CROP_SIZE
    from onze_vision.training.classifier import load_classifier, load_classifier_members
    from onze_vision.training.crops import CropSet

    if not path.is_file():
        return f"{option} '{path}': no such file"
    kinds = "a .pt state dict or its ONNX export" if onnx else "a .pt state dict"
    try:
        if onnx and path.suffix == ".onnx":
            # An export's batch norms are re-made from crops' statistics: any crops test the file.
            pixels = np.random.default_rng(0).integers(0, 256, (8, CROP_SIZE, CROP_SIZE, 3), dtype=np.uint8)
            stand_in = CropSet(pixels, np.zeros(8, np.int64), np.zeros(8, np.int64), np.zeros((8, 2), np.float32))
            return [load_classifier(path, stand_in)]
        try:
            torch.load(path, map_location="cpu")
        except Exception:   # an unpickler fails on a non-checkpoint with anything from KeyError on
            return f"'{path}' is not a classifier checkpoint (PyTorch cannot read it; {option} takes {kinds})"
        return load_classifier_members(path)
    except Exception as error:
        return f"'{path}' is not a classifier checkpoint ({_first_line(error, path)})"


#: What each --stage imports: without one (the runtime install has none), the stage is refused
#: at once with the command that installs them, not with a traceback (after the crops were cut).
STAGE_MODULES = {
    "all": ("torch", "torchvision", "ultralytics", "onnx"),
    "detector": ("torch", "torchvision", "ultralytics", "onnx"),
    "classifier": ("torch", "onnx"),
    "crops": ("torch",),
    "blur-gauge": ("torch", "onnx"),
    "export": ("torch", "ultralytics", "onnx"),
}


def _train(args: argparse.Namespace) -> int:
    """Train what --stage asks for; 2 with the reason when an option makes no sense or the
    train extra is not installed."""
    problem = _train_args_problem(args) or train_extra_problem("training", STAGE_MODULES[args.stage])
    if problem:
        return refuse("train", problem)
    from onze_vision.training.recipe import train_all

    return train_all(args)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``make-dataset`` and ``train``."""
    fmt = argparse.RawDescriptionHelpFormatter
    make = subparsers.add_parser(
        "make-dataset",
        help="render synthetic training photos of Onze hands",
        description="Render an Ultralytics-format dataset of synthetic Onze scenes from installed card art.\n\n"
        "The first run renders every deck design once (about 900 MB, a few minutes) into the art cache,\n"
        "datasets/art/ in a checkout (~/.cache/onze-vision/art/ for an installed package), not under\n"
        "--out; later runs read it. The dataset's summary is printed as JSON.",
        epilog="example:\n  onze-vision make-dataset --out datasets/onze --train 12000 --val 600 --seed 0",
        formatter_class=fmt,
    )
    make.add_argument("--out", default=str(REPO / "datasets" / "onze"), help=f"output folder (default: datasets/onze {WHERE})")
    make.add_argument("--train", type=int, default=12000, help="training scenes (default 12000)")
    make.add_argument("--val", type=int, default=600, help="validation scenes on held-out decks (default 600)")
    make.add_argument("--seed", type=int, default=0, help="recipe seed (default 0)")
    make.add_argument("--size", type=int, default=320, help="scene size in pixels (default 320)")
    make.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    make.add_argument("--index-px", type=float, nargs=2, default=[11.0, 60.0], metavar=("MIN", "MAX"),
                      help="corner-index height range in pixels, log-uniform (default 11 60; "
                           "close-ups for the classifier: 20 70)")
    make.add_argument("--val-designs", choices=("held-out", "training", "four-corner"), default="held-out",
                      help="designs of the validation scenes: the held-out ones (default); new scenes of "
                           "the training designs, to tell what unseen designs cost from what the scenes cost; "
                           "or held-out decks with an index in all four corners")
    make.add_argument("--overwrite", action="store_true",
                      help="replace a dataset already in --out (without it, a folder with files is refused)")
    make.add_argument("--printed", type=float, default=0.0, metavar="SHARE",
                      help="share of scenes with print on the table (score sheets, labels, books), never "
                           "labelled: negatives for the classifier (default 0: the scenes drawn before print)")
    make.add_argument("--blurred", type=float, default=0.0, metavar="SHARE",
                      help="share of scenes blurred after drawing, labels kept: shaken (a smear of 0.08-0.4 index "
                           "heights) or out of focus (sigma 0.03-0.1 index heights) (default 0: the scenes drawn "
                           "before blur)")
    make.add_argument("--four-corners", type=float, default=0.0, metavar="SHARE",
                      help="share of scenes whose decks have their index copied into all four corners, as "
                           "Copag-style decks print it (default 0: the scenes drawn before four-corner decks)")
    make.add_argument("--jokers", type=float, default=0.0, metavar="SHARE",
                      help="share of scenes with one to three Jokers dealt in, where the deck has one: two in 108 "
                           "cards are too few to learn their marks from (default 0: the scenes drawn before)")
    make.add_argument("--number-decks", action="store_true",
                      help="training scenes also draw on the decks whose courts are lettered in another language "
                           "(the 'numbers' split of onze_vision/synth/art.py, listed in datasets/README.md): their "
                           "number cards, English Aces and Jokers (default: the scenes drawn before they were listed)")
    make.add_argument("--glyph-decks", action="store_true",
                      help="training scenes also draw on the decks of typefaces' playing-card glyphs (the 'glyphs' "
                           "split: Symbola, Noto Sans Symbols2; fonts-symbola, fonts-noto-core) (default: the scenes "
                           "drawn before they were listed)")
    make.set_defaults(handler=_make_dataset)

    train = subparsers.add_parser(
        "train",
        help="train the corner-index detector and the index classifier",
        description=(
            "Train the one-class corner-index YOLO detector (Ultralytics, from yolo11n.yaml) and the\n"
            "index classifier (PyTorch) on a generated dataset, then export both to ONNX in runs/ship/\n"
            "(--out models ships them in place of the shipped ones)."
        ),
        epilog=(
            "examples:\n  onze-vision train --data datasets/onze --epochs 6\n"
            "  onze-vision train --data datasets/onze --device 0 --epochs 60 --batch 64   # on a GPU\n"
            "  onze-vision train --data datasets/onze --stage classifier --device 0 --classifier-width 64 \\\n"
            "      --classifier-batch 1024 --classifier-minutes 8   # a wider classifier from scratch on a GPU"
        ),
        formatter_class=fmt,
    )
    train.add_argument("--data", default=str(REPO / "datasets" / "onze"),
                       help=f"dataset folder from make-dataset (default: datasets/onze {WHERE})")
    train.add_argument("--out", default=str(REPO / "runs" / "ship"),
                       help=f"where the trained models go (default: runs/ship/ {WHERE}; --out models "
                            "replaces the shipped ones, which a run left to its default never touches)")
    train.add_argument("--runs", default=str(REPO / "runs"),
                       help=f"training runs and checkpoints (default: runs/ {WHERE})")
    train.add_argument("--stage", choices=("all", "detector", "classifier", "crops", "blur-gauge", "export"),
                       default="all",
                       help="what to run (default all); crops cuts and caches the classifier's crops under "
                            "--runs and trains nothing; blur-gauge trains the network that warns of a "
                            "blurred photo (not part of all)")
    train.add_argument("--epochs", type=int, default=6, help="detector epochs (default 6)")
    train.add_argument("--hours", type=float, default=None,
                       help="train the detector for this long instead of --epochs (the LR schedule fits the time)")
    train.add_argument("--imgsz", type=int, default=320, help="detector training size (default 320)")
    train.add_argument("--batch", type=int, default=16, help="detector batch (default 16)")
    train.add_argument("--device", default="cpu",
                       help="where the detector and the classifier train: cpu or a CUDA device such as 0 (default cpu; "
                            "the blur gauge trains on the CPU)")
    train.add_argument("--workers", type=int, default=2, help="dataloader workers (default 2)")
    train.add_argument("--fraction", type=float, default=1.0, help="share of the training images to use (default 1.0)")
    train.add_argument("--detector-data", nargs="*", default=[], metavar="DIR",
                       help="more datasets whose scenes the detector also trains on (validation stays on --data)")
    train.add_argument("--classifier-data", nargs="*", default=[], metavar="DIR",
                       help="more datasets whose crops the classifier also learns from (e.g. close-ups)")
    train.add_argument("--mine-with", default=None, metavar="DIR",
                       help="models folder whose detector is run on training scenes: its boxes become "
                            "classifier crops (hard negatives where no index is)")
    train.add_argument("--mine-scenes", type=int, default=4000, help="training scenes to mine with --mine-with (default 4000)")
    train.add_argument("--classifier-minutes", type=float, default=12.0,
                       help="classifier training time budget in minutes (default 12)")
    train.add_argument("--classifier-width", type=int, default=32, metavar="W",
                       help="channels of a classifier trained from scratch (default 32; its later stages have "
                            "2W and 4W); one continued from --classifier-init keeps its own")
    train.add_argument("--classifier-batch", type=int, default=128, metavar="N",
                       help="crops per classifier step (default 128; a GPU wants 1024 or more)")
    train.add_argument("--classifier-lr", type=float, default=3e-3, metavar="LR",
                       help="the classifier's peak learning rate (AdamW, default 0.003)")
    train.add_argument("--classifier-seed", type=int, default=0,
                       help="seed of the classifier's crop sampling and augmentation (default 0); "
                            "a new seed makes an ensemble member that errs differently")
    train.add_argument("--gauge-minutes", type=float, default=12.0, metavar="MIN",
                       help="blur gauge training time budget (default 12)")
    train.add_argument("--gauge-scenes", type=int, default=3000, metavar="N",
                       help="training scenes the blur gauge's crops are cut from, each blurred 3 ways "
                            "(default 3000; --classifier-seed seeds its draws too)")
    train.add_argument("--resume", action="store_true", help="resume the detector from its last checkpoint")
    train.add_argument("--classifier-init", default=None, metavar="PT",
                       help="continue the classifier from a state dict (models/index_classifier.pt) or an ONNX export")
    train.add_argument("--classifier-widen", type=int, default=None, metavar="C",
                       help="grow the last stage of the --classifier-init network to C channels (4 x its width: 128 as shipped) "
                            "before training on, keeping what it computes")
    train.add_argument("--ensemble-with", default=None, metavar="PT",
                       help="ship the trained classifier averaged with the classifier(s) in this .pt "
                            "(one ONNX file; 0 --classifier-minutes ensembles --classifier-init as it is)")
    train.add_argument("--member-share", type=float, default=None, metavar="S",
                       help="the trained classifier's share of the --ensemble-with vote, between 0 and 1 "
                            "(default: an equal member's; the members named keep their shares among the rest)")
    train.add_argument("--replace-newest", action="store_true",
                       help="leave the newest (last) member of --ensemble-with out: the trained classifier, "
                            "a continuation of it, takes its place and, without --member-share, its share "
                            "of the vote")
    train.add_argument("--weights", default=None, metavar="PT",
                       help="start the detector from this checkpoint instead of yolo11n.yaml (fine-tuning)")
    train.add_argument("--freeze", type=int, default=None, metavar="N",
                       help="keep the detector's first N layers as they are (10: the backbone of yolo11n), "
                            "so a fine-tune teaches the neck and head and leaves what the backbone sees")
    train.add_argument("--lr0", type=float, default=None, metavar="LR",
                       help="the detector's AdamW learning rate (default: Ultralytics chooses the optimizer "
                            "and rate; a gentle fine-tune wants about 0.0005)")
    train.set_defaults(handler=_train)
