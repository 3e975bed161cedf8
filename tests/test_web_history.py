"""History, CSV/JSON export and the printable sheet."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest


def _finish(api: Any, game_id: int) -> None:
    for hand in range(1, 8):
        api.post(f"/api/games/{game_id}/hands/{hand}", {"out": (hand % 4) + 1, "note": f"hand {hand}"})
        for seat in range(1, 5):
            if seat != (hand % 4) + 1:
                api.post(f"/api/games/{game_id}/hands/{hand}/scores/{seat}", {"points": seat * 3})


def test_history_lists_finished_and_unfinished_games(client: Any, api: Any, game_id: int) -> None:
    _finish(api, game_id)
    other = api.post("/api/games", {"variant": "once", "players": ["Eve", "Fay"]}).get_json()["id"]
    api.post(f"/api/games/{other}/hands/1/scores/1", {"points": 12})
    page = client.get("/history").get_data(as_text=True)
    assert f'id="game-{game_id}"' in page and f'id="game-{other}"' in page
    assert "Winner: <strong>" in page
    assert "Unfinished: hand 1 of 7" in page
    assert page.count("<table class=\"sheet") == 2


def test_csv_export_has_every_hand_and_the_totals(client: Any, api: Any, game_id: int) -> None:
    _finish(api, game_id)
    response = client.get(f"/games/{game_id}/export.csv")
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    assert response.data.startswith("\ufeff".encode())   # so that Excel reads it as UTF-8
    rows = list(csv.reader(io.StringIO(response.data.decode("utf-8-sig"))))
    assert rows[0][:8] == ["hand", "contract", "cards dealt", "dealer", "Ann", "Bo", "Cy", "Di"]
    assert [r[0] for r in rows[1:8]] == [str(n) for n in range(1, 8)]
    assert rows[8][0] == "total"
    game = client.get(f"/api/games/{game_id}").get_json()
    assert [int(x) for x in rows[8][4:8]] == game["totals"]
    assert rows[9][0] == "winner"
    doubled = rows[0].index("doubled")   # llenroc's hand 7 always doubles: its points say so
    assert [r[doubled] for r in rows[1:8]] == [""] * 6 + ["x2"]


@pytest.mark.parametrize("name, cell", [
    ('=HYPERLINK("http://evil","x")', '\'=HYPERLINK("http://evil","x")'),
    ("+1 Bo", "'+1 Bo"),
    ("-Cy", "'-Cy"),
    ("@Di", "'@Di"),
    ("Zoë", "Zoë"),
])
def test_csv_cells_a_spreadsheet_would_run_are_kept_as_text(client: Any, api: Any, name: str, cell: str) -> None:
    game_id = api.post("/api/games", {"variant": "once", "players": [name, "Ann"], "note": "=1+1"}).get_json()["id"]
    rows = list(csv.reader(io.StringIO(client.get(f"/games/{game_id}/export.csv").data.decode("utf-8-sig"))))
    assert rows[0][4] == cell
    assert rows[-1] == ["game note", "'=1+1"]


def test_json_export_is_the_whole_game(client: Any, api: Any, game_id: int) -> None:
    _finish(api, game_id)
    response = client.get(f"/games/{game_id}/export.json")
    data = json.loads(response.data)
    assert data["finished"] and len(data["hands"]) == 7 and data["hands"][0]["note"] == "hand 1"
    assert data["winners"] == client.get(f"/api/games/{game_id}").get_json()["winners"]


def test_printable_sheet_uses_the_print_stylesheet(client: Any, game_id: int) -> None:
    page = client.get(f"/games/{game_id}/print").get_data(as_text=True)
    assert 'media="print"' in page and "print.css" in page
    assert "Onze score sheet" in page
    css = client.get("/static/print.css")
    assert css.status_code == 200 and b"@page" in css.data


@pytest.mark.parametrize("url", ["/games/3/export.csv", "/games/3/export.json", "/games/3/print"],
                         ids=["csv", "json", "print"])
def test_exports_of_missing_games_are_404(client: Any, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 404
    assert "Game 3 doesn't exist." in html.unescape(response.get_data(as_text=True))


def test_every_asset_is_served_by_the_app(client: Any, game_id: int) -> None:
    """No CDN, no outside fonts: every src/href is a path on this server."""
    import re

    for url in ("/", f"/games/{game_id}", f"/games/{game_id}/hands/1", f"/games/{game_id}/hands/1/players/1",
                "/godown", "/history", "/games/new"):
        page = client.get(url).get_data(as_text=True)
        refs = re.findall(r'(?:src|href)="([^"]+)"', page)
        assert "/static/style.css" in refs, url   # the pattern finds the page's links (none: nothing checked)
        for ref in refs:
            assert ref.startswith("/") and not ref.startswith("//"), (url, ref)
            if ref.startswith("/static/"):
                assert client.get(ref).status_code == 200, ref
    for name in ("style.css", "print.css", "app.js", "cards.js"):
        text = client.get(f"/static/{name}").get_data(as_text=True)
        assert "http://" not in text and "https://" not in text and "@import" not in text, name


# ------------------------------------------------------------------ standings over games

def _finished_game(api: Any, players: list[str], points: dict[str, int]) -> int:
    """A game of ``players`` whose every hand scores ``points`` by name (0 where unnamed)."""
    game_id = api.post("/api/games", {"variant": "once", "players": players}).get_json()["id"]
    for hand in range(1, 8):
        for seat, name in enumerate(players, start=1):
            api.post(f"/api/games/{game_id}/hands/{hand}/scores/{seat}", {"points": points.get(name, 0)})
    return game_id


def test_the_standings_count_each_players_games_wins_average_and_best(api: Any, app: Any) -> None:
    from webapp import model

    _finished_game(api, ["Ann", "Bo"], {"Bo": 10})                 # Ann 0, Bo 70
    _finished_game(api, ["ann", "Bo", "Cy"], {"ann": 5, "Cy": 5})  # Ann 35, Bo 0, Cy 35
    _finished_game(api, ["Bo", "Cy"], {})                         # a tie at 0: a win for each
    api.post("/api/games", {"variant": "once", "players": ["Di", "Ann"]})   # unfinished: not counted
    with app.test_request_context():
        rows = model.standings(model.list_games())
    assert rows == [
        {"name": "Bo", "games": 3, "wins": 2, "average": 70 / 3, "best": 0},
        {"name": "ann", "games": 2, "wins": 1, "average": 17.5, "best": 0},   # the newest spelling
        {"name": "Cy", "games": 2, "wins": 1, "average": 17.5, "best": 0},
    ]


def test_the_history_page_shows_the_standings_once_a_game_is_finished(client: Any, api: Any) -> None:
    api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]})
    assert 'id="standings"' not in client.get("/history").get_data(as_text=True)
    _finished_game(api, ["Ann", "Bo"], {"Bo": 10})
    page = client.get("/history").get_data(as_text=True)
    assert "Standings <small>over 1 finished game</small>" in page
    assert ('<tr><th scope="row">Ann</th><td>1</td><td>1</td>\n        <td>0</td><td>0</td></tr>') in page
    assert ('<tr><th scope="row">Bo</th><td>1</td><td>0</td>\n        <td>70</td><td>70</td></tr>') in page
    assert client.get("/api/standings").get_json()["standings"] == [
        {"name": "Ann", "games": 1, "wins": 1, "average": 0.0, "best": 0},
        {"name": "Bo", "games": 1, "wins": 0, "average": 70.0, "best": 70},
    ]


def test_the_standings_can_be_over_one_variants_games(client: Any, api: Any) -> None:
    _finished_game(api, ["Ann", "Bo"], {"Bo": 10})                     # once
    onze = api.post("/api/games", {"variant": "onze", "players": ["Ann", "Cy", "Di"]}).get_json()["id"]
    for hand in range(1, 8):
        for seat, points in ((1, 20), (2, 0), (3, 5)):
            api.post(f"/api/games/{onze}/hands/{hand}/scores/{seat}", {"points": points})
    page = client.get("/history").get_data(as_text=True)
    assert "Standings <small>over 2 finished games</small>" in page
    assert 'href="/history?rules=once#standings">Once&#39;</a>' in page and 'href="/history?rules=onze#standings">Onze</a>' in page
    only = client.get("/history?rules=onze").get_data(as_text=True)
    assert "over 1 finished game of Onze" in only and '<th scope="row">Bo</th>' not in only
    assert '<th scope="row">Cy</th>' in only and 'aria-current="page">Onze</a>' in only
    assert [row["name"] for row in client.get("/api/standings?variant=once").get_json()["standings"]] == ["Ann", "Bo"]
    missing = client.get("/api/standings?variant=ons")
    assert missing.status_code == 404
    assert missing.get_json()["error"] == "No finished game was played by the rules 'ons': the book's are once, onze."


# ------------------------------------------------------------------ the whole book in one file

def test_the_whole_book_downloads_as_one_sqlite_file_that_opens_elsewhere(client: Any, api: Any, tmp_path: Any,
                                                                           detector: Any) -> None:
    from webapp import create_app

    game_id = _finished_game(api, ["Ann", "Bo"], {"Bo": 10})
    api.post(f"/api/games/{game_id}/note", {"note": "Zoë's birthday"})
    response = client.get("/history/onze-book.sqlite")
    assert response.status_code == 200 and response.mimetype == "application/vnd.sqlite3"
    assert re.fullmatch(r'attachment; filename="onze-book-\d{4}-\d{2}-\d{2}\.sqlite"',
                        response.headers["Content-Disposition"])
    assert response.data.startswith(b"SQLite format 3\x00")
    assert response.data[18:20] == b"\x01\x01"   # a rollback-journal file, whole without a -wal beside it
    book = tmp_path / "elsewhere" / "book.sqlite"
    book.parent.mkdir()
    book.write_bytes(response.data)
    elsewhere = create_app({"TESTING": True, "DATABASE": str(book), "SECRET_KEY": "test", "DETECT": detector})
    game = elsewhere.test_client().get(f"/api/games/{game_id}").get_json()
    assert [p["name"] for p in game["players"]] == ["Ann", "Bo"]
    assert game["totals"] == [0, 70] and game["note"] == "Zoë's birthday"


def test_the_book_link_shows_once_there_is_a_game(client: Any, api: Any) -> None:
    assert "Download the whole book" not in client.get("/history").get_data(as_text=True)
    api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]})
    assert 'href="/history/onze-book.sqlite" download>Download the whole book' in client.get("/history").get_data(
        as_text=True)


def _big_photo() -> bytes:
    import io

    import numpy as np
    from PIL import Image

    noise = np.random.default_rng(3).integers(0, 256, (600, 800, 3), np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise).save(buffer, "JPEG", quality=95)   # 0.56 MB that does not compress
    return buffer.getvalue()


@pytest.fixture
def copies_folder(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The temporary folder the book is copied into for a download, this test's own."""
    import tempfile

    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _book_on_disk(app: Any) -> int:
    """The book file's size once its write-ahead log is written into it."""
    import sqlite3
    from pathlib import Path

    with sqlite3.connect(app.config["DATABASE"]) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return Path(app.config["DATABASE"]).stat().st_size


def test_a_game_deleted_for_good_gives_its_space_back(client: Any, api: Any, token: str, app: Any,
                                                      copies_folder: Any) -> None:
    import io

    gone = api.post("/api/games", {"variant": "llenroc", "players": ["Ann", "Bo"]}).get_json()["id"]
    for _ in range(3):
        client.post(f"/games/{gone}/hands/1/players/2/photo",
                    data={"csrf_token": token, "photo": (io.BytesIO(_big_photo()), "hand.jpg")})
    _finished_game(api, ["Cy", "Di"], {"Di": 5})
    with_photos = _book_on_disk(app)
    assert with_photos > 1_500_000                           # three photos of 0.56 MB
    api.delete(f"/api/games/{gone}")
    client.post(f"/games/{gone}/delete-for-good", data={"csrf_token": token})
    assert _book_on_disk(app) < 300_000                      # the file, not only the download, shrank
    book = client.get("/history/onze-book.sqlite").data
    assert len(book) < 300_000 and book.startswith(b"SQLite format 3\x00")
    assert list(copies_folder.iterdir()) == []               # the copy is removed once sent


def test_an_older_book_is_made_to_give_space_back_once(tmp_path: Any, detector: Any) -> None:
    import sqlite3

    from webapp import create_app
    from webapp.db import BOOK_VERSION, schema_sql

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:                        # as books were made: auto_vacuum none
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(schema_sql())
        db.execute("INSERT INTO game (id, variant, decks, first_dealer) VALUES (4, 'llenroc', 2, 1)")
        db.execute("INSERT INTO player (game_id, seat, name) VALUES (4, 1, 'Ann'), (4, 2, 'Bo')")
        db.execute("PRAGMA user_version = 1")
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    app = create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "test", "DETECT": detector})
    assert [p["name"] for p in app.test_client().get("/api/games/4").get_json()["players"]] == ["Ann", "Bo"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 1           # FULL
        assert db.execute("PRAGMA user_version").fetchone()[0] == BOOK_VERSION


def test_a_download_with_no_room_for_the_copy_says_so_and_leaves_nothing(client: Any, api: Any, game_id: int,
                                                                         copies_folder: Any,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda path: real(path)._replace(free=5 * 2**20))
    response = client.get("/history/onze-book.sqlite")
    assert response.status_code == 503
    page = html.unescape(response.get_data(as_text=True))
    assert re.search(rf"Copying the book to download it needs about 1\d MB free in {re.escape(str(copies_folder))}, "
                     r"which has 5 MB, so nothing was sent\.", page), page
    assert list(copies_folder.iterdir()) == []


def test_copies_a_stopped_server_left_behind_are_removed_by_the_next(client: Any, game_id: int,
                                                                     copies_folder: Any) -> None:
    import os
    import time

    from webapp.db import SNAPSHOT_FOLDER_PREFIX

    old, recent = copies_folder / f"{SNAPSHOT_FOLDER_PREFIX}k1x9", copies_folder / f"{SNAPSHOT_FOLDER_PREFIX}a7q2"
    # A book a family downloaded into the same folder days ago, named as downloads are.
    downloaded = copies_folder / "onze-book-2026-11-21.sqlite"
    for leftover in (old, recent):
        leftover.mkdir()
        (leftover / "book.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    downloaded.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    a_day_ago = time.time() - 25 * 3600
    for made in (old, downloaded):
        os.utime(made, (a_day_ago, a_day_ago))
    assert client.get("/history/onze-book.sqlite").status_code == 200
    assert sorted(p.name for p in copies_folder.iterdir()) == sorted([recent.name, downloaded.name])


def test_a_book_served_from_the_copies_folder_is_never_taken_for_a_copy(tmp_path: Any, detector: Any,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import tempfile
    import time

    from webapp import create_app

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    book = tmp_path / "onze-book-2026-11-21.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(book), "SECRET_KEY": "test", "DETECT": detector})
    client = app.test_client()
    client.get("/history")
    a_week_ago = time.time() - 7 * 24 * 3600
    os.utime(book, (a_week_ago, a_week_ago))
    assert client.get("/history/onze-book.sqlite").status_code == 200
    assert book.exists() and client.get("/history").status_code == 200


def test_the_history_shows_twenty_games_a_page_and_counts_them_all(client: Any, api: Any) -> None:
    ids = [_finished_game(api, ["Ann", "Bo"], {"Bo": 10}) for _ in range(21)]
    ids.append(api.post("/api/games", {"variant": "llenroc", "players": ["Ann", "Bo"]}).get_json()["id"])
    first = client.get("/history").get_data(as_text=True)
    assert [int(n) for n in re.findall(r'<article class="panel history-game" id="game-(\d+)"', first)] == ids[::-1][:20]
    assert "over 21 finished games" in first                      # the standings count every page
    assert "<td>21</td><td>21</td>" in first                       # Ann: 21 games, 21 wins
    assert "games 1-20 of 22 · page 1 of 2" in first and 'href="/history?page=2" rel="next"' in first
    assert "Newer games" not in first
    second = client.get("/history?page=2").get_data(as_text=True)
    assert [int(n) for n in re.findall(r'id="game-(\d+)"', second)] == ids[::-1][20:]
    assert "games 21-22 of 22 · page 2 of 2" in second and 'href="/history?page=1" rel="prev"' in second
    assert "Older games" not in second
    # The standings of one variant stay chosen from page to page.
    by_rules = client.get("/history?rules=once").get_data(as_text=True)
    assert 'href="/history?page=2&amp;rules=once" rel="next"' in by_rules
    back = client.get("/history?rules=once&page=2").get_data(as_text=True)
    assert 'href="/history?page=1&amp;rules=once" rel="prev"' in back


def test_one_page_of_games_needs_no_pager(client: Any, api: Any, game_id: int) -> None:
    assert 'class="pager"' not in client.get("/history").get_data(as_text=True)


@pytest.mark.parametrize(("page", "shown"), [("0", "0"), ("3", "3"), ("-1", "-1"), ("9" * 30, "'" + "9" * 30 + "'")])
def test_a_page_of_the_history_that_does_not_exist_is_404(client: Any, api: Any, game_id: int, page: str,
                                                          shown: str) -> None:
    response = client.get(f"/history?page={page}")
    assert response.status_code == 404
    assert f"Page {shown} of the history doesn't exist: it has pages 1-1." in html.unescape(response.get_data(as_text=True))


@pytest.mark.parametrize(("page", "shown"), [("two", "two"), ("٢", "٢"), ("", "''"), ("1.5", "1.5")])
def test_a_page_that_is_no_number_is_bad_input(client: Any, api: Any, game_id: int, page: str, shown: str) -> None:
    response = client.get(f"/history?page={page}")
    assert response.status_code == 400
    assert f"Page {shown} of the history is no page number: it has pages 1-1." in html.unescape(
        response.get_data(as_text=True))
    response = api.get(f"/api/games?page={page}")
    assert response.status_code == 400
    assert response.get_json() == {"error": f"Page {shown} of the games is no page number: it has pages 1-1."}


def test_the_home_page_lists_every_game_in_play_and_the_last_five_finished(client: Any, api: Any) -> None:
    ids = [api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()["id"] for _ in range(8)]
    for game_id in ids[:7]:
        api.post(f"/api/games/{game_id}/hands/1/scores/1", {"points": 3})
        api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 4})
        api.post(f"/api/games/{game_id}/end")
    page = client.get("/").get_data(as_text=True)
    listed = [int(n) for n in re.findall(r'class="game-card" href="/games/(\d+)"', page)]
    assert listed == [ids[7], *reversed(ids[2:7])]     # in play, then the 5 newest finished


def test_the_home_page_lists_the_ten_newest_games_in_play_and_points_to_the_rest(client: Any, api: Any) -> None:
    ids = [api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()["id"] for _ in range(12)]
    page = client.get("/").get_data(as_text=True)
    assert [int(n) for n in re.findall(r'class="game-card" href="/games/(\d+)"', page)] == ids[::-1][:10]
    assert '<a href="/history">2 older games in play, in History&nbsp;&rarr;</a>' in page
    api.delete(f"/api/games/{ids[0]}")
    assert "1 older game in play, in History" in client.get("/").get_data(as_text=True)
    api.delete(f"/api/games/{ids[1]}")
    assert "older game" not in client.get("/").get_data(as_text=True)


def test_the_api_gives_the_games_a_page_at_a_time_when_asked(api: Any) -> None:
    ids = [api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()["id"] for _ in range(23)]
    first = api.get("/api/games?page=1").get_json()
    assert (first["page"], first["pages"], first["total"]) == (1, 2, 23)
    assert [g["id"] for g in first["games"]] == ids[::-1][:20]
    assert [g["id"] for g in api.get("/api/games?page=2").get_json()["games"]] == ids[::-1][20:]
    assert len(api.get("/api/games").get_json()["games"]) == 23                     # unasked: all
    missing = api.get("/api/games?page=3")
    assert missing.status_code == 404
    assert missing.get_json() == {"error": "Page 3 of the games doesn't exist: it has pages 1-2."}


def test_a_damaged_book_offers_all_that_can_still_be_read_when_it_cannot_be_copied_whole(
    app: Any, client: Any, api: Any, game_id: int, tmp_path: Any
) -> None:
    import io
    import sqlite3

    import numpy as np
    from PIL import Image

    noise = np.random.default_rng(7).integers(0, 256, (700, 700, 3), dtype=np.uint8)
    photos = []
    for shade in range(3):
        buffer = io.BytesIO()
        Image.fromarray(noise // (shade + 1)).save(buffer, "JPEG", quality=95)
        photos.append(api.post("/api/photos", data={"photo": (io.BytesIO(buffer.getvalue()), "hand.jpg")},
                               content_type="multipart/form-data").get_json()["id"])
        saved = api.post(f"/api/games/{game_id}/hands/1/scores/{shade + 1}",
                         {"cards": [("QH", "7S", "KD")[shade]], "photo_id": photos[-1]})
        assert saved.status_code == 200
    api.post(f"/api/games/{game_id}/note", {"note": "kept through it all"})
    book = app.config["DATABASE"]
    with sqlite3.connect(book) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    size = Path(book).stat().st_size
    with open(book, "r+b") as damaged:            # one page in the middle of the photos, overwritten
        damaged.seek(size // 2 // 4096 * 4096)
        damaged.write(b"\xde\xad" * 2048)

    response = client.get("/history/onze-book.sqlite")
    assert response.status_code == 503
    page = html.unescape(response.get_data(as_text=True))
    assert "The book is damaged, so it cannot be copied whole for a download (SQLite: " in page
    assert 'href="/history/onze-book-rescued.sqlite"' in page and "Download all that can be read" in page

    rescued = client.get("/history/onze-book-rescued.sqlite")
    assert rescued.status_code == 200
    lost = json.loads(rescued.headers["X-Onze-Rows-Lost"])
    copy = tmp_path / "rescued.sqlite"
    copy.write_bytes(rescued.data)
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT note FROM game").fetchall() == [("kept through it all",)]
        assert db.execute("SELECT COUNT(*) FROM score").fetchone()[0] == 3            # every score, cards and all
        kept = db.execute("SELECT COUNT(*) FROM photo").fetchone()[0]
        assert kept + lost.get("photo", 0) == 3 and lost.get("photo", 0) >= 1
        assert db.execute("SELECT COUNT(*) FROM score WHERE photo_id IS NOT NULL").fetchone()[0] == kept
    db.close()
    from webapp import create_app

    again = create_app({"TESTING": True, "DATABASE": str(copy), "SECRET_KEY": "t"}).test_client()
    assert again.get(f"/api/games/{game_id}").get_json()["note"] == "kept through it all"
    # The rescued book says so when it is opened, and what could not be read.
    n = lost["photo"]
    said = f"Could not be read: {n} photo{'s' if n != 1 else ''}. A score whose photo was lost keeps its cards."
    for url in ("/", "/history"):
        page = " ".join(html.unescape(again.get(url).get_data(as_text=True)).split())
        assert "This book was rescued from a damaged one on" in page and said in page, url


@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize("url", ["/history/onze-book.sqlite", "/history/onze-book-rescued.sqlite"])
def test_a_download_leaves_no_copy_of_the_book_behind(client: Any, api: Any, tmp_path: Any,
                                                      monkeypatch: pytest.MonkeyPatch, method: str, url: str) -> None:
    """A HEAD (a download manager asking first) never reads the body: each one left a whole
    copy of the book, photos and all, in the temporary folder."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]})
    made: list[int] = []
    from webapp import history

    for copier in ("snapshot", "rescue_copy"):
        real = getattr(history, copier)
        monkeypatch.setattr(history, copier, lambda db, real=real: made.append(1) or real(db))
    response = client.open(url, method=method)
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith('attachment; filename="onze-book')
    response.close()
    assert list(tmp_path.glob("onze-vision-download-*")) == []
    assert made == ([1] if method == "GET" else [])   # a HEAD makes no copy at all


def test_the_csv_says_a_hand_doubled_by_a_splash(client: Any, api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/2", {"out": 1, "splash": True})
    api.post(f"/api/games/{game_id}/hands/2/scores/2", {"points": 12})
    rows = list(csv.reader(io.StringIO(client.get(f"/games/{game_id}/export.csv").data.decode("utf-8-sig"))))
    header, hand_2 = rows[0], rows[2]
    assert hand_2[header.index("splash")] == "yes" and hand_2[header.index("doubled")] == "x2"
    assert hand_2[header.index("Bo")] == "24"   # 12 typed, doubled
    assert rows[1][header.index("doubled")] == ""


def test_the_csv_comes_with_semicolons_for_a_spreadsheet_that_writes_decimal_commas(
    client: Any, api: Any, game_id: int
) -> None:
    """Dutch, German, Spanish or French Excel opens a comma CSV with each row in one column."""
    api.post(f"/api/games/{game_id}/note", {"note": "Oma; =wins"})
    for url in (f"/games/{game_id}/export.csv?sep=semicolon", f"/api/games/{game_id}/export.csv?sep=semicolon"):
        text = client.get(url).data.decode("utf-8-sig")
        rows = list(csv.reader(io.StringIO(text), delimiter=";"))
        assert rows[0][:6] == ["hand", "contract", "cards dealt", "dealer", "Ann", "Bo"], url
        assert rows[-1] == ["game note", "Oma; '=wins"], url   # quoted, and nothing a spreadsheet runs
    sheet = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'href="/games/{game_id}/export.csv?sep=semicolon"' in sheet and ">CSV with semicolons</a>" in sheet


@pytest.mark.parametrize("url", ["/games/{id}/export.csv?sep=tab", "/api/games/{id}/export.csv?sep="])
def test_a_separator_the_csv_has_not_is_refused(client: Any, game_id: int, url: str) -> None:
    response = client.get(url.format(id=game_id))
    assert response.status_code == 400 and "sep is comma or semicolon, not" in response.get_data(as_text=True)
