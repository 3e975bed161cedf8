"""The photos of a game that is over, kept smaller: a phone photo is 2-4 MB, a game that
photographs every hand some 75 MB, and a book kept for years would grow by gigabytes.

While a game is played, and until it has been over and unchanged for
:data:`WHOLE_PHOTO_DAYS` days, its photos are kept as taken (a score is corrected against
them, a photo read again with the pixels it was read with); so is a photo taken less long
ago. Then each is kept as a *keepsake*: its long side at most :data:`KEEPSAKE_LONG_SIDE`
pixels, a JPEG of its own with the photo's colour profile. Its reading stays as it was:
the page draws the boxes over the image by the reading's width and height, whatever the
image's own size. The scores saved from it never change. A game changed while its photos
are made smaller (played on, deleted, a score corrected) keeps the rest as taken.

The work is done a photo at a time in a thread of the server (:func:`start`), never in a
request: decoding and encoding a 12-megapixel photo takes a few tenths of a second. The
same thread removes the games deleted more than ``DELETED_GAME_DAYS`` days ago (deletion
removes them too, but a family that seldom deletes would keep them far longer than said).
"""

from __future__ import annotations

import io
import sqlite3
import threading

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from onze_vision.variants import VARIANTS

from . import model
from .db import PHOTO_LEFT_AS_TAKEN, get_db, transaction

#: Days after a game is over and last changed that its photos are kept as taken.
WHOLE_PHOTO_DAYS = 30
#: The long side, in pixels, of a photo kept as a keepsake (at most: a smaller photo stays
#: as it is). At 2048 px a card's index is still sharp on a phone's screen.
KEEPSAKE_LONG_SIDE = 2048
#: Its JPEG quality (and colour at full resolution: it may be read again for a four-corner deck).
KEEPSAKE_QUALITY = 85
#: The most days a book may keep a game's photos as taken, as a number (a hundred years;
#: more is None, for ever).
MAX_WHOLE_PHOTO_DAYS = 36500
#: Seconds between two looks of the server's thread for photos to keep smaller.
LOOK_EVERY_SECONDS = 3600


def keepsake_copy(data: bytes, long_side: int = KEEPSAKE_LONG_SIDE,
                  quality: int = KEEPSAKE_QUALITY) -> bytes | None:
    """``data`` (a kept photo) as a JPEG whose long side is at most ``long_side`` pixels,
    upright (the EXIF orientation applied, none written), with the photo's colour profile;
    None where it is that small already, or would not be smaller.

    Raises:
        onze_vision.imageio.InvalidImageError: ``data`` is not a photo that can be decoded.
    """
    import cv2  # only here: the score sheet loads OpenCV when a photo needs it
    from PIL import Image

    from onze_vision.imageio import fit_long_side, load_image

    loaded = load_image(data, max_side=long_side)
    if max(loaded.width, loaded.height) <= long_side:
        return None
    image = fit_long_side(loaded.image, long_side)
    # The colour profile goes along (an iPhone's Display P3 shows its colours only with it).
    try:
        with Image.open(io.BytesIO(data)) as original:
            profile = original.info.get("icc_profile")
    except Exception:  # noqa: BLE001 - a profile Pillow cannot find is left out, as browsers would
        profile = None
    buffer = io.BytesIO()
    Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB)).save(
        buffer, "JPEG", quality=quality, subsampling=0, icc_profile=profile or None)
    smaller = buffer.getvalue()
    return smaller if len(smaller) < len(data) else None


# Photos whose look failed in a way that may not last (out of memory, a damaged page of the
# book): left as taken and not marked, and passed over by this process's later looks, so
# that one photo never holds up the others. (book path, photo id)
_passed_over: set[tuple[str, int]] = set()
_passed_over_lock = threading.Lock()


def _cutoff(days: int) -> str:
    return f"-{int(days)} days"


def games_due(days: int = WHOLE_PHOTO_DAYS) -> list[tuple[int, int]]:
    """The games (not deleted) that are over and unchanged for ``days`` days, with a photo
    as taken for as long: ``(game id, its changes count)``, oldest change first."""
    db = get_db()
    # Through the partial index of photos kept as taken (never their rows' megabytes). A game
    # can be over only when it was ended early or hand 7 has a score or a player out: the
    # others are not loaded.
    rows = db.execute(
        "SELECT game.id, game.changes, game.variant FROM game"
        " WHERE game.deleted IS NULL AND game.updated < datetime('now', ?)"
        " AND (game.ended_after IS NOT NULL"
        "      OR EXISTS (SELECT 1 FROM score WHERE score.game_id = game.id AND score.hand = 7)"
        "      OR EXISTS (SELECT 1 FROM hand WHERE hand.game_id = game.id AND hand.number = 7"
        "                 AND hand.out_seat IS NOT NULL))"
        " AND EXISTS (SELECT 1 FROM photo WHERE photo.game_id = game.id AND photo.keepsake IS NULL"
        "             AND photo.created < datetime('now', ?))"
        " ORDER BY game.updated, game.id",
        (_cutoff(days), _cutoff(days))).fetchall()
    # A game of rules this version does not know cannot be judged finished: left as it is.
    return [(r["id"], r["changes"]) for r in rows
            if r["variant"] in VARIANTS and model.load_game(r["id"])["finished"]]


# Each photo is replaced only while its game is as it was found: not played on, changed or
# deleted since (game id, changes count).
_UNCHANGED = "(SELECT changes FROM game WHERE id = ? AND deleted IS NULL) = ?"


def keep_game_photos_smaller(game_id: int, changes: int, days: int = WHOLE_PHOTO_DAYS,
                             long_side: int = KEEPSAKE_LONG_SIDE) -> tuple[int, int]:
    """Keep each photo of ``game_id`` kept as taken for ``days`` days as a keepsake, one
    photo per short transaction, while the game has changed ``changes`` times (a game
    changed meanwhile, played on or deleted, keeps the rest as they are); return
    (photos made smaller, bytes saved)."""
    db = get_db()
    book = current_app.config["DATABASE"]
    made = saved = 0
    ids = [r["id"] for r in db.execute("SELECT id FROM photo WHERE game_id = ? AND keepsake IS NULL"
                                       " AND created < datetime('now', ?) ORDER BY id", (game_id, _cutoff(days)))]
    for photo_id in ids:
        with _passed_over_lock:
            if (book, photo_id) in _passed_over:
                continue
        try:
            smaller, size = _smaller_photo(db, photo_id, long_side)
        except sqlite3.OperationalError:   # busy, a full disk: the whole book, for the next look
            raise
        except Exception as error:  # noqa: BLE001 - this photo only: the others still go
            current_app.logger.warning("photo %d is kept as taken for now: %r", photo_id, error)
            with _passed_over_lock:
                _passed_over.add((book, photo_id))
            continue
        if size is None:   # deleted meanwhile (its game deleted for good on another phone)
            continue
        with transaction(db):
            if smaller is None:   # marked, so that it is not looked at again
                cur = db.execute(f"UPDATE photo SET keepsake = ? WHERE id = ? AND keepsake IS NULL AND {_UNCHANGED}",
                                 (PHOTO_LEFT_AS_TAKEN, photo_id, game_id, changes))
            else:
                # Only the bytes that were made smaller are replaced (nothing else changes a
                # photo's bytes, but the check costs nothing and loses nothing).
                cur = db.execute("UPDATE photo SET data = ?, mime = 'image/jpeg',"
                                 " keepsake = strftime('%Y-%m-%d %H:%M:%S', 'now')"
                                 f" WHERE id = ? AND keepsake IS NULL AND length(data) = ? AND {_UNCHANGED}",
                                 (smaller, photo_id, size, game_id, changes))
        if not cur.rowcount:
            now = db.execute("SELECT changes FROM game WHERE id = ? AND deleted IS NULL", (game_id,)).fetchone()
            if now is None or now["changes"] != changes:
                break   # the game changed: its other photos wait for it to be over again
            continue
        if smaller is not None:
            made += 1
            saved += size - len(smaller)
    return made, saved


def _smaller_photo(db: sqlite3.Connection, photo_id: int, long_side: int) -> tuple[bytes | None, int | None]:
    """(the keepsake of a stored photo, or None to leave it byte for byte; its bytes' length,
    or None where it is gone)."""
    row = db.execute("SELECT data FROM photo WHERE id = ?", (photo_id,)).fetchone()
    if row is None:
        return None, None
    data = bytes(row["data"])
    try:
        with model.reading_slot(patient=True):   # as heavy as reading a photo: one phone's upload waits
            return keepsake_copy(data, long_side), len(data)
    except ValueError as error:      # bytes no decoder reads: kept as they are, for good
        current_app.logger.warning("photo %d is kept as it is: %s", photo_id, error)
        return None, len(data)


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
    # No checkpoint forced here: one waits for every reader (a download) while phones' saves
    # wait for it; SQLite's own, and journal_size_limit, keep the log short.
    for game_id, changes in games_due(days):
        made, saved = keep_game_photos_smaller(game_id, changes, days, long_side)
        done["games"] += 1
        done["photos"] += made
        done["bytes_saved"] += saved
    return done


class KeepsakeThread(threading.Thread):
    """The server's thread for what is old: it removes the games deleted more than
    ``DELETED_GAME_DAYS`` days ago and keeps old games' photos smaller; a look when it
    starts, then one every ``every_seconds`` until :meth:`stop`."""

    def __init__(self, app: Flask, every_seconds: float = LOOK_EVERY_SECONDS) -> None:
        super().__init__(name="onze-keepsake", daemon=True)
        self.app = app
        self.every_seconds = every_seconds
        self._stopped = threading.Event()
        self.looks = 0

    def run(self) -> None:
        while not self._stopped.is_set():
            with self.app.app_context():
                # A few at a time, as after a deletion (a backlog goes over the next looks);
                # a book that refuses it now (busy, a full disk) is logged by clear_old.
                try:
                    gone = model.clear_old(model.forget_deleted_games, model.GAMES_FORGOTTEN_AT_ONCE)
                    if gone:
                        self.app.logger.info("removed %d game%s deleted more than %d days ago", gone,
                                             "" if gone == 1 else "s", model.DELETED_GAME_DAYS)
                except Exception:  # noqa: BLE001 - nor may it end the looks, or keep the photos' turn
                    self.app.logger.exception("games deleted long ago are kept for now")
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


def start(app: Flask, every_seconds: float = LOOK_EVERY_SECONDS) -> KeepsakeThread:
    """Start the :class:`KeepsakeThread` of a server (where the app keeps photos as taken for
    ever, ``WHOLE_PHOTO_DAYS = None``, it only removes the games deleted long ago)."""
    thread = KeepsakeThread(app, every_seconds)
    thread.start()
    return thread


@click.command("keep-photos-smaller")
@click.option("--days", type=click.IntRange(min=0, max=MAX_WHOLE_PHOTO_DAYS), default=None,
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
