"""A lent GPU machine's call carries the working tree and the training bundle in 64 MiB: the
repository must leave the bundle room, or the next lent GPU's minutes go to making some."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: The bundle `python scripts/pack_gpu_bundle.py` packed on 2026-11-28 (every training deck,
#: the number-card and glyph decks included; the table photos; the Ultralytics wheels). Packing
#: it needs the rendered card art, so the figure is kept here rather than measured each time.
BUNDLE_MIB = 27.3


def _call_limit_mib() -> int:
    """What one device call carries, as the packer counts it."""
    spec = importlib.util.spec_from_file_location("pack_gpu_bundle", REPO / "scripts" / "pack_gpu_bundle.py")
    assert spec is not None and spec.loader is not None
    packer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(packer)
    return int(packer.CALL_LIMIT_MIB)


def test_the_repository_leaves_a_gpu_call_room_for_the_training_bundle() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout: the call carries the tracked files")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    tracked = sum((REPO / name).stat().st_size for name in listed.decode().split("\0") if (REPO / name).is_file())
    tracked_mib, limit = tracked / 2**20, _call_limit_mib()
    assert tracked_mib + BUNDLE_MIB <= limit, (
        f"the tracked files are {tracked_mib:.1f} MiB: with the {BUNDLE_MIB} MiB training bundle a lent GPU's "
        f"call would carry {tracked_mib + BUNDLE_MIB:.1f} MiB, over its {limit}; store large files at "
        f"half precision (onze_vision.training.halfweights) or pack fewer deck splits (pack_gpu_bundle.py --splits)")

