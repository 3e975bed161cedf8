"""Small helpers shared by test modules: the card-art skip, a photo of cards laid out on a
table, a free local port, the apps' secret key, the server's thread for what is old run until
a test has what it waits for.

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

import numpy as np
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


def cards_photo(cards: list[tuple[np.ndarray, float]], card_height: int, seed: int) -> np.ndarray:
    """Cards (BGRA art, each turned its degrees) in a row across a plain generated table."""
    import cv2

    from onze_vision.synth.backgrounds import generated_surface

    rng = np.random.default_rng(seed)
    size = (960, 720)
    photo = generated_surface(rng, size).astype(np.float32)
    for place, (card, degrees) in enumerate(cards, start=1):
        height, width = card.shape[:2]
        turn = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, card_height / height)
        turn[:, 2] += np.array([size[0] * place / (len(cards) + 1), size[1] / 2]) - np.array([width / 2, height / 2])
        drawn = cv2.warpAffine(card, turn, size, flags=cv2.INTER_AREA)
        alpha = drawn[:, :, 3:4].astype(np.float32) / 255
        photo = photo * (1 - alpha) + drawn[:, :, :3].astype(np.float32) * alpha
    return np.clip(photo + rng.normal(0, 3, photo.shape), 0, 255).astype(np.uint8)


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
