"""When the book cannot be written (a full disk, a read-only file, another program holding
it, the file moved away), the sheet says which and what to do, saves nothing, and gives
back what was sent so it can be sent again."""

from __future__ import annotations

import html
import json
import re
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from webapp import db as book

MakeTrouble = Callable[[sqlite3.Connection], None]


def disk_full(connection: sqlite3.Connection) -> None:
    # The file may not grow by a page, and every write needs new pages (a 64 KB blob in
    # ``ballast`` with it): SQLite itself answers SQLITE_FULL mid-write, as on a full disk.
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {pages}")
    for table in ("game", "hand", "player", "score", "photo"):
        for event in ("INSERT", "UPDATE"):
            connection.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS grow_{table}_{event} AFTER {event} ON main.{table} "
                               "BEGIN INSERT INTO ballast VALUES (zeroblob(65536)); END")


def read_only(connection: sqlite3.Connection) -> None:
    connection.execute("PRAGMA query_only = ON")  # SQLITE_READONLY, as for a read-only file


def locked_by_another_program(connection: sqlite3.Connection) -> None:
    connection.execute("PRAGMA busy_timeout = 50")  # the other program below never lets go


TROUBLES: dict[str, tuple[MakeTrouble, str]] = {
    "disk full": (disk_full, "The disk that holds the book (onze-test.sqlite) is full, so nothing was saved. "
                             "Free some space"),
    "read-only": (read_only, "cannot be written: the file or its folder is read-only, so nothing was saved"),
    "locked": (locked_by_another_program, "The book is busy: something has been writing to it for over ten seconds"),
}


class Trouble:
    """The trouble a test's param names, met by every connection of the sheet until mended."""

    def __init__(self, app: Any, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
        make_trouble, self.message = TROUBLES[kind]
        self.monkeypatch = monkeypatch
        with sqlite3.connect(app.config["DATABASE"]) as setup:
            setup.execute("CREATE TABLE IF NOT EXISTS ballast (filler BLOB)")
        self.holder: sqlite3.Connection | None = None
        if kind == "locked":
            self.holder = sqlite3.connect(app.config["DATABASE"], isolation_level=None)
            self.holder.execute("BEGIN IMMEDIATE")
        connect = book.connect

        def troubled(path: str) -> sqlite3.Connection:
            connection = connect(path)
            make_trouble(connection)
            return connection

        monkeypatch.setattr(book, "connect", troubled)

    def mend(self) -> None:
        self.monkeypatch.undo()
        if self.holder is not None:
            self.holder.close()
            self.holder = None


@pytest.fixture
def trouble(app: Any, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Trouble]:
    app.test_client().get("/api/games")  # the book exists before the trouble starts
    made = Trouble(app, request.param, monkeypatch)
    yield made
    made.mend()


def _total_games(app: Any) -> int:
    with sqlite3.connect(app.config["DATABASE"]) as db:
        return db.execute("SELECT count(*) FROM game").fetchone()[0]


@pytest.mark.parametrize("trouble", list(TROUBLES), indirect=True)
def test_typed_cards_come_back_to_be_sent_again(client: Any, token: str, game_id: int, trouble: Trouble) -> None:
    response = client.post(f"/games/{game_id}/hands/1/players/2",
                           data={"csrf_token": token, "mode": "cards", "cards": "QH 7S 10D"})
    assert response.status_code == 503
    page = html.unescape(response.get_data(as_text=True))
    assert trouble.message in page
    assert "<dt>cards</dt><dd>QH 7S 10D</dd>" in page             # shown as typed
    assert '<input type="hidden" name="cards" value="QH 7S 10D">' in page  # and sent again by the button
    assert "Send it again" in page
    trouble.mend()
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page))
    again = client.post(f"/games/{game_id}/hands/1/players/2", data=form)
    assert again.status_code == 302
    assert client.get(f"/api/games/{game_id}").get_json()["hands"][0]["scores"][1]["points"] == 27


@pytest.mark.parametrize("trouble", list(TROUBLES), indirect=True)
def test_the_api_says_the_same_and_saves_nothing(app: Any, api: Any, trouble: Trouble) -> None:
    before = _total_games(app)
    response = api.post("/api/games", {"variant": "llenroc", "players": ["Ann", "Bo"]})
    assert response.status_code == 503
    assert trouble.message in response.get_json()["error"]
    assert _total_games(app) == before


@pytest.mark.parametrize("trouble", ["disk full"], indirect=True)
def test_a_photo_sent_is_asked_for_again(client: Any, token: str, game_id: int, trouble: Trouble,
                                         jpeg_bytes: bytes) -> None:
    import io

    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "IMG_0042.jpg"),
                                 "cards_text": "QH 7S"},
                           headers={"Referer": f"http://localhost/games/{game_id}/hands/1/players/2"})
    assert response.status_code == 503
    page = html.unescape(response.get_data(as_text=True))
    assert trouble.message in page
    assert (f'The photo (IMG_0042.jpg) was not kept: choose it again on '
            f'<a href="/games/{game_id}/hands/1/players/2">its page</a>') in page
    assert "<dd>QH 7S</dd>" in page                 # the cards typed before are shown
    assert "Send it again" not in page              # without the photo it would be refused


def test_a_book_moved_away_is_not_replaced_by_an_empty_one(app: Any, client: Any, api: Any, game_id: int) -> None:
    path = Path(app.config["DATABASE"])
    moved = path.with_name("moved.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path.rename(moved)
    for leftover in path.parent.glob(path.name + "-*"):
        leftover.unlink()
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 503
    assert f"The book is no longer at {path} (moved or deleted?)" in page.get_data(as_text=True)
    response = api.post("/api/games", {"variant": "llenroc", "players": ["Ann", "Bo"]})
    assert response.status_code == 503 and "onze-vision serve --database FILE" in response.get_json()["error"]
    assert not path.exists()                                         # no empty book in its place
    moved.rename(path)                                               # put back: all is there
    assert client.get(f"/api/games/{game_id}").get_json()["players"][0]["name"] == "Ann"


def test_an_error_after_sqlite_ended_the_transaction_itself_is_the_one_raised(app: Any) -> None:
    # On a full disk or an I/O error SQLite may roll the whole transaction back itself; a
    # second ROLLBACK would fail and hide the cause ("no transaction is active").
    connection = book.connect(app.config["DATABASE"])
    try:
        with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
            with book.transaction(connection) as db:
                db.execute("ROLLBACK")  # what SQLite does itself before answering SQLITE_FULL
                raise sqlite3.OperationalError("database or disk is full")
        assert not connection.in_transaction
    finally:
        connection.close()


@pytest.mark.parametrize(("error", "disk", "said"), [
    # On a disk with no room left SQLite cannot make its shared-memory file: "disk I/O error".
    ("disk I/O error", "full", "The disk that holds the book (book.sqlite) is full"),
    ("database or disk is full", None, "The disk that holds the book (book.sqlite) is full"),
    ("unable to open database file", "read-only", "The disk that holds the book (/home/ann) is mounted read-only"),
    ("attempt to write a readonly database", "read-only", "is mounted read-only"),
    ("attempt to write a readonly database", None, "cannot be written: the file or its folder is read-only"),
    ("database is locked", None, "The book is busy: something has been writing to it"),
    ("file is not a database", None, "is damaged or is no longer an SQLite database (was it replaced?)"),
    ("disk I/O error", None, "The book's disk (/home/ann) failed to read or write"),
], ids=["I/O error on a full disk", "full", "read-only mount, cannot open", "read-only mount", "read-only file",
        "locked", "replaced", "I/O error"])
def test_each_trouble_is_named_for_its_cause(monkeypatch: pytest.MonkeyPatch, error: str, disk: str | None,
                                             said: str) -> None:
    monkeypatch.setattr(book, "disk_state", lambda folder: disk)
    assert said in (book.book_trouble(sqlite3.OperationalError(error), "/home/ann/book.sqlite") or "")


@pytest.mark.parametrize("error", [sqlite3.OperationalError("no such column: seats"),
                                   sqlite3.IntegrityError("UNIQUE constraint failed: player.seat")])
def test_an_error_of_the_sheets_own_is_no_trouble_of_the_book(error: sqlite3.DatabaseError) -> None:
    assert book.book_trouble(error, "/home/ann/book.sqlite") is None


def test_a_bug_is_a_500_not_a_request_to_try_again(app: Any, client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import model

    def broken() -> list[Any]:
        raise sqlite3.OperationalError("no such column: seats")

    monkeypatch.setattr(model, "list_games", broken)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    response = client.get("/history")
    assert response.status_code == 500 and "try again" not in response.get_data(as_text=True).lower()


def test_a_book_replaced_by_another_file_while_serving_is_said_to_be(app: Any, client: Any, game_id: int) -> None:
    path = Path(app.config["DATABASE"])
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for leftover in path.parent.glob(path.name + "-*"):
        leftover.unlink()
    path.write_bytes(b"Ann 12, Bo 30\n" * 400)
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 503
    assert "is damaged or is no longer an SQLite database" in response.get_data(as_text=True)


def _book_of_many_scores(path: Any) -> int:
    """A book of 300 four-player games, every hand scored: 8,400 scores. Returns that count."""
    from webapp.db import bring_up_to_date, connect

    db = connect(str(path))
    bring_up_to_date(db)
    for game in range(1, 301):
        db.execute("INSERT INTO game (id, variant, decks, first_dealer) VALUES (?, 'once', 2, 1)", (game,))
        db.executemany("INSERT INTO player VALUES (?, ?, ?)", [(game, seat, f"P{seat}") for seat in range(1, 5)])
        db.executemany("INSERT INTO score (game_id, hand, seat, base, points, cards) VALUES (?, ?, ?, ?, ?, ?)",
                       [(game, hand, seat, hand + seat, hand + seat, '["QH", "7S"]')
                        for hand in range(1, 8) for seat in range(1, 5)])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return 300 * 7 * 4


def _damage_a_page(path: Any, of: str, which: str = "middle") -> None:
    """Overwrite the first, middle or last leaf page (in key order) of table or index ``of``."""
    import sqlite3

    db = sqlite3.connect(path)
    pages = [row[0] for row in db.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' "
                                          "ORDER BY path", (of,))]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    assert len(pages) >= 3, pages
    page = {"first": pages[0], "middle": pages[len(pages) // 2], "last": pages[-1]}[which]
    with open(path, "r+b") as book:
        book.seek((page - 1) * size)
        book.write(b"\xde\xad" * (size // 2))


def _readable(path: Any, table: str, rowids: list[int]) -> int:
    """How many of ``rowids`` can still be read, one by one."""
    import sqlite3

    db = sqlite3.connect(path)
    readable = 0
    for rowid in rowids:
        try:
            readable += db.execute(f"SELECT * FROM {table} WHERE rowid = ?", (rowid,)).fetchone() is not None
        except sqlite3.DatabaseError:
            pass
    db.close()
    return readable


@pytest.mark.parametrize("which", ["first", "middle", "last"])
@pytest.mark.parametrize("table", ["score", "player"])
def test_a_rescue_keeps_every_row_that_can_be_read_and_counts_the_rest(tmp_path: Any, table: str,
                                                                       which: str) -> None:
    import sqlite3

    from webapp.db import remove_snapshot, rescue_copy

    book = tmp_path / "book.sqlite"
    _book_of_many_scores(book)
    db = sqlite3.connect(book)
    rowids = [row[0] for row in db.execute(f"SELECT rowid FROM {table}")]
    db.close()
    _damage_a_page(book, table, which)
    readable = _readable(book, table, rowids)
    assert 0 < readable < len(rowids)
    db = sqlite3.connect(book)
    db.row_factory = sqlite3.Row
    path, lost = rescue_copy(db)
    db.close()
    copy = sqlite3.connect(path)
    placeholders = " WHERE name NOT LIKE 'Player %'" if table == "player" else ""
    kept = copy.execute(f"SELECT COUNT(*) FROM {table}{placeholders}").fetchone()[0]
    seated = copy.execute("SELECT COUNT(*) FROM player WHERE name LIKE 'Player %'").fetchone()[0]
    copy.close()
    remove_snapshot(path)
    # Every row that reads is kept; the rest is said, as many as there were; a seat whose
    # player was lost is given one named for it ("Player 3"), so that every game still opens.
    assert kept == readable and lost[table] == len(rowids) - readable
    assert seated == (lost[table] if table == "player" else 0)


def test_a_rescue_reads_past_a_damaged_index(tmp_path: Any) -> None:
    import sqlite3

    from webapp.db import remove_snapshot, rescue_copy

    book = tmp_path / "book.sqlite"
    total = _book_of_many_scores(book)
    _damage_a_page(book, "sqlite_autoindex_score_1")
    db = sqlite3.connect(book)
    db.row_factory = sqlite3.Row
    path, lost = rescue_copy(db)
    db.close()
    kept = sqlite3.connect(path).execute("SELECT COUNT(*) FROM score").fetchone()[0]
    remove_snapshot(path)
    assert (kept, lost) == (total, {})   # the table is read itself, not through its index


@pytest.mark.parametrize(("lost", "words"), [
    ({"score": 3, "photo": 1}, "3 scores and 1 photo"),
    ({"game": 1, "player": 4, "score": 2},
     "1 game, 4 players' names (shown as \"Player\" and the seat) and 2 scores"),
    ({"photo": -1}, "all the photos"),
    ({"hand": 1}, "1 hand's record (who went out, the splash, the note)"),
    ({}, ""),
])
def test_a_rescue_says_what_could_not_be_read_in_words(app: Any, lost: dict[str, int], words: str) -> None:
    from webapp import model
    from webapp.db import get_db

    with app.app_context():
        get_db().execute("INSERT INTO rescue (lost, kept) VALUES (?, '{}')", (json.dumps(lost),))
        (rescue,) = model.rescues()
    assert (rescue["lost"], rescue["lost_words"], rescue["seen"]) == (lost, words, None)


def _rescued_book(tmp_path: Any, of: str = "score") -> tuple[Any, dict[str, int]]:
    """A book of 300 games, a page of table ``of`` damaged, rescued into a new book."""
    from webapp.db import remove_snapshot, rescue_copy

    book = tmp_path / "book.sqlite"
    _book_of_many_scores(book)
    _damage_a_page(book, of, "middle")
    db = sqlite3.connect(book)
    db.row_factory = sqlite3.Row
    path, lost = rescue_copy(db)
    db.close()
    copy = tmp_path / "rescued.sqlite"
    shutil.move(str(path), copy)
    remove_snapshot(path)   # its folder, left empty
    return copy, lost


def test_a_rescued_book_says_so_on_its_home_page_until_read_and_on_history_for_good(tmp_path: Any) -> None:
    from webapp import create_app

    copy, lost = _rescued_book(tmp_path)
    assert set(lost) == {"score"}
    client = create_app({"TESTING": True, "DATABASE": str(copy), "SECRET_KEY": "t"}).test_client()
    said = f"Could not be read: {lost['score']} scores."
    home = " ".join(client.get("/").get_data(as_text=True).split())
    assert said in home and "Got it" in home and "A score whose photo was lost" not in home
    token = client.get("/api/csrf").get_json()["token"]
    assert client.post("/history/rescues/1/seen", data={"csrf_token": token}).status_code == 302
    assert "rescued from a damaged one" not in client.get("/").get_data(as_text=True)
    history = " ".join(client.get("/history").get_data(as_text=True).split())
    assert said in history and "Got it" not in history
    missing = client.post("/history/rescues/9/seen", data={"csrf_token": token})
    assert missing.status_code == 404 and "Rescue 9 doesn&#39;t exist." in missing.get_data(as_text=True)


def test_a_rescued_book_rescued_again_keeps_the_first_rescues_note(tmp_path: Any) -> None:
    from webapp.db import remove_snapshot, rescue_copy

    copy, first = _rescued_book(tmp_path)
    db = sqlite3.connect(copy)
    db.row_factory = sqlite3.Row
    path, again = rescue_copy(db)
    db.close()
    with sqlite3.connect(path) as rescued:
        notes = [json.loads(row[0]) for row in rescued.execute("SELECT lost FROM rescue ORDER BY id")]
    remove_snapshot(path)
    assert notes == [first, {}] and again == {}


def test_a_book_whose_players_were_lost_opens_with_a_player_named_for_each_seat(tmp_path: Any) -> None:
    from webapp import create_app

    path, lost = _rescued_book(tmp_path, "player")
    client = create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "t"}).test_client()
    home = client.get("/")
    assert home.status_code == 200   # was a 500: a game's scores named seats it had no player for
    text = " ".join(html.unescape(home.get_data(as_text=True)).split())
    assert f"Could not be read: {lost['player']} players' names (shown as \"Player\" and the seat)." in text
    with sqlite3.connect(path) as copy:
        hit = copy.execute("SELECT game_id FROM player WHERE name LIKE 'Player %' LIMIT 1").fetchone()[0]
    copy.close()
    assert "Player " in client.get(f"/games/{hit}").get_data(as_text=True)


def test_a_lost_game_table_says_nothing_of_games_showing_scores_missing(app: Any, client: Any) -> None:
    from webapp.db import get_db

    with app.app_context():
        get_db().execute("INSERT INTO rescue (lost, kept) VALUES (?, '{}')", (json.dumps({"game": -1, "score": 8}),))
    text = " ".join(html.unescape(client.get("/").get_data(as_text=True)).split())
    assert "Could not be read: all the games and 8 scores." in text and "shows it missing" not in text


def test_init_db_reset_leaves_no_rescue_note(app: Any, client: Any, runner: Any) -> None:
    from webapp.db import get_db

    with app.app_context():
        get_db().execute("INSERT INTO rescue (lost, kept) VALUES ('{\"score\": 3}', '{}')")
    assert "rescued from a damaged one" in client.get("/").get_data(as_text=True)
    runner.invoke(args=["init-db", "--reset"])
    assert "rescued from a damaged one" not in client.get("/").get_data(as_text=True)


def _played_by_rules_this_version_lacks(app: Any, game_id: int, rules: str = "dubbel") -> None:
    """As a book made by a newer version (or a checkout with rules of its own) stores it."""
    with sqlite3.connect(app.config["DATABASE"]) as other:
        other.execute("UPDATE game SET variant = ? WHERE id = ?", (rules, game_id))


def test_a_game_of_rules_this_version_does_not_know_is_named_apart_and_the_rest_is_shown(
        app: Any, client: Any, api: Any, game_id: int) -> None:
    assert api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": "QH 7S"}).status_code == 200
    other = api.post("/api/games", {"variant": "once", "players": ["Ed", "Flo"]}).get_json()["id"]
    _played_by_rules_this_version_lacks(app, game_id)
    said = (f"Game {game_id} is played by rules this version of Onze Vision does not know (dubbel): kept in the "
            "book as it was, but left out of the lists and the standings. Update Onze Vision (or open the book "
            "where it was made) to see it.")
    for page in ("/", "/history"):
        response = client.get(page)
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))).split())
        assert response.status_code == 200 and said in text
        assert f"/games/{other}" in response.get_data(as_text=True)
        assert f'href="/games/{game_id}"' not in response.get_data(as_text=True)
    listed = client.get("/api/games").get_json()
    assert [g["id"] for g in listed["games"]] == [other]
    assert listed["unknown_rules"] == [{"id": game_id, "variant": "dubbel"}]
    assert client.get("/api/games?page=1").get_json()["unknown_rules"] == [{"id": game_id, "variant": "dubbel"}]
    assert client.get("/api/standings").status_code == 200
    assert client.get(f"/games/{other}").status_code == 200


@pytest.mark.parametrize("request_", [
    ("get", "/games/{id}"), ("get", "/games/{id}/hands/1"), ("get", "/games/{id}/print"),
    ("get", "/games/{id}/export.csv"), ("get", "/api/games/{id}"),
    ("post", "/api/games/{id}/hands/1/scores/3", {"points": 5}), ("post", "/api/games/{id}/note", {"note": "x"}),
    ("post", "/api/games/{id}/corners", {"corners": "four"}), ("delete", "/api/games/{id}"),
    ("get", "/api/games/{id}/changes"),
], ids=lambda r: f"{r[0]} {r[1]}")
def test_a_game_of_rules_this_version_does_not_know_says_why_and_is_not_changed(
        app: Any, api: Any, game_id: int, request_: tuple[Any, ...]) -> None:
    _played_by_rules_this_version_lacks(app, game_id)
    method, url, *body = request_
    with sqlite3.connect(app.config["DATABASE"]) as other:
        before = other.execute("SELECT * FROM game").fetchall(), other.execute("SELECT * FROM score").fetchall()
    response = getattr(api, method)(url.format(id=game_id), *body)
    assert response.status_code == 409
    assert (f"Game {game_id} is played by rules this version of Onze Vision does not know ('dubbel')"
            in html.unescape(response.get_data(as_text=True)))
    with sqlite3.connect(app.config["DATABASE"]) as other:
        assert (other.execute("SELECT * FROM game").fetchall(), other.execute("SELECT * FROM score").fetchall()) == before



def test_the_photos_of_a_game_of_unknown_rules_say_why_they_are_not_shown(
        app: Any, client: Any, token: str, api: Any, game_id: int, jpeg_bytes: bytes) -> None:
    import io

    sent = client.post("/api/photos", data={"game_id": str(game_id), "photo": (io.BytesIO(jpeg_bytes), "h.jpg")},
                       headers={"X-CSRF-Token": token})
    assert sent.status_code == 201
    _played_by_rules_this_version_lacks(app, game_id)
    for url in (f"/api/photos/{sent.get_json()['id']}", f"/photos/{sent.get_json()['id']}"):
        answer = client.get(url)
        assert answer.status_code == 409 and "does not know" in answer.get_data(as_text=True)


def test_a_new_game_of_rules_this_version_does_not_know_is_refused_as_bad_input_not_taken_for_a_twin(
        app: Any, client: Any, token: str, game_id: int) -> None:
    _played_by_rules_this_version_lacks(app, game_id)
    page = client.post("/games/new", data={"csrf_token": token, "variant": "dubbel",
                                           "names": ["Ann", "Bo", "Cy", "Di"], "first_dealer": "1"})
    assert page.status_code == 400 and "unknown variant &#39;dubbel&#39;" in page.get_data(as_text=True)


def test_deleted_games_of_unknown_rules_are_named_with_the_day_they_go_for_good(
        app: Any, client: Any, api: Any, game_id: int) -> None:
    assert api.delete(f"/api/games/{game_id}").status_code == 200
    _played_by_rules_this_version_lacks(app, game_id)
    with sqlite3.connect(app.config["DATABASE"]) as other:
        other.execute("UPDATE game SET deleted = datetime('now', '-2 days') WHERE id = ?", (game_id,))
        kept_until = other.execute("SELECT datetime(deleted, '+30 days') FROM game").fetchone()[0]
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", client.get("/history").get_data(as_text=True))).split())
    assert (f"Deleted game {game_id} is played by rules this version of Onze Vision does not know (dubbel): it "
            f"cannot be brought back here, and goes for good from {kept_until} UTC, as every deleted game does "
            "after 30 days. Update Onze Vision (or open the book where it was made) to see it.") in text
    assert client.get("/api/games/deleted").get_json() == {
        "games": [], "unknown_rules": [{"id": game_id, "variant": "dubbel", "kept_until": kept_until}]}


def test_a_note_of_many_games_of_unknown_rules_names_a_few_and_counts_the_rest(app: Any) -> None:
    from webapp import model

    games = [{"id": n, "variant": "dubbel" if n % 2 else "x" * 300} for n in range(1, 301)]
    note = model.unknown_rules_note(games)
    assert note.startswith("Games 1, 2, 3, 4, 5, 6, 7, 8 and 292 more are played by rules this version of Onze "
                           "Vision does not know (dubbel and xxxxxxxxxxxxxxxxxx…xxxxxxxxxxxxxxxxxx): kept in the book as "
                           "they were")
    assert len(note) < 400 and model.unknown_rules_note([]) == ""


def test_a_rescued_game_whose_players_were_all_lost_has_as_many_as_its_rules_need(tmp_path: Any) -> None:
    # An onze game of three whose scores name two seats: two stand-ins left it a game onze
    # is not played by, and its sums took the whole book's pages down (500).
    from webapp import create_app
    from webapp.db import connect, remove_snapshot, rescue_copy, schema_sql

    book = tmp_path / "book.sqlite"
    db = connect(str(book))
    db.executescript(schema_sql())
    db.execute("INSERT INTO game (variant, decks, first_dealer) VALUES ('onze', 2, 1)")
    db.executemany("INSERT INTO player VALUES (1, ?, ?)", [(1, "Ann"), (2, "Bo"), (3, "Cy")])
    db.executemany("INSERT INTO score (game_id, hand, seat, points, base) VALUES (1, 1, ?, 10, 10)", [(1,), (2,)])
    db.execute("DROP TABLE player")   # as a table whose pages can no longer be listed
    db.commit()
    db.row_factory = sqlite3.Row
    path, lost = rescue_copy(db)
    db.close()
    assert lost["player"] == -1
    with sqlite3.connect(path) as copy:
        assert copy.execute("SELECT seat, name FROM player ORDER BY seat").fetchall() == [
            (1, "Player 1"), (2, "Player 2"), (3, "Player 3")]
    client = create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "t"}).test_client()
    assert client.get("/").status_code == 200 and client.get("/games/1").status_code == 200
    remove_snapshot(path)
