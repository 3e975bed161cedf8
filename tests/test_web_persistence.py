"""Scores survive a server restart; concurrent saves of different players lose nothing."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest
from support import TEST_SECRET_KEY, free_port


def test_concurrent_saves_of_different_players_lose_nothing(app: Any) -> None:
    """Eight threads, each its own client (browser), save every hand for one player at once."""
    setup = app.test_client()
    token = setup.get("/api/csrf").get_json()["token"]
    names = [f"P{i}" for i in range(1, 9)]
    game_id = setup.post("/api/games", json={"variant": "llenroc", "players": names},
                         headers={"X-CSRF-Token": token}).get_json()["id"]
    errors: list[str] = []
    start = threading.Barrier(len(names))

    def save_player(seat: int) -> None:
        client = app.test_client()
        my_token = client.get("/api/csrf").get_json()["token"]
        start.wait()
        for hand in range(1, 8):
            response = client.post(f"/api/games/{game_id}/hands/{hand}/scores/{seat}",
                                   json={"points": seat * 10 + hand}, headers={"X-CSRF-Token": my_token})
            if response.status_code != 200:
                errors.append(f"seat {seat} hand {hand}: {response.status_code} {response.get_json()}")

    threads = [threading.Thread(target=save_player, args=(seat,)) for seat in range(1, 9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    game = setup.get(f"/api/games/{game_id}").get_json()
    for hand in game["hands"]:
        expected = [seat * 10 + hand["number"] for seat in range(1, 9)]
        if hand["number"] == 7:
            expected = [2 * p for p in expected]       # Llenroc's hand 7 doubles
        assert [s["points"] for s in hand["scores"]] == expected
    assert game["finished"]


class Server:
    """``onze-vision serve`` in a subprocess on a temporary database."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        # The key too (conftest sets it; said here as well): without it serve writes one into instance/.
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "ONZE_SECRET_KEY": TEST_SECRET_KEY}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "onze_vision", "serve", "--port", str(self.port), "--database", str(database)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                urllib.request.urlopen(self.base + "/api/variants", timeout=1)
                return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(self.process.stdout.read().decode())  # type: ignore[union-attr]
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()


def _opener() -> Any:
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))


def _call(opener: Any, url: str, body: Any = None, token: str | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if data else "GET")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("X-CSRF-Token", token)
    with opener.open(request, timeout=30) as response:
        return json.loads(response.read())


def test_scores_survive_a_server_restart(tmp_path: Path) -> None:
    database = tmp_path / "book.sqlite"
    server = Server(database)
    try:
        assert database.exists()                      # serve creates the database
        opener = _opener()
        token = _call(opener, server.base + "/api/csrf")["token"]
        game = _call(opener, server.base + "/api/games", {"variant": "once", "players": ["Ann", "Bo"]}, token)
        _call(opener, f"{server.base}/api/games/{game['id']}/hands/1/scores/2", {"cards": ["QH", "JK"]}, token)
        _call(opener, f"{server.base}/api/games/{game['id']}/note", {"note": "before the restart"}, token)
    finally:
        server.stop()
    server = Server(database)
    try:
        again = _call(_opener(), f"{server.base}/api/games/{game['id']}")
        assert again["hands"][0]["scores"][1]["points"] == 40
        assert again["note"] == "before the restart"
    finally:
        server.stop()


def test_concurrent_saves_through_the_real_server(tmp_path: Path) -> None:
    """Two 'browsers' (separate cookie jars) hammer the same hand of one game in parallel."""
    server = Server(tmp_path / "race.sqlite")
    try:
        setup = _opener()
        token = _call(setup, server.base + "/api/csrf")["token"]
        game = _call(setup, server.base + "/api/games", {"variant": "onze", "players": ["A", "B", "C"]}, token)
        failures: list[BaseException] = []

        def browser(seat: int) -> None:
            opener = _opener()
            my_token = _call(opener, server.base + "/api/csrf")["token"]
            try:
                for round_ in range(10):
                    for hand in range(1, 8):
                        _call(opener, f"{server.base}/api/games/{game['id']}/hands/{hand}/scores/{seat}",
                              {"points": seat + round_}, my_token)
            except BaseException as error:  # noqa: BLE001 - reported below
                failures.append(error)

        threads = [threading.Thread(target=browser, args=(seat,)) for seat in (1, 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        final = _call(setup, f"{server.base}/api/games/{game['id']}")
        assert final["totals"] == [7 * (1 + 9), 7 * (2 + 9), 0]
    finally:
        server.stop()


def test_serve_command_is_registered() -> None:
    from onze_vision.cli import build_parser

    args = build_parser().parse_args(["serve", "--port", "5123", "--database", "x.sqlite"])
    assert args.port == 5123 and args.database == "x.sqlite" and args.host == "127.0.0.1"
    assert callable(args.handler)


def test_init_db_command(runner: Any, app: Any) -> None:
    result = runner.invoke(args=["init-db"])
    assert "Initialized the database" in result.output
    assert Path(app.config["DATABASE"]).exists()


@pytest.mark.parametrize(("args", "games_left"), [(["init-db"], 1), (["init-db", "--reset"], 0)])
def test_init_db_keeps_the_games_unless_told_to_reset(runner: Any, api: Any, args: list[str], games_left: int) -> None:
    api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]})
    result = runner.invoke(args=args)
    assert result.exit_code == 0 and "Initialized the database" in result.output
    assert len(api.get("/api/games").get_json()["games"]) == games_left


def test_database_path_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import create_app

    monkeypatch.setenv("ONZE_DATABASE", str(tmp_path / "env.sqlite"))
    app = create_app({"TESTING": True, "SECRET_KEY": "t"})
    assert app.config["DATABASE"] == str(tmp_path / "env.sqlite")
    assert app.config["MAX_CONTENT_LENGTH"] > 0


def test_default_database_is_in_the_instance_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import create_app

    monkeypatch.delenv("ONZE_DATABASE", raising=False)
    app = create_app({"TESTING": True, "SECRET_KEY": "t"})
    assert app.config["DATABASE"] == os.path.join(app.instance_path, "onze.sqlite")


def test_wal_mode_is_on(client: Any, app: Any) -> None:
    import sqlite3

    client.get("/api/games")
    db = sqlite3.connect(app.config["DATABASE"])
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_photos_no_score_uses_are_forgotten_after_a_week(client: Any, api: Any, token: str, app: Any,
                                                          game_id: int, jpeg_bytes: bytes) -> None:
    def upload() -> int:
        return client.post("/api/photos", data={"game_id": str(game_id), "photo": (io.BytesIO(jpeg_bytes), "h.jpg")},
                           headers={"X-CSRF-Token": token}).get_json()["id"]

    used, retaken = upload(), upload()
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "7S", "JK"], "photo_id": used})
    with app.app_context():
        from webapp.db import get_db
        get_db().execute("UPDATE photo SET created = datetime('now', '-8 days')")
    fresh = upload()   # each upload forgets the old unused ones
    assert client.get(f"/api/photos/{retaken}").status_code == 404
    assert client.get(f"/api/photos/{used}").status_code == 200
    assert client.get(f"/api/photos/{fresh}").status_code == 200


def test_a_backlog_of_old_photos_goes_a_few_per_transaction_after_each_photo_kept(
        client: Any, token: str, app: Any, game_id: int, jpeg_bytes: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """What is deleted is overwritten: 1.3 GB of old photos cleared in one transaction held
    every other phone's save for ten seconds. They go a few per transaction, after the
    photo that occasioned it is kept, and a backlog over the next photos."""
    import sqlite3

    from webapp import model

    def upload() -> int:
        response = client.post("/api/photos", data={"game_id": str(game_id), "photo": (io.BytesIO(jpeg_bytes), "h.jpg")},
                               headers={"X-CSRF-Token": token})
        assert response.status_code == 201, response.get_json()
        return int(response.get_json()["id"])

    backlog = [upload() for _ in range(40)]
    with app.app_context():
        from webapp.db import get_db
        get_db().execute("UPDATE photo SET created = datetime('now', '-8 days')")

    cleared: list[int] = []
    forget = model.forget_unused_photos

    def watched(db: sqlite3.Connection, limit: int) -> int:
        assert db.in_transaction
        with sqlite3.connect(app.config["DATABASE"]) as other:   # the new photo is saved already
            assert other.execute("SELECT count(*) FROM photo WHERE id = ?", (newest[-1],)).fetchone() == (1,)
        cleared.append(forget(db, limit=limit))
        return cleared[-1]

    monkeypatch.setattr(model.photos, "forget_unused_photos", watched)   # as store_photo calls it
    newest = [max(backlog) + 1]
    upload()
    assert cleared == [model.PHOTOS_FORGOTTEN_AT_ONCE] * model.CLEARINGS_PER_SAVE == [4] * 8
    newest.append(newest[-1] + 1)
    cleared.clear()
    upload()
    assert cleared == [4, 4, 0]
    assert [client.get(f"/api/photos/{old}").status_code for old in backlog] == [404] * 40
    assert [client.get(f"/api/photos/{photo}").status_code for photo in newest] == [200, 200]


def test_a_clearing_the_book_refuses_now_is_left_for_later_and_the_photo_is_kept(
        client: Any, token: str, app: Any, game_id: int, jpeg_bytes: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from webapp import model

    def busy(db: sqlite3.Connection, limit: int) -> int:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(model.photos, "forget_unused_photos", busy)
    response = client.post("/api/photos", data={"game_id": str(game_id), "photo": (io.BytesIO(jpeg_bytes), "h.jpg")},
                           headers={"X-CSRF-Token": token})
    assert response.status_code == 201
    assert client.get(f"/api/photos/{response.get_json()['id']}").status_code == 200


def test_every_connection_cuts_the_write_ahead_log_back_to_64_mb_after_a_checkpoint(app: Any) -> None:
    # A game cleared with its photos grew the log to the size of what it overwrote (1 GB).
    from webapp.db import WAL_KEPT_BYTES

    with app.app_context():
        from webapp.db import get_db
        assert get_db().execute("PRAGMA journal_size_limit").fetchone()[0] == WAL_KEPT_BYTES == 64 * 2**20


def _another_phone_just_before_the_write(monkeypatch: pytest.MonkeyPatch, change: Any) -> None:
    """Run ``change`` (another phone's save) right before the model's next write transaction
    begins: the moment a save that trusted what it read before taking the write lock would
    write over it."""
    from contextlib import contextmanager

    from webapp import db as book
    from webapp.db import transaction as real_transaction

    pending = [change]

    @contextmanager
    def change_then_write(*args: Any, **kwargs: Any) -> Any:
        if pending:
            pending.pop()()   # its own transaction, begun and committed before this one
        with real_transaction(*args, **kwargs) as db:
            yield db

    monkeypatch.setattr(book, "transaction", change_then_write)   # the model calls it as book.transaction()


def test_a_score_saved_while_the_splash_is_ticked_is_doubled(app: Any, api: Any, game_id: int,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import model

    with app.test_request_context():
        model.save_hand(game_id, 2, out=1)
        _another_phone_just_before_the_write(monkeypatch, lambda: model.save_hand(game_id, 2, splash=True))
        game = model.save_score(game_id, 2, 3, cards="QH 7S")   # 17, doubled on the splash
    assert game["hands"][1]["splash"] and game["hands"][1]["scores"][2]["points"] == 34


def test_two_phones_changing_one_hand_keep_both_changes(app: Any, api: Any, game_id: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import model

    with app.test_request_context():
        _another_phone_just_before_the_write(monkeypatch, lambda: model.save_hand(game_id, 3, note="Cy dealt"))
        game = model.save_hand(game_id, 3, out=4)
    assert game["hands"][2]["out"] == 4 and game["hands"][2]["note"] == "Cy dealt"


@pytest.mark.parametrize("save", ["cards", "out"])
def test_a_score_saved_while_the_rules_change_counts_under_the_new_rules(
        app: Any, api: Any, game_id: int, monkeypatch: pytest.MonkeyPatch, save: str) -> None:
    from webapp import model

    with app.test_request_context():
        if save == "out":
            model.save_score(game_id, 1, 2, cards="AH KC 9S JK")
        _another_phone_just_before_the_write(monkeypatch, lambda: model.set_variant(game_id, "onze"))
        if save == "cards":
            game = model.save_score(game_id, 1, 2, cards="AH KC 9S JK")
        else:
            game = model.save_hand(game_id, 1, out=1)
    # Llenroc counts them 15 + 10 + 9 + 20 = 54; Onze 30 + 10 + 9 + 30 = 79.
    assert game["variant"]["name"] == "onze" and game["hands"][0]["scores"][1]["points"] == 79


@pytest.mark.parametrize("field, mine, theirs", [("out", "1", "2"), ("note", "Bo dealt", "Cy dealt")])
def test_a_hand_field_changed_on_two_phones_at_once_is_not_saved_over(
        app: Any, api: Any, game_id: int, monkeypatch: pytest.MonkeyPatch, field: str, mine: str, theirs: str) -> None:
    from webapp import model

    with app.test_request_context():
        _another_phone_just_before_the_write(monkeypatch, lambda: model.save_hand(game_id, 3, **{field: theirs}))
        with pytest.raises(model.HandChangedError, match="on another device since this page was opened"):
            model.save_hand(game_id, 3, **{field: mine}, shown={field: ""})
        hand = model.load_game(game_id)["hands"][2]
    assert str(hand[field]) == theirs


def test_the_game_note_changed_on_two_phones_at_once_is_not_saved_over(
        app: Any, api: Any, game_id: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import model

    with app.test_request_context():
        _another_phone_just_before_the_write(monkeypatch, lambda: model.set_game_note(game_id, "Theirs"))
        with pytest.raises(model.NoteChangedError) as refused:
            model.set_game_note(game_id, "Mine", was="")
        assert refused.value.note == "Theirs" and model.load_game(game_id)["note"] == "Theirs"


def test_a_name_changed_on_two_phones_at_once_is_not_saved_over(
        app: Any, api: Any, game_id: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import model

    shown = ["Ann", "Bo", "Cy", "Di"]
    with app.test_request_context():
        _another_phone_just_before_the_write(
            monkeypatch, lambda: model.set_player_names(game_id, ["Anna", "Bo", "Cy", "Dee"]))
        with pytest.raises(model.NamesChangedError, match="player 1 is now \u201cAnna\u201d"):
            model.set_player_names(game_id, ["Annie", "Bo", "Cy", "Di"], shown=shown)
        assert [p["name"] for p in model.load_game(game_id)["players"]] == ["Anna", "Bo", "Cy", "Dee"]
        # A name left as shown keeps the other phone's correction; one changed here is saved.
        game = model.set_player_names(game_id, ["Anna", "Bob", "Cy", "Di"], shown=["Anna", "Bo", "Cy", "Di"])
    assert [p["name"] for p in game["players"]] == ["Anna", "Bob", "Cy", "Dee"]


def test_two_players_saving_at_once_cannot_hold_more_copies_than_the_decks(
        app: Any, api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import model

    game = api.post("/api/games", {"variant": "onze", "players": ["A", "B", "C"]}).get_json()["id"]   # 2 decks
    with app.test_request_context():
        _another_phone_just_before_the_write(monkeypatch, lambda: model.save_score(game, 1, 1, cards="7H 7H 2C"))
        with pytest.raises(ValueError, match="3 × 7H"):
            model.save_score(game, 1, 2, cards="7H 3C")


def test_an_instance_folder_that_cannot_be_written_is_never_needed_with_a_book_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flask import Flask

    from webapp import create_app

    # An installed package's instance folder under a read-only prefix: here, under a file.
    blocker = tmp_path / "read-only-prefix"
    blocker.write_text("not a folder")
    monkeypatch.setattr(Flask, "auto_find_instance_path", lambda self: str(blocker / "var" / "webapp-instance"))
    monkeypatch.delenv("ONZE_SECRET_KEY", raising=False)
    app = create_app({"DATABASE": str(tmp_path / "book.sqlite"), "DETECT": None})
    client = app.test_client()
    token = client.get("/api/csrf").get_json()["token"]   # a key for this run: sessions work
    created = client.post("/api/games", json={"variant": "once", "players": ["Ann", "Bo"]},
                          headers={"X-CSRF-Token": token})
    assert created.status_code == 201 and (tmp_path / "book.sqlite").exists()
    assert blocker.read_text() == "not a folder"


def test_old_unused_photos_are_found_by_index_not_by_reading_every_photo(app: Any) -> None:
    # A photo's created time lies after its megabytes: a scan of the table reads them all.
    from webapp import model
    from webapp.db import connect, ensure_schema

    ensure_schema(app.config["DATABASE"])
    db = connect(app.config["DATABASE"])
    try:
        statements: list[str] = []
        db.set_trace_callback(statements.append)
        model.forget_unused_photos(db)
        db.set_trace_callback(None)
        (delete,) = [sql for sql in statements if sql.startswith("DELETE FROM photo")]
        plan = [row[3] for row in db.execute("EXPLAIN QUERY PLAN " + delete)]
    finally:
        db.close()
    # No table is scanned: only the short list of earlier photos kept for the photos the
    # scores use, found from the additions.
    assert not any(step.startswith("SCAN") and step != "SCAN kept" for step in plan), plan
    assert any("INDEX photo_created" in step for step in plan), plan


def _installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Run as a non-editable install: Flask's instance folder under the prefix, and this user's
    data folder in ``tmp_path``; return (the old place, the new one)."""
    from flask import Flask

    from onze_vision import places

    old, mine = tmp_path / "venv" / "var" / "webapp-instance", tmp_path / "home" / "onze-vision"
    monkeypatch.setattr(places, "in_checkout", lambda: False)
    monkeypatch.setattr(places, "user_data_dir", lambda: mine)
    monkeypatch.setattr(Flask, "auto_find_instance_path", lambda self: str(old))
    monkeypatch.delenv("ONZE_DATABASE", raising=False)
    return old, mine


@pytest.mark.parametrize(("old_book", "new_book", "chosen"), [
    (False, False, "mine"),   # a first start: the user's data folder, made then
    (True, False, "old"),     # an upgrade: the games at the old place keep being used
    (True, True, "mine"),     # moved already (a copy left behind is not the book)
    (False, True, "mine"),
    ("config.py", False, "old"),   # settings (a book named by --database): kept where they are read
    ("config.py", "config.py", "mine"),
])
def test_an_installed_package_keeps_its_book_in_the_users_data_folder_not_in_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old_book: bool | str, new_book: bool | str, chosen: str
) -> None:
    from webapp import create_app

    old, mine = _installed(tmp_path, monkeypatch)
    for folder, present in ((old, old_book), (mine, new_book)):
        if present:
            folder.mkdir(parents=True)
            (folder / (present if isinstance(present, str) else "onze.sqlite")).write_bytes(b"")
    app = create_app({"TESTING": True, "SECRET_KEY": "t"})
    folder = {"old": old, "mine": mine}[chosen]
    assert app.instance_path == str(folder)
    assert app.config["DATABASE"] == str(folder / "onze.sqlite")
    monkeypatch.setenv("ONZE_DATABASE", str(tmp_path / "env.sqlite"))   # the environment still wins
    assert create_app({"TESTING": True, "SECRET_KEY": "t"}).config["DATABASE"] == str(tmp_path / "env.sqlite")


def test_a_checkout_keeps_its_book_in_instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from onze_vision import places
    from webapp import create_app

    monkeypatch.setattr(places, "user_data_dir", lambda: tmp_path / "never")
    monkeypatch.delenv("ONZE_DATABASE", raising=False)
    app = create_app({"TESTING": True, "SECRET_KEY": "t"})
    assert places.in_checkout()
    assert app.instance_path == str(places.REPO_ROOT / "instance")
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize(("platform", "environment", "data", "cache"), [
    ("linux", {}, "~/.local/share/onze-vision", "~/.cache/onze-vision"),
    ("linux", {"XDG_DATA_HOME": "/x/data", "XDG_CACHE_HOME": "/x/cache"}, "/x/data/onze-vision", "/x/cache/onze-vision"),
    ("linux", {"XDG_DATA_HOME": "rel", "XDG_CACHE_HOME": "rel"}, "~/.local/share/onze-vision", "~/.cache/onze-vision"),
    ("darwin", {"XDG_DATA_HOME": "/x/data"}, "~/Library/Application Support/onze-vision",
     "~/Library/Caches/onze-vision"),
    ("win32", {"APPDATA": "/w/Roaming", "LOCALAPPDATA": "/w/Local"}, "/w/Roaming/onze-vision",
     "/w/Local/onze-vision/Cache"),
])
def test_the_users_data_and_cache_folders_are_where_each_system_keeps_them(
    monkeypatch: pytest.MonkeyPatch, platform: str, environment: dict[str, str], data: str, cache: str
) -> None:
    from onze_vision.places import user_cache_dir, user_data_dir

    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "APPDATA", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert user_data_dir(platform) == Path(data).expanduser()
    assert user_cache_dir(platform) == Path(cache).expanduser()
