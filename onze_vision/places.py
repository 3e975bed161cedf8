"""Where Onze Vision keeps what it makes: a checkout's own folders, else this user's.

A checkout (a clone, or ``pip install -e .``) has ``pyproject.toml`` beside the package and
keeps its book in ``instance/``, its datasets in ``datasets/`` and its runs in ``runs/``. An
installed package lives in site-packages, which a reinstall replaces and which is no place
for hundreds of megabytes of card art: there the score sheet's book goes in a per-user
data folder, the art cache in a per-user cache folder, and the development commands'
folders are relative to the current folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from onze_vision.shared import REPO_ROOT

#: The folder name under the per-user data and cache folders.
APP_NAME = "onze-vision"


def in_checkout(root: Path = REPO_ROOT) -> bool:
    """True when the package runs from a checkout (``pyproject.toml`` beside it), not from site-packages."""
    return (root / "pyproject.toml").is_file()


def project_dir(root: Path = REPO_ROOT) -> Path:
    """The folder ``datasets/`` and ``runs/`` are in by default: the checkout, else the current folder
    (``.``, so that the defaults read as relative paths and follow a later ``cd``)."""
    return root if in_checkout(root) else Path(".")


def _xdg(variable: str, fallback: Path) -> Path:
    # The XDG spec ignores a relative value: it would move with the current folder.
    value = os.environ.get(variable, "")
    return Path(value) if value and os.path.isabs(value) else fallback


def user_data_dir(platform: str = sys.platform) -> Path:
    """This user's data folder for Onze Vision (the score sheet's book once installed).

    ``$XDG_DATA_HOME/onze-vision``, else ``~/.local/share/onze-vision`` on Linux and other
    Unix; ``~/Library/Application Support/onze-vision`` on macOS; ``%APPDATA%\\onze-vision``
    on Windows.
    """
    home = Path.home()
    if platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / APP_NAME
    if platform == "darwin":
        return home / "Library" / "Application Support" / APP_NAME
    return _xdg("XDG_DATA_HOME", home / ".local" / "share") / APP_NAME


def user_cache_dir(platform: str = sys.platform) -> Path:
    """This user's cache folder for Onze Vision (what can be made again, such as rendered card art).

    ``$XDG_CACHE_HOME/onze-vision``, else ``~/.cache/onze-vision`` on Linux and other Unix;
    ``~/Library/Caches/onze-vision`` on macOS; ``%LOCALAPPDATA%\\onze-vision\\Cache`` on Windows.
    """
    home = Path.home()
    if platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local") / APP_NAME / "Cache"
    if platform == "darwin":
        return home / "Library" / "Caches" / APP_NAME
    return _xdg("XDG_CACHE_HOME", home / ".cache") / APP_NAME
