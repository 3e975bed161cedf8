"""Where the material shared between checkouts lives: the real photos and the rules' texts.

They sit in ``shared/`` beside the checkout (``../shared``), outside the repository (the
photos are other people's, under their licence). A second checkout elsewhere, or a worktree,
names that folder with ``ONZE_SHARED``.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """``$ONZE_SHARED``, else ``shared/`` beside the checkout."""
    return Path(os.environ.get("ONZE_SHARED") or REPO_ROOT.parent / "shared")


def real_photos_dir() -> Path:
    """The labelled real photos (``realphotos/edje``: see its README)."""
    return shared_dir() / "realphotos" / "edje"
