"""The legibility audit: unlabelled sheets of held-out crops, and a reading scored against their truth."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

from onze_vision.detector import DEFAULT_MODEL_DIR


@pytest.fixture(scope="module")
def audit(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("legibility_audit")


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Two 320x320 scenes, three labels: a big index with its rank showing, a small one, a covered one."""
    root = tmp_path / "data"
    (root / "images" / "val").mkdir(parents=True)
    (root / "meta").mkdir()
    records = [
        {"image": "images/val/a.jpg", "labels": [
            {"code": "QH", "box": [10, 10, 40, 50], "rank_visible": 1.0},
            {"code": "7S", "box": [100, 100, 110, 114], "rank_visible": 1.0}]},
        {"image": "images/val/b.jpg", "labels": [{"code": "JK", "box": [50, 60, 80, 100], "rank_visible": 0.4}]},
    ]
    for record in records:
        cv2.imwrite(str(root / record["image"]), np.full((320, 320, 3), 200, np.uint8))
    (root / "meta" / "val.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return root


def test_sheets_hide_the_codes_that_truth_json_keeps(audit: ModuleType, dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit"
    assert audit.write_sheets(dataset, "val", 3, seed=0, out=out) == 1
    sheet = cv2.imread(str(out / "sheet_0.png"))
    assert sheet.shape[1] == audit.PER_ROW * (audit.TILE + 4)  # one row of eight tiles, blanks included
    truth = json.loads((out / "truth.json").read_text())["crops"]
    assert sorted(crop["code"] for crop in truth) == ["7S", "JK", "QH"]
    assert [crop["number"] for crop in truth] == [0, 1, 2]


def test_asking_for_more_crops_than_labels_says_how_many_there_are(audit: ModuleType, dataset: Path,
                                                                   tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="has 3 val labels; asked for 4"):
        audit.write_sheets(dataset, "val", 4, seed=0, out=tmp_path / "audit")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("QH ? 10s", ["QH", None, "10S"]),
        ("# a note\nQH ?  # two read\n10S\n", ["QH", None, "10S"]),
    ],
)
def test_answers_are_codes_in_order_with_question_marks_for_unread(
    audit: ModuleType, tmp_path: Path, text: str, expected: list[str | None]
) -> None:
    path = tmp_path / "answers.txt"
    path.write_text(text)
    assert audit.read_answers(path, 3) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("QH ? 1X", "answer 2 is '1X'"),
        ("QH ?", "has 2 answers for 3 crops"),
    ],
)
def test_a_bad_answers_file_says_what_is_wrong(audit: ModuleType, tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "answers.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        audit.read_answers(path, 3)


def test_score_counts_right_unread_and_wrong_per_group(audit: ModuleType, dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit"
    audit.write_sheets(dataset, "val", 3, seed=0, out=out)
    truth = {crop["code"]: crop["number"] for crop in json.loads((out / "truth.json").read_text())["crops"]}
    answers = [""] * 3
    answers[truth["QH"]], answers[truth["7S"]], answers[truth["JK"]] = "QH", "?", "QS"
    (out / "answers.txt").write_text(" ".join(answers))
    groups = audit.score(out, out / "answers.txt", DEFAULT_MODEL_DIR)
    assert groups["all"]["crops"] == 3
    assert (groups["all"]["reader right"], groups["all"]["reader abstained"], groups["all"]["reader wrong"]) == (1, 1, 1)
    assert groups["rank showing, at least 24 px"]["reader right"] == 1
    assert groups["rank showing, under 24 px"]["reader abstained"] == 1
    assert groups["rank covered"]["reader wrong"] == 1
    assert 0 <= groups["all"]["classifier right"] <= 3
    assert 0 <= groups["all"]["classifier with views right"] <= 3
    # A second sample adds to the first.
    audit.score(out, out / "answers.txt", DEFAULT_MODEL_DIR, groups)
    assert (groups["all"]["crops"], groups["all"]["reader right"]) == (6, 2)
