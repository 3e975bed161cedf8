"""Fixtures for the web app: an app on a temporary database, its client and CLI runner.

Detection is stubbed by default (``FakeDetector``) so page and API tests do not need
the model; the tests that read real photos use the shipped detector explicitly. Also the
generator's: a card-art cache and the anglo deck, once per test module.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

# Before any test imports Ultralytics (it reads the word "true" once, on import): no test may
# reach for the network, whichever test file imports it first.
os.environ["YOLO_OFFLINE"] = "true"

from onze_vision.detector import DetectedCard, PhotoReading
from onze_vision.imageio import load_image
from onze_vision.jokers import JokerLook, JokerLookMismatchError, NoJokerFoundError
from support import TEST_SECRET_KEY

DATA = Path(__file__).parent / "data"
SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@pytest.fixture(autouse=True)
def secret_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> str:
    """An app made without ``SECRET_KEY`` (``serve``, a server in a subprocess) takes it from
    ``ONZE_SECRET_KEY``; unset, it writes a new key into the checkout's ``instance/`` folder,
    which no test may touch."""
    monkeypatch.setenv("ONZE_SECRET_KEY", TEST_SECRET_KEY)
    return TEST_SECRET_KEY


@pytest.fixture(scope="module")
def art_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A card-art cache for one test module (decks are rendered into it once)."""
    return tmp_path_factory.mktemp("art")


@pytest.fixture(scope="module")
def anglo(art_cache: Path) -> Any:
    """The anglo design's rendered cards (``DeckArt``)."""
    from onze_vision.synth.art import load_decks

    return load_decks(names=["anglo"], cache=art_cache)[0]


@pytest.fixture(scope="session")
def load_script() -> Callable[[str], ModuleType]:
    """Import a script of ``scripts/`` (not a package) as a module, by its name without ``.py``."""
    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return load


class FakeDetector:
    """Reads the image for real (so bad files fail as they would) and "sees" ``cards``."""

    def __init__(self) -> None:
        self.cards: list[str] = ["QH", "7S", "JK"]
        self.alternatives: dict[str, str] = {}  # code -> the alternative offered when read unsure
        self.maybe: list[str] = []  # cards "possibly missed"
        self.faint: set[str] = set()  # codes read too weakly to trust (``DetectedCard.check``)
        self.count_unsure: set[str] = set()  # Jokers that may be one card's two corners (``count_unsure``)
        self.colourless = False  # a photo without colour (``PhotoReading.colourless``)
        self.light_gains: tuple[float, float, float] | None = None  # light evened out (R, G, B)
        self.smear: float | None = None  # set it past 0.2 for a photo reported blurred
        self.rows: list[int] = []  # each card's row on the table, top first (else all in one row)
        self.calls = 0
        self.corners: list[str] = []  # the deck's corners each call was told
        self.four_corner_deck = False  # the photo shows a deck with an index in all four corners
        # Where set, what a photo shows, from its pixels and the deck's corners (else ``cards``).
        self.sees: Callable[[Any, str], list[str]] | None = None
        self.jokers: list[Any] = []  # the Joker's look each call was given (None: none passed)
        self.joker_outdated = False  # a look given is refused as another classifier's
        self.joker_in_photo = True  # a photo sent to learn the Joker shows one

    def __call__(self, data: bytes, corners: str = "auto", **kwargs: Any) -> PhotoReading:
        self.calls += 1
        self.corners.append(corners)
        self.jokers.append(kwargs.get("joker"))
        if self.joker_outdated and kwargs.get("joker") is not None:
            raise JokerLookMismatchError("this Joker's look was taken with another classifier")
        image = load_image(data, max_side=64)
        cards = self.cards if self.sees is None else self.sees(image.image, corners)
        rows = self.rows or [0] * len(cards)
        boxes = [DetectedCard(code, 0.3 if code in self.faint else 0.9,
                              (10.0 + 60 * i, 10.0 + 100 * row, 60.0 + 60 * i, 90.0 + 100 * row),
                              alternative=self.alternatives.get(code), check=code in self.faint,
                              count_unsure=code in self.count_unsure)
                 for i, (code, row) in enumerate(zip(cards, rows))]
        maybe = [DetectedCard(code, 0.3, (10.0 + 60 * i, 100.0, 60.0 + 60 * i, 180.0)) for i, code in enumerate(self.maybe)]
        return PhotoReading(image.width, image.height, boxes, maybe=maybe, colourless=self.colourless,
                            light_gains=self.light_gains, smear=self.smear,
                            blurred=self.smear is not None and self.smear >= 0.2,
                            four_corner_deck=self.four_corner_deck and corners != "two")

    def learn_joker(self, data: bytes) -> JokerLook:
        """Reads the image for real; "learns" the same look from every photo of a Joker."""
        load_image(data, max_side=64)
        if not self.joker_in_photo:
            raise NoJokerFoundError("the photo shows QH, and no Joker: photograph one Joker alone")
        return JokerLook.from_features(np.array([[0.6, 0.8, 0.0, 1.0]]), corner_distance=6.5)


@pytest.fixture
def detector() -> FakeDetector:
    return FakeDetector()


@pytest.fixture
def app(tmp_path: Path, detector: FakeDetector) -> Iterator[Any]:
    from webapp import create_app

    app = create_app({
        "TESTING": True,
        "DATABASE": str(tmp_path / "onze-test.sqlite"),
        "SECRET_KEY": "test",
        "DETECT": detector,
        "LEARN_JOKER": detector.learn_joker,
        "MAX_CONTENT_LENGTH": 2 * 1024 * 1024,
    })
    yield app


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def runner(app: Any) -> Any:
    return app.test_cli_runner()


@pytest.fixture
def token(client: Any) -> str:
    """The client's session CSRF token (for forms and the X-CSRF-Token header)."""
    return client.get("/api/csrf").get_json()["token"]


@pytest.fixture
def api(client: Any, token: str) -> Any:
    """Send JSON to the API with the CSRF header."""

    class Api:
        def post(self, url: str, json: Any = None, **kw: Any) -> Any:
            return client.post(url, json=json, headers={"X-CSRF-Token": token}, **kw)

        def delete(self, url: str) -> Any:
            return client.delete(url, headers={"X-CSRF-Token": token})

        def get(self, url: str) -> Any:
            return client.get(url)

    return Api()


@pytest.fixture
def game_id(api: Any) -> int:
    """A 4-player Llenroc game (2 decks): Ann, Bo, Cy, Di; Ann deals first."""
    response = api.post("/api/games", {"variant": "llenroc", "players": ["Ann", "Bo", "Cy", "Di"],
                                       "first_dealer": 1})
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


@pytest.fixture
def jpeg_bytes() -> bytes:
    """A small real JPEG (made with Pillow) for uploads that the fake detector reads."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (320, 200), (20, 120, 60)).save(buffer, "JPEG")
    return buffer.getvalue()
