"""``onze-vision make-dataset``: options that make no dataset are refused before any work."""

from __future__ import annotations

from pathlib import Path

import pytest

from onze_vision.cli import main
from onze_vision.commands.training import remove_dataset_files


@pytest.mark.parametrize("options, message", [
    (["--size", "0"], "--size 0: scenes are at least 64 pixels"),
    (["--size", "-5"], "--size -5: scenes are at least 64 pixels"),
    (["--index-px", "60", "11"], "--index-px 60 11: the index heights need 0 < MIN <= MAX"),
    (["--index-px", "0", "0"], "--index-px 0 0:"),
    (["--index-px", "nan", "nan"], "--index-px nan nan:"),
    (["--index-px", "20", "400"], "MAX < the scene size (320)"),
    (["--train", "-1"], "scene counts are 0 or more"),
    (["--train", "0", "--val", "0"], "makes no scene"),
    (["--workers", "0"], "--workers 0: at least 1 process"),
    (["--seed", "-1"], "--seed -1: must be at least 0"),
    (["--printed", "2"], "not 2"),
])
def test_options_that_make_no_dataset_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  options: list[str], message: str) -> None:
    out = tmp_path / "d"
    assert main(["make-dataset", "--out", str(out), "--train", "1", "--val", "1", *options]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_an_out_that_is_a_file_or_empty_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("keep me")
    assert main(["make-dataset", "--out", str(afile), "--train", "1"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert main(["make-dataset", "--out", "", "--train", "1"]) == 2
    assert "--out is empty" in capsys.readouterr().err
    assert afile.read_text() == "keep me"


def test_a_folder_with_a_dataset_is_not_written_over_unasked(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "images" / "train").mkdir(parents=True)
    old_scene = tmp_path / "images" / "train" / "train_000003.jpg"
    old_scene.write_bytes(b"an earlier scene")
    assert main(["make-dataset", "--out", str(tmp_path), "--train", "1", "--val", "0"]) == 2
    err = capsys.readouterr().err
    assert "already holds files" in err and "pass --overwrite" in err
    assert old_scene.exists()


def test_overwrite_removes_the_earlier_dataset_and_nothing_else(tmp_path: Path) -> None:
    for folder in ("images/train", "labels/train", "meta"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "images/train/train_000003.jpg").write_bytes(b"x")
    (tmp_path / "labels/train/train_000003.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    for name in ("data.yaml", "summary.json", "contact_sheet_train.png"):
        (tmp_path / name).write_text("old")
    (tmp_path / "my-notes.txt").write_text("keep me")
    remove_dataset_files(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my-notes.txt"]
