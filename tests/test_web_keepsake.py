"""A game over for a month keeps its photos smaller (``webapp.keepsake``): a book that
photographs every hand grew by some 75 MB a game, gigabytes over the years."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from onze_vision.imageio import load_image
from support import looks_until
from webapp import keepsake


def _phone_photo(width: int = 3200, height: int = 2400, orientation: int = 6) -> bytes:
    """A phone-sized JPEG with texture (so it weighs what a photo weighs), turned by EXIF."""
    rng = np.random.default_rng(5)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([(x * 255 // width), (y * 255 // height), np.full_like(x, 90)], axis=-1)
    noisy = np.clip(base + rng.normal(0, 18, base.shape), 0, 255).astype(np.uint8)
    exif = Image.Exif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    Image.fromarray(noisy).save(buffer, "JPEG", quality=88, exif=exif.tobytes())
    return buffer.getvalue()


@pytest.fixture
def big_photo() -> bytes:
    return _phone_photo()


@pytest.fixture
def roomy(app: Any) -> Any:
    app.config["MAX_CONTENT_LENGTH"] = 20 * 1024 * 1024   # as served: a phone photo is 2-12 MB
    return app


def _upload(client: Any, token: str, game_id: int, data: bytes, seat: int = 2) -> int:
    response = client.post(f"/games/{game_id}/hands/1/players/{seat}/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(data), "IMG_0001.JPG")})
    assert response.status_code == 302, response.get_data(as_text=True)
    return int(response.location.split("photo=")[1].split("&")[0])


def _play_hand_one(api: Any, game_id: int, photo_id: int) -> None:
    """Ann goes out; Bo's cards are saved from the photo, Cy and Di type theirs."""
    assert api.post(f"/api/games/{game_id}/hands/1", {"out": 1}).status_code == 200
    saved = api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "7S", "JK"], "photo_id": photo_id})
    assert saved.status_code == 200, saved.get_json()
    for seat in (3, 4):
        assert api.post(f"/api/games/{game_id}/hands/1/scores/{seat}", {"points": 15}).status_code == 200


def _age_game(app: Any, game_id: int, days: int) -> None:
    """As if the game was last changed, and its photos taken, ``days`` days ago."""
    with sqlite3.connect(app.config["DATABASE"]) as db:
        db.execute("UPDATE game SET updated = datetime('now', ?) WHERE id = ?", (f"-{days} days", game_id))
        db.execute("UPDATE photo SET created = datetime('now', ?) WHERE game_id = ?", (f"-{days} days", game_id))


def _over_a_month_ago(app: Any, client: Any, api: Any, token: str, game_id: int, photo: bytes) -> int:
    """Hand 1 scored with Bo's cards read from ``photo``, the game ended, all 31 days ago:
    the photo's id."""
    photo_id = _upload(client, token, game_id, photo)
    _play_hand_one(api, game_id, photo_id)
    assert api.post(f"/api/games/{game_id}/end").get_json()["finished"]
    _age_game(app, game_id, 31)
    return photo_id


def _keep_smaller(app: Any, **kw: Any) -> dict[str, int]:
    with app.app_context():
        return keepsake.keep_photos_smaller(**kw)


def _stored(app: Any, photo_id: int) -> tuple[bytes, str | None]:
    with sqlite3.connect(app.config["DATABASE"]) as db:
        return db.execute("SELECT data, keepsake FROM photo WHERE id = ?", (photo_id,)).fetchone()


def test_a_game_over_for_a_month_keeps_its_photos_smaller_and_its_scores_and_readings_as_they_were(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes) -> None:
    photo_id = _upload(client, token, game_id, big_photo)
    _play_hand_one(api, game_id, photo_id)
    assert api.post(f"/api/games/{game_id}/end").get_json()["finished"]
    game_before = api.get(f"/api/games/{game_id}").get_json()
    reading_before = api.get(f"/api/photos/{photo_id}").get_json()
    as_taken = client.get(f"/photos/{photo_id}").data
    _age_game(roomy, game_id, 31)

    done = _keep_smaller(roomy)

    kept = client.get(f"/photos/{photo_id}")
    assert done == {"games": 1, "photos": 1, "bytes_saved": len(as_taken) - len(kept.data)}
    assert kept.mimetype == "image/jpeg" and len(kept.data) < len(as_taken) / 3
    smaller, taken = load_image(kept.data), load_image(as_taken)
    # Upright, as the reading's boxes are: the long side 2048, the shape as taken.
    assert (smaller.orientation, max(smaller.width, smaller.height)) == (1, keepsake.KEEPSAKE_LONG_SIDE)
    assert (taken.width, taken.height) == (reading_before["width"], reading_before["height"]) == (2400, 3200)
    assert smaller.width / smaller.height == pytest.approx(taken.width / taken.height, abs=0.002)
    assert np.abs(smaller.image.astype(int).mean(axis=(0, 1)) - taken.image.astype(int).mean(axis=(0, 1))).max() < 2
    reading_after = api.get(f"/api/photos/{photo_id}").get_json()
    assert reading_after.pop("keepsake") is not None and reading_before.pop("keepsake") is None
    assert reading_after == reading_before
    assert api.get(f"/api/games/{game_id}").get_json()["hands"] == game_before["hands"]
    page = client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)
    assert "kept smaller, its game over" in page
    assert 'viewBox="0 0 2400 3200"' in page        # the boxes drawn over it where they were
    assert _keep_smaller(roomy) == {"games": 0, "photos": 0, "bytes_saved": 0}   # once


@pytest.mark.parametrize(("why", "over", "days_ago", "whole_photo_days"), [
    ("a game still in play, however old", False, 400, 30),
    ("a game over, changed 29 days ago", True, 29, 30),
    ("a book that keeps its photos as taken", True, 400, None),
])
def test_photos_stay_as_taken(roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes,
                              why: str, over: bool, days_ago: int, whole_photo_days: int | None) -> None:
    photo_id = _upload(client, token, game_id, big_photo)
    _play_hand_one(api, game_id, photo_id)
    if over:
        api.post(f"/api/games/{game_id}/end")
    roomy.config["WHOLE_PHOTO_DAYS"] = whole_photo_days
    as_taken = client.get(f"/photos/{photo_id}").data
    _age_game(roomy, game_id, days_ago)
    assert _keep_smaller(roomy)["photos"] == 0, why
    assert _stored(roomy, photo_id) == (as_taken, None)


def test_a_deleted_game_keeps_its_photos_as_they_are_while_it_can_be_brought_back(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes) -> None:
    photo_id = _upload(client, token, game_id, big_photo)
    _play_hand_one(api, game_id, photo_id)
    api.post(f"/api/games/{game_id}/end")
    api.delete(f"/api/games/{game_id}")
    _age_game(roomy, game_id, 31)
    assert _keep_smaller(roomy)["photos"] == 0
    assert _stored(roomy, photo_id)[1] is None


def test_a_photo_already_small_is_left_byte_for_byte_and_not_looked_at_again(
        app: Any, client: Any, api: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    photo_id = _upload(client, token, game_id, jpeg_bytes)
    _play_hand_one(api, game_id, photo_id)
    api.post(f"/api/games/{game_id}/end")
    as_taken = client.get(f"/photos/{photo_id}").data
    _age_game(app, game_id, 31)
    assert _keep_smaller(app) == {"games": 1, "photos": 0, "bytes_saved": 0}
    data, marked = _stored(app, photo_id)
    assert data == as_taken and marked is not None
    assert "kept smaller" not in client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)
    assert _keep_smaller(app)["games"] == 0


def test_bytes_no_decoder_reads_are_kept_as_they_are_and_the_others_made_smaller(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes,
        caplog: pytest.LogCaptureFixture) -> None:
    photo_id = _upload(client, token, game_id, big_photo)
    _play_hand_one(api, game_id, photo_id)
    api.post(f"/api/games/{game_id}/end")
    with sqlite3.connect(roomy.config["DATABASE"]) as db:
        broken = db.execute("INSERT INTO photo (game_id, mime, data, reading) VALUES (?, 'image/jpeg', ?, '{}')",
                            (game_id, b"\xff\xd8\xff not a photo after all")).lastrowid
    _age_game(roomy, game_id, 31)
    assert _keep_smaller(roomy)["photos"] == 1
    assert _stored(roomy, broken)[0] == b"\xff\xd8\xff not a photo after all"
    assert f"photo {broken} is kept as it is" in caplog.text


def test_a_keepsake_can_still_be_read_again_for_a_four_corner_deck(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes) -> None:
    photo_id = _over_a_month_ago(roomy, client, api, token, game_id, big_photo)
    _keep_smaller(roomy)
    response = client.post(f"/games/{game_id}/hands/1/players/2/four-corners",
                           data={"csrf_token": token, "photo_id": str(photo_id)})
    assert response.status_code == 302
    reading = api.get(f"/api/photos/{photo_id}").get_json()
    assert (reading["width"], reading["height"]) == (1536, 2048)   # read on the pixels it has now
    assert "kept smaller, its game over" in client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)


def test_the_photos_to_keep_smaller_are_found_by_index_not_by_reading_every_photo(
        app: Any, client: Any, api: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    # The column lies after each photo's megabytes: a scan of the table reads them all.
    for seat in (2, 3, 4):
        _upload(client, token, game_id, jpeg_bytes, seat)
    statements: list[str] = []
    with app.app_context():
        from webapp.db import get_db
        db = get_db()
        db.set_trace_callback(statements.append)
        keepsake.games_due(30)
        keepsake.keep_game_photos_smaller(game_id, 0, 30)
        db.set_trace_callback(None)
        lookups = [sql for sql in statements if "keepsake IS NULL" in sql and sql.startswith("SELECT")]
        plans = [[row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql)] for sql in lookups]
    assert len(lookups) == 2
    for plan in plans:
        assert not any(step.startswith("SCAN photo") for step in plan), plan
        assert any("INDEX photo_as_taken" in step for step in plan), plan


def test_an_older_book_gets_the_column_and_its_index(tmp_path: Path, detector: Any) -> None:
    from webapp import create_app
    from webapp.db import connect, schema_sql

    path = tmp_path / "old.sqlite"
    db = connect(str(path))
    db.executescript(schema_sql().replace("    keepsake TEXT\n", "    _was_here TEXT\n"))
    db.execute("INSERT INTO game (id, variant, decks, first_dealer) VALUES (1, 'llenroc', 2, 1)")
    db.executemany("INSERT INTO player (game_id, seat, name) VALUES (1, ?, ?)", [(1, "Ann"), (2, "Bo")])
    db.execute("INSERT INTO photo (game_id, mime, data, reading) VALUES (1, 'image/jpeg', x'ffd8ff', '{}')")
    db.close()
    app = create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "test", "DETECT": detector})
    app.test_client().get("/")
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT keepsake FROM photo").fetchall() == [(None,)]
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'photo_as_taken'").fetchone()


def test_the_servers_thread_keeps_them_smaller_between_requests_and_stops(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes) -> None:
    photo_id = _over_a_month_ago(roomy, client, api, token, game_id, big_photo)
    thread = looks_until(roomy, lambda _: _stored(roomy, photo_id)[1] is not None, every_seconds=0.05)
    assert _stored(roomy, photo_id)[1] is not None
    assert not thread.is_alive() and thread.looks >= 1


def test_a_book_that_keeps_photos_as_taken_keeps_them_as_taken(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes) -> None:
    photo_id = _over_a_month_ago(roomy, client, api, token, game_id, big_photo)
    roomy.config["WHOLE_PHOTO_DAYS"] = None
    # The thread runs (it also removes games deleted long ago), and leaves the photos be.
    thread = looks_until(roomy, lambda started: started.looks >= 1, every_seconds=3600)
    assert thread.looks == 1 and _stored(roomy, photo_id)[1] is None


@pytest.mark.parametrize(("args", "says"), [
    ([], "Kept 1 photo of 1 game smaller"),
    (["--days", "40"], "Kept 0 photos of 0 games smaller"),
])
def test_the_keep_photos_smaller_command(roomy: Any, runner: Any, client: Any, api: Any, token: str, game_id: int,
                                         big_photo: bytes, args: list[str], says: str) -> None:
    photo_id = _over_a_month_ago(roomy, client, api, token, game_id, big_photo)
    result = runner.invoke(args=["keep-photos-smaller", *args])
    assert result.exit_code == 0 and says in result.output, result.output


def test_the_command_says_when_the_book_keeps_its_photos_as_taken(app: Any, runner: Any) -> None:
    app.config["WHOLE_PHOTO_DAYS"] = None
    result = runner.invoke(args=["keep-photos-smaller"])
    assert result.exit_code == 0 and "keeps its photos as taken" in result.output
    assert "Invalid value" in runner.invoke(args=["keep-photos-smaller", "--days", "-1"]).output


@pytest.mark.parametrize("failure", [sqlite3.OperationalError("database is locked"), RuntimeError("unforeseen")])
def test_a_look_that_fails_is_logged_and_the_next_look_still_comes(app: Any, monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture,
                                                                   failure: Exception) -> None:
    calls: list[int] = []

    def flaky(*args: Any, **kw: Any) -> dict[str, int]:
        calls.append(1)
        if len(calls) == 1:
            raise failure
        return {"games": 0, "photos": 0, "bytes_saved": 0}

    monkeypatch.setattr(keepsake, "keep_photos_smaller", flaky)
    looks_until(app, lambda _: len(calls) >= 3)
    assert len(calls) >= 3 and "old photos are kept as they are for now" in caplog.text


def test_removing_old_deleted_games_that_fails_is_logged_and_the_photos_still_get_their_look(
        app: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from webapp import model

    def broken(*args: Any, **kw: Any) -> int:
        raise RuntimeError("unforeseen")

    looked: list[int] = []
    monkeypatch.setattr(model, "forget_deleted_games", broken)
    monkeypatch.setattr(keepsake, "keep_photos_smaller",
                        lambda *a, **kw: looked.append(1) or {"games": 0, "photos": 0, "bytes_saved": 0})
    looks_until(app, lambda _: len(looked) >= 2)
    assert len(looked) >= 2 and "games deleted long ago are kept for now" in caplog.text


def test_a_photo_taken_lately_for_a_game_over_long_ago_stays_as_taken(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes) -> None:
    first = _upload(client, token, game_id, big_photo)
    _play_hand_one(api, game_id, first)
    api.post(f"/api/games/{game_id}/end")
    _age_game(roomy, game_id, 40)
    fresh = _upload(client, token, game_id, big_photo, seat=3)   # read now, not saved (yet)
    as_taken = client.get(f"/photos/{fresh}").data
    assert _keep_smaller(roomy)["photos"] == 1
    assert _stored(roomy, fresh) == (as_taken, None)
    assert _stored(roomy, first)[1] is not None


@pytest.mark.parametrize(("what", "change"), [
    ("played on", lambda api, game_id: api.post(f"/api/games/{game_id}/play-on")),
    ("deleted", lambda api, game_id: api.delete(f"/api/games/{game_id}")),
    ("a score changed", lambda api, game_id: api.post(f"/api/games/{game_id}/hands/1/scores/3", {"points": 20})),
])
def test_a_game_changed_during_a_look_keeps_its_other_photos_as_taken(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes,
        monkeypatch: pytest.MonkeyPatch, what: str, change: Any) -> None:
    photos = [_upload(client, token, game_id, big_photo, seat) for seat in (2, 3)]
    _play_hand_one(api, game_id, photos[0])
    api.post(f"/api/games/{game_id}/end")
    _age_game(roomy, game_id, 31)
    as_taken = [client.get(f"/photos/{photo}").data for photo in photos]
    real_copy = keepsake.keepsake_copy

    def changed_meanwhile(data: bytes, *args: Any) -> bytes | None:
        change(api, game_id)   # on another phone, while the first photo is made smaller
        return real_copy(data, *args)

    monkeypatch.setattr(keepsake, "keepsake_copy", changed_meanwhile)
    assert _keep_smaller(roomy)["photos"] == 0, what
    assert [_stored(roomy, photo) for photo in photos] == [(data, None) for data in as_taken]


def test_a_photo_whose_look_fails_is_passed_over_and_the_others_still_go(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import cv2

    photos = [_upload(client, token, game_id, big_photo, 2), _upload(client, token, game_id, _phone_photo(orientation=1), 3)]
    _play_hand_one(api, game_id, photos[0])
    api.post(f"/api/games/{game_id}/end")
    _age_game(roomy, game_id, 31)
    real_copy = keepsake.keepsake_copy
    failing = client.get(f"/photos/{photos[0]}").data

    def out_of_memory_on_the_first(data: bytes, *args: Any) -> bytes | None:
        if data == failing:
            raise cv2.error("Insufficient memory")
        return real_copy(data, *args)

    monkeypatch.setattr(keepsake, "keepsake_copy", out_of_memory_on_the_first)
    monkeypatch.setattr(keepsake, "_passed_over", set())
    assert _keep_smaller(roomy)["photos"] == 1
    assert _stored(roomy, photos[0]) == (failing, None)          # not marked: a later run tries again
    assert _stored(roomy, photos[1])[1] is not None
    assert f"photo {photos[0]} is kept as taken for now" in caplog.text
    assert _keep_smaller(roomy) == {"games": 1, "photos": 0, "bytes_saved": 0}   # passed over, not failed again


def test_a_large_photo_that_would_not_be_smaller_is_left_byte_for_byte_without_the_note(
        roomy: Any, client: Any, api: Any, token: str, game_id: int) -> None:
    buffer = io.BytesIO()   # noise saved at a low quality: at quality 85 its fewer pixels weigh more
    noise = np.random.default_rng(1).integers(0, 256, (2250, 3000, 3), dtype=np.uint8)
    Image.fromarray(noise).save(buffer, "JPEG", quality=30)
    photo_id = _upload(client, token, game_id, buffer.getvalue())
    _play_hand_one(api, game_id, photo_id)
    api.post(f"/api/games/{game_id}/end")
    _age_game(roomy, game_id, 31)
    assert keepsake.keepsake_copy(buffer.getvalue()) is None
    assert _keep_smaller(roomy) == {"games": 1, "photos": 0, "bytes_saved": 0}
    assert _stored(roomy, photo_id) == (buffer.getvalue(), "as taken")
    assert api.get(f"/api/photos/{photo_id}").get_json()["keepsake"] is None
    assert "kept smaller" not in client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)


def test_the_colour_profile_goes_along() -> None:
    profile = b"\x00" * 128 + b"acsp" + b"\x00" * 200   # only its bytes matter here
    rng = np.random.default_rng(3)
    buffer = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (1600, 2400, 3), dtype=np.uint8)).save(
        buffer, "JPEG", quality=90, icc_profile=profile)
    smaller = keepsake.keepsake_copy(buffer.getvalue())
    assert smaller is not None
    with Image.open(io.BytesIO(smaller)) as kept:
        assert kept.info.get("icc_profile") == profile and max(kept.size) == 2048


def test_a_book_with_a_damaged_photo_page_still_opens(tmp_path: Path, detector: Any, jpeg_bytes: bytes) -> None:
    """The index is made on the first start after an update: a damaged page of the photos
    must not keep the book from opening (to be read, or rescued)."""
    from webapp import create_app
    from webapp.db import BOOK_VERSION, connect, schema_sql

    path = tmp_path / "old.sqlite"
    db = connect(str(path))
    db.executescript(schema_sql().replace("    keepsake TEXT\n", "    _was_here TEXT\n"))
    db.execute("INSERT INTO game (id, variant, decks, first_dealer) VALUES (1, 'llenroc', 2, 1)")
    db.executemany("INSERT INTO player (game_id, seat, name) VALUES (1, ?, ?)", [(1, "Ann"), (2, "Bo")])
    db.executemany("INSERT INTO photo (game_id, mime, data, reading) VALUES (1, 'image/jpeg', ?, '{}')",
                   [(jpeg_bytes,)] * 200)
    db.execute(f"PRAGMA user_version = {BOOK_VERSION}")   # kept by the version before the column
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = [row[0] for row in db.execute("SELECT pageno FROM dbstat WHERE name = 'photo' AND pagetype = 'leaf'"
                                          " ORDER BY path")]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    with open(path, "r+b") as book:
        book.seek((pages[len(pages) // 2] - 1) * size)
        book.write(b"\xde\xad" * (size // 2))
    app = create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "test", "DETECT": detector})
    client = app.test_client()
    response = client.get("/api/games/1")
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["players"][0]["name"] == "Ann"
    with app.app_context():   # a look changes nothing
        assert keepsake.keep_photos_smaller()["photos"] == 0


def test_a_game_of_rules_this_version_does_not_know_keeps_its_photos_as_taken(
        roomy: Any, client: Any, api: Any, token: str, game_id: int, big_photo: bytes) -> None:
    # Whether it is over is the rules' to say: a book of a newer version is left as it is.
    photo_id = _over_a_month_ago(roomy, client, api, token, game_id, big_photo)
    with sqlite3.connect(roomy.config["DATABASE"]) as db:
        db.execute("UPDATE game SET variant = 'dubbel' WHERE id = ?", (game_id,))
    assert _keep_smaller(roomy)["photos"] == 0
    with sqlite3.connect(roomy.config["DATABASE"]) as db:
        assert db.execute("SELECT keepsake FROM photo WHERE id = ?", (photo_id,)).fetchone() == (None,)
