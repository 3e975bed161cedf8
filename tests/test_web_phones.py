"""Phones at the table: the home page and a game's sheet say how a phone opens them, with a
QR code of the address, from what ``onze-vision serve`` listens on and how the page was reached."""

from __future__ import annotations

import re
from typing import Any

import cv2
import numpy as np
import pytest

from webapp import phones


@pytest.fixture
def addresses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """This machine's network addresses, as the pages find them (none until a test adds one)."""
    found: list[str] = []
    monkeypatch.setattr(phones, "_addresses_now", lambda: list(found))
    return found


def _phones_box(page: str) -> str:
    match = re.search(r'<details class="panel phones no-print"( open)?>.*?</details>', page, re.S)
    assert match is not None, "no box saying how a phone opens the page"
    return match.group(0)


def _qr_text(svg: str) -> str:
    """What a camera reads off the page's QR code: the SVG's modules drawn as pixels, decoded by OpenCV."""
    size = int(re.search(r'viewBox="0 0 (\d+) \1"', svg).group(1))  # type: ignore[union-attr]
    image = np.full((size, size), 255, np.uint8)
    path = re.search(r'<path [^>]*stroke="#000"[^>]*d="([^"]+)"', svg).group(1)  # type: ignore[union-attr]
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmhv])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path):
        if op in "Mm":   # a move: to the row's middle (y + .5), as segno draws lines of modules
            x, y = (float(a), float(b)) if op == "M" else (x + float(a), y + float(b))
        elif op == "h":  # a run of dark modules along the row
            start, x = x, x + float(a)
            image[int(y), int(min(start, x)):int(max(start, x))] = 0
    big = cv2.resize(image, (size * 8, size * 8), interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(big)
    return str(text)


def test_a_sheet_not_started_by_serve_says_nothing_of_phones(client: Any) -> None:
    assert 'class="panel phones' not in client.get("/").get_data(as_text=True)


def test_a_sheet_for_this_computer_only_says_how_to_let_phones_in(app: Any, client: Any) -> None:
    app.config[phones.LISTEN] = ("127.0.0.1", 5000)
    box = _phones_box(client.get("/").get_data(as_text=True))
    assert "Phones cannot open this sheet yet: it was started for this computer only" in box
    assert "<code>onze-vision serve --host 0.0.0.0</code>" in box and "<svg" not in box


def test_on_this_computer_the_home_page_shows_the_code_a_phone_scans(app: Any, client: Any,
                                                                    addresses: list[str]) -> None:
    app.config[phones.LISTEN] = ("0.0.0.0", 5000)
    addresses += ["192.168.1.23", "10.0.0.5"]
    box = _phones_box(client.get("/").get_data(as_text=True))
    assert box.startswith('<details class="panel phones no-print" open>')   # shown, not behind a tap
    assert 'href="http://192.168.1.23:5000/">http://192.168.1.23:5000/</a>' in box
    assert "on another network of this computer:" in box and "http://10.0.0.5:5000/" in box
    assert _qr_text(box) == "http://192.168.1.23:5000/"


def test_a_games_sheet_shows_the_code_of_that_game(app: Any, client: Any, addresses: list[str], game_id: int) -> None:
    app.config[phones.LISTEN] = ("0.0.0.0", 5000)
    addresses.append("192.168.1.23")
    box = _phones_box(client.get(f"/games/{game_id}").get_data(as_text=True))
    assert "<summary>Open this game on a phone</summary>" in box and " open>" not in box   # a tap away on the sheet
    assert _qr_text(box) == f"http://192.168.1.23:5000/games/{game_id}"


def test_a_phone_shows_the_code_for_the_next_phone(app: Any, client: Any, addresses: list[str]) -> None:
    app.config[phones.LISTEN] = ("0.0.0.0", 5000)
    box = _phones_box(client.get("/", headers={"Host": "192.168.1.23:5000"}).get_data(as_text=True))
    assert "<summary>Open the score sheet on another phone</summary>" in box and " open>" not in box
    assert _qr_text(box) == "http://192.168.1.23:5000/"


def test_a_computer_on_no_network_says_so(app: Any, client: Any, addresses: list[str]) -> None:
    app.config[phones.LISTEN] = ("0.0.0.0", 5000)
    box = _phones_box(client.get("/").get_data(as_text=True))
    assert "This computer is on no network now: join the Wi-Fi the phones are on" in box


def test_a_sheet_listening_on_one_address_names_it(app: Any, client: Any) -> None:
    app.config[phones.LISTEN] = ("192.168.1.23", 8000)
    assert _qr_text(_phones_box(client.get("/").get_data(as_text=True))) == "http://192.168.1.23:8000/"


@pytest.mark.parametrize("host", ["[::1]:5000", "localhost.:5000", "LOCALHOST:5000"])
def test_this_computer_by_any_of_its_own_names_is_not_taken_for_a_phone(app: Any, client: Any, host: str,
                                                                         addresses: list[str]) -> None:
    app.config[phones.LISTEN] = ("::", 5000)
    addresses.append("192.168.1.23")
    box = _phones_box(client.get("/", headers={"Host": host}).get_data(as_text=True))
    assert "<summary>Open the score sheet on a phone</summary>" in box
    assert _qr_text(box) == "http://192.168.1.23:5000/"


def test_no_address_is_looked_up_again_at_once_but_none_found_is(monkeypatch: pytest.MonkeyPatch) -> None:
    found: list[list[str]] = [[], ["192.168.1.23"], ["10.0.0.5"]]
    monkeypatch.setattr(phones, "network_addresses", lambda: found.pop(0))
    monkeypatch.setattr(phones, "_kept", None)
    assert phones._addresses_now() == []                  # not on the Wi-Fi yet
    assert phones._addresses_now() == ["192.168.1.23"]    # joined it: the reload finds it
    assert phones._addresses_now() == ["192.168.1.23"]    # kept a while, not asked again
    assert found == [["10.0.0.5"]]


@pytest.mark.parametrize(("host", "loopback"), [
    ("localhost", True), ("127.0.0.1", True), ("127.0.1.1", True), ("::1", True), ("[::1]", True),
    ("localhost.", True),
    ("192.168.1.23", False), ("laptop.local", False), ("0.0.0.0", False),
])
def test_loopback_is_the_addresses_only_this_computer_reaches(host: str, loopback: bool) -> None:
    assert phones.is_loopback(host) is loopback
