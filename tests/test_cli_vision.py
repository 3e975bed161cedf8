"""``onze-vision detect``: output shapes, annotation files and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

import cv2
import numpy as np
import pytest
from fake_models import SHIPPED, make_fake_models
from phone_photos import heic

from onze_vision.cli import main
from onze_vision.commands.vision import DOUBT_WORDS, JOKER_COUNT_NOTE, annotation_paths, doubt_said
from onze_vision.pairing import DetectedCard, Doubt

# Two index boxes the fake detector always finds (letterbox pixels at imgsz 320).
FAKE_BOXES = [[100, 100, 20, 30, 0.9], [220, 200, 20, 30, 0.8]]


@pytest.fixture(scope="module")
def fake_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("models")
    make_fake_models(folder, FAKE_BOXES, 320, "10S")
    return folder


@pytest.fixture()
def photos(tmp_path: Path) -> list[Path]:
    paths = []
    for name, ext in (("first", ".jpg"), ("second", ".png")):
        path = tmp_path / f"{name}{ext}"
        # A green table: a colour photo (a grey one would have every suit offered in the other colour).
        cv2.imwrite(str(path), np.full((320, 320, 3), (60, 140, 40), np.uint8))
        paths.append(path)
    return paths


def test_detect_json_shape(fake_models: Path, photos: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["detect", "--models", str(fake_models), "--json", *map(str, photos)])
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    assert [entry["image"] for entry in out] == [str(p) for p in photos]
    cards = out[0]["cards"]
    assert len(cards) == 2
    assert set(cards[0]) == {"card", "confidence", "box"}
    assert cards[0]["card"] == "10S" and 0 < cards[0]["confidence"] <= 1
    assert cards[0]["box"] == pytest.approx([90, 85, 110, 115], abs=1)


def test_detect_plain_text(fake_models: Path, photos: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--models", str(fake_models), str(photos[0])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{photos[0]} (320x320): 2 cards"
    assert out[1].split()[0] == "10S" and out[1].strip().endswith("]")


@pytest.fixture(scope="module")
def unsure_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every index read 10S at 0.73 with 9S at 0.27, and alternatives offered under 0.9."""
    folder = tmp_path_factory.mktemp("unsure-models")
    make_fake_models(folder, FAKE_BOXES, 320, "10S", runner_up="9S")
    (folder / "detector.json").write_text(json.dumps({"unsure_below": 0.9, "alternative_min": 0.1}))
    return folder


def test_detect_names_the_alternative_of_an_unsure_card(unsure_models: Path, photos: list[Path],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--models", str(unsure_models), "--json", str(photos[0])]) == 0
    cards = json.loads(capsys.readouterr().out)[0]["cards"]
    assert [(c["card"], c["alternative"]) for c in cards] == [("10S", "9S"), ("10S", "9S")]
    assert main(["detect", "--models", str(unsure_models), str(photos[0])]) == 0
    assert capsys.readouterr().out.splitlines()[1].endswith("unsure: or 9S?")


def test_detect_marks_a_faint_card_to_check(tmp_path: Path, photos: list[Path],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    make_fake_models(tmp_path, FAKE_BOXES, 320, "10S")
    (tmp_path / "detector.json").write_text(json.dumps({"check_below": 0.85}))   # the 0.8 box is under it
    assert main(["detect", "--models", str(tmp_path), "--json", str(photos[0])]) == 0
    cards = json.loads(capsys.readouterr().out)[0]["cards"]
    assert [c.get("check", False) for c in cards] == [False, True]
    assert main(["detect", "--models", str(tmp_path), str(photos[0])]) == 0
    assert capsys.readouterr().out.splitlines()[2].endswith("unsure: read faintly, check it")


@pytest.mark.parametrize(("doubt", "line", "note", "label"), [
    ({}, "", "", ""),
    ({"alternative": "9S"}, "unsure: or 9S?", "(or 9S?)", " or 9S?"),
    ({"check": True}, "unsure: read faintly, check it", "(read faintly)", "?"),
    ({"count_unsure": True}, JOKER_COUNT_NOTE, "(one Joker or two?)", "?"),
    ({"alternative": "9S", "check": True}, "unsure: or 9S?", "(or 9S?)", " or 9S?"),
])
def test_each_doubt_has_its_words_in_detect_score_and_annotate(
        doubt: dict[str, object], line: str, note: str, label: str) -> None:
    card = DetectedCard("10S", 0.5, (0.0, 0.0, 10.0, 10.0), **doubt)  # type: ignore[arg-type]
    assert (doubt_said(card, "line"), doubt_said(card, "note"), doubt_said(card, "label")) == (line, note, label)


def test_every_reason_a_card_is_to_check_has_its_words() -> None:
    assert set(DOUBT_WORDS) == set(get_args(Doubt))


def test_detect_says_a_photo_has_no_colour_and_offers_each_card_in_the_other(
        fake_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grey = tmp_path / "grey.jpg"
    cv2.imwrite(str(grey), np.full((320, 320), 150, np.uint8))
    assert main(["detect", "--models", str(fake_models), "--json", str(grey)]) == 0
    entry = json.loads(capsys.readouterr().out)[0]
    assert entry["colourless"] is True
    assert [(c["card"], c["alternative"]) for c in entry["cards"]] == [("10S", "10H"), ("10S", "10H")]
    assert main(["detect", "--models", str(fake_models), str(grey)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("  no colour in this photo: red and black suits look alike")
    assert out[2].endswith("unsure: or 10H?")


def test_detect_says_when_it_evened_out_the_light(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_fake_models(tmp_path, FAKE_BOXES, 320, "10S")
    (tmp_path / "detector.json").write_text(json.dumps({"balance_from": 1.5}))
    dark = tmp_path / "dark.jpg"
    cv2.imwrite(str(dark), np.full((320, 320, 3), (20, 40, 60), np.uint8))   # a dim, warm room
    assert main(["detect", "--models", str(tmp_path), str(dark)]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("  read with its light evened out")
    assert main(["detect", "--models", str(tmp_path), "--json", str(dark)]) == 0
    assert set(json.loads(capsys.readouterr().out)[0]["light_gains"]) == {"red", "green", "blue"}


def test_detect_lists_cards_possibly_missed_apart(tmp_path: Path, photos: list[Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    make_fake_models(tmp_path, [[100, 100, 20, 30, 0.9], [220, 200, 20, 30, 0.4]], 320, "10S")
    (tmp_path / "detector.json").write_text(json.dumps({"detector_conf": 0.5, "maybe_conf": 0.3, "maybe_prob": 0.2}))
    assert main(["detect", "--models", str(tmp_path), "--json", str(photos[0])]) == 0
    entry = json.loads(capsys.readouterr().out)[0]
    assert [c["card"] for c in entry["cards"]] == ["10S"] and [c["card"] for c in entry["maybe"]] == ["10S"]
    assert main(["detect", "--models", str(tmp_path), str(photos[0])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(": 1 card") and out[2].startswith("  maybe missed: 10S")


def test_detect_annotates_each_photo(fake_models: Path, photos: list[Path], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "annotated.png"
    assert main(["detect", "--models", str(fake_models), "--annotate", str(out), *map(str, photos)]) == 0
    for photo, stem in zip(photos, ("first", "second")):
        drawn = cv2.imread(str(tmp_path / f"annotated-{stem}.png"))
        assert drawn is not None and drawn.shape == (320, 320, 3)
        assert (drawn != cv2.imread(str(photo))).any()  # boxes were drawn
    single = tmp_path / "one.png"
    assert main(["detect", "--models", str(fake_models), "--annotate", str(single), str(photos[0])]) == 0
    assert single.exists()


@pytest.mark.skipif(sys.platform != "linux", reason="file names of any bytes are a Linux thing")
def test_a_file_name_that_is_not_utf8_is_read_annotated_and_shown_as_valid_json(
        fake_models: Path, photos: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Names as Python gets them from such a file system (surrogate-escaped); OpenCV 5's
    # imwrite crashed the whole process on one.
    photo = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.jpg")
    Path(photo).write_bytes(photos[0].read_bytes())
    out = os.fsdecode(bytes(tmp_path) + b"/seen\xe9.png")
    assert main(["detect", "--models", str(fake_models), "--json", "--annotate", out, photo]) == 0
    assert cv2.imdecode(np.fromfile(out, np.uint8), cv2.IMREAD_COLOR).shape == (320, 320, 3)
    shown = json.loads(capsys.readouterr().out)[0]["image"]
    assert shown.endswith("caf\ufffd.jpg") and shown.encode("utf-8")


@pytest.mark.parametrize("annotate, message", [
    ("{photo}", "would overwrite a photo being read"),
    ("{dir}/annotated.xyz", "the name must end in .png, .jpg, .jpeg, .webp"),
    ("{dir}/annotated", "the name must end in .png"),
    ("{dir}/missing/annotated.png", "does not exist"),
    ("{dir}/" + "x" * 300 + ".png", "is 304 bytes long; a disk takes at most 255: give a shorter name"),
])
def test_annotate_refuses_an_output_it_cannot_or_must_not_write_before_reading(
        fake_models: Path, photos: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        annotate: str, message: str) -> None:
    before = photos[0].read_bytes()
    out = annotate.format(photo=photos[0], dir=tmp_path)
    assert main(["detect", "--models", str(fake_models), "--annotate", out, str(photos[0])]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
    assert photos[0].read_bytes() == before


def test_annotate_refuses_an_empty_name(fake_models: Path, photos: list[Path],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["detect", "--models", str(fake_models), "--annotate", "", str(photos[0])])
    assert exit_.value.code == 2 and "argument --annotate: an empty name" in capsys.readouterr().err


def test_annotate_of_several_photos_never_writes_over_one_of_them(
        fake_models: Path, photos: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "x.jpg" for the photo "first.jpg" is written to "x-first.jpg": here that is another input.
    victim = tmp_path / "x-first.jpg"
    victim.write_bytes(photos[0].read_bytes())
    status = main(["detect", "--models", str(fake_models), "--annotate", str(tmp_path / "x.jpg"),
                   str(photos[0]), str(victim)])
    assert status == 2 and "would overwrite a photo being read" in capsys.readouterr().err
    assert victim.read_bytes() == photos[0].read_bytes()


@pytest.mark.parametrize("damaged", ["index_detector.onnx", "index_classifier.onnx"])
def test_a_damaged_model_file_is_named_not_a_traceback(fake_models: Path, photos: list[Path], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str], damaged: str) -> None:
    import shutil

    models = tmp_path / "models"
    shutil.copytree(fake_models, models)
    whole = (models / damaged).read_bytes()
    (models / damaged).write_bytes(whole[: len(whole) // 3])   # a half-copied file
    assert main(["detect", "--models", str(models), str(photos[0])]) == 1
    err = capsys.readouterr().err
    assert f"{damaged}' is not a usable ONNX model" in err and "Traceback" not in err


def test_annotation_paths_for_clashing_names() -> None:
    assert annotation_paths(Path("out.png"), ["a/x.jpg"]) == [Path("out.png")]
    assert annotation_paths(Path("out.png"), ["a/x.jpg", "b/x.jpg", "y.webp"]) == [
        Path("out-x.png"), Path("out-x-2.png"), Path("out-y.png")]


def test_bad_photos_exit_2_are_named_in_the_json_and_others_still_read(fake_models: Path, photos: list[Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.jpg"
    text.write_text("not a photo")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    status = main(["detect", "--models", str(fake_models), "--json", str(text), str(photos[0]),
                   str(empty), str(tmp_path / "missing.jpg")])
    captured = capsys.readouterr()
    assert status == 2
    entries = json.loads(captured.out)
    # One entry per photo, in order: the failed ones carry their error instead of cards.
    assert [entry["image"] for entry in entries] == [str(text), str(photos[0]), str(empty),
                                                     str(tmp_path / "missing.jpg")]
    assert [("cards" in entry, "error" in entry) for entry in entries] == [
        (False, True), (True, False), (False, True), (False, True)]
    assert "is not a JPEG, PNG, WebP or HEIC image" in entries[0]["error"]
    assert "is empty" in entries[2]["error"] and "no such file" in entries[3]["error"]
    assert "notes.jpg' is not a JPEG, PNG, WebP or HEIC image" in captured.err
    assert "empty.jpg' is empty" in captured.err
    assert "no such file" in captured.err


def test_missing_models_exit_1(tmp_path: Path, photos: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--models", str(tmp_path / "none"), str(photos[0])]) == 1
    assert "model file(s) missing" in capsys.readouterr().err


def test_with_json_a_run_that_reads_no_photo_says_why_as_json_too(
        fake_models: Path, tmp_path: Path, photos: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    # A script reading stdout gets JSON it can parse, whether one photo or the whole run failed.
    assert main(["detect", "--json", "--models", str(tmp_path / "none"), str(photos[0])]) == 1
    captured = capsys.readouterr()
    assert "model file(s) missing" in json.loads(captured.out)["error"] and "model file(s) missing" in captured.err
    assert main(["detect", "--json", "--models", str(fake_models), "--annotate", str(photos[0]), str(photos[0])]) == 2
    assert "would overwrite a photo being read" in json.loads(capsys.readouterr().out)["error"]


def test_score_and_check_down_read_a_photo_with_the_models_named(
        fake_models: Path, tmp_path: Path, photos: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--variant", "once", "--photo", str(photos[0]), "--models", str(fake_models), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cards"]   # what the named models read (the fakes: 10S)
    missing = tmp_path / "none"
    assert main(["check-down", "--variant", "once", "--round", "1", "--photo", str(photos[0]),
                 "--models", str(missing)]) == 2
    assert f"cannot read photos here: model file(s) missing: {missing}" in capsys.readouterr().err
    assert main(["score", "--variant", "once", "QH", "--models", str(fake_models)]) == 2
    assert "names the models a photo is read with: give --photo PHOTO too" in capsys.readouterr().err


def test_no_photo_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as error:
        main(["detect"])
    assert error.value.code == 2


@pytest.mark.skipif(not SHIPPED, reason="models/ has no trained ONNX models yet")
def test_detect_real_photo_with_shipped_models_in_a_process() -> None:
    photo = Path(__file__).parent / "data" / "vision_edje_IMG_2383.jpg"
    result = subprocess.run([sys.executable, "-m", "onze_vision", "detect", "--json", str(photo)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out[0]["image"] == str(photo) and isinstance(out[0]["cards"], list)


def test_detect_reads_a_heic_and_annotates_it_with_shipped_models(tmp_path: Path) -> None:
    from PIL import Image

    photo = tmp_path / "IMG_0001.HEIC"   # as an iPhone names it, AirDropped to a laptop
    photo.write_bytes(heic(Image.open(Path(__file__).parent / "data" / "web_edje_IMG_2560.jpg")))
    seen = tmp_path / "seen.png"
    result = subprocess.run([sys.executable, "-m", "onze_vision", "detect", "--json", str(photo),
                             "--annotate", str(seen)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert sorted(card["card"] for card in json.loads(result.stdout)[0]["cards"]) == ["10C", "KC", "QD", "QS"]
    assert cv2.imread(str(seen)).shape == (504, 378, 3)


def _evaluate_args(models: Path, tmp_path: Path, speed_photos: int) -> list[str]:
    """``evaluate`` on a real-photo set of one grey photo with one labelled 10 (where the fake
    detector reads) and no synthetic sets (their folders do not exist)."""
    real = tmp_path / "real"
    real.mkdir()
    cv2.imwrite(str(real / "p.jpg"), np.full((320, 320, 3), 90, np.uint8))
    (real / "manifest.json").write_text(json.dumps([
        {"image": "p.jpg", "width": 320, "height": 320, "cards": [{"rank": "10", "box": [60, 60, 160, 200]}]}]))
    return ["evaluate", "--models", str(models), "--realphotos", str(real),
            "--synthetic-val", str(tmp_path / "no-such-set"), "--synthetic-product", str(tmp_path / "no-such-960"),
            "--synthetic-far", str(tmp_path / "no-such-far"), "--synthetic-four", str(tmp_path / "no-such-four"),
            "--speed-photos", str(speed_photos),
            "--no-ultralytics", "--report-dir", str(tmp_path / "report")]


def test_evaluate_writes_report_and_strict_fails_bars(fake_models: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    args = _evaluate_args(fake_models, tmp_path, speed_photos=1)
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "real-photo rank recall" in captured.out and "1.000" in captured.out
    assert "no-such-set does not exist" in captured.err and "--synthetic-product" in captured.err
    assert "--synthetic-far" in captured.err and "--synthetic-four" in captured.err
    assert (tmp_path / "report" / "report.md").exists() and (tmp_path / "report" / "report.json").exists()
    # One invented card (the second fake box) misses the invented-cards bar.
    assert main([*args, "--strict"]) == 1


def test_evaluate_strict_does_not_pass_a_bar_it_could_not_measure(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    models.mkdir()
    make_fake_models(models, [[100, 100, 20, 30, 0.9]], 320, "10S")   # one card, on the labelled one
    args = _evaluate_args(models, tmp_path, speed_photos=0)
    assert main(args) == 0
    assert "not measured, so not judged: synthetic mAP50" in capsys.readouterr().err
    assert main([*args, "--strict"]) == 1


def test_evaluate_with_nothing_to_measure_says_so_and_fails(fake_models: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # A second checkout with no ../shared and no held-out sets: a report of nothing is no pass.
    args = _evaluate_args(fake_models, tmp_path, speed_photos=1)
    args[args.index("--realphotos") + 1] = str(tmp_path / "no-shared" / "realphotos" / "edje")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "nothing to measure: no real photos and no held-out set was found" in err and "ONZE_SHARED" in err
    assert not (tmp_path / "report" / "report.md").exists()


def test_the_shared_folder_is_found_by_onze_shared(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from onze_vision.shared import REPO_ROOT, real_photos_dir, shared_dir

    monkeypatch.delenv("ONZE_SHARED", raising=False)
    assert shared_dir() == REPO_ROOT.parent / "shared"
    monkeypatch.setenv("ONZE_SHARED", str(tmp_path))
    assert real_photos_dir() == tmp_path / "realphotos" / "edje"


@pytest.mark.parametrize(("photo_side", "index_side", "label_height_at_most"), [
    (4000, 60, 40),    # a far shot: labels the size of the cards, not of the 4000-px photo
    (4000, 400, 120),  # a close-up of the same photo size: larger labels
    (400, 60, 30),     # a small photo
])
def test_annotation_labels_are_sized_to_the_cards(photo_side: int, index_side: int,
                                                  label_height_at_most: int) -> None:
    from onze_vision.commands.vision import draw_cards
    from onze_vision.detector import DetectedCard

    canvas = np.zeros((photo_side, photo_side, 3), np.uint8)
    centre = photo_side // 2
    card = DetectedCard("QH", 0.9, (centre, centre, centre + index_side * 0.6, centre + index_side))
    drawn = draw_cards(canvas, [card])
    # The label's filled band sits right above the box; measure its height.
    rows = np.flatnonzero((drawn[:centre, centre + 2] > 0).any(axis=1))
    assert 0 < centre - rows.min() <= label_height_at_most


def test_score_from_a_photo_without_the_models_blames_the_install_not_the_photo(photos: list[Path],
                                                                                 tmp_path: Path) -> None:
    env = {**os.environ, "ONZE_VISION_MODELS": str(tmp_path / "no-models")}
    done = subprocess.run([sys.executable, "-m", "onze_vision", "score", "--variant", "once", "--photo",
                           str(photos[0])], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert "cannot read photos here: model file(s) missing" in done.stderr
    assert "cannot read photo '" not in done.stderr


def test_detect_reads_as_the_deck_is_said_to_be(tmp_path: Path, photos: list[Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from onze_vision.detector_config import DECK_CORNERS

    # Two upright 10S indices side by side: a four-corner card's top strip, or two cards.
    make_fake_models(tmp_path, [[100, 100, 20, 30, 0.9], [160, 100, 20, 30, 0.9]], 320, "10S")
    counts = {}
    for corners in DECK_CORNERS:
        assert main(["detect", "--models", str(tmp_path), "--json", "--corners", corners, str(photos[0])]) == 0
        counts[corners] = len(json.loads(capsys.readouterr().out)[0]["cards"])
    assert counts == {"auto": 2, "two": 2, "four": 1}
