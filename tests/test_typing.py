"""The type hints hold: mypy checks the package and the web app (config in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_type_errors() -> None:
    # A fresh cache each run would take a minute; mypy's own cache sits in the ignored .mypy_cache/.
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"mypy found type errors:\n{result.stdout}{result.stderr}"
    assert "Success: no issues found" in result.stdout
