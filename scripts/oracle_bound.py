"""What would knowing the held-out designs give? An upper bound on the held-out figure.

The held-out mAP50 is measured on deck designs the classifier never saw. This script
separates the two things that could keep it under the bar: the unseen designs, or the
corners themselves (far indices, ranks half under another card). It continues the
shipped classifier's newest member on crops of the *held-out* designs, cut from scenes
other than the benchmark's (``make-dataset --train 0 --val N --seed S``: a seed other
than the benchmark's 0), and writes two model folders to evaluate like the shipped one:
``alone/`` (the oracle member) and ``with-shipped/`` (the shipped members plus it).

Never ship either: they have seen the held-out designs, so the held-out figure would
no longer measure anything. The run in ``models/HISTORY.md``:

    onze-vision make-dataset --out datasets/oracle960 --train 0 --val 1500 --seed 7 --size 960 --index-px 33 180
    onze-vision make-dataset --out datasets/oracle320 --train 0 --val 3000 --seed 8
    python scripts/oracle_bound.py --data datasets/oracle960 datasets/oracle320 --minutes 30 --out runs/oracle
    onze-vision evaluate --models runs/oracle/alone --speed-photos 0 --realphotos none --report-dir reports/oracle
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np

from onze_vision.detector import CLASSIFIER_FILE, CONFIG_FILE, DEFAULT_MODEL_DIR, DETECTOR_FILE
from onze_vision.training.crops import CropSet, build_crops

BENCHMARK_SEED = 0  # the seed of datasets/onze-val and onze-val960: never train on its scenes


def held_out_crops(datasets: list[Path], seed: int = 0) -> CropSet:
    """Jittered crops (and "none" negatives) of the held-out ``val`` split of each dataset.

    Raises:
        ValueError: A dataset was made with the benchmark's seed (its scenes are the
            benchmark's), or has no held-out scenes.
    """
    sets = []
    for number, root in enumerate(datasets):
        summary = json.loads((root / "summary.json").read_text())
        if summary.get("seed") == BENCHMARK_SEED:
            raise ValueError(f"'{root}' was made with seed {BENCHMARK_SEED}, the benchmark's: its held-out "
                             "scenes are the ones the bound is measured on; make one with another --seed")
        crops = build_crops(root, "val", seed=seed + number)
        if not len(crops):
            raise ValueError(f"'{root}' has no held-out scenes (make it with --val N)")
        sets.append(crops)
    return CropSet(*(np.concatenate([getattr(s, name) for s in sets]) for name in ("images", "rank", "suit", "down")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, nargs="+", required=True, metavar="DIR",
                        help="datasets of held-out-design scenes (make-dataset --train 0 --val N --seed S, S != 0)")
    parser.add_argument("--models", type=Path, default=DEFAULT_MODEL_DIR, help="the shipped models (default models/)")
    parser.add_argument("--minutes", type=float, default=30.0, help="training time budget (default 30)")
    parser.add_argument("--val-crops", type=int, default=3000, help="crops kept aside to follow training")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("runs/oracle"))
    args = parser.parse_args(argv)

    import torch

    from onze_vision.training.classifier import (
        evaluate_classifier, export_classifier, join_shares, load_classifier_ensemble, train_classifier,
    )

    torch.set_num_threads(2)
    crops = held_out_crops(args.data)
    order = np.random.default_rng(args.seed).permutation(len(crops))
    aside = min(args.val_crops, len(crops) // 10)

    def subset(rows: np.ndarray) -> CropSet:
        return CropSet(crops.images[rows], crops.rank[rows], crops.suit[rows], crops.down[rows])

    val, train = subset(order[:aside]), subset(order[aside:])
    shipped_pt = args.models / "index_classifier.pt"
    shipped, shipped_shares = load_classifier_ensemble(shipped_pt)
    print(f"{len(crops)} held-out-design crops; shipped classifier on {aside} of them: "
          f"{evaluate_classifier(shipped, val, shares=shipped_shares)}")
    args.out.mkdir(parents=True, exist_ok=True)
    oracle = train_classifier(train, val, args.minutes, args.out / "oracle_member.pt", seed=args.seed, init=shipped_pt)
    print(f"oracle member: {evaluate_classifier(oracle, val)}")
    # With the shipped members, the oracle votes as one more equal member; they keep their shares of the rest.
    for name, members, shares in (("alone", [oracle], None),
                                  ("with-shipped", [*shipped, oracle], join_shares(shipped_shares))):
        folder = args.out / name
        folder.mkdir(exist_ok=True)
        for file in (DETECTOR_FILE, CONFIG_FILE):
            shutil.copy(args.models / file, folder / file)
        export_classifier(members, folder / CLASSIFIER_FILE, shares=shares)
        print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
