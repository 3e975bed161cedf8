"""Small helpers shared by test modules: the card-art skip, a free local port, the apps' secret
key, the server's thread for what is old run until a test has what it waits for.

A helper module (like ``synthetic_indices.py``), imported by the test modules that need it,
so each of these is written once.
"""

from __future__ import annotations

import shutil
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: The key an app started without ``SECRET_KEY`` reads from ``ONZE_SECRET_KEY`` in the tests
#: (conftest sets it for every test), so none writes a key file into the checkout's instance/.
TEST_SECRET_KEY = "onze-tests-secret"

#: The generator renders its cards from this SVG deck with ``rsvg-convert``.
ANGLO_SVG = Path("/usr/share/aisleriot/cards/anglo.svgz")

#: For tests that render card art (the synthetic generator and everything built on it).
needs_art = pytest.mark.skipif(
    shutil.which("rsvg-convert") is None or not ANGLO_SVG.exists(),
    reason="card art needs: apt-get install gnome-cards-data librsvg2-bin",
)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (for a server started next)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def looks_until(app: Any, done: Callable[[Any], bool], every_seconds: float = 0.01) -> Any:
    """Start the server's thread for what is old (``webapp.keepsake``) on ``app``, wait until
    ``done(thread)`` (20 s at most), then stop it; the thread, for its ``looks``."""
    from webapp import keepsake

    thread = keepsake.start(app, every_seconds=every_seconds)
    try:
        deadline = time.monotonic() + 20
        while not done(thread) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        thread.stop()
        thread.join(timeout=20)
    return thread
