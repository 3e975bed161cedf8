"""``onze-vision serve``: where it listens, and every reason it cannot, said before it starts."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from onze_vision.cli import main
from onze_vision.commands import web
from webapp import phones
from support import free_port


def _serve(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(["serve", *args])
    except SystemExit as exit_:   # argparse refuses bad arguments by exiting
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("port", ["0", "65536", "99999", "-1", "http", "5000.5"])
def test_a_port_outside_1_to_65535_is_refused(capsys: pytest.CaptureFixture[str], port: str) -> None:
    code, _, err = _serve(capsys, "--port", port)
    assert code == 2
    assert f"port must be a number from 1 to 65535, not '{port}'" in err


def test_a_port_another_program_listens_on_is_said_to_be_in_use(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        code, out, err = _serve(capsys, "--port", str(port), "--database", str(tmp_path / "onze.sqlite"))
    assert code == 2
    assert err.strip() == (f"onze-vision serve: error: port {port} is in use by another program: "
                           "stop it, or choose another --port")
    assert out == ""                                 # no banner for a server that never started
    assert not (tmp_path / "onze.sqlite").exists()   # nor a database made for it


@pytest.mark.parametrize(("host", "says"), [
    ("no-such-host.invalid", "cannot listen on 'no-such-host.invalid'"),
    ("192.0.2.77", "'192.0.2.77' is not an address of this machine"),   # TEST-NET-1: never this machine's
])
def test_a_host_this_machine_cannot_listen_on_is_refused(capsys: pytest.CaptureFixture[str], host: str,
                                                        says: str) -> None:
    code, _, err = _serve(capsys, "--host", host, "--port", "5000")
    assert code == 2
    assert says in err


def test_listening_on_every_address_names_the_addresses_a_phone_can_open(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: dict[str, Any] = {}
    monkeypatch.setattr(phones, "network_addresses", lambda: ["192.168.1.23"])
    monkeypatch.setattr(web, "run_sheet", lambda app, **kwargs: started.update(kwargs))
    port = free_port()   # serve checks the port is free before it starts
    code, out, _ = _serve(capsys, "--host", "0.0.0.0", "--port", str(port), "--database", str(tmp_path / "onze.sqlite"))
    assert code == 0
    assert started["host"] == "0.0.0.0" and started["port"] == port
    assert out.splitlines() == [
        f"Onze Vision score sheet on http://127.0.0.1:{port}/ (a new, empty book {tmp_path / 'onze.sqlite'})",
        f"  on a phone on the same network: http://192.168.1.23:{port}/",
    ]
    assert (tmp_path / "onze.sqlite").exists()


class _RecordedServer:
    """What ``werkzeug.serving.make_server`` was asked for; serves nothing."""

    def __init__(self, started: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        started.update(args=args, kwargs=kwargs)
        self.started = started

    def serve_forever(self) -> None:
        self.started["served"] = True


def test_the_sheet_is_served_threaded_without_a_development_server_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: dict[str, Any] = {}
    monkeypatch.setattr("werkzeug.serving.make_server", lambda *a, **kw: _RecordedServer(started, *a, **kw))
    port = free_port()
    code, out, err = _serve(capsys, "--port", str(port), "--database", str(tmp_path / "onze.sqlite"))
    assert code == 0 and started["served"]
    assert started["args"][:2] == ("127.0.0.1", port) and started["kwargs"]["threaded"] is True
    assert out.splitlines()[1:] == [
        "  this computer only: to score from phones on the same Wi-Fi, start it with --host 0.0.0.0",
        "Press Ctrl+C to stop it."]
    assert "development server" not in out + err and "production" not in out + err


def test_the_sheet_drops_a_connection_idle_for_a_minute(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: dict[str, Any] = {}
    monkeypatch.setattr("werkzeug.serving.make_server", lambda *a, **kw: _RecordedServer(started, *a, **kw))
    assert _serve(capsys, "--port", str(free_port()), "--database", str(tmp_path / "onze.sqlite"))[0] == 0
    assert started["kwargs"]["request_handler"].timeout == web.IDLE_CONNECTION_SECONDS == 60


def test_debug_mode_keeps_flasks_own_server_with_its_debugger(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: dict[str, Any] = {}
    monkeypatch.setattr("flask.Flask.run", lambda app, **kwargs: started.update(kwargs))
    assert _serve(capsys, "--debug", "--port", str(free_port()), "--database", str(tmp_path / "onze.sqlite"))[0] == 0
    assert started["debug"] is True and started["use_reloader"] is False
    assert started["request_handler"].timeout == web.IDLE_CONNECTION_SECONDS


def test_a_stalled_upload_is_dropped_and_frees_its_thread_while_others_are_served(tmp_path: Path) -> None:
    """A phone that sleeps mid-upload: what it sent is dropped after the idle time (1 s
    here), and another phone is served meanwhile."""
    import threading
    import urllib.request

    from werkzeug.serving import make_server

    from webapp import create_app

    app = create_app({"DATABASE": str(tmp_path / "book.sqlite"), "SECRET_KEY": "t"})
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=web.request_handler(1.0))
    port = server.socket.getsockname()[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        stalled = socket.create_connection(("127.0.0.1", port), timeout=30)
        stalled.sendall(b"POST /api/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\n"
                        b"Content-Length: 5000000\r\n\r\n" + b"\xff" * 100_000)   # then nothing more
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/cards", timeout=30) as other:
            assert other.status == 200
        reply = b""
        while chunk := stalled.recv(65536):   # the server answers and closes: it does not wait forever
            reply += chunk
        stalled.close()
        assert reply.startswith(b"HTTP/1.1 400")
    finally:
        server.shutdown()


def test_the_addresses_named_for_phones_leave_out_loopback_and_say_each_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(phones, "_candidate_addresses",
                        lambda: ["192.168.1.23", "127.0.1.1", "192.168.1.23", "0.0.0.0", "10.0.0.5"])
    # The address packets out leave by first: the one the QR code shows (not a VPN's or a bridge's).
    assert phones.network_addresses() == ["192.168.1.23", "10.0.0.5"]


@pytest.mark.parametrize(("make", "said"), [
    pytest.param(lambda path: path.mkdir(), "is a folder: give a file name in it", id="a folder"),
    pytest.param(lambda path: path.write_text("Ann 12, Bo 30\n"), "is not an SQLite database", id="a text file"),
    pytest.param(lambda path: path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64), "is not an SQLite database",
                 id="a photo"),
])
def test_a_database_that_cannot_be_the_book_is_refused_and_left_as_it_was(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make: Any, said: str
) -> None:
    book = tmp_path / "scores.sqlite"
    make(book)
    before = book.read_bytes() if book.is_file() else None
    code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(book))
    assert code == 2 and out == ""
    assert err.startswith(f"onze-vision serve: error: '{book}' ") and said in err
    assert (book.read_bytes() if book.is_file() else None) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.sqlite"]   # no -wal, no -shm


@pytest.mark.parametrize(("read_only", "said"), [
    pytest.param("scores.sqlite", "'{book}' is read-only, and the score sheet writes every score into it: "
                                  "make it writable (chmod u+w '{book}')", id="the book"),
    pytest.param("scores.sqlite-shm", "'{book}-shm', left beside the book by an earlier run, is read-only: "
                                      "remove it or make it writable", id="a leftover -shm"),
    pytest.param("", "the folder of '{book}' cannot be written, and SQLite keeps its -wal and -shm files",
                 id="its folder"),
])
def test_a_book_that_cannot_be_written_is_refused_before_serving(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_only: str, said: str
) -> None:
    import os
    import sqlite3

    book = tmp_path / "scores.sqlite"
    sqlite3.connect(book).close()
    (tmp_path / "scores.sqlite-shm").write_bytes(b"")
    access = os.access
    # The tests may run as root, whom permissions do not stop: os.access says what they would.
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != tmp_path / read_only and access(path, mode))
    code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(book))
    assert code == 2 and out == ""
    assert said.format(book=book) in err


@pytest.mark.parametrize(("state", "said"), [
    ("full", "the disk that holds '{book}' is full: free some space on it"),
    ("read-only", "'{book}' is on a disk mounted read-only: mount it writable"),
])
def test_a_book_on_a_full_or_read_only_disk_is_refused_before_serving(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str, said: str
) -> None:
    from webapp import db

    book = tmp_path / "scores.sqlite"
    monkeypatch.setattr(db, "disk_state", lambda folder: state)
    code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(book))
    assert code == 2 and out == "" and said.format(book=book) in err
    assert not book.exists()                       # no empty book left behind


def test_a_book_kept_by_an_older_version_is_brought_up_to_date_saying_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from webapp.db import BOOK_VERSION, needs_bringing_up_to_date

    book = tmp_path / "scores.sqlite"
    sqlite3.connect(book).execute("PRAGMA user_version = 1").connection.close()
    assert needs_bringing_up_to_date(str(book)) and not needs_bringing_up_to_date(str(tmp_path / "new.sqlite"))
    monkeypatch.setattr(web, "run_sheet", lambda self, **kw: None)   # start, then stop at once
    code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(book))
    assert code == 0, err
    assert out.startswith("Bringing the book up to date for this version (once; a large book takes a few seconds)...")
    assert not needs_bringing_up_to_date(str(book))
    with sqlite3.connect(book) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == BOOK_VERSION


@pytest.mark.parametrize("given_by", ["--database", "ONZE_DATABASE"])
def test_a_book_in_a_folder_that_does_not_exist_is_refused_not_started_empty(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given_by: str
) -> None:
    book = tmp_path / "usb-stick" / "onze.sqlite"      # the stick not plugged in, or a typo
    if given_by == "ONZE_DATABASE":
        monkeypatch.setenv("ONZE_DATABASE", str(book))
        code, out, err = _serve(capsys, "--port", str(free_port()))
    else:
        code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(book))
    assert code == 2 and out == ""
    assert (f"the folder of '{book}' ({book.parent}) does not exist: is its disk plugged in, or the name "
            "mistyped? Make the folder first to start a new book there") in err
    assert not book.parent.exists()


def test_a_book_with_games_is_said_as_the_book_not_a_new_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webapp.db import bring_up_to_date, connect

    book = tmp_path / "onze.sqlite"
    db = connect(str(book))
    bring_up_to_date(db)
    db.close()
    monkeypatch.setattr(web, "run_sheet", lambda self, **kw: None)
    port = free_port()
    code, out, _ = _serve(capsys, "--port", str(port), "--database", str(book))
    assert code == 0 and out.splitlines()[0] == f"Onze Vision score sheet on http://127.0.0.1:{port}/ (book {book})"


def _damaged_book(tmp_path: Path) -> Path:
    """A book of one game whose SQLite header page is intact and whose schema page is not."""
    from webapp import create_app

    book = tmp_path / "onze.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(book), "SECRET_KEY": "t"})
    client = app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    client.post("/api/games", json={"variant": "once", "players": ["Ann", "Bo"]}, headers={"X-CSRF-Token": token})
    import sqlite3

    with sqlite3.connect(book) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with book.open("r+b") as damaged:
        damaged.seek(100)                     # page 1 past the 100-byte file header: the schema
        damaged.write(b"\xde\xad" * 1998)
    from webapp import db as book_db

    book_db._schema_ready.discard(str(book))  # as a new process finds it
    return book


def test_a_damaged_book_at_start_says_so_and_how_to_rescue_it(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web, "run_sheet", lambda self, **kw: None)   # were it to start, never to serve
    book = _damaged_book(tmp_path)
    code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(book))
    assert code == 2 and out == ""
    assert (f"the book is damaged. Put back a good copy, or copy all that can still be read into a new book: "
            f"onze-vision rescue-book '{book}' rescued.sqlite") in err


def _book_of_one_game(path: Path, note: str = "", *, first: Sequence[str] = (), last: Sequence[str] = ()) -> Path:
    """A book of one game of Ann and Bo (its note ``note``): the SQL ``first`` run on the
    new tables before the game is written, ``last`` after."""
    from webapp.db import connect, schema_sql

    db = connect(str(path))
    db.executescript(schema_sql())
    for statement in first:
        db.execute(statement)
    db.execute("INSERT INTO game (variant, decks, first_dealer, note) VALUES ('once', 2, 1, ?)", (note,))
    db.executemany("INSERT INTO player VALUES (1, ?, ?)", [(1, "Ann"), (2, "Bo")])
    for statement in last:
        db.execute(statement)
    db.close()
    return path


def test_rescue_book_copies_what_can_be_read_and_says_what_could_not(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    book = _book_of_one_game(tmp_path / "onze.sqlite", "kept")
    out_book = tmp_path / "rescued.sqlite"
    assert main(["rescue-book", str(book), str(out_book)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"Rescued into {out_book}: 1 game row, 2 player rows, 0 hand rows, 0 photo rows, 0 photo addition rows, "
        "0 score rows.",
        "Every row could be read.",
        f"Serve it with: onze-vision serve --database {out_book}",
    ]
    import sqlite3

    assert sqlite3.connect(out_book).execute("SELECT note FROM game").fetchall() == [("kept",)]
    assert out_book.stat().st_mode & 0o777 == 0o600                   # this account's only, as the sheet's own
    assert main(["rescue-book", str(book), str(out_book)]) == 2       # never written over
    assert "exists already" in capsys.readouterr().err
    damaged = _damaged_book(tmp_path / "d")
    assert main(["rescue-book", str(damaged), str(tmp_path / "d" / "out.sqlite")]) == 2
    assert "nothing of" in capsys.readouterr().err and not (tmp_path / "d" / "out.sqlite").exists()
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(b"\xff\xd8\xff\xe0" + bytes(200))
    assert main(["rescue-book", str(photo), str(tmp_path / "from-photo.sqlite")]) == 2   # bad input, as elsewhere
    assert "nothing of" in capsys.readouterr().err


def test_rescue_book_says_how_many_players_it_seated_for_lost_ones(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    book = _book_of_one_game(tmp_path / "onze.sqlite", last=["DROP TABLE player"])
    assert main(["rescue-book", str(book), str(tmp_path / "rescued.sqlite")]) == 0
    assert ("Could not be read: the whole player table. 2 players are seated for the lost ones, each named for "
            "their seat (\"Player 3\"): a game has as many as its scores and its rules need.") in capsys.readouterr().out


@pytest.mark.parametrize(("args", "said"), [
    pytest.param(["serve", "--database", ""], "argument --database: an empty name", id="serve --database ''"),
    pytest.param(["serve", "--allow-host", " "], "argument --allow-host: an empty name", id="serve --allow-host ' '"),
    pytest.param(["rescue-book", "book.sqlite", ""], "argument OUT: an empty name", id="rescue-book BOOK ''"),
])
def test_an_empty_name_is_refused_not_taken_for_the_default(capsys: pytest.CaptureFixture[str], args: list[str],
                                                            said: str) -> None:
    with pytest.raises(SystemExit) as exit_:   # argparse refuses bad arguments by exiting
        main(args)
    assert exit_.value.code == 2 and said in capsys.readouterr().err


def test_rescue_book_makes_no_folder_that_is_not_there(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    book = _book_of_one_game(tmp_path / "onze.sqlite", "kept")
    out_book = tmp_path / "mistyped" / "rescued.sqlite"
    assert main(["rescue-book", str(book), str(out_book)]) == 2
    assert f"'{out_book}': folder '{out_book.parent}' does not exist" in capsys.readouterr().err
    assert not out_book.parent.exists()


@pytest.mark.parametrize("days", ["-1", "soon", "2.5", "", "36501", "99999999999999999999"])
def test_whole_photo_days_must_be_a_whole_number_or_forever(capsys: pytest.CaptureFixture[str], days: str) -> None:
    code, _, err = _serve(capsys, "--whole-photo-days", days)
    assert code == 2
    assert f"days must be a whole number from 0 to 36500, or 'forever', not '{days}'" in err


@pytest.mark.parametrize(("given", "kept"), [([], 30), (["--whole-photo-days", "90"], 90),
                                             (["--whole-photo-days", "forever"], None),
                                             (["--whole-photo-days", "Forever"], None)])
def test_whole_photo_days_reach_the_sheet_and_its_keepsake_thread(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    given: list[str], kept: int | None,
) -> None:
    from webapp import keepsake

    seen: dict[str, Any] = {}
    started: list[Any] = []
    real_start = keepsake.start
    monkeypatch.setattr(web, "run_sheet", lambda self, **kw: seen.update(days=self.config["WHOLE_PHOTO_DAYS"]))
    monkeypatch.setattr(keepsake, "start", lambda app: started.append(real_start(app, every_seconds=3600)) or started[-1])
    code, _, _ = _serve(capsys, "--port", str(free_port()), "--database", str(tmp_path / "onze.sqlite"), *given)
    assert code == 0 and seen == {"days": kept}
    (thread,) = started
    # Photos kept as taken or not, the thread runs (it also removes games deleted long ago),
    # and stops when the server stops.
    thread.join(timeout=20)
    assert not thread.is_alive() and thread.looks == 1


def test_rescue_book_refuses_a_file_that_is_no_book(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "notes.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    db.close()
    assert main(["rescue-book", str(other), str(tmp_path / "out.sqlite")]) == 2
    assert "not one of its tables can be listed (is it a score-sheet book?)" in capsys.readouterr().err
    assert not (tmp_path / "out.sqlite").exists()


def test_rescue_book_of_a_book_from_before_the_newer_tables_loses_nothing(capsys: pytest.CaptureFixture[str],
                                                                          tmp_path: Path) -> None:
    import sqlite3

    book = _book_of_one_game(tmp_path / "old.sqlite", first=["DROP TABLE photo_addition", "DROP TABLE rescue"])
    out_book = tmp_path / "rescued.sqlite"
    assert main(["rescue-book", str(book), str(out_book)]) == 0
    assert "Every row could be read." in capsys.readouterr().out
    with sqlite3.connect(out_book) as db:
        assert db.execute("SELECT lost FROM rescue").fetchall() == [("{}",)]


@pytest.mark.parametrize("name", ["old#1.sqlite", "what?.sqlite", "100%2e.sqlite"])
def test_a_book_whose_name_has_uri_characters_is_the_file_it_names(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path, name: str) -> None:
    import sqlite3

    from webapp.db import needs_bringing_up_to_date

    book = _book_of_one_game(tmp_path / name, "the right book", last=["PRAGMA user_version = 2"])
    before = sorted(p.name for p in tmp_path.iterdir())
    assert needs_bringing_up_to_date(str(book)) is False
    out_book = tmp_path / "rescued.sqlite"
    assert main(["rescue-book", str(book), str(out_book)]) == 0
    with sqlite3.connect(out_book) as rescued:
        assert rescued.execute("SELECT note FROM game").fetchall() == [("the right book",)]
    rescued.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "rescued.sqlite"])   # no stray file


def test_rescue_book_of_a_book_from_a_newer_version_keeps_what_this_one_knows(capsys: pytest.CaptureFixture[str],
                                                                             tmp_path: Path) -> None:
    import sqlite3

    from webapp.db import BOOK_VERSION

    book = _book_of_one_game(tmp_path / "newer.sqlite", "kept", first=[
        'ALTER TABLE game ADD COLUMN "a newer ""column"" " TEXT', 'CREATE INDEX "odd ""index""" ON game (variant)',
        "CREATE TABLE badge (id INTEGER PRIMARY KEY, game_id INTEGER REFERENCES game (id))",
        f"PRAGMA user_version = {BOOK_VERSION + 1}"])
    out_book = tmp_path / "rescued.sqlite"
    assert main(["rescue-book", str(book), str(out_book)]) == 0
    with sqlite3.connect(out_book) as rescued:
        assert rescued.execute("SELECT note FROM game").fetchall() == [("kept",)]
    rescued.close()
    # What it leaves is said, and where it can be kept.
    assert capsys.readouterr().out.splitlines()[2] == (
        'Left out, as this version does not know them: the column a newer "column"  of game, the table badge '
        f"(the book was last kept by a newer Onze Vision, book version {BOOK_VERSION + 1}; this one knows up to "
        f"{BOOK_VERSION}: rescue it with that version to keep them).")


def test_rescue_book_of_a_book_with_a_table_added_by_hand_says_it_is_left_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    book = _book_of_one_game(tmp_path / "mine.sqlite", last=[
        "CREATE TABLE my_notes (text TEXT)", "CREATE VIEW names AS SELECT name FROM player",
        "ALTER TABLE player ADD COLUMN shout TEXT GENERATED ALWAYS AS (upper(name)) VIRTUAL",
        "CREATE TRIGGER stamp AFTER INSERT ON my_notes BEGIN SELECT 1; END"])
    assert main(["rescue-book", str(book), str(tmp_path / "rescued.sqlite")]) == 0
    assert ("Left out, as this version does not know them: the column shout of player, the table my_notes, "
            "the view names, the trigger stamp.") in capsys.readouterr().out.splitlines()


def _installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """As a non-editable install: (Flask's instance folder in the environment, this user's data folder)."""
    from flask import Flask

    from onze_vision import places

    old, mine = tmp_path / "venv" / "var" / "webapp-instance", tmp_path / "data" / "onze-vision"
    monkeypatch.setattr(places, "in_checkout", lambda: False)
    monkeypatch.setattr(places, "user_data_dir", lambda: mine)
    monkeypatch.setattr(Flask, "auto_find_instance_path", lambda self: str(old))
    monkeypatch.delenv("ONZE_DATABASE", raising=False)
    monkeypatch.setattr(web, "run_sheet", lambda self, **kw: None)   # start, then stop at once
    return old, mine


def test_an_installed_sheet_starts_its_first_book_in_the_users_data_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, mine = _installed(tmp_path, monkeypatch)
    code, out, err = _serve(capsys, "--port", str(free_port()))
    assert code == 0 and "note" not in err
    assert f"(a new, empty book {mine / 'onze.sqlite'})" in out.splitlines()[0]
    assert (mine / "onze.sqlite").is_file() and not old.exists()


def test_a_book_at_the_old_place_keeps_being_used_and_says_where_to_move_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webapp.db import bring_up_to_date, connect

    old, mine = _installed(tmp_path, monkeypatch)
    db = connect(str(old / "onze.sqlite"))
    bring_up_to_date(db)
    db.close()
    code, out, err = _serve(capsys, "--port", str(free_port()))
    assert code == 0
    assert f"(book {old / 'onze.sqlite'})" in out.splitlines()[0]
    assert err.count("note:") == 1
    assert f"where earlier versions kept it, {old / 'onze.sqlite'}" in err and f"into {mine}" in err
    assert not mine.exists()
    # A book named by --database is the book: nothing to say about the old place.
    code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(tmp_path / "other.sqlite"))
    assert code == 0 and "note" not in err
    # Unless the settings read there are in the environment too.
    (old / "config.py").write_text("WHOLE_PHOTO_DAYS = None\n")
    code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(tmp_path / "other.sqlite"))
    assert code == 0 and err.count("note:") == 1
    assert f"settings (config.py) are where earlier versions kept them, {old}" in err and f"into {mine}" in err


def test_a_book_from_a_newer_version_opens_and_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from webapp.db import BOOK_VERSION, bring_up_to_date, connect

    monkeypatch.setattr(web, "run_sheet", lambda self, **kw: None)   # start, then stop at once
    book = tmp_path / "newer.sqlite"
    db = connect(str(book))
    bring_up_to_date(db)
    db.execute(f"PRAGMA user_version = {BOOK_VERSION + 5}")
    db.close()
    code, out, err = _serve(capsys, "--port", str(free_port()), "--database", str(book))
    assert code == 0 and f"(book {book})" in out
    assert f"last kept by a newer Onze Vision (book version {BOOK_VERSION + 5}; this one knows up to " \
           f"{BOOK_VERSION})" in err
    with sqlite3.connect(book) as db:   # left as the newer version made it
        assert db.execute("PRAGMA user_version").fetchone()[0] == BOOK_VERSION + 5


def test_the_database_help_names_the_users_data_folder(capsys: pytest.CaptureFixture[str]) -> None:
    from onze_vision.places import user_data_dir

    code, out, _ = _serve(capsys, "--help")
    assert code == 0
    assert str(user_data_dir()) in " ".join(out.split()) and "instance/ in a checkout" in " ".join(out.split())
