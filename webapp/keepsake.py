"""The photos of a game that is over, kept smaller: a phone photo is 2-4 MB, a game that
photographs every hand some 75 MB, and a book kept for years would grow by gigabytes.

While a game is played and for :data:`WHOLE_PHOTO_DAYS` after it was last changed, its
photos are kept as taken (a score is corrected against them, a photo read again with the
pixels it was read with). Then each is kept as a *keepsake*: its long side at most
:data:`KEEPSAKE_LONG_SIDE` pixels, a JPEG of its own. Its reading stays as it was, in the
photo's first pixels: the page draws the boxes over the image by the reading's width and
height, whatever the image's own size. The scores saved from it never change.

The work is done a photo at a time in a thread of the server (:func:`start`), never in a
request: decoding and encoding a 12-megapixel photo takes a few tenths of a second.
"""

from __future__ import annotations

import sqlite3
import threading

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from . import model
from .db import get_db, transaction

#: Days after a game is over and last changed that its photos are kept as taken.
WHOLE_PHOTO_DAYS = 30
#: The long side, in pixels, of a photo kept as a keepsake (at most: a smaller photo stays
#: as it is). At 2048 px a card's index is still sharp on a phone's screen.
KEEPSAKE_LONG_SIDE = 2048
#: Its JPEG quality (and colour at full resolution: it may be read again for a four-corner deck).
KEEPSAKE_QUALITY = 85
#: Seconds between two looks of the server's thread for photos to keep smaller.
LOOK_EVERY_SECONDS = 3600


def keepsake_copy(data: bytes, long_side: int = KEEPSAKE_LONG_SIDE,
                  quality: int = KEEPSAKE_QUALITY) -> bytes | None:
    """``data`` (a kept photo) as a JPEG whose long side is at most ``long_side`` pixels,
    upright (the EXIF orientation applied, none written); None where it is that small
    already and would not be smaller.

    Raises:
        onze_vision.imageio.InvalidImageError: ``data`` is not a photo that can be decoded.
    """
    import cv2  # only here: the score sheet loads OpenCV when a photo needs it

    from onze_vision.imageio import load_image

    loaded = load_image(data, max_side=long_side)
    if max(loaded.width, loaded.height) <= long_side:
        return None
    image = loaded.image
    scale = long_side / max(image.shape[:2])
    if scale < 1:
        size = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(".jpg", image, [
        cv2.IMWRITE_JPEG_QUALITY, quality,
        cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444])
    if not ok:  # pragma: no cover - OpenCV encodes any BGR image it decoded
        return None
    smaller = encoded.tobytes()
    return smaller if len(smaller) < len(data) else None


def games_due(days: int = WHOLE_PHOTO_DAYS) -> list[int]:
    """The games (not deleted) that are over, unchanged for ``days`` days, and still keep a
    photo as taken; oldest change first."""
    db = get_db()
    # Through the partial index of photos kept as taken: their rows (and their megabytes)
    # are never read to find them.
    rows = db.execute(
        "SELECT game.id FROM game WHERE game.deleted IS NULL AND game.updated < datetime('now', ?)"
        " AND EXISTS (SELECT 1 FROM photo INDEXED BY photo_as_taken"
        " WHERE photo.game_id = game.id AND photo.keepsake IS NULL) ORDER BY game.updated, game.id",
        (f"-{int(days)} days",)).fetchall()
    return [r["id"] for r in rows if model.load_game(r["id"])["finished"]]


def keep_game_photos_smaller(game_id: int, long_side: int = KEEPSAKE_LONG_SIDE) -> tuple[int, int]:
    """Keep each photo of ``game_id`` still as taken as a keepsake, one photo per short
    transaction; return (photos made smaller, bytes saved)."""
    db = get_db()
    made = saved = 0
    ids = [r["id"] for r in db.execute("SELECT id FROM photo INDEXED BY photo_as_taken"
                                       " WHERE game_id = ? AND keepsake IS NULL ORDER BY id", (game_id,))]
    for photo_id in ids:
        row = db.execute("SELECT data FROM photo WHERE id = ?", (photo_id,)).fetchone()
        if row is None:  # deleted meanwhile (its game deleted for good on another phone)
            continue
        data = bytes(row["data"])
        try:
            with model.reading_slot():   # as heavy as reading a photo: one phone's upload waits
                smaller = keepsake_copy(data, long_side)
        except ValueError as error:      # bytes no decoder reads: kept as they are
            current_app.logger.warning("photo %d is kept as it is: %s", photo_id, error)
            smaller = None
        if smaller is None:   # marked, so that it is not looked at again
            with transaction(db):
                db.execute("UPDATE photo SET keepsake = strftime('%Y-%m-%d %H:%M:%S', 'now')"
                           " WHERE id = ? AND keepsake IS NULL", (photo_id,))
            continue
        with transaction(db):
            # Only the bytes that were made smaller are replaced (nothing else changes a
            # photo's bytes, but the check costs nothing and loses nothing).
            cur = db.execute("UPDATE photo SET data = ?, mime = 'image/jpeg',"
                             " keepsake = strftime('%Y-%m-%d %H:%M:%S', 'now')"
                             " WHERE id = ? AND keepsake IS NULL AND length(data) = ?",
                             (smaller, photo_id, len(data)))
        if cur.rowcount:
            made += 1
            saved += len(data) - len(smaller)
    return made, saved


def keep_photos_smaller(days: int | None = None, long_side: int | None = None) -> dict[str, int]:
    """Keep the photos of every game over for ``days`` days (default: the app's
    ``WHOLE_PHOTO_DAYS``; None there keeps photos as taken for ever) as keepsakes.
    Returns ``{"games": ..., "photos": ..., "bytes_saved": ...}``."""
    config = current_app.config
    days = config.get("WHOLE_PHOTO_DAYS", WHOLE_PHOTO_DAYS) if days is None else days
    done = {"games": 0, "photos": 0, "bytes_saved": 0}
    if days is None:
        return done
    long_side = long_side or config.get("KEEPSAKE_LONG_SIDE", KEEPSAKE_LONG_SIDE)
    for game_id in games_due(days):
        made, saved = keep_game_photos_smaller(game_id, long_side)
        done["games"] += 1
        done["photos"] += made
        done["bytes_saved"] += saved
    if done["photos"]:
        # The write-ahead log held the new copies: given back to the disk now.
        get_db().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return done


class KeepsakeThread(threading.Thread):
    """The server's thread that keeps old games' photos smaller: a look when it starts,
    then one every ``every_seconds`` until :meth:`stop`."""

    def __init__(self, app: Flask, every_seconds: float = LOOK_EVERY_SECONDS) -> None:
        super().__init__(name="onze-keepsake", daemon=True)
        self.app = app
        self.every_seconds = every_seconds
        self._stopped = threading.Event()
        self.looks = 0

    def run(self) -> None:
        while not self._stopped.is_set():
            with self.app.app_context():
                try:
                    done = keep_photos_smaller()
                    if done["photos"]:
                        self.app.logger.info("kept %d photos of %d old games smaller (%.1f MB less)",
                                             done["photos"], done["games"], done["bytes_saved"] / 1e6)
                except (sqlite3.Error, OSError) as error:  # busy, damaged, a full disk: the next look
                    self.app.logger.warning("old photos are kept as they are for now: %s", error)
                except Exception:  # noqa: BLE001 - a look that fails must not end the looks to come
                    self.app.logger.exception("old photos are kept as they are for now")
            self.looks += 1
            self._stopped.wait(self.every_seconds)

    def stop(self) -> None:
        """End the thread after the look it is in (if any)."""
        self._stopped.set()


def start(app: Flask, every_seconds: float = LOOK_EVERY_SECONDS) -> KeepsakeThread | None:
    """Start the :class:`KeepsakeThread` of a server; None where the app keeps photos as
    taken for ever (``WHOLE_PHOTO_DAYS = None``)."""
    if app.config.get("WHOLE_PHOTO_DAYS", WHOLE_PHOTO_DAYS) is None:
        return None
    thread = KeepsakeThread(app, every_seconds)
    thread.start()
    return thread


@click.command("keep-photos-smaller")
@click.option("--days", type=click.IntRange(min=0), default=None,
              help="Days a game over keeps its photos as taken (default: the app's WHOLE_PHOTO_DAYS, 30).")
@with_appcontext
def keep_photos_smaller_command(days: int | None) -> None:
    """Keep the photos of games over for a while smaller now, not at the server's next look."""
    if days is None and current_app.config.get("WHOLE_PHOTO_DAYS", WHOLE_PHOTO_DAYS) is None:
        click.echo("This book keeps its photos as taken (WHOLE_PHOTO_DAYS = None): nothing changed. "
                   "--days N keeps those of games over for N days smaller.")
        return
    done = keep_photos_smaller(days)
    click.echo(f"Kept {done['photos']} photo{'' if done['photos'] == 1 else 's'} of {done['games']} "
               f"game{'' if done['games'] == 1 else 's'} smaller: {done['bytes_saved'] / 1e6:.1f} MB less.")


def init_app(app: Flask) -> None:
    """Register the ``keep-photos-smaller`` command on ``app``."""
    app.cli.add_command(keep_photos_smaller_command)
