"""The oracle bound script: crops of the held-out designs only, never the benchmark's scenes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from support import needs_art

pytest.importorskip("torch", reason="the oracle bound trains: pip install -e '.[train]'")

from onze_vision.detector import DEFAULT_MODEL_DIR, CardDetector  # noqa: E402
from onze_vision.synth.dataset import make_dataset  # noqa: E402
from onze_vision.training.crops import NONE_RANK  # noqa: E402

pytestmark = needs_art

SHIPPED = (DEFAULT_MODEL_DIR / "index_classifier.pt").exists()


@pytest.fixture(scope="module")
def oracle(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("oracle_bound")


def _held_out_scenes(root: Path, seed: int, art: Path) -> Path:
    make_dataset(root, train_images=0, val_images=3, seed=seed, workers=1, art_cache=art,
                 train_decks=["anglo"], val_decks=["paris"], progress=False)
    return root


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    art = tmp_path_factory.mktemp("art")
    return {seed: _held_out_scenes(tmp_path_factory.mktemp(f"seed{seed}"), seed, art) for seed in (0, 4)}


def test_crops_come_from_the_held_out_scenes(oracle: ModuleType, scenes: dict[int, Path]) -> None:
    crops = oracle.held_out_crops([scenes[4]])
    labels = sum(1 for line in (scenes[4] / "labels" / "val").glob("*.txt") for _ in line.read_text().splitlines())
    assert (crops.rank != NONE_RANK).sum() == labels > 0


def test_the_benchmarks_own_seed_is_refused(oracle: ModuleType, scenes: dict[int, Path]) -> None:
    with pytest.raises(ValueError, match="seed 0, the benchmark's"):
        oracle.held_out_crops([scenes[4], scenes[0]])


@pytest.mark.skipif(not SHIPPED, reason="models/ has no trained classifier")
def test_the_bound_writes_two_model_folders_the_runtime_loads(oracle: ModuleType, scenes: dict[int, Path],
                                                              tmp_path: Path) -> None:
    out = tmp_path / "oracle"
    assert oracle.main(["--data", str(scenes[4]), "--minutes", "0.02", "--out", str(out)]) == 0
    for name in ("alone", "with-shipped"):
        detector = CardDetector(out / name)
        assert detector.config == CardDetector().config  # the shipped detector and thresholds, unchanged
