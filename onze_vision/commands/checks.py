"""Checks of option values shared by the subcommands, so each refuses nonsense the same way.

A check returns what is wrong as one line that quotes the value, or None when the value
makes sense. A handler collects its problems before any work and hands the first to
:func:`refuse`, which prints it as argparse prints a value it cannot parse and gives exit
status 2. (argparse itself still refuses text that is not a number at all.)
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path

#: The modules of the ``train`` extra (pyproject.toml), which the runtime does without.
TRAIN_EXTRA_MODULES = ("torch", "torchvision", "ultralytics", "onnx", "onnxslim", "tqdm", "matplotlib", "yaml")


def refuse(command: str, problem: str) -> int:
    """Print ``problem`` as ``onze-vision COMMAND: error: ...`` on stderr; return the exit status 2."""
    print(f"onze-vision {command}: error: {problem}", file=sys.stderr)
    return 2


def file_name(text: str) -> str:
    """An argparse type for a file to read or write: not an empty name (``Path("")`` is the
    current folder, and an empty ``--database`` was taken as none given)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty name: give a file's name")
    return text


def non_empty(text: str) -> str:
    """An argparse type for a name that must say something."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name")
    return text


def first(*problems: str | None) -> str | None:
    """The first problem found, or None."""
    return next((problem for problem in problems if problem), None)


def _shown(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _because(why: str) -> str:
    return f" ({why})" if why else ""


def at_least(option: str, value: float | None, least: float, why: str = "") -> str | None:
    """``value`` is ``least`` or more (a count, a size, a seed); None (not given) passes."""
    if value is None or (math.isfinite(value) and value >= least):
        return None
    return f"{option} {_shown(value)}: must be at least {_shown(least)}{_because(why)}"


def above(option: str, value: float | None, low: float, why: str = "") -> str | None:
    """``value`` is finite and above ``low`` (a time, a rate); None (not given) passes."""
    if value is None or (math.isfinite(value) and value > low):
        return None
    return f"{option} {_shown(value)}: must be above {_shown(low)}{_because(why)}"


def share(option: str, value: float | None, why: str = "") -> str | None:
    """``value`` is a share above 0 and at most 1; None (not given) passes."""
    if value is None or 0.0 < value <= 1.0:   # False for NaN
        return None
    return f"{option} {_shown(value)}: must be above 0 and at most 1{_because(why)}"


def writable_folder(option: str, folder: Path) -> str | None:
    """``folder`` is, or can be made, a folder this user writes in (nothing is created)."""
    if folder.exists() and not folder.is_dir():
        return f"{option} '{folder}' is a file, not a folder"
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():   # a file on the way: the folder can never be made
        return f"{option} '{folder}': '{existing}' is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{option} '{folder}': '{existing}' is not writable"
    return None


def train_extra_install() -> str:
    """The command that installs the ``train`` extra, for this checkout or this installed package."""
    from onze_vision.places import in_checkout

    return 'pip install -e ".[train]"' if in_checkout() else 'pip install "onze-vision[train]"'


def missing_train_extra(what: str, missing: str) -> str:
    """That ``what`` needs the train extra, of which module ``missing`` is not installed, and how to install it."""
    return (f"{what} needs the train extra (PyTorch, Ultralytics, ONNX), which the score sheet and detect do "
            f"without, and {missing} is not installed: {train_extra_install()}")


def train_extra_problem(what: str, modules: Sequence[str]) -> str | None:
    """The first of ``modules`` not installed, said by :func:`missing_train_extra`; None when all are.

    Looked for, not imported: torch takes seconds to import, and the command imports it anyway.
    """
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):   # a half-installed package, or a None in sys.modules
            found = False
        if not found:
            return missing_train_extra(what, name)
    return None
