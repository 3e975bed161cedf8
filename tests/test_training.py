"""One-epoch training smoke test: generate a tiny dataset, train both stages, export, read.

This runs the committed recipe end to end (Ultralytics from ``yolo11n.yaml``, offline;
the classifier in PyTorch; both exported to ONNX) and checks the runtime can load what
it wrote. The models it makes are far too small to read cards; the shipped ones are
tested in ``test_detector.py``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="training needs the train extra: pip install -e '.[train]'")
pytest.importorskip("ultralytics", reason="training needs the train extra: pip install -e '.[train]'")

from onze_vision.synth.dataset import make_dataset  # noqa: E402
from onze_vision.training.recipe import (  # noqa: E402
    detector_data_yaml, fit_center_offset, train_all, write_detector_json)
from support import needs_art  # noqa: E402

pytestmark = [pytest.mark.slow, needs_art]


@pytest.fixture(scope="module")
def tiny_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("train-data")
    make_dataset(out, train_images=16, val_images=8, seed=3, workers=1,
                 art_cache=tmp_path_factory.mktemp("art"), train_decks=["anglo"], val_decks=["paris"],
                 progress=False)
    return out


def test_one_epoch_of_both_stages_exports_models_the_runtime_loads(tiny_dataset: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]):
    models = tmp_path / "models"
    args = argparse.Namespace(
        data=str(tiny_dataset), out=str(models), runs=str(tmp_path / "runs"), stage="all", epochs=1,
        imgsz=160, batch=8, device="cpu", workers=0, fraction=1.0, classifier_minutes=0.02, resume=False,
        mine_with=str(models), mine_scenes=8,  # the detector this run has just exported
    )
    assert train_all(args) == 0
    said = capsys.readouterr().out   # where the models went, and how to read with them
    assert f"models written to {models}: read photos with them with onze-vision detect --models {models} PHOTO" in said
    assert f"{models} has no blur_gauge.onnx: copy models/blur_gauge.onnx there" in said
    assert (tmp_path / "runs" / f"mined_{tiny_dataset.name}_8.npz").exists()
    for name in ("index_detector.onnx", "index_detector.pt", "index_classifier.onnx", "index_classifier.pt",
                 "detector.json"):
        assert (models / name).stat().st_size > 0, name
    config = json.loads((models / "detector.json").read_text())
    assert config["imgsz"] == 640 and len(config["center_offset"]) == 2
    from onze_vision.training.halfweights import stores_half_weights

    for name in ("index_detector.onnx", "index_classifier.onnx"):  # weights stored as float16, as shipped
        assert stores_half_weights(models / name), name

    import onnxruntime as ort

    classifier = ort.InferenceSession(str(models / "index_classifier.onnx"), providers=["CPUExecutionProvider"])
    probs, down, looks = classifier.run(None, {"crops": np.random.rand(5, 3, 48, 48).astype(np.float32)})
    assert probs.shape == (5, 54) and np.allclose(probs.sum(axis=1), 1, atol=1e-4)
    assert down.shape == (5, 2) and np.allclose(np.linalg.norm(down, axis=1), 1, atol=1e-4)
    # How each crop looks (a deck's Joker is matched by it): the member's features, of length 1.
    assert looks.shape[0] == 5 and np.allclose(np.linalg.norm(looks, axis=1), 1, atol=1e-3)

    from onze_vision.detector import CardDetector

    detector = CardDetector(model_dir=models)
    scene = next((tiny_dataset / "images" / "val").glob("*.jpg"))
    reading = detector.detect_cards(scene)
    assert reading.width == 320 and reading.height == 320
    assert all(card.box[0] <= card.box[2] and card.box[1] <= card.box[3] for card in reading.cards)


def test_a_training_run_writes_the_runtime_constants_the_shipped_models_run_with(tiny_dataset: Path, tmp_path: Path):
    # A constant chosen on the tuning sets and set in models/detector.json alone would be
    # lost by the next run that ships; only what is fitted to the dataset may differ.
    from onze_vision.detector import DEFAULT_MODEL_DIR

    shipped = json.loads((DEFAULT_MODEL_DIR / "detector.json").read_text())
    written = write_detector_json(tmp_path, tiny_dataset)
    fitted = {"center_offset", "center_spread_p90"}
    assert set(shipped) - {"operating_point"} == set(written)   # the threshold sweep writes that one
    assert {key: shipped[key] for key in set(written) - fitted} == {key: written[key] for key in set(written) - fitted}


@pytest.mark.parametrize(("freeze", "lr0", "asked"), [
    (None, None, {"freeze": None}),                                   # Ultralytics chooses
    (10, 0.0005, {"freeze": 10, "optimizer": "AdamW", "lr0": 0.0005}),  # a gentle fine-tune
])
def test_a_fine_tune_can_keep_the_backbone_and_name_its_rate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              freeze: int | None, lr0: float | None, asked: dict):
    import ultralytics

    from onze_vision.training import recipe

    calls: list[dict] = []

    class RecordingYOLO:
        def __init__(self, model: str) -> None:
            self.model = model

        def train(self, **kwargs: object) -> None:
            calls.append(kwargs)

    monkeypatch.setattr(ultralytics, "YOLO", RecordingYOLO)
    (tmp_path / "data").mkdir()
    args = argparse.Namespace(data=str(tmp_path / "data"), runs=str(tmp_path / "runs"), resume=False,
                              weights="models/index_detector.pt", epochs=1, hours=None, imgsz=640, batch=8,
                              device="cpu", workers=0, fraction=1.0, freeze=freeze, lr0=lr0)
    recipe.train_detector(args)
    assert {key: calls[0].get(key) for key in asked} == asked
    assert ("optimizer" in calls[0]) == (lr0 is not None)    # without a rate, "auto" as before


def test_the_card_centre_lies_down_and_right_of_each_index(tiny_dataset: Path):
    offset = fit_center_offset(tiny_dataset)
    # An index sits near its card's corner: the centre is a few index sizes inwards.
    assert 1.0 < offset["a"] < 6.0
    assert 0.5 < offset["b"] < 5.0


def test_training_without_a_dataset_says_how_to_make_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    args = argparse.Namespace(data=str(tmp_path / "nowhere"), out=str(tmp_path), runs=str(tmp_path), stage="all")
    assert train_all(args) == 2
    assert "make-dataset" in capsys.readouterr().err


def test_a_wall_clock_budget_ends_detector_training_before_its_epochs(tiny_dataset: Path, tmp_path: Path):
    from onze_vision.training.recipe import train_detector

    runs = tmp_path / "runs"
    args = argparse.Namespace(
        data=str(tiny_dataset), runs=str(runs), epochs=50, hours=0.001,  # 3.6 s: one epoch is longer
        imgsz=160, batch=8, device="cpu", workers=0, fraction=1.0, resume=False,
    )
    last = train_detector(args)
    assert last.exists()
    epochs_run = len((runs / "detector" / "results.csv").read_text().strip().splitlines()) - 1
    assert 1 <= epochs_run < 50


def test_the_detector_trains_on_extra_datasets_and_validates_on_the_first(tiny_dataset: Path, tmp_path: Path):
    import yaml

    merged = yaml.safe_load(detector_data_yaml(tiny_dataset, [tiny_dataset], tmp_path).read_text())
    train_dir = str((tiny_dataset / "images" / "train").resolve())
    assert merged["train"] == [train_dir, train_dir]
    assert merged["val"] == str((tiny_dataset / "images" / "val").resolve())
    assert detector_data_yaml(tiny_dataset, [], tmp_path) == tiny_dataset / "data.yaml"


def test_extra_datasets_must_name_the_same_classes(tiny_dataset: Path, tmp_path: Path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "data.yaml").write_text("path: .\ntrain: images/train\nval: images/val\nnames: {0: item}\n")
    with pytest.raises(ValueError, match="other class names"):
        detector_data_yaml(tiny_dataset, [other], tmp_path)


@pytest.mark.parametrize(("width", "top"), [(32, None), (16, None), (32, 160)],
                         ids=["as shipped", "another width (a GPU run's)", "a widened top"])
def test_a_classifier_recovered_from_its_onnx_export_reads_crops_as_the_export_does(
    tiny_dataset: Path, tmp_path: Path, width: int, top: int | None
):
    import onnxruntime as ort
    import torch

    from onze_vision.training.classifier import ExportedClassifier, IndexClassifier, export_classifier, load_classifier
    from onze_vision.training.crops import build_crops

    torch.manual_seed(0)
    original = IndexClassifier(width=width, top=top)
    with torch.no_grad():  # batch norms with non-trivial statistics, as after training
        for module in original.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    original.eval()
    export_classifier(original, tmp_path / "classifier.onnx")
    crops = build_crops(tiny_dataset, "train")
    recovered = load_classifier(tmp_path / "classifier.onnx", crops).eval()

    x = torch.from_numpy(np.ascontiguousarray(crops.images[:32, :, :, ::-1])).permute(0, 3, 1, 2).float() / 255
    session = ort.InferenceSession(str(tmp_path / "classifier.onnx"), providers=["CPUExecutionProvider"])
    expected = session.run(["probs"], {"crops": x.numpy()})[0]
    with torch.no_grad():
        got = ExportedClassifier(recovered)(x)[0].numpy()
    assert np.abs(got - expected).max() < 1e-4


def test_recovering_from_onnx_without_calibration_crops_is_refused(tmp_path: Path):
    import torch

    from onze_vision.training.classifier import IndexClassifier, export_classifier, load_classifier

    export_classifier(IndexClassifier().eval(), tmp_path / "classifier.onnx")
    with pytest.raises(ValueError, match="calibration crops"):
        load_classifier(tmp_path / "classifier.onnx")
    torch.save(IndexClassifier().state_dict(), tmp_path / "classifier.pt")
    assert isinstance(load_classifier(tmp_path / "classifier.pt"), IndexClassifier)


def test_the_detectors_own_boxes_become_crops_of_their_card_or_hard_negatives(tiny_dataset: Path):
    from onze_vision.synth.codes import CARD_CODES
    from onze_vision.training.crops import NONE_RANK, mine_detector_crops, probs_index

    metas = [json.loads(line) for line in (tiny_dataset / "meta" / "train.jsonl").read_text().splitlines()[:4]]
    scenes = iter(metas)

    def locate(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # The true boxes nudged (found), one box in the scene's corner (a false alarm)
        # and one half on an index (ambiguous: neither a card nor a negative).
        meta = next(scenes)
        truth = np.array([label["box"] for label in meta["labels"]], np.float64).reshape(-1, 4)
        extra = [[0, 0, 4, 4]]
        if len(truth):
            w = truth[0, 2] - truth[0, 0]
            extra.append(truth[0] + [0.6 * w, 0, 0.6 * w, 0])
        boxes = np.vstack([truth + 0.5, extra])
        return boxes, np.ones(len(boxes))

    crops = mine_detector_crops(tiny_dataset, "train", locate, limit=4)
    codes = [label["code"] for meta in metas for label in meta["labels"]]
    named = [probs_index(int(r), int(s)) for r, s in zip(crops.rank, crops.suit) if r != NONE_RANK]
    assert [CARD_CODES[i] for i in named] == codes
    assert int((crops.rank == NONE_RANK).sum()) == 4  # one false alarm per scene; the half-on boxes skipped
    assert crops.images.shape[1:] == (48, 48, 3) and len(crops.down) == len(crops)


def test_mining_with_a_folder_without_a_detector_says_so(tiny_dataset: Path, tmp_path: Path, capsys):
    args = argparse.Namespace(
        data=str(tiny_dataset), out=str(tmp_path / "out"), runs=str(tmp_path / "runs"), stage="classifier",
        classifier_minutes=0.01, mine_with=str(tmp_path / "empty"), mine_scenes=2,
    )
    assert train_all(args) == 2
    assert "no index_detector.onnx there" in capsys.readouterr().err


def test_exporting_without_a_detector_run_says_so_and_asks_no_network(tiny_dataset: Path, tmp_path: Path, capsys,
                                                                       monkeypatch: pytest.MonkeyPatch):
    import ultralytics.utils.downloads as downloads

    def no_network(*args, **kwargs):
        raise AssertionError("the network was asked")

    monkeypatch.setattr(downloads, "is_url", no_network)
    args = argparse.Namespace(data=str(tiny_dataset), out=str(tmp_path / "out"), runs=str(tmp_path / "runs"),
                              stage="export")
    assert train_all(args) == 2
    assert "--stage export: no detector run in " in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_font_ultralytics_checks_for_is_found_without_the_network(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    import ultralytics.utils as utils
    import ultralytics.utils.checks as checks
    import ultralytics.utils.downloads as downloads

    from onze_vision.training.recipe import _offline_font

    def no_network(*args, **kwargs):
        raise AssertionError("the network was asked")

    for module in (utils, checks):
        monkeypatch.setattr(module, "USER_CONFIG_DIR", tmp_path)
    monkeypatch.setattr(downloads, "is_url", no_network)
    font = _offline_font()
    assert font == tmp_path / "Arial.ttf" and font.stat().st_size > 100_000   # a whole TrueType font
    checks.check_font.__wrapped__.cache_clear()   # earlier tests may have asked already
    assert Path(checks.check_font("Arial.ttf")) == font
    checks.check_font.__wrapped__.cache_clear()


def _random_classifier(seed: int):
    import torch

    from onze_vision.training.classifier import IndexClassifier

    torch.manual_seed(seed)
    model = IndexClassifier()
    with torch.no_grad():  # heads far from uniform, so the members disagree
        for head in (model.rank, model.suit, model.down):
            head.weight.normal_(0, 0.5)
        for tensor in [*model.parameters(), *model.buffers()]:  # at float16's digits, as a .pt stores them
            if tensor.is_floating_point():
                tensor.copy_(tensor.half())
    return model.eval()


def test_an_ensemble_exports_as_one_onnx_that_averages_its_members(tmp_path: Path):
    import onnxruntime as ort
    import torch

    from onze_vision.training.classifier import ExportedClassifier, export_classifier

    members = [_random_classifier(0), _random_classifier(1)]
    export_classifier(members, tmp_path / "ensemble.onnx", half_weights=False)  # the averaging, to float32's digits
    session = ort.InferenceSession(str(tmp_path / "ensemble.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["crops"]
    assert [o.name for o in session.get_outputs()] == ["probs", "down", "features"]

    x = torch.rand(5, 3, 48, 48)
    probs, down = session.run(["probs", "down"], {"crops": x.numpy()})
    with torch.no_grad():
        each = [ExportedClassifier(m)(x) for m in members]
    expected = (each[0][0] + each[1][0]).numpy() / 2
    assert np.abs(probs - expected).max() < 1e-5
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    summed = (each[0][1] + each[1][1]).numpy()
    assert np.abs(down - summed / np.linalg.norm(summed, axis=1, keepdims=True)).max() < 1e-5
    # How each crop looks: the members' unit features side by side.
    (looks,) = session.run(["features"], {"crops": x.numpy()})
    assert np.abs(looks - np.concatenate([each[0][2], each[1][2]], axis=1)).max() < 1e-5
    assert np.allclose((looks ** 2).sum(axis=1), 2.0, atol=1e-4)


def test_an_ensemble_weighs_each_member_by_its_share_in_onnx_and_in_its_pt(tmp_path: Path):
    import onnxruntime as ort
    import torch

    from onze_vision.training.classifier import (
        ExportedClassifier, export_classifier, load_classifier_ensemble, save_classifier,
    )

    members = [_random_classifier(0), _random_classifier(1), _random_classifier(2)]
    export_classifier(members, tmp_path / "weighted.onnx", shares=[1, 1, 2], half_weights=False)
    session = ort.InferenceSession(str(tmp_path / "weighted.onnx"), providers=["CPUExecutionProvider"])
    x = torch.rand(4, 3, 48, 48)
    probs, down = session.run(["probs", "down"], {"crops": x.numpy()})
    with torch.no_grad():
        each = [ExportedClassifier(m)(x) for m in members]
    expected = (0.25 * each[0][0] + 0.25 * each[1][0] + 0.5 * each[2][0]).numpy()
    assert np.abs(probs - expected).max() < 1e-5
    summed = (each[0][1] + each[1][1] + 2 * each[2][1]).numpy()
    assert np.abs(down - summed / np.linalg.norm(summed, axis=1, keepdims=True)).max() < 1e-5
    save_classifier(members, tmp_path / "weighted.pt", shares=[1, 1, 2])
    assert load_classifier_ensemble(tmp_path / "weighted.pt")[1] == pytest.approx([0.25, 0.25, 0.5])
    save_classifier(members[:2], tmp_path / "equal.pt")
    assert load_classifier_ensemble(tmp_path / "equal.pt")[1] == pytest.approx([0.5, 0.5])


@pytest.mark.parametrize("shares", [[1.0, 0.0], [1.0, -1.0], [1.0, float("nan")], [1.0]])
def test_an_ensemble_refuses_shares_that_do_not_fit_its_members(shares: list[float]):
    from onze_vision.training.classifier import export_classifier, save_classifier

    with pytest.raises(ValueError, match=r"an ensemble of 2 needs as many positive shares"):
        export_classifier([_random_classifier(0), _random_classifier(1)], Path("unused.onnx"), shares=shares)
    with pytest.raises(ValueError, match=r"an ensemble of 2 needs as many positive shares"):
        save_classifier([_random_classifier(0), _random_classifier(1)], Path("unused.pt"), shares=shares)


def test_an_ensemble_pt_keeps_every_member_and_continues_from_the_newest(tmp_path: Path):
    import torch

    from onze_vision.training.classifier import load_classifier, load_classifier_members, save_classifier

    members = [_random_classifier(0), _random_classifier(1)]
    save_classifier(members, tmp_path / "ensemble.pt")
    loaded = load_classifier_members(tmp_path / "ensemble.pt")
    assert len(loaded) == 2
    for got, want in zip(loaded, members):
        assert all(torch.equal(a, b) for a, b in zip(got.state_dict().values(), want.state_dict().values()))
    newest = load_classifier(tmp_path / "ensemble.pt")
    assert torch.equal(newest.rank.weight, members[1].rank.weight) and newest.training
    save_classifier(members[0], tmp_path / "single.pt")  # one model: a plain state dict, as before
    assert len(load_classifier_members(tmp_path / "single.pt")) == 1


def test_train_ensembles_the_trained_classifier_with_the_named_one(tiny_dataset: Path, tmp_path: Path):
    from onze_vision.detector import CLASSIFIER_FILE
    from onze_vision.training.classifier import load_classifier_members, save_classifier

    save_classifier(_random_classifier(0), tmp_path / "first.pt")
    save_classifier(_random_classifier(1), tmp_path / "second.pt")
    args = argparse.Namespace(
        data=str(tiny_dataset), out=str(tmp_path / "out"), runs=str(tmp_path / "runs"), stage="classifier",
        classifier_minutes=0, classifier_init=str(tmp_path / "second.pt"), ensemble_with=str(tmp_path / "first.pt"),
    )
    # The operating point chosen for these models (sweep_thresholds.py --write) outlives a new classifier.
    (tmp_path / "out").mkdir()
    chosen = (tmp_path / "out" / "detector.json")
    chosen.write_text('{"detector_conf": 0.45, "operating_point": "chosen on every 4th photo"}')
    assert train_all(args) == 0
    assert chosen.read_text() == '{"detector_conf": 0.45, "operating_point": "chosen on every 4th photo"}'
    assert len(load_classifier_members(tmp_path / "out" / "index_classifier.pt")) == 2
    metrics = json.loads((tmp_path / "runs" / "classifier_metrics.json").read_text())
    assert metrics["members"] == 2 and set(metrics["ensemble"]) >= {"code_accuracy", "rank_accuracy"}
    assert (tmp_path / "out" / CLASSIFIER_FILE).stat().st_size > 0


def test_train_gives_the_trained_classifier_the_share_asked_and_the_named_ones_the_rest(
        tiny_dataset: Path, tmp_path: Path):
    from onze_vision.training.classifier import load_classifier_ensemble, save_classifier

    save_classifier([_random_classifier(0), _random_classifier(1)], tmp_path / "pair.pt", shares=[3, 1])
    save_classifier(_random_classifier(2), tmp_path / "new.pt")
    args = argparse.Namespace(
        data=str(tiny_dataset), out=str(tmp_path / "out"), runs=str(tmp_path / "runs"), stage="classifier",
        classifier_minutes=0, classifier_init=str(tmp_path / "new.pt"), ensemble_with=str(tmp_path / "pair.pt"),
        member_share=0.5,
    )
    assert train_all(args) == 0
    # The named pair keeps its 3:1 among the half it is left.
    assert load_classifier_ensemble(tmp_path / "out" / "index_classifier.pt")[1] == pytest.approx([0.375, 0.125, 0.5])
    metrics = json.loads((tmp_path / "runs" / "classifier_metrics.json").read_text())
    assert metrics["shares"] == pytest.approx([0.375, 0.125, 0.5])


@pytest.mark.parametrize(("member_share", "expected"), [
    pytest.param(None, [0.25, 0.25, 0.5], id="the continuation takes its earlier self's share"),
    pytest.param(0.8, [0.1, 0.1, 0.8], id="or the share asked, the others keeping their proportions"),
])
def test_replace_newest_puts_the_trained_classifier_in_its_earlier_selfs_place(
        tiny_dataset: Path, tmp_path: Path, member_share: float | None, expected: list[float]):
    import torch

    from onze_vision.training.classifier import load_classifier_ensemble, save_classifier

    old = [_random_classifier(0), _random_classifier(1), _random_classifier(2)]
    save_classifier(old, tmp_path / "three.pt", shares=[1, 1, 2])
    save_classifier(_random_classifier(3), tmp_path / "continued.pt")
    args = argparse.Namespace(
        data=str(tiny_dataset), out=str(tmp_path / "out"), runs=str(tmp_path / "runs"), stage="classifier",
        classifier_minutes=0, classifier_init=str(tmp_path / "continued.pt"), ensemble_with=str(tmp_path / "three.pt"),
        member_share=member_share, replace_newest=True,
    )
    assert train_all(args) == 0
    members, shares = load_classifier_ensemble(tmp_path / "out" / "index_classifier.pt")
    assert shares == pytest.approx(expected)
    wanted = [old[0], old[1], _random_classifier(3)]
    assert len(members) == 3 and all(torch.equal(got.rank.weight, want.rank.weight)
                                     for got, want in zip(members, wanted))


def test_an_ensemble_of_one_has_no_newest_member_to_replace():
    from onze_vision.training.classifier import without_newest

    with pytest.raises(ValueError, match="an ensemble of 1 has no member left once its newest is replaced"):
        without_newest([_random_classifier(0)], [1.0])


def test_an_ensembles_onnx_export_is_not_taken_for_one_classifier(tiny_dataset: Path, tmp_path: Path):
    from onze_vision.training.classifier import export_classifier, load_classifier
    from onze_vision.training.crops import build_crops

    export_classifier([_random_classifier(0), _random_classifier(1)], tmp_path / "ensemble.onnx")
    with pytest.raises(ValueError, match=r"ensemble's export: continue from its \.pt"):
        load_classifier(tmp_path / "ensemble.onnx", build_crops(tiny_dataset, "train", limit=2))


# A new seed is what makes a second ensemble member from the same data err differently;
# a wider last stage is what gives an underfitting member room to learn; width, batch,
# learning rate and device are what a from-scratch run on a lent GPU sets.
@pytest.mark.parametrize(("option", "value", "keyword", "expected"), [
    ("--classifier-seed", "7", "seed", 7),
    ("--classifier-widen", "256", "widen", 256),
    ("--classifier-width", "64", "width", 64),
    ("--classifier-batch", "1024", "batch", 1024),
    ("--classifier-lr", "0.001", "lr", 0.001),
])
def test_a_classifier_option_reaches_training(tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              option: str, value: str, keyword: str, expected: int):
    from onze_vision.cli import build_parser
    from onze_vision.training import classifier

    asked = []

    def fake_training(*args, **kwargs):
        asked.append(kwargs.get(keyword))
        return _random_classifier(0)

    monkeypatch.setattr(classifier, "train_classifier", fake_training)
    args = build_parser().parse_args(["train", "--data", str(tiny_dataset), "--stage", "classifier",
                                      "--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs"),
                                      option, value])
    assert train_all(args) == 0
    assert asked == [expected]


def test_training_left_to_its_defaults_never_writes_over_the_shipped_models() -> None:
    from onze_vision.cli import build_parser

    args = build_parser().parse_args(["train"])
    repo = Path(__file__).resolve().parents[1]
    assert Path(args.out) == repo / "runs" / "ship"   # ignored by git; --out models ships on purpose


def test_widening_the_last_stage_keeps_what_the_network_computes() -> None:
    import torch

    from onze_vision.training.classifier import widen_top

    narrow = _random_classifier(0)
    wide = widen_top(narrow, 192, noise=0.0)
    assert wide.rank.in_features == 192 and sum(p.numel() for p in wide.parameters()) > sum(
        p.numel() for p in narrow.parameters())
    x = torch.rand(6, 3, 48, 48)
    with torch.no_grad():
        for before, after in zip(narrow(x), wide(x)):
            assert torch.allclose(before, after, atol=1e-5)
    # With the default noise the copies differ (or training could never tell them apart), barely.
    noisy = widen_top(narrow, 192)
    with torch.no_grad():
        assert (noisy(x)[0] - narrow(x)[0]).abs().max() < 0.05
    with pytest.raises(ValueError, match="has 128 channels; cannot narrow it to 64"):
        widen_top(narrow, 64)


def test_a_widened_member_saves_and_loads_beside_narrow_ones(tmp_path: Path) -> None:
    import torch

    from onze_vision.training.classifier import load_classifier_members, save_classifier, widen_top

    members = [_random_classifier(0), widen_top(_random_classifier(1), 256)]
    save_classifier(members, tmp_path / "mixed.pt")
    loaded = load_classifier_members(tmp_path / "mixed.pt")
    assert [m.rank.in_features for m in loaded] == [128, 256]
    widened = members[1].features[8][0].weight  # a new stage, stored at float16's digits
    assert torch.equal(loaded[1].features[8][0].weight, widened.half().float())


@pytest.mark.parametrize(("name", "expected"), [("cpu", "cpu"), (" cpu ", "cpu")])
def test_a_device_name_becomes_a_torch_device(name: str, expected: str) -> None:
    from onze_vision.training.classifier import torch_device

    assert str(torch_device(name)) == expected


@pytest.mark.parametrize("name", ["0", "cuda:1"])
def test_a_cuda_device_on_a_machine_without_one_is_refused_with_the_reason(name: str) -> None:
    import torch

    from onze_vision.training.classifier import torch_device

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    with pytest.raises(ValueError, match=f"device '{name}' asks for CUDA, and this machine's PyTorch sees no CUDA GPU"):
        torch_device(name)


def test_an_unknown_device_is_refused_with_the_name_quoted() -> None:
    from onze_vision.training.classifier import torch_device

    with pytest.raises(ValueError, match="unknown device 'gpu please'"):
        torch_device("gpu please")


def test_train_says_which_device_it_cannot_use_and_writes_no_model(tiny_dataset: Path, tmp_path: Path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    from onze_vision.cli import build_parser

    args = build_parser().parse_args(["train", "--data", str(tiny_dataset), "--stage", "classifier",
                                      "--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs"),
                                      "--device", "0"])
    assert train_all(args) == 2
    assert "device '0' asks for CUDA" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not list((tmp_path / "runs").glob("crops_*"))  # refused before any work


def test_a_classifier_trained_from_scratch_at_another_width_ships_at_that_width(tiny_dataset: Path, tmp_path: Path):
    import onnxruntime as ort

    from onze_vision.training.classifier import load_classifier_members

    args = argparse.Namespace(
        data=str(tiny_dataset), out=str(tmp_path / "out"), runs=str(tmp_path / "runs"), stage="classifier",
        classifier_minutes=0.05, classifier_width=16, classifier_batch=32, device="cpu",
    )
    assert train_all(args) == 0
    (member,) = load_classifier_members(tmp_path / "out" / "index_classifier.pt")
    assert member.features[1][0].out_channels == 16 and member.rank.in_features == 64  # the top stage: 4x the width
    assert next(member.parameters()).device.type == "cpu"
    session = ort.InferenceSession(str(tmp_path / "out" / "index_classifier.onnx"), providers=["CPUExecutionProvider"])
    probs, down, looks = session.run(None, {"crops": np.random.rand(3, 3, 48, 48).astype(np.float32)})
    assert probs.shape == (3, 54) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert looks.shape == (3, 64)   # the top stage's features
    assert np.allclose(np.linalg.norm(down, axis=1), 1.0, atol=1e-5)


def test_the_crops_stage_caches_the_classifiers_crops_and_trains_nothing(tiny_dataset: Path, tmp_path: Path):
    from onze_vision.cli import build_parser

    # Cutting crops needs no GPU: a device named for the training call that follows is no reason to refuse.
    args = build_parser().parse_args(["train", "--data", str(tiny_dataset), "--stage", "crops",
                                      "--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs"),
                                      "--device", "0"])
    assert train_all(args) == 0
    cached = sorted(p.name for p in (tmp_path / "runs").glob("crops_*.npz"))
    assert cached == [f"crops_{tiny_dataset.name}_train.npz", f"crops_{tiny_dataset.name}_val.npz"]
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs" / "classifier.pt").exists()


def test_a_dataset_missing_a_scene_says_which(tmp_path: Path) -> None:
    from onze_vision.imageio import InvalidImageError
    from onze_vision.training.crops import build_crops

    (tmp_path / "meta").mkdir()
    record = {"image": "images/train/train_00000.jpg", "labels": [{"box": [1, 2, 9, 14], "code": "QH"}]}
    (tmp_path / "meta" / "train.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(InvalidImageError, match=r"cannot read the scene '.*train_00000\.jpg': no such file"):
        build_crops(tmp_path, "train")


def count_calls(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """A list that grows by one at each call of ``module.name``, which still does its work."""
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_mined_crops_are_read_back_only_for_the_same_detector_and_the_same_scenes(tiny_dataset: Path, tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch):
    import shutil

    import onze_vision.training.crops as crops_module
    from fake_models import make_fake_models
    from onze_vision.training.recipe import mined_crops

    dataset = tmp_path / "onze"   # a copy: its summary is rewritten below, as a new rendering's is
    shutil.copytree(tiny_dataset, dataset)
    (tmp_path / "models").mkdir()
    (tmp_path / "runs").mkdir()
    make_fake_models(tmp_path / "models", [[100, 100, 20, 30, 0.9]], 320, "QH")
    mined = count_calls(monkeypatch, crops_module, "mine_detector_crops")
    first = mined_crops(dataset, tmp_path / "models", tmp_path / "runs", 2)
    again = mined_crops(dataset, tmp_path / "models", tmp_path / "runs", 2)
    assert len(mined) == 1 and len(again) == len(first)
    # The same name made again with another recipe (a warm GPU machine's datasets/gpu).
    (dataset / "summary.json").write_text((dataset / "summary.json").read_text().replace("{", '{"again": 1, ', 1))
    mined_crops(dataset, tmp_path / "models", tmp_path / "runs", 2)
    assert len(mined) == 2


def test_crops_cut_before_crop_index_changed_are_cut_again(tiny_dataset: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch):
    import onze_vision.indexcrop as indexcrop
    import onze_vision.training.crops as crops_module
    from onze_vision.training.recipe import cached_crops

    cut = count_calls(monkeypatch, crops_module, "build_crops")
    cached_crops(tiny_dataset, "train", tmp_path, seed=0)
    cached_crops(tiny_dataset, "train", tmp_path, seed=0)
    assert len(cut) == 1
    monkeypatch.setattr(indexcrop, "CUT_VERSION", indexcrop.CUT_VERSION + 1)
    cached_crops(tiny_dataset, "train", tmp_path, seed=0)
    assert len(cut) == 2
