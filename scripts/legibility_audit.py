"""How legible are the held-out labels? A blind reading of random index crops.

The held-out mAP50 counts every label the generator writes, and some of those a reader
cannot name: indices a dozen pixels tall, blurred, or with the next card over the rank.
This script measures how far a person gets on the same crops the classifier reads.

1. ``sheet`` cuts ``--count`` random labels of a generated dataset exactly as the runtime
   cuts them (:func:`~onze_vision.indexcrop.crop_index` on the true box), enlarges them
   and writes numbered contact sheets without their codes, plus ``truth.json``. Do not
   open ``truth.json`` before reading the sheets.
2. The reader writes one code per crop, in number order, into a text file
   (whitespace-separated; ``?`` where the crop cannot be read; ``#`` starts a note).
3. ``score`` compares the readings with the truth, beside the shipped classifier on the
   same crops (the centred crop alone, and averaged over every view the runtime reads an
   unsure index from), by index size and by how much of the rank shows.

    python scripts/legibility_audit.py sheet --data datasets/onze-val --out reports/legibility
    python scripts/legibility_audit.py score --out reports/legibility --answers reports/legibility/answers.txt

The shipped readings (two samples of 80, seeds 2026 and 2027):

    python scripts/legibility_audit.py sheet --out reports/legibility
    python scripts/legibility_audit.py sheet --seed 2027 --out reports/legibility2
    python scripts/legibility_audit.py score --out reports/legibility reports/legibility2 \
        --answers models/evaluation/legibility_answers.txt models/evaluation/legibility_answers_2.txt
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from onze_vision.cards import Card, InvalidCardError
from onze_vision.detector import CLASS_NAMES, CONFIG_FILE, DEFAULT_MODEL_DIR, DetectorConfig
from onze_vision.indexcrop import crop_index, crop_view, crops_to_tensor, reading_views

REPO = Path(__file__).resolve().parents[1]
TILE = 128  # px on the sheet: a 48-px crop enlarged so that its pixels can be told apart
PER_ROW, ROWS_PER_SHEET = 8, 5
SMALL = 24.0  # px, long side: the indices real photos do not have at the runtime's scale
RANK_LEGIBLE = 0.9  # share of the rank half showing (as in onze_vision.evaluate)


def _labels(data: Path, split: str) -> list[tuple[str, dict[str, Any]]]:
    labels = []
    for line in (data / "meta" / f"{split}.jsonl").read_text().splitlines():
        record = json.loads(line)
        labels += [(record["image"], label) for label in record["labels"]]
    return labels


def write_sheets(data: Path, split: str, count: int, seed: int, out: Path) -> int:
    """Write numbered, unlabelled contact sheets of ``count`` random crops and their truth."""
    labels = _labels(data, split)
    if count > len(labels):
        raise ValueError(f"{data} has {len(labels)} {split} labels; asked for {count}")
    picked = np.random.default_rng(seed).choice(len(labels), count, replace=False)
    out.mkdir(parents=True, exist_ok=True)
    tiles, truth = [], []
    for number, which in enumerate(picked):
        image, label = labels[which]
        crop = crop_index(cv2.imread(str(data / image), cv2.IMREAD_COLOR), label["box"])
        tile = cv2.copyMakeBorder(cv2.resize(crop, (TILE, TILE), interpolation=cv2.INTER_CUBIC),
                                  16, 2, 2, 2, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        cv2.putText(tile, str(number), (4, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
        tiles.append(tile)
        x1, y1, x2, y2 = label["box"]
        truth.append({"number": number, "code": label["code"], "image": image, "box": label["box"],
                      "long_side": max(x2 - x1, y2 - y1), "rank_visible": label.get("rank_visible", 1.0)})
    per_sheet = PER_ROW * ROWS_PER_SHEET
    blank = np.full_like(tiles[0], 255)
    for sheet, start in enumerate(range(0, count, per_sheet)):
        part = tiles[start:start + per_sheet]
        part += [blank] * (-len(part) % PER_ROW)
        rows = [np.hstack(part[i:i + PER_ROW]) for i in range(0, len(part), PER_ROW)]
        cv2.imwrite(str(out / f"sheet_{sheet}.png"), np.vstack(rows))
    (out / "truth.json").write_text(json.dumps({"data": str(data), "split": split, "seed": seed, "crops": truth},
                                               indent=1))
    return -(-count // per_sheet)


def read_answers(path: Path, count: int) -> list[str | None]:
    """The reader's codes in crop order; None where the reader wrote ``?``. Lines from ``#`` on are notes."""
    answers: list[str | None] = []
    words = [word for line in path.read_text().splitlines() for word in line.split("#", 1)[0].split()]
    for word in words:
        if word == "?":
            answers.append(None)
            continue
        try:
            answers.append(str(Card.from_code(word)))
        except InvalidCardError as error:
            raise ValueError(f"{path}: answer {len(answers)} is {word!r}: {error}") from error
    if len(answers) != count:
        raise ValueError(f"{path} has {len(answers)} answers for {count} crops")
    return answers


def score(out: Path, answers_path: Path, models: Path,
          groups: dict[str, dict[str, int]] | None = None) -> dict[str, dict[str, int]]:
    """Right / abstained / wrong for the reader, right for the classifier, per group of crops.

    Pass the ``groups`` of an earlier sample to add this one to them.
    """
    import onnxruntime as ort

    truth = json.loads((out / "truth.json").read_text())
    data, crops = Path(truth["data"]), truth["crops"]
    answers = read_answers(answers_path, len(crops))
    session = ort.InferenceSession(str(models / "index_classifier.onnx"), providers=["CPUExecutionProvider"])
    # Every view the runtime can read an unsure index from (detector.json), each crop read from all of them.
    config = DetectorConfig.from_json(models / CONFIG_FILE)
    views = reading_views(config.crop_shift, config.crop_turns)
    photos = [cv2.imread(str(data / c["image"]), cv2.IMREAD_COLOR) for c in crops]
    tensor = crops_to_tensor([crop_view(photo, c["box"], view) for photo, c in zip(photos, crops) for view in views])
    probs = session.run(["probs"], {"crops": tensor})[0].reshape(len(crops), len(views), -1)
    read_by_model = [CLASS_NAMES[p] for p in probs[:, 0].argmax(axis=1)]
    read_with_views = [CLASS_NAMES[p] for p in probs.mean(axis=1).argmax(axis=1)]
    groups = {} if groups is None else groups
    for crop, answer, model, with_views in zip(crops, answers, read_by_model, read_with_views):
        small = crop["long_side"] < SMALL
        covered = crop["rank_visible"] < RANK_LEGIBLE
        group = "rank covered" if covered else f"rank showing, {'under' if small else 'at least'} {SMALL:g} px"
        for name in ("all", group):
            tally = groups.setdefault(name, {"crops": 0, "reader right": 0, "reader abstained": 0,
                                             "reader wrong": 0, "classifier right": 0,
                                             "classifier with views right": 0})
            tally["crops"] += 1
            tally["reader right"] += answer == crop["code"]
            tally["reader abstained"] += answer is None
            tally["reader wrong"] += answer is not None and answer != crop["code"]
            tally["classifier right"] += model == crop["code"]
            tally["classifier with views right"] += with_views == crop["code"]
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    sheet = commands.add_parser("sheet", help="write the unlabelled contact sheets and truth.json")
    sheet.add_argument("--data", type=Path, default=REPO / "datasets" / "onze-val")
    sheet.add_argument("--split", default="val")
    sheet.add_argument("--count", type=int, default=80)
    sheet.add_argument("--seed", type=int, default=2026)
    sheet.add_argument("--out", type=Path, default=REPO / "reports" / "legibility")
    marking = commands.add_parser("score", help="compare the reader's answers with the truth and the classifier")
    marking.add_argument("--out", type=Path, nargs="+", default=[REPO / "reports" / "legibility"],
                         help="sheet folders (several: their samples are added up)")
    marking.add_argument("--answers", type=Path, nargs="+", required=True, help="one answers file per folder")
    marking.add_argument("--models", type=Path, default=DEFAULT_MODEL_DIR)
    args = parser.parse_args()
    if args.command == "sheet":
        sheets = write_sheets(args.data, args.split, args.count, args.seed, args.out)
        print(f"{sheets} sheet(s) in {args.out}; read them before opening truth.json")
        return
    if len(args.out) != len(args.answers):
        parser.error(f"{len(args.out)} sheet folder(s) but {len(args.answers)} answers file(s)")
    groups: dict[str, dict[str, int]] = {}
    for out, answers in zip(args.out, args.answers):
        score(out, answers, args.models, groups)
    print(f"{'crops':<36} {'n':>4} {'reader right':>13} {'abstained':>10} {'wrong':>6} {'classifier right':>17} "
          f"{'with views':>11}")
    for name, t in groups.items():
        n = t["crops"]
        print(f"{name:<36} {n:>4} {t['reader right'] / n:>13.2f} {t['reader abstained'] / n:>10.2f} "
              f"{t['reader wrong'] / n:>6.2f} {t['classifier right'] / n:>17.2f} "
              f"{t['classifier with views right'] / n:>11.2f}")


if __name__ == "__main__":
    main()
