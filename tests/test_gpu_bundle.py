"""A lent GPU machine's call carries the working tree and the training bundle in 64 MiB: the
repository must leave the bundle room, or the next lent GPU's minutes go to making some."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
#: The bundle `python scripts/pack_gpu_bundle.py` packed on 2026-11-28 (every training deck,
#: the number-card and glyph decks included; the table photos; the Ultralytics wheels). Packing
#: it needs the rendered card art, so the figure is kept here rather than measured each time.
BUNDLE_MIB = 27.3


def _packer() -> ModuleType:
    """scripts/pack_gpu_bundle.py, which counts what a device call carries."""
    spec = importlib.util.spec_from_file_location("pack_gpu_bundle", REPO / "scripts" / "pack_gpu_bundle.py")
    assert spec is not None and spec.loader is not None
    packer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(packer)
    return packer


def test_the_repository_leaves_a_gpu_call_room_for_the_training_bundle() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout: the call carries the tracked files")
    packer = _packer()
    tracked_mib, limit = packer.tracked_bytes() / 2**20, packer.CALL_LIMIT_MIB
    assert tracked_mib + BUNDLE_MIB <= limit, (
        f"the tracked files are {tracked_mib:.1f} MiB: with the {BUNDLE_MIB} MiB training bundle a lent GPU's "
        f"call would carry {tracked_mib + BUNDLE_MIB:.1f} MiB, over its {limit}; store large files at "
        f"half precision (onze_vision.training.halfweights) or pack fewer deck splits (pack_gpu_bundle.py --splits)")

