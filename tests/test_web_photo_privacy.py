"""The score sheet keeps photos without where, when and on what they were taken: the book
is shared whole, and a game deleted for good leaves nothing readable in its file."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from phone_photos import PHONE_PHOTOS, PRIVATE_TEXT, phone_heic, phone_jpeg
from PIL import Image

from onze_vision.imageio import load_image
from webapp.db import BOOK_VERSION, connect, schema_sql

pytestmark = pytest.mark.filterwarnings("ignore:Image appears to be a malformed MPO file")

MIME = {"baseline JPEG": "image/jpeg", "progressive JPEG": "image/jpeg", "PNG": "image/png", "WebP": "image/webp"}


def _upload(client: Any, token: str, game_id: int, data: bytes) -> int:
    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(data), "IMG_0001")})
    assert response.status_code == 302, response.get_data(as_text=True)
    return int(response.location.split("photo=")[1].split("&")[0])


@pytest.mark.parametrize("kind", PHONE_PHOTOS)
def test_a_photo_is_kept_without_location_time_or_device(client: Any, token: str, game_id: int, kind: str) -> None:
    data = PHONE_PHOTOS[kind]()
    photo_id = _upload(client, token, game_id, data)
    served = client.get(f"/photos/{photo_id}")
    assert served.status_code == 200 and served.mimetype == MIME[kind]
    for text in PRIVATE_TEXT:
        assert text not in served.data, text
    kept, sent = load_image(served.data), load_image(data)
    assert kept.orientation == sent.orientation == 6     # shown, and read again, turned as taken
    assert np.array_equal(kept.image, sent.image)          # the very same pixels


def test_a_heic_is_kept_as_a_jpeg_every_browser_shows(client: Any, token: str, game_id: int) -> None:
    data = phone_heic(orientation=6)
    photo_id = _upload(client, token, game_id, data)
    served = client.get(f"/photos/{photo_id}")
    assert served.status_code == 200 and served.mimetype == "image/jpeg"
    for text in PRIVATE_TEXT:
        assert text not in served.data, text
    kept, sent = load_image(served.data), load_image(data)
    assert kept.image.shape == sent.image.shape == (64, 48, 3)   # upright, as the HEIC shows
    assert np.abs(kept.image.astype(int) - sent.image).mean() < 8


def test_the_downloaded_book_holds_no_photo_metadata(client: Any, token: str, game_id: int) -> None:
    for kind in PHONE_PHOTOS:
        _upload(client, token, game_id, PHONE_PHOTOS[kind]())
    book = client.get("/history/onze-book.sqlite").data
    assert book.startswith(b"SQLite format 3\x00")
    for text in PRIVATE_TEXT:
        assert text not in book, text


def test_a_deleted_games_photo_is_not_shown_and_said_to_come_back_with_it(client: Any, api: Any, token: str,
                                                                            game_id: int) -> None:
    photo_id = _upload(client, token, game_id, phone_jpeg())
    api.delete(f"/api/games/{game_id}")
    said = (f"Photo {photo_id} is of game {game_id}, which was deleted: History keeps it 30 days from then, "
            "to bring back.")
    for url in (f"/api/photos/{photo_id}", f"/photos/{photo_id}"):
        response = client.get(url)
        assert response.status_code == 404 and said in response.get_data(as_text=True), url
    api.post(f"/api/games/{game_id}/restore")
    assert client.get(f"/photos/{photo_id}").status_code == 200


def test_a_game_deleted_for_good_leaves_its_photo_nowhere_in_the_file(client: Any, api: Any, token: str,
                                                                      game_id: int, app: Any) -> None:
    photo_id = _upload(client, token, game_id, phone_jpeg())
    kept = client.get(f"/photos/{photo_id}").data
    sample = kept[len(kept) // 2:len(kept) // 2 + 64]   # 64 bytes of its image data
    database = Path(app.config["DATABASE"])

    def on_disk() -> bytes:
        with sqlite3.connect(database) as db:               # the log's pages written into the file
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return database.read_bytes()

    assert sample in on_disk()
    assert api.delete(f"/api/games/{game_id}").status_code == 200
    assert client.post(f"/games/{game_id}/delete-for-good", data={"csrf_token": token}).status_code == 302
    assert client.get(f"/photos/{photo_id}").status_code == 404
    assert sample not in on_disk()
    assert sample not in client.get("/history/onze-book.sqlite").data
    # The sheet asks for it on every connection: some SQLite builds overwrite by default, others not.
    db = connect(str(database))
    try:
        assert db.execute("PRAGMA secure_delete").fetchone()[0] == 1
    finally:
        db.close()


def _old_book(path: Path, photos: list[bytes], deleted: list[bytes] = ()) -> None:  # type: ignore[assignment]
    """A book as the sheet kept it before photos were made private: photos as uploaded, and
    ``deleted`` ones removed by an SQLite that left freed pages as they were."""
    db = connect(str(path))
    db.execute("PRAGMA secure_delete = OFF")  # as some builds have it
    db.executescript(schema_sql())
    db.execute("INSERT INTO game (id, variant, decks, first_dealer) VALUES (1, 'llenroc', 2, 1)")
    for data in [*deleted, *photos]:
        db.execute("INSERT INTO photo (game_id, mime, data, reading) VALUES (1, 'image/jpeg', ?, '{}')", (data,))
    db.execute("DELETE FROM photo WHERE id <= ?", (len(deleted),))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("PRAGMA user_version = 0")
    db.close()


def test_an_older_book_has_its_photos_made_private_once(tmp_path: Path, detector: Any) -> None:
    from webapp import create_app

    path = tmp_path / "old.sqlite"
    photos = [phone_jpeg(), phone_jpeg(progressive=True), b"bytes that are no photo"]
    # A photo deleted long ago, larger than what the upgrade writes (which reuses free pages).
    deleted = phone_jpeg(orientation=3) + b"GPS of a deleted photo " * 20_000
    _old_book(path, photos, deleted=[deleted])
    assert b"GPS of a deleted photo" in path.read_bytes()
    app = create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "test", "DETECT": detector})
    client = app.test_client()
    for photo_id, sent in enumerate(photos[:2], start=2):
        served = client.get(f"/photos/{photo_id}").data
        assert not any(text in served for text in PRIVATE_TEXT)
        assert np.array_equal(load_image(served).image, load_image(sent).image)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == BOOK_VERSION
        assert db.execute("SELECT data FROM photo WHERE id = 4").fetchone()[0] == photos[2]  # left as it was
    for text in (*PRIVATE_TEXT, b"GPS of a deleted photo"):
        assert text not in path.read_bytes(), text


def test_an_upright_photo_with_nothing_private_is_kept_byte_for_byte(client: Any, token: str, game_id: int) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 200), (20, 120, 60)).save(buffer, "JPEG")
    photo_id = _upload(client, token, game_id, buffer.getvalue())
    assert client.get(f"/photos/{photo_id}").data == buffer.getvalue()
