"""The blur gauge: its training data, its training and export, and its contract at run time."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from support import needs_art

pytest.importorskip("torch", reason="training needs the train extra: pip install -e '.[train]'")

from onze_vision.detector import CardDetector, InvalidModelError  # noqa: E402
from onze_vision.sharpness import BlurGauge  # noqa: E402
from onze_vision.training.blur_gauge import (  # noqa: E402
    MAX_SMEAR, TARGET_CAP, draw_blur, export_blur_gauge, gauge_crops, train_blur_gauge,
)

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"


def _sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def test_a_drawn_blur_says_how_far_it_smeared_and_a_sharp_draw_changes_nothing() -> None:
    rng = np.random.default_rng(0)
    image = np.zeros((120, 120, 3), np.uint8)
    cv2.putText(image, "10", (20, 80), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
    smears = []
    for _ in range(60):
        out, smear = draw_blur(rng, image, index_side=40.0)
        smears.append(smear)
        if smear == 0:
            assert out is image
        else:
            assert 0 < smear <= MAX_SMEAR * 40.0 + 1 and _sharpness(out) < _sharpness(image)
    assert 0 < smears.count(0.0) < len(smears)   # some scenes stay sharp, most do not


@pytest.fixture(scope="module")
def tiny_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from onze_vision.synth.dataset import make_dataset

    out = tmp_path_factory.mktemp("gauge-data")
    make_dataset(out, train_images=6, val_images=3, seed=5, workers=1, art_cache=tmp_path_factory.mktemp("art"),
                 train_decks=["anglo"], val_decks=["paris"], progress=False)
    return out


@needs_art
@pytest.mark.slow
def test_the_gauge_trains_on_index_crops_and_exports_what_the_detector_loads(tiny_dataset: Path, tmp_path: Path):
    crops, smear = gauge_crops(tiny_dataset, "train", draws=2, seed=1)
    assert crops.shape[1:] == (48, 48, 3) and crops.dtype == np.uint8 and len(crops) == len(smear)
    assert (smear >= 0).all() and (smear == 0).any() and (smear > 0).any()
    model = train_blur_gauge(crops, smear, minutes=0.03)
    models = tmp_path / "models"
    shutil.copytree(REPO / "models", models, ignore=shutil.ignore_patterns("*.pt", "evaluation*", "blur_gauge.onnx"))
    export_blur_gauge(model, models / "blur_gauge.onnx")
    detector = CardDetector(models)
    assert detector.blur_gauge is not None
    assert detector.blur_gauge.smear(np.random.rand(5, 3, 48, 48).astype(np.float32)).shape == (5,)
    # A real photo the shipped detector and classifier read (these are still the shipped ones):
    # the new gauge gauges its indices, and the reading is the shipped one's.
    reading = detector.detect_cards(DATA / "web_edje_IMG_2571.jpg")
    assert sorted(card.card for card in reading.cards) == ["10S", "9H", "QC"]
    # A number on the scale it was taught, in index sizes from 0 (sharp) to TARGET_CAP (retake
    # it); a gauge trained for seconds strays a little either side (-0.14 to 0.17 seen), never a cap.
    assert isinstance(reading.smear, float) and -TARGET_CAP < reading.smear < TARGET_CAP


@needs_art
@pytest.mark.slow
def test_train_stage_blur_gauge_writes_the_gauge_and_its_figures(tiny_dataset: Path, tmp_path: Path, capsys):
    from onze_vision.training.recipe import train_all

    args = argparse.Namespace(data=str(tiny_dataset), out=str(tmp_path / "out"), runs=str(tmp_path / "runs"),
                              stage="blur-gauge", gauge_minutes=0.02, gauge_scenes=4)
    assert train_all(args) == 0
    assert (tmp_path / "out" / "blur_gauge.onnx").stat().st_size > 0
    assert not (tmp_path / "out" / "detector.json").exists()   # the gauge changes no runtime constant
    metrics = json.loads((tmp_path / "runs" / "blur_gauge_metrics.json").read_text())
    assert metrics["crops"] > 0 and metrics["mean_error"] >= 0
    assert "blur gauge on held-out decks" in capsys.readouterr().out


def test_a_scene_list_that_is_not_there_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="meta/train.jsonl"):
        gauge_crops(tmp_path, "train")


@pytest.mark.parametrize(("crops", "minutes", "message"), [
    (np.zeros((0, 48, 48, 3), np.uint8), 1.0, "no crops"),
    (np.zeros((4, 48, 48, 3), np.uint8), 0.0, "must be positive, not 0.0 minutes"),
])
def test_training_without_crops_or_time_is_refused(crops: np.ndarray, minutes: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        train_blur_gauge(crops, np.zeros(len(crops), np.float32), minutes)


def test_a_network_without_the_gauges_contract_is_refused_with_what_it_has(tmp_path: Path) -> None:
    models = tmp_path / "models"
    shutil.copytree(REPO / "models", models, ignore=shutil.ignore_patterns("*.pt", "evaluation*"))
    # The classifier in the gauge's place: one input, but two outputs.
    shutil.copy(models / "index_classifier.onnx", models / "blur_gauge.onnx")
    with pytest.raises(InvalidModelError, match="blur_gauge.onnx.*gives \\['probs', 'down', 'features'\\]"):
        CardDetector(models)


def test_a_photo_without_crops_has_no_smear() -> None:
    class Session:
        def get_inputs(self):  # noqa: ANN202
            return [argparse.Namespace(name="crops", shape=["n", 3, 48, 48])]

        def get_outputs(self):  # noqa: ANN202
            return [argparse.Namespace(name="smear")]

        def run(self, _outputs, feeds):  # noqa: ANN001, ANN202
            return [feeds["crops"].mean(axis=(1, 2, 3))]

    gauge = BlurGauge(Session())
    assert gauge.photo_smear(np.zeros((0, 3, 48, 48), np.float32), np.zeros(0)) is None
    crops = np.stack([np.full((3, 48, 48), v, np.float32) for v in (0.1, 0.2, 0.9)])
    assert gauge.photo_smear(crops, np.array([0.9, 0.8, 0.7])) == pytest.approx(0.2)   # the median


def test_a_negative_warning_threshold_is_refused_with_its_value() -> None:
    from dataclasses import replace

    from onze_vision.detector import DetectorConfig

    with pytest.raises(ValueError, match="blur_warn_from must be >= 0 .*got -0.1"):
        replace(DetectorConfig(), blur_warn_from=-0.1)


@pytest.mark.parametrize(("smear", "blurred", "extra"), [
    (None, False, {}),                                       # no gauge, or nothing named
    (0.04, False, {}),                                       # sharp: the JSON stays as it was
    (0.3141, True, {"blurred": True, "smear": 0.314}),
])
def test_only_a_blurred_reading_says_so_in_its_json(smear: float | None, blurred: bool, extra: dict) -> None:
    from onze_vision.detector import PhotoReading

    assert PhotoReading(10, 20, [], smear=smear, blurred=blurred).to_dict() == {
        "width": 10, "height": 20, "cards": [], **extra}
