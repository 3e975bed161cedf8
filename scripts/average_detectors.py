"""Average two detector checkpoints of one architecture, weight by weight, and export it.

A fine-tune that teaches the detector something new (shaken photos) also drifts on what
it knew (indices read at 960 px, far shots). The average of the weights before and after
(a "model soup", as in WiSE-FT) keeps much of both where the fine-tune started from the
other checkpoint. Batch-norm statistics are averaged with the weights.

    python scripts/average_detectors.py models/index_detector.pt runs/blurship/index_detector.pt \
        --weight 0.5 --out runs/soup
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

os.environ["YOLO_OFFLINE"] = "true"  # before ultralytics is imported: nothing is fetched ("1" is not honoured)


def average_checkpoints(first: Path, second: Path, weight: float, out: Path) -> Path:
    """Write ``(1 - weight) * first + weight * second`` as an Ultralytics checkpoint at ``out``."""
    import torch

    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the weight of the second checkpoint lies in [0, 1], not {weight!r}")
    base = torch.load(first, map_location="cpu", weights_only=False)
    other = torch.load(second, map_location="cpu", weights_only=False)
    states = base["model"].state_dict(), other["model"].state_dict()
    if states[0].keys() != states[1].keys() or any(states[0][k].shape != states[1][k].shape for k in states[0]):
        raise ValueError(f"'{first}' and '{second}' are not the same architecture")
    mixed = {key: (value.float() * (1 - weight) + states[1][key].float() * weight).to(value.dtype)
             if value.is_floating_point() else value for key, value in states[0].items()}
    base["model"].load_state_dict(mixed)
    base["ema"] = None
    base["train_args"] = {**(base.get("train_args") or {}), "averaged": f"{first} x{1 - weight:g} + {second} x{weight:g}"}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(base, out)
    return out


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=Path, help="checkpoint (e.g. the shipped models/index_detector.pt)")
    parser.add_argument("second", type=Path, help="checkpoint fine-tuned from the first")
    parser.add_argument("--weight", type=float, default=0.5, help="share of the second (default 0.5)")
    parser.add_argument("--out", type=Path, required=True,
                        help="folder for index_detector.onnx and .pt; the rest of the first's folder is copied beside")
    args = parser.parse_args(argv)
    for path in (args.first, args.second):
        if not path.is_file():
            parser.error(f"no checkpoint at '{path}'")
    from onze_vision.training.recipe import export_detector

    checkpoint = average_checkpoints(args.first, args.second, args.weight, args.out / "averaged" / "averaged.pt")
    export_detector(checkpoint, args.out)
    for file in args.first.parent.iterdir():  # the classifier and detector.json of the first's folder
        if file.is_file() and not file.name.startswith("index_detector") and file.suffix in (".onnx", ".pt", ".json"):
            shutil.copyfile(file, args.out / file.name)
    shutil.rmtree(args.out / "averaged")
    print(f"averaged detector in {args.out}")
    return args.out


if __name__ == "__main__":
    main()
