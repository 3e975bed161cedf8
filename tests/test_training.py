"""One-epoch training smoke test: generate a tiny dataset, train both stages, export, read.

This runs the committed recipe end to end (Ultralytics from ``yolo11n.yaml``, offline;
the classifier in PyTorch; both exported to ONNX) and checks the runtime can load what
it wrote. The models it makes are far too small to read cards; the shipped ones are
tested in ``test_detector.py``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="training needs the train extra: pip install -e '.[train]'")
pytest.importorskip("ultralytics", reason="training needs the train extra: pip install -e '.[train]'")

from onze_vision.synth.dataset import make_dataset  # noqa: E402
from onze_vision.training.recipe import fit_center_offset, train_all  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("rsvg-convert") is None or not Path("/usr/share/aisleriot/cards/anglo.svgz").exists(),
        reason="card art needs: apt-get install gnome-cards-data librsvg2-bin",
    ),
]


@pytest.fixture(scope="module")
def tiny_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("train-data")
    make_dataset(out, train_images=16, val_images=8, seed=3, workers=1,
                 art_cache=tmp_path_factory.mktemp("art"), train_decks=["anglo"], val_decks=["paris"],
                 progress=False)
    return out


def test_one_epoch_of_both_stages_exports_models_the_runtime_loads(tiny_dataset: Path, tmp_path: Path):
    models = tmp_path / "models"
    args = argparse.Namespace(
        data=str(tiny_dataset), out=str(models), runs=str(tmp_path / "runs"), stage="all", epochs=1,
        imgsz=160, batch=8, device="cpu", workers=0, fraction=1.0, classifier_minutes=0.02, resume=False,
    )
    assert train_all(args) == 0
    for name in ("index_detector.onnx", "index_detector.pt", "index_classifier.onnx", "detector.json"):
        assert (models / name).stat().st_size > 0, name
    config = json.loads((models / "detector.json").read_text())
    assert config["imgsz"] == 640 and len(config["center_offset"]) == 2

    import onnxruntime as ort

    classifier = ort.InferenceSession(str(models / "index_classifier.onnx"), providers=["CPUExecutionProvider"])
    probs, down = classifier.run(None, {"crops": np.random.rand(5, 3, 48, 48).astype(np.float32)})
    assert probs.shape == (5, 54) and np.allclose(probs.sum(axis=1), 1, atol=1e-4)
    assert down.shape == (5, 2) and np.allclose(np.linalg.norm(down, axis=1), 1, atol=1e-4)

    from onze_vision.detector import CardDetector

    detector = CardDetector(model_dir=models)
    scene = next((tiny_dataset / "images" / "val").glob("*.jpg"))
    reading = detector.detect_cards(scene)
    assert reading.width == 320 and reading.height == 320
    assert all(card.box[0] <= card.box[2] and card.box[1] <= card.box[3] for card in reading.cards)


def test_the_card_centre_lies_down_and_right_of_each_index(tiny_dataset: Path):
    offset = fit_center_offset(tiny_dataset)
    # An index sits near its card's corner: the centre is a few index sizes inwards.
    assert 1.0 < offset["a"] < 6.0
    assert 0.5 < offset["b"] < 5.0


def test_training_without_a_dataset_says_how_to_make_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    args = argparse.Namespace(data=str(tmp_path / "nowhere"), out=str(tmp_path), runs=str(tmp_path), stage="all")
    assert train_all(args) == 2
    assert "make-dataset" in capsys.readouterr().err
