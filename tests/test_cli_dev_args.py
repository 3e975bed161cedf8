"""``onze-vision train`` and ``evaluate``: options that make no sense are refused before any work.

Each refusal is exit status 2 and one line on stderr, ``onze-vision COMMAND: error: ...``,
that quotes the value; no training run folder is made and no report is written. Training
and evaluation are stubbed to fail the test if reached, so none of this trains or measures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fake_models import make_fake_models

from onze_vision.cli import main


def refusal(capsys: pytest.CaptureFixture[str], command: str) -> str:
    """The one line a refused command wrote on stderr (nothing on stdout)."""
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"onze-vision {command}: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.fixture()
def no_training(monkeypatch: pytest.MonkeyPatch) -> list[argparse.Namespace]:
    """Training stubbed: the options it would have started with are recorded."""
    from onze_vision.training import recipe

    started: list[argparse.Namespace] = []

    def train_all(args: argparse.Namespace) -> int:
        started.append(args)
        return 0

    monkeypatch.setattr(recipe, "train_all", train_all)
    return started


def train(tmp_path: Path, *options: str) -> list[str]:
    """``train`` with its folders in ``tmp_path`` (none of them made yet)."""
    return ["train", "--data", str(tmp_path / "data"), "--runs", str(tmp_path / "runs"),
            "--out", str(tmp_path / "out"), *options]


# Numbers Ultralytics or PyTorch would refuse only with a traceback, or take and do nonsense with.
@pytest.mark.parametrize(("options", "message"), [
    pytest.param(["--epochs", "0"], "--epochs 0: must be at least 1", id="epochs below 1 are refused"),
    pytest.param(["--epochs", "-3"], "--epochs -3: must be at least 1", id="negative epochs are refused"),
    pytest.param(["--hours", "-1"], "--hours -1: must be above 0", id="hours must be above 0"),
    pytest.param(["--hours", "0"], "--hours 0: must be above 0", id="zero hours are refused"),
    pytest.param(["--hours", "nan"], "--hours nan: must be above 0", id="hours that are not a number are refused"),
    pytest.param(["--batch", "0"], "--batch 0: must be at least 1", id="a batch below 1 is refused"),
    pytest.param(["--imgsz", "16"], "--imgsz 16: must be at least 32", id="an image size under one stride is refused"),
    pytest.param(["--workers", "-1"], "--workers -1: must be at least 0", id="negative workers are refused"),
    pytest.param(["--fraction", "2"], "--fraction 2: must be above 0 and at most 1", id="a fraction above 1"),
    pytest.param(["--fraction", "0"], "--fraction 0: must be above 0 and at most 1", id="a fraction of 0"),
    pytest.param(["--mine-scenes", "0"], "--mine-scenes 0: must be at least 1", id="mining no scene is refused"),
    pytest.param(["--classifier-minutes", "-1"], "--classifier-minutes -1: must be at least 0",
                 id="negative classifier minutes are refused"),
    pytest.param(["--classifier-width", "0"], "--classifier-width 0: must be at least 2", id="width below 2"),
    pytest.param(["--classifier-width", "1"], "--classifier-width 1: must be at least 2", id="width 1 has no W/2"),
    pytest.param(["--classifier-batch", "-8"], "--classifier-batch -8: must be at least 1", id="classifier batch"),
    pytest.param(["--classifier-lr", "0"], "--classifier-lr 0: must be above 0", id="classifier rate above 0"),
    pytest.param(["--classifier-seed", "-1"], "--classifier-seed -1: must be at least 0", id="negative seeds"),
    pytest.param(["--gauge-minutes", "0"], "--gauge-minutes 0: must be above 0", id="gauge minutes above 0"),
    pytest.param(["--gauge-scenes", "0"], "--gauge-scenes 0: must be at least 1", id="gauge scenes at least 1"),
    pytest.param(["--classifier-widen", "0"], "--classifier-widen 0: must be at least 1", id="widen to nothing"),
    pytest.param(["--freeze", "-1"], "--freeze -1: must be at least 1", id="freezing below 1 layer is refused"),
    pytest.param(["--lr0", "0"], "--lr0 0: must be above 0", id="a detector rate of 0 is refused"),
    pytest.param(["--imgsz", "100"], "--imgsz 100: must be a multiple of 32 (the detector's stride)",
                 id="an image size Ultralytics would round to another is refused"),
    pytest.param(["--classifier-minutes", "0"], "--classifier-minutes 0 ships --classifier-init as it is, and none is "
                 "given: an untrained classifier would be shipped", id="no minutes and nothing to ship is refused"),
    pytest.param(["--member-share", "1", "--ensemble-with", "members.pt"], "--member-share 1: must be above 0 and "
                 "below 1 (at 1 the members of --ensemble-with would have no vote", id="a share of 1 silences the rest"),
    pytest.param(["--member-share", "0", "--ensemble-with", "members.pt"], "--member-share 0: must be above 0 and "
                 "below 1", id="a share of 0 is refused"),
    pytest.param(["--member-share", "nan", "--ensemble-with", "members.pt"], "--member-share nan: must be above 0",
                 id="a share that is not a number is refused"),
    pytest.param(["--member-share", "0.5"], "--member-share 0.5: a share of an ensemble's vote, and no "
                 "--ensemble-with names the rest", id="a share without an ensemble is refused"),
    pytest.param(["--replace-newest"], "--replace-newest: replaces the newest member of an ensemble, and no "
                 "--ensemble-with names one", id="replacing a member without an ensemble is refused"),
    pytest.param(["--mine-with", "nowhere"], "--mine-with 'nowhere': no index_detector.onnx there",
                 id="a detector to mine with is looked for before the detector trains"),
])
def test_train_refuses_numbers_that_make_no_sense(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  no_training: list[argparse.Namespace], options: list[str],
                                                  message: str) -> None:
    assert main(train(tmp_path, *options)) == 2
    assert message in refusal(capsys, "train")
    assert no_training == [] and not (tmp_path / "runs").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("device", ["gpu9", "CPU", "cuda:x", "0;1", ""])
def test_train_refuses_a_device_neither_stage_knows_naming_the_forms_it_takes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[argparse.Namespace],
        device: str) -> None:
    assert main(train(tmp_path, "--device", device)) == 2
    err = refusal(capsys, "train")
    assert f"--device '{device}' is not a device: use cpu, a CUDA index such as 0" in err
    assert no_training == [] and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("stage", ["all", "classifier"])
def test_several_gpus_are_refused_where_the_classifier_trains(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              no_training: list[argparse.Namespace],
                                                              stage: str) -> None:
    assert main(train(tmp_path, "--stage", stage, "--device", "0,1")) == 2
    assert "--device '0,1': the classifier trains on one device" in refusal(capsys, "train")
    assert no_training == []


@pytest.mark.parametrize("device", ["0", "cuda:1", "0,1"])
def test_a_cuda_device_this_machine_lacks_is_refused_before_training(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[argparse.Namespace],
        device: str) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    assert main(train(tmp_path, "--stage", "detector", "--device", device)) == 2
    assert f"--device '{device}' asks for CUDA, and this machine's PyTorch sees no CUDA GPU" in refusal(capsys, "train")
    assert no_training == []


@pytest.mark.parametrize("stage", ["crops", "export", "blur-gauge"])
def test_stages_that_do_not_train_on_the_device_do_not_ask_for_it(tmp_path: Path,
                                                                  no_training: list[argparse.Namespace],
                                                                  stage: str) -> None:
    # The GPU scripts cut crops with --device 0 on the machine that will train on it.
    assert main(train(tmp_path, "--stage", stage, "--device", "0")) == 0
    assert len(no_training) == 1


def test_sensible_options_reach_training_with_their_documented_zeros(tmp_path: Path,
                                                                     no_training: list[argparse.Namespace]) -> None:
    # 0 workers load in the training process; 0 classifier minutes are no classifier to train
    # where only the detector trains; mining with --out mines with the detector this run exports.
    assert main(train(tmp_path, "--workers", "0", "--hours", "0.5", "--fraction", "1", "--device", " cpu ",
                      "--mine-with", str(tmp_path / "out"))) == 0
    assert main(train(tmp_path, "--stage", "detector", "--classifier-minutes", "0")) == 0
    assert [args.workers for args in no_training] == [0, 2]


def test_text_that_is_not_a_number_is_refused_by_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["train", "--classifier-lr", "fast"])
    assert stop.value.code == 2
    assert "argument --classifier-lr: invalid float value: 'fast'" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--out", "--runs"])
def test_train_output_folders_that_are_files_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         no_training: list[argparse.Namespace],
                                                         option: str) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("keep me")
    assert main([*train(tmp_path), option, str(afile)]) == 2
    assert f"{option} '{afile}' is a file, not a folder" in refusal(capsys, "train")
    assert afile.read_text() == "keep me" and no_training == []


@pytest.mark.parametrize("option", ["--detector-data", "--classifier-data"])
def test_extra_datasets_without_a_dataset_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      no_training: list[argparse.Namespace], option: str) -> None:
    assert main(train(tmp_path, option, str(tmp_path))) == 2
    assert f"{option} '{tmp_path}': no dataset there (no data.yaml" in refusal(capsys, "train")


# --- checkpoints: each is loaded before anything is trained (these need the train extra) ---

@pytest.fixture(scope="module")
def classifier_pt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real (untrained, narrow) classifier state dict: last stage of 16 channels."""
    pytest.importorskip("torch", reason="training needs the train extra: pip install -e '.[train]'")
    from onze_vision.training.classifier import IndexClassifier, save_classifier

    path = tmp_path_factory.mktemp("cls") / "classifier.pt"
    save_classifier([IndexClassifier(width=4)], path)
    return path


@pytest.mark.parametrize("option", ["--classifier-init", "--ensemble-with"])
@pytest.mark.parametrize(("content", "reason"), [
    (b"hello, not a checkpoint\n", "PyTorch cannot read it"),
    (None, "no such file"),
])
def test_a_classifier_file_that_is_not_a_checkpoint_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[argparse.Namespace],
        option: str, content: bytes | None, reason: str) -> None:
    pytest.importorskip("torch", reason="training needs the train extra: pip install -e '.[train]'")
    path = tmp_path / "some_text_file.jpg"
    if content is not None:
        path.write_bytes(content)
    assert main(train(tmp_path, "--stage", "classifier", option, str(path))) == 2
    err = refusal(capsys, "train")
    assert f"'{path}'" in err and reason in err
    if content is not None:
        assert f"'{path}' is not a classifier checkpoint (" in err
    assert no_training == [] and not (tmp_path / "runs").exists()


def test_a_state_dict_of_another_network_is_not_a_classifier(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            no_training: list[argparse.Namespace]) -> None:
    torch = pytest.importorskip("torch")
    other = tmp_path / "other.pt"
    torch.save({"layer.weight": torch.zeros(2, 2)}, other)
    assert main(train(tmp_path, "--stage", "classifier", "--classifier-init", str(other))) == 2
    assert f"'{other}' is not a classifier checkpoint (" in refusal(capsys, "train")


def test_an_onnx_file_that_is_not_the_classifiers_export_is_refused(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   no_training: list[argparse.Namespace]) -> None:
    pytest.importorskip("onnx")
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not protobuf at all \xff\xff\xff")
    assert main(train(tmp_path, "--stage", "classifier", "--classifier-init", str(fake))) == 2
    assert f"'{fake}' is not a classifier checkpoint (" in refusal(capsys, "train")


def test_widening_cannot_narrow_the_networks_last_stage(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        no_training: list[argparse.Namespace],
                                                        classifier_pt: Path) -> None:
    assert main(train(tmp_path, "--stage", "classifier", "--classifier-init", str(classifier_pt),
                      "--classifier-widen", "8")) == 2
    assert "--classifier-widen 8: the network's last stage already has 16 channels" in refusal(capsys, "train")
    # A fresh network of the default width has 128 there.
    assert main(train(tmp_path, "--stage", "classifier", "--classifier-widen", "64")) == 2
    assert "already has 128 channels" in refusal(capsys, "train")
    assert no_training == []


def test_a_classifier_checkpoint_is_taken(tmp_path: Path, no_training: list[argparse.Namespace],
                                          classifier_pt: Path) -> None:
    assert main(train(tmp_path, "--stage", "classifier", "--classifier-init", str(classifier_pt),
                      "--classifier-widen", "32", "--ensemble-with", str(classifier_pt))) == 0
    assert len(no_training) == 1


def test_replacing_the_only_member_of_a_classifier_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   no_training: list[argparse.Namespace],
                                                                   classifier_pt: Path) -> None:
    assert main(train(tmp_path, "--stage", "classifier", "--ensemble-with", str(classifier_pt),
                      "--replace-newest")) == 2
    assert (f"--replace-newest: '{classifier_pt}' holds 1 classifier, and replacing it leaves no ensemble"
            in refusal(capsys, "train"))
    assert no_training == []


@pytest.mark.parametrize(("name", "content", "reason"), [
    ("notes.txt", b"hello", "is not a detector checkpoint (a .pt a detector run saved"),
    ("missing.pt", None, "--weights '{path}': no such file"),
])
def test_detector_weights_that_are_not_a_checkpoint_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                no_training: list[argparse.Namespace], name: str,
                                                                content: bytes | None, reason: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    assert main(train(tmp_path, "--stage", "detector", "--weights", str(path))) == 2
    assert reason.format(path=path) in refusal(capsys, "train")
    assert no_training == []


def test_resuming_a_run_that_is_not_there_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     no_training: list[argparse.Namespace]) -> None:
    assert main(train(tmp_path, "--stage", "detector", "--resume")) == 2
    assert (f"--resume: no run to resume in --runs '{tmp_path / 'runs'}' (no detector/weights/last.pt)"
            in refusal(capsys, "train"))
    assert no_training == []


def test_a_pt_file_ultralytics_cannot_load_is_not_detector_weights(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   no_training: list[argparse.Namespace],
                                                                   classifier_pt: Path) -> None:
    pytest.importorskip("ultralytics")
    capsys.readouterr()   # a first import on a fresh machine says it wrote Ultralytics' settings
    assert main(train(tmp_path, "--stage", "detector", "--weights", str(classifier_pt))) == 2
    assert f"'{classifier_pt}' is not a detector checkpoint (" in refusal(capsys, "train")


# --- evaluate ---

@pytest.fixture()
def no_evaluation(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Evaluation stubbed: the sets it would have measured are recorded."""
    from onze_vision import evaluate

    asked: list[dict[str, Any]] = []

    def run_evaluation(detector: object, **kwargs: Any) -> dict[str, Any]:
        asked.append(kwargs)
        return {"summary": []}

    monkeypatch.setattr(evaluate, "run_evaluation", run_evaluation)
    monkeypatch.setattr(evaluate, "format_summary", lambda results: "")
    return asked


@pytest.fixture(scope="module")
def fake_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("models")
    make_fake_models(folder, [[100, 100, 20, 30, 0.9]], 320, "10S")
    return folder


def evaluate_args(tmp_path: Path, models: Path, *options: str) -> list[str]:
    """``evaluate`` with two sets that exist (real photos, the held-out scenes: something to
    measure) and three that do not, its report in ``tmp_path/report``."""
    (tmp_path / "real").mkdir(exist_ok=True)
    (tmp_path / "real" / "manifest.json").write_text("[]")
    (tmp_path / "val" / "images").mkdir(parents=True, exist_ok=True)
    return ["evaluate", "--models", str(models), "--report-dir", str(tmp_path / "report"),
            "--realphotos", str(tmp_path / "real"), "--synthetic-val", str(tmp_path / "val"),
            "--synthetic-product", str(tmp_path / "no-960"), "--synthetic-far", str(tmp_path / "no-far"),
            "--synthetic-four", str(tmp_path / "no-four"), "--no-ultralytics", *options]


@pytest.mark.parametrize(("options", "message"), [
    pytest.param(["--limit", "-2"], "--limit -2: must be at least 1", id="a negative limit is refused"),
    pytest.param(["--limit", "0"], "--limit 0: must be at least 1", id="a limit of 0 measures nothing: refused"),
    pytest.param(["--speed-photos", "-1"], "--speed-photos -1: must be at least 0 (0 skips the speed tests)",
                 id="negative speed photos are refused (0 skips them)"),
])
def test_evaluate_refuses_counts_that_make_no_sense(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    fake_models: Path, no_evaluation: list[dict[str, Any]],
                                                    options: list[str], message: str) -> None:
    assert main(evaluate_args(tmp_path, fake_models, *options)) == 2
    assert message in refusal(capsys, "evaluate")
    assert no_evaluation == [] and not (tmp_path / "report").exists()


@pytest.mark.parametrize("below", ["", "sub"])
def test_evaluate_refuses_a_report_dir_that_is_or_lies_in_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 fake_models: Path,
                                                                 no_evaluation: list[dict[str, Any]],
                                                                 below: str) -> None:
    afile = tmp_path / "report.txt"
    afile.write_text("keep me")
    report_dir = afile / below if below else afile
    assert main([*evaluate_args(tmp_path, fake_models), "--report-dir", str(report_dir)]) == 2
    err = refusal(capsys, "evaluate")
    assert f"--report-dir '{report_dir}'" in err and f"'{afile}' is a file, not a folder" in err
    assert afile.read_text() == "keep me" and no_evaluation == []


def test_evaluate_takes_its_documented_zero_and_no_limit(tmp_path: Path, fake_models: Path,
                                                         no_evaluation: list[dict[str, Any]]) -> None:
    assert main(evaluate_args(tmp_path, fake_models, "--speed-photos", "0")) == 0
    assert main(evaluate_args(tmp_path, fake_models, "--limit", "1")) == 0
    assert [(asked["speed_photos"], asked["limit"]) for asked in no_evaluation] == [(0, None), (20, 1)]


@pytest.mark.parametrize(("option", "needs"), [
    ("--realphotos", "manifest.json"), ("--synthetic-val", "images"), ("--synthetic-product", "images"),
    ("--synthetic-far", "images"), ("--synthetic-four", "images"),
])
def test_a_set_folder_without_its_contents_is_skipped_with_a_note_as_a_missing_one_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_models: Path,
        no_evaluation: list[dict[str, Any]], option: str, needs: str) -> None:
    empty = tmp_path / "empty-set"
    empty.mkdir()
    assert main([*evaluate_args(tmp_path, fake_models), option, str(empty)]) == 0
    err = capsys.readouterr().err
    assert f"note: {option} {empty} holds no {needs}; that part is skipped" in err
    assert "no-far does not exist; that part is skipped" in err or option == "--synthetic-far"
    keyword = option.removeprefix("--").replace("-", "_")
    assert no_evaluation[0][keyword] is None


def test_a_real_photo_folder_with_its_manifest_is_measured(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          fake_models: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    cv2.imwrite(str(real / "p.jpg"), np.full((320, 320, 3), 90, np.uint8))
    (real / "manifest.json").write_text(json.dumps([
        {"image": "p.jpg", "width": 320, "height": 320, "cards": [{"rank": "10", "box": [60, 60, 160, 200]}]}]))
    assert main([*evaluate_args(tmp_path, fake_models, "--speed-photos", "0", "--limit", "1"),
                 "--realphotos", str(real)]) == 0
    assert "note: --realphotos" not in capsys.readouterr().err
    assert (tmp_path / "report" / "report.md").exists()


@pytest.mark.parametrize("command", [
    ["make-dataset", "--size", "0"],
    ["train", "--epochs", "0"],
    ["evaluate", "--limit", "0"],
])
def test_every_developer_command_refuses_in_the_same_one_line_form(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   no_training: list[argparse.Namespace],
                                                                   no_evaluation: list[dict[str, Any]],
                                                                   command: list[str]) -> None:
    assert main([*command, "--out" if command[0] != "evaluate" else "--report-dir", str(tmp_path / "x")]) == 2
    refusal(capsys, command[0])
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(("checkout", "install"), [
    (True, 'pip install -e ".[train]"'),
    (False, 'pip install "onze-vision[train]"'),
])
@pytest.mark.parametrize(("stage", "missing"), [("all", "torch"), ("detector", "ultralytics"),
                                                ("classifier", "torch"), ("blur-gauge", "onnx")])
def test_training_without_the_train_extra_says_how_to_install_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        no_training: list[argparse.Namespace], checkout: bool, install: str, stage: str, missing: str) -> None:
    from onze_vision import places

    monkeypatch.setitem(sys.modules, missing, None)   # as the runtime install (no torch) has it: not importable
    monkeypatch.setattr(places, "in_checkout", lambda: checkout)
    assert main(train(tmp_path, "--stage", stage)) == 2
    error = refusal(capsys, "train")
    assert "training needs the train extra (PyTorch, Ultralytics, ONNX)" in error
    assert f"and {missing} is not installed: {install}" in error
    assert no_training == []


def test_a_command_that_meets_a_missing_train_module_says_how_to_install_it(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Any command, wherever it imports a module of the extra (the net in main, behind the checks).
    from onze_vision.commands import rules

    def needs_torch(args: argparse.Namespace) -> int:
        import torch  # noqa: F401

        return 0

    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setattr(rules, "_cmd_variants", needs_torch)   # registered as variants' handler
    assert main(["variants"]) == 2
    error = refusal(capsys, "variants")
    assert "this command needs the train extra" in error and "torch is not installed: pip install" in error


def test_a_missing_runtime_module_is_not_taken_for_the_train_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from onze_vision.commands import rules

    def needs_flask(args: argparse.Namespace) -> int:
        import flask  # noqa: F401

        return 0

    monkeypatch.setitem(sys.modules, "flask", None)
    monkeypatch.setattr(rules, "_cmd_variants", needs_flask)
    with pytest.raises(ModuleNotFoundError):
        main(["variants"])
