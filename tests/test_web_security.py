"""What another web site's page, or a prank at the table, cannot do to the score sheet.

The sheet has no login (whoever is on the Wi-Fi keeps the score), so these are the
requests a browser may send on a visited page's behalf, and inputs large enough to
stall the sheet for everyone.
"""

from __future__ import annotations

import csv
import html
import io
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from webapp.api import MAX_JSON_BYTES
from webapp.guard import is_allowed_host, machine_names
from webapp.model import PHOTOS_READ_AT_ONCE


# -- names the sheet answers to (DNS rebinding) ----------------------------------------
@pytest.mark.parametrize(("host", "allowed"), [
    pytest.param("192.168.1.20:5000", True, id="its address on the Wi-Fi"),
    pytest.param("127.0.0.1:5000", True, id="this computer"),
    pytest.param("[::1]:5000", True, id="this computer, IPv6"),
    pytest.param("localhost:5000", True, id="localhost"),
    pytest.param("attacker.example:5000", False, id="another site's name pointed at it"),
    pytest.param("192.168.1.20.attacker.example", False, id="an address inside another site's name"),
])
def test_the_sheet_answers_to_its_addresses_and_names_only(host: str, allowed: bool) -> None:
    assert is_allowed_host(host, machine_names()) is allowed


def test_this_machines_own_name_is_one_of_them() -> None:
    import socket

    short = socket.gethostname().lower().split(".")[0]
    assert {short, f"{short}.local", f"{short}.lan"} <= machine_names()


def test_a_page_reached_by_another_sites_name_is_refused_and_changes_nothing(client: Any, api: Any) -> None:
    before = client.get("/api/games").get_json()
    response = client.post("/api/games", json={"variant": "once", "players": ["Ann", "Bo"]},
                           headers={"Host": "attacker.example:5000"})
    assert response.status_code == 400
    assert "'attacker.example:5000' is not one of them" in response.get_json()["error"]
    assert client.get("/history/onze-book.sqlite", headers={"Host": "attacker.example"}).status_code == 400
    assert client.get("/api/games").get_json() == before


def test_an_install_may_answer_to_every_name(tmp_path: Path) -> None:
    from webapp import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "any.sqlite"), "SECRET_KEY": "t",
                      "ALLOWED_HOSTS": None})
    assert app.test_client().get("/", headers={"Host": "scores.example"}).status_code == 200


# -- requests another site's page sends --------------------------------------------------
CROSS_SITE = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Origin": "http://evil.example"}


@pytest.mark.parametrize(("method", "url", "body"), [
    pytest.param("post", "/api/score", {"variant": "once", "cards": ["QH"]}, id="a computing call"),
    pytest.param("post", "/api/detect", None, id="reading a photo (memory)"),
    pytest.param("get", "/history/onze-book.sqlite", None, id="the whole book, as an image tag"),
])
def test_a_request_another_sites_page_sends_is_refused(client: Any, method: str, url: str, body: Any) -> None:
    response = getattr(client, method)(url, json=body, headers=CROSS_SITE)
    assert response.status_code == 403
    assert "another web site's page is refused" in html.unescape(response.get_data(as_text=True))


FRAMED = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}
LINKED = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}


@pytest.mark.parametrize(("headers", "url", "says"), [
    pytest.param(FRAMED, "/", "another web site's page is refused", id="the sheet in another site's frame"),
    pytest.param(FRAMED, "/history/onze-book.sqlite", "another web site's page is refused", id="the book, framed"),
    pytest.param(LINKED, "/history/onze-book.sqlite", "downloaded from the score sheet's own History page",
                 id="the book, behind a link on another site"),
    pytest.param(LINKED, "/history/onze-book-rescued.sqlite", "downloaded from the score sheet's own History page",
                 id="the rescued book, behind a link"),
])
def test_another_site_cannot_frame_the_sheet_nor_send_for_the_book(client: Any, api: Any, headers: dict[str, str],
                                                                  url: str, says: str) -> None:
    api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]})
    response = client.get(url, headers=headers)
    assert response.status_code == 403
    assert says in html.unescape(response.get_data(as_text=True))


def test_no_page_may_be_shown_in_a_frame_nor_run_a_script_of_its_own(client: Any) -> None:
    for url in ("/", "/history", "/games/new", "/api/variants", "/static/app.js"):
        response = client.get(url)
        assert response.headers["X-Frame-Options"] == "DENY", url
        policy = {part.strip() for part in response.headers["Content-Security-Policy"].split(";")}
        assert {"frame-ancestors 'none'", "script-src 'self'", "object-src 'none'", "base-uri 'none'",
                "form-action 'self'"} == policy, url
        assert response.headers["X-Content-Type-Options"] == "nosniff", url
        assert response.headers["Referrer-Policy"] == "same-origin", url


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://localhost:8080"],
                         ids=["another site", "a sandboxed frame", "another port of this machine"])
def test_a_post_with_a_foreign_origin_is_refused_without_fetch_metadata(client: Any, origin: str) -> None:
    # Older browsers send Origin on a POST but no Sec-Fetch-* headers.
    response = client.post("/api/score", json={"variant": "once", "cards": ["QH"]}, headers={"Origin": origin})
    assert response.status_code == 403


def test_the_sheets_own_pages_and_tools_without_a_browser_are_served(client: Any) -> None:
    same = {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Origin": "http://localhost"}
    assert client.post("/api/score", json={"variant": "once", "cards": ["QH"]}, headers=same).status_code == 200
    assert client.post("/api/score", json={"variant": "once", "cards": ["QH"]}).status_code == 200   # curl
    # A link followed from a chat app is a navigation: the sheet opens.
    assert client.get("/", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}).status_code == 200


# -- inputs large enough to stall the sheet ---------------------------------------------
def test_a_json_body_past_the_limit_is_refused_before_it_is_read(client: Any) -> None:
    text = "QH " * (MAX_JSON_BYTES // 3 + 10)
    response = client.post("/api/cards/parse", json={"text": text})
    assert response.status_code == 413
    size = response.request.content_length
    assert response.get_json()["error"] == f"The JSON sent is {size / 1024:.0f} KB; a call takes at most 256 KB."


def test_a_chunked_json_body_whose_size_is_not_said_is_cut_off_at_the_limit(client: Any) -> None:
    body = b'{"text": "' + b"QH " * MAX_JSON_BYTES + b'"}'   # 768 KB
    response = client.post("/api/cards/parse", input_stream=io.BytesIO(body), content_type="application/json",
                           headers={"Transfer-Encoding": "chunked"}, environ_overrides={"wsgi.input_terminated": True})
    assert response.status_code == 413
    assert response.get_json()["error"] == "The JSON sent is over 256 KB; a call takes at most 256 KB."


def test_a_chunked_json_body_under_the_limit_is_read(client: Any) -> None:
    response = client.post("/api/cards/parse", input_stream=io.BytesIO(b'{"text": "qh 10s"}'),
                           content_type="application/json", headers={"Transfer-Encoding": "chunked"},
                           environ_overrides={"wsgi.input_terminated": True})
    assert response.status_code == 200 and response.get_json()["cards"] == ["QH", "10S"]


def test_a_chunked_photo_whose_size_is_not_said_is_refused_past_the_limit_not_cut(client: Any) -> None:
    # Cut at the limit, it was read as "a truncated JPEG": the wrong reason to retake it.
    body = b"\xff\xd8" + b"\0" * (2 * 1024 * 1024)
    response = client.post("/api/detect", input_stream=io.BytesIO(body), content_type="image/jpeg",
                           headers={"Transfer-Encoding": "chunked"}, environ_overrides={"wsgi.input_terminated": True})
    assert response.status_code == 413
    assert response.get_json()["error"] == "The upload is too large: the limit is 2 MB."


@pytest.mark.parametrize("address", ["/api/games/{n}", "/games/{n}", "/photos/{n}", "/api/photos/{n}",
                                     "/games/1/hands/{n}", "/api/games/{n}/csv"])
def test_an_address_with_more_digits_than_python_reads_is_not_found_not_a_crash(client: Any, api: Any,
                                                                                address: str) -> None:
    api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]})
    response = client.get(address.format(n="9" * 4301))
    assert response.status_code == 404


@pytest.mark.parametrize(("body", "error"), [
    pytest.param('{"variant": "llenroc", "players": ["A", "B"], "first_dealer": ' + "9" * 4400 + "}",
                 "The JSON sent holds a number of 4400 digits (999999999999...): no field takes more than 19.",
                 id="a JSON number"),
    pytest.param('{"variant": "llenroc", "cards": "QH", "players": "' + "9" * 5000 + '"}',
                 '"players" must be a number of at most 19 digits, not \'' + "9" * 29 + "..." + "9" * 29
                 + "' (5002 characters).", id="digits in a string"),
    pytest.param('{"variant": "llenroc", "cards": "' + "Q" * 200_000 + '"}',
                 "'" + "Q" * 29 + "..." + "Q" * 29 + "' (200002 characters) is not a card", id="a card code"),
])
def test_a_number_or_code_too_long_to_read_is_refused_by_name_and_quoted_short(client: Any, token: str, body: str,
                                                                             error: str) -> None:
    path = "/api/games" if "first_dealer" in body else "/api/score"
    response = client.post(path, data=body, content_type="application/json", headers={"X-CSRF-Token": token})
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(error)


def test_json_nested_deeper_than_python_reads_is_bad_input_not_a_crash(client: Any) -> None:
    body = "[" * 100_000 + "]" * 100_000
    response = client.post("/api/score", data=body, content_type="application/json")
    assert response.status_code == 400 and "Send a JSON object" in response.get_json()["error"]


def test_more_cards_than_a_hand_holds_are_refused_before_the_search(client: Any) -> None:
    cards = [f"{rank}{suit}" for rank in ("2", "3", "4", "5", "6", "7", "8") for suit in "SHDC"][:24] + ["JK"] * 8
    started = time.perf_counter()
    response = client.post("/api/godown", json={"variant": "llenroc", "hand": 6, "cards": cards, "mode": "down"})
    assert response.status_code == 400
    assert "32 cards: a hand holds at most 26" in response.get_json()["error"]
    assert time.perf_counter() - started < 5   # a guard against the search running at all (it took 17 s)


def test_photos_are_read_two_at_a_time_however_many_arrive(app: Any, jpeg_bytes: bytes) -> None:
    reading = app.config["DETECT"]
    running, most = [0], [0]
    lock = threading.Lock()

    def slow_detect(data: bytes, corners: str = "auto") -> Any:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return reading(data, corners=corners)

    app.config["DETECT"] = slow_detect
    statuses: list[int] = []

    def post() -> None:
        response = app.test_client().post("/api/detect", data={"photo": (io.BytesIO(jpeg_bytes), "a.jpg")})
        statuses.append(response.status_code)

    threads = [threading.Thread(target=post) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * 6 and most[0] == PHOTOS_READ_AT_ONCE == 2


def test_the_whole_book_is_sent_from_a_file_that_is_then_removed(client: Any, api: Any, game_id: int) -> None:
    left_before = set(Path(tempfile.gettempdir()).glob("onze-book-*.sqlite"))
    response = client.get("/history/onze-book.sqlite")
    assert response.status_code == 200 and response.is_streamed
    body = response.get_data()
    assert int(response.headers["Content-Length"]) == len(body) and body.startswith(b"SQLite format 3\x00")
    response.close()
    assert set(Path(tempfile.gettempdir()).glob("onze-book-*.sqlite")) == left_before
    copy = Path(tempfile.mkdtemp()) / "book.sqlite"
    copy.write_bytes(body)
    assert sqlite3.connect(copy).execute("SELECT count(*) FROM game").fetchone() == (1,)


# -- a CSV opened where ";" separates cells ----------------------------------------------
@pytest.mark.parametrize(("note", "kept"), [
    pytest.param("x;=2*21", "x;'=2*21", id="a formula after ';'"),
    pytest.param("Bo; +1", "Bo; '+1", id="after ';' and a space"),
    pytest.param("line\n@SUM(A1)", "line\n'@SUM(A1)", id="on a new line"),
    pytest.param("Di dealt; Bo bought twice", "Di dealt; Bo bought twice", id="words are left alone"),
])
def test_a_csv_cell_split_on_semicolons_runs_no_formula(client: Any, api: Any, note: str, kept: str) -> None:
    game_id = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"], "note": note}).get_json()["id"]
    rows = list(csv.reader(io.StringIO(client.get(f"/games/{game_id}/export.csv").data.decode("utf-8-sig"))))
    assert rows[-1] == ["game note", kept]


# -- numbers only a keyboard's digits make -------------------------------------------------
@pytest.mark.parametrize(("url", "body", "said"), [
    pytest.param("/hands/1", {"out": 1.5}, "Who went out must be a player number, not 1.5", id="seat 1.5 went out"),
    pytest.param("/hands/1", {"out": True}, "\"out\": true is not a value this call takes", id="seat true went out"),
    pytest.param("/hands/1/scores/2", {"points": "٣"}, "Score '٣' is not a whole number", id="Arabic-Indic three"),
    pytest.param("/hands/1/scores/2", {"points": "1e3"}, "Score '1e3' is not a whole number", id="1e3 points"),
])
def test_a_number_that_is_not_whole_ascii_digits_is_refused(api: Any, game_id: int, url: str, body: Any,
                                                            said: str) -> None:
    response = api.post(f"/api/games/{game_id}{url}", body)
    assert response.status_code == 400 and said in response.get_json()["error"]


def test_a_first_dealer_of_true_is_refused(api: Any) -> None:
    response = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"], "first_dealer": True})
    assert response.status_code == 400 and '"first_dealer": true is not' in response.get_json()["error"]


@pytest.mark.parametrize("players", ["²", "9" * 5000, "٣"])
def test_a_table_size_in_other_digits_is_a_400_not_a_crash(client: Any, players: str) -> None:
    for url in (f"/rules/llenroc?players={players}", f"/api/variants/llenroc?players={players}"):
        response = client.get(url)
        assert response.status_code == 400 and "Players must be a whole number" in response.get_data(as_text=True)


# -- the debugger is for this computer only ------------------------------------------------
@pytest.mark.parametrize(("host", "refused"), [("0.0.0.0", True), ("192.168.1.20", True), ("127.0.0.1", False),
                                               ("localhost", False)])
def test_debug_mode_serves_this_computer_only(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path, host: str, refused: bool) -> None:
    from onze_vision.cli import main
    from onze_vision.commands import web

    # Where debug would be allowed, stop before serving: the check under test comes first.
    monkeypatch.setattr(web, "listen_problem", lambda host, port: "stopped here by the test")
    code = main(["serve", "--debug", "--host", host, "--database", str(tmp_path / "d.sqlite")])
    err = capsys.readouterr().err
    assert code == 2
    assert ("--debug opens a console that runs any code sent to it" in err) is refused


def test_a_name_of_its_own_is_added_with_allow_host(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from onze_vision.cli import main
    from onze_vision.commands import web

    served: dict[str, Any] = {}
    monkeypatch.setattr(web, "listen_problem", lambda host, port: None)
    monkeypatch.setattr(web, "run_sheet", lambda app, **kw: served.update(hosts=app.config["ALLOWED_HOSTS"]))
    assert main(["serve", "--allow-host", "Laptop.Tail1234.ts.net.", "--database", str(tmp_path / "a.sqlite")]) == 0
    assert "laptop.tail1234.ts.net" in served["hosts"] and "localhost" in served["hosts"]
    assert is_allowed_host("laptop.tail1234.ts.net:5000", served["hosts"])


def test_the_refusal_says_how_to_add_a_name(client: Any) -> None:
    error = client.get("/api/games", headers={"Host": "laptop.tail1234.ts.net"}).get_json()["error"]
    assert "onze-vision serve --allow-host NAME" in error


@pytest.mark.parametrize(("url", "field"), [
    ("/games/{game_id}/hands/1/players/2/photo", "current_photo"),
    ("/games/{game_id}/hands/1/players/2/four-corners", "photo_id"),
])
def test_an_id_of_thousands_of_digits_is_no_id_not_a_crash(client: Any, token: str, game_id: int, url: str,
                                                            field: str) -> None:
    response = client.post(url.format(game_id=game_id), data={"csrf_token": token, field: "9" * 5000})
    assert response.status_code in (302, 400)


def test_a_rescue_number_past_what_sqlite_holds_is_a_404(client: Any, token: str) -> None:
    response = client.post("/history/rescues/99999999999999999999/seen", data={"csrf_token": token})
    assert response.status_code == 404


def test_a_new_book_and_the_session_key_are_this_accounts_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import stat

    from webapp import _secret_key, create_app

    monkeypatch.delenv("ONZE_SECRET_KEY", raising=False)
    book = tmp_path / "book.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(book), "SECRET_KEY": "t"})
    app.test_client().get("/")
    assert stat.S_IMODE(book.stat().st_mode) == 0o600
    _secret_key(str(tmp_path / "instance"))
    assert stat.S_IMODE((tmp_path / "instance" / "secret_key").stat().st_mode) == 0o600
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"


@pytest.mark.parametrize("where", ["api", "page"])
def test_a_photo_that_waits_too_long_for_its_turn_is_refused_as_busy_and_loses_nothing(
        app: Any, client: Any, token: str, game_id: int, jpeg_bytes: bytes, monkeypatch: pytest.MonkeyPatch,
        where: str) -> None:
    from webapp import model

    monkeypatch.setattr(model.photos, "READING_WAIT_SECONDS", 0.05)
    for _ in range(model.PHOTOS_READ_AT_ONCE):   # every slot taken by photos read elsewhere
        assert model.photos._reading_slots.acquire(timeout=1)
    try:
        if where == "api":
            response = client.post("/api/detect", data={"photo": (io.BytesIO(jpeg_bytes), "a.jpg")})
            assert response.status_code == 503 and response.headers["Retry-After"] == "5"
            assert "busy reading other photos" in response.get_json()["error"]
        else:
            response = client.post(f"/games/{game_id}/hands/1/players/2/photo", data={
                "csrf_token": token, "cards_text": "QH 9S", "photo": (io.BytesIO(jpeg_bytes), "a.jpg")})
            assert response.status_code == 503
            page = html.unescape(response.get_data(as_text=True))
            assert "busy reading other photos" in page and 'value="QH 9S"' in page
    finally:
        for _ in range(model.PHOTOS_READ_AT_ONCE):
            model.photos._reading_slots.release()
    assert client.get("/api/photos/1").status_code == 404   # nothing kept


def test_an_upload_waits_for_one_reading_slot_and_keeps_it_for_the_copy_and_the_reading(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import model

    taken: list[int] = []
    real = model.photos._reading_slots

    class Counted:
        def acquire(self, timeout: float | None = None) -> bool:
            taken.append(1)
            return real.acquire(timeout=timeout)

        def release(self) -> None:
            real.release()

    monkeypatch.setattr(model.photos, "_reading_slots", Counted())
    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "a.jpg")})
    assert response.status_code == 302 and taken == [1]


def test_a_four_corner_deck_said_while_the_sheet_is_busy_still_reads_the_photo_again(
        client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import model

    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "a.jpg")})
    photo_id = response.location.split("photo=")[1]
    monkeypatch.setattr(model.photos, "READING_WAIT_SECONDS", 0.05)
    for _ in range(model.PHOTOS_READ_AT_ONCE):   # both slots busy for a moment
        assert model.photos._reading_slots.acquire(timeout=1)
    freed = threading.Timer(0.3, lambda: [model.photos._reading_slots.release() for _ in range(model.PHOTOS_READ_AT_ONCE)])
    freed.start()
    response = client.post(f"/games/{game_id}/hands/1/players/2/four-corners",
                           data={"csrf_token": token, "photo_id": photo_id})
    freed.join()
    assert response.status_code == 302 and detector.corners[-1] == "four"   # read again, as four corners
