"""``scripts/average_detectors.py``: two detector checkpoints averaged weight by weight."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from onze_vision.detector import DEFAULT_MODEL_DIR

torch = pytest.importorskip("torch")
CHECKPOINT = DEFAULT_MODEL_DIR / "index_detector.pt"
needs_checkpoint = pytest.mark.skipif(not CHECKPOINT.exists(), reason="needs the shipped models/index_detector.pt")


@pytest.fixture(scope="module")
def script(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("average_detectors")


def _weights(path: Path) -> dict[str, "torch.Tensor"]:
    return torch.load(path, map_location="cpu", weights_only=False)["model"].state_dict()


@needs_checkpoint
def test_the_average_lies_between_its_two_checkpoints_by_the_weight(script: ModuleType, tmp_path: Path) -> None:
    shipped = torch.load(CHECKPOINT, map_location="cpu", weights_only=False)
    moved = shipped["model"]
    with torch.no_grad():
        for parameter in moved.parameters():
            parameter.add_(1.0)
    torch.save(shipped, tmp_path / "moved.pt")

    averaged = _weights(script.average_checkpoints(CHECKPOINT, tmp_path / "moved.pt", 0.25, tmp_path / "mix.pt"))
    before = _weights(CHECKPOINT)
    key = next(k for k, v in before.items() if v.is_floating_point() and k.endswith("conv.weight"))
    shift = (averaged[key].float() - before[key].float()).mean().item()
    assert shift == pytest.approx(0.25, abs=2e-3)  # a quarter of the way (fp16 weights)


@needs_checkpoint
@pytest.mark.parametrize("weight", [-0.1, 1.5])
def test_a_weight_outside_0_to_1_is_refused(script: ModuleType, tmp_path: Path, weight: float) -> None:
    with pytest.raises(ValueError, match=str(weight)):
        script.average_checkpoints(CHECKPOINT, CHECKPOINT, weight, tmp_path / "mix.pt")


def test_a_missing_checkpoint_is_named(script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        script.main([str(tmp_path / "none.pt"), str(tmp_path / "none.pt"), "--out", str(tmp_path / "out")])
    assert f"no checkpoint at '{tmp_path / 'none.pt'}'" in capsys.readouterr().err
