"""End-to-end fixtures: the real app on a werkzeug server in a thread, headless Chromium.

Uses Debian's ``/usr/bin/chromium`` through Playwright for Python (never
``playwright install``: nothing is downloaded). The card detector is the shipped one
when ``models/`` holds it; before the model exists a stand-in "reads" the cards that
are really in the photo, so the page flow is still tested on a real JPEG.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
DATA = ROOT / "tests" / "data"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
MODEL = ROOT / "models" / "index_detector.onnx"

#: What is really in each test photo: whole-card boxes from the dataset's labels
#: (shared/realphotos/edje/manifest.json), suits read by eye.
PHOTO_CARDS: dict[str, list[tuple[str, tuple[float, float, float, float]]]] = {
    "web_edje_IMG_2560.jpg": [("10C", (48, 96, 143, 215)), ("QS", (221, 105, 308, 217)),
                              ("KC", (46, 290, 135, 412)), ("QD", (241, 315, 338, 441))],
    "web_edje_IMG_2571.jpg": [("QC", (20, 170, 129, 327)), ("10S", (157, 79, 336, 268)),
                              ("9H", (103, 301, 236, 473))],
    "web_edje_IMG_2595.jpg": [("QH", (66, 159, 155, 358)), ("AC", (149, 162, 299, 371))],
}


def _ensure_playwright() -> None:
    """Playwright and the axe-core audit, from the ``test`` extra when a checkout was
    installed before it named them (the Python packages only)."""
    try:
        import axe_playwright_python  # noqa: F401
        import playwright  # noqa: F401
    except ImportError:
        # The extra, so that the pins stay in one place (pyproject.toml).
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", f"{ROOT}[test]"], check=True)


class StandInDetector:
    """Reads a test photo's labelled cards, for page tests that must not depend on the model.

    ``misread`` maps a labelled code to (code read, alternative offered): a card read
    unsure, as the real detector reports it; ``missed`` codes are offered as possibly missed.
    """

    def __init__(self, misread: dict[str, tuple[str, str]] | None = None, missed: tuple[str, ...] = ()) -> None:
        self.misread = misread or {}
        self.missed = missed  # labelled codes read only as "possibly missed"

    def __call__(self, data: bytes, corners: str = "auto") -> Any:
        from onze_vision.detector import DetectedCard, PhotoReading
        from onze_vision.imageio import load_image

        image = load_image(data, max_side=128)
        known = next((cards for name, cards in PHOTO_CARDS.items()
                      if (DATA / name).exists() and (DATA / name).read_bytes() == data), [])

        def card(code: str, box: tuple[float, float, float, float]) -> DetectedCard:
            if code in self.misread:
                read_as, alternative = self.misread[code]
                return DetectedCard(read_as, 0.55, box, alternative=alternative)
            return DetectedCard(code, 0.99, box)

        return PhotoReading(image.width, image.height,
                            [card(code, box) for code, box in known if code not in self.missed],
                            maybe=[card(code, box) for code, box in known if code in self.missed])


class LiveServer:
    """The app served by werkzeug in a thread; ``restart()`` brings up a fresh app on the same database."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.port = 0
        self._start()

    def _start(self) -> None:
        from werkzeug.serving import make_server

        from webapp import create_app

        detect = None if MODEL.exists() else StandInDetector()
        # Pages ask for the game's changes every 0.3 s here (4 s in use): another phone's save shows fast.
        self.app = create_app({"DATABASE": str(self.database), "SECRET_KEY": "e2e-secret", "DETECT": detect,
                               "MAX_CONTENT_LENGTH": 4 * 1024 * 1024, "LIVE_POLL_SECONDS": 0.3})
        self.server = make_server("127.0.0.1", self.port, self.app, threaded=True)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def restart(self) -> None:
        self.stop()
        self._start()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("e2e") / "onze-e2e.sqlite")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed: apt-get install -y chromium")
    _ensure_playwright()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


#: The tests' own waits (``wait_for_function``) and axe-core's audit run code the sheet's
#: Content-Security-Policy forbids a page to evaluate, so the tests' browsers set it aside;
#: ``test_the_sheets_own_scripts_run_under_its_content_security_policy`` reads pages as a
#: phone does, under the policy.
CONTEXT = {"bypass_csp": True}


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, **CONTEXT)
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


def shoot(page: Any, name: str) -> None:
    """Save the page at phone and desktop widths, and at phone width in the dark colour
    scheme, into tests/artifacts/, and audit each with axe-core: every state the tests look
    at is also checked for what a screen reader, a keyboard or weak eyes would miss (WCAG
    2.x A and AA, axe's own best practices)."""
    original = page.viewport_size
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)
        assert_accessible(page, f"{name}-{label}")
        assert_no_sideways_scroll(page, f"{name}-{label}")
    # The phone's dark setting (evening play): looked at and audited too, contrast included.
    page.set_viewport_size(PHONE)
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(ARTIFACTS / f"{name}-phone-dark.png"), full_page=True)
    assert_accessible(page, f"{name}-phone-dark")
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(original)


def assert_no_sideways_scroll(page: Any, where: str) -> None:
    """The page itself never scrolls sideways: only a score table does, inside its frame."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{where}: the page is {width} px wide"


def assert_accessible(page: Any, where: str) -> None:
    """Fail with axe-core's report when the page breaks one of its rules."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    assert results.violations_count == 0, f"{where}: {results.generate_report()}"
