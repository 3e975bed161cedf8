"""What the book clears by itself: games deleted long ago and photos no score uses, a few at
a time after a save, so no phone waits on it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from flask import current_app

from .. import db as book

#: Days a deleted game is kept to bring back (:func:`restore_game`) before it goes for good.
DELETED_GAME_DAYS = 30
# What is old is cleared a few at a time, each few in a transaction of its own, after the
# save that occasioned it: what is deleted is overwritten (secure_delete), and clearing
# 1.3 GB of old photos in one transaction held every other phone's save for ten seconds
# (some got "busy"; 190 MB held them a second).
#: Old unused photos (a few MB each) deleted per transaction.
PHOTOS_FORGOTTEN_AT_ONCE = 4
#: Games deleted for good per transaction (each with its photos).
GAMES_FORGOTTEN_AT_ONCE = 1
#: At most this many such transactions after one save; a larger backlog goes over the next saves.
CLEARINGS_PER_SAVE = 8


def clear_old(forget: Callable[..., int], at_once: int) -> int:
    """Run ``forget(db, limit=at_once)`` in short transactions of its own until it finds
    fewer than ``at_once`` (or :data:`CLEARINGS_PER_SAVE` times); return how many went.

    The save that called it is kept already: a clearing the book refuses now (busy, a
    full disk) is logged and left to the next save.
    """
    cleared = 0
    for _ in range(CLEARINGS_PER_SAVE):
        try:
            with book.transaction() as db:
                gone = forget(db, limit=at_once)
        except sqlite3.Error as error:
            current_app.logger.warning("Clearing old photos or games is left for later: %s", error)
            break
        cleared += gone
        if gone < at_once:
            break
    return cleared


def forget_deleted_games(db: sqlite3.Connection, days: int = DELETED_GAME_DAYS,
                         limit: int = GAMES_FORGOTTEN_AT_ONCE) -> int:
    """Remove up to ``limit`` of the games deleted more than ``days`` ago, those deleted
    first, with everything they hold; return how many."""
    cur = db.execute("DELETE FROM game WHERE id IN (SELECT id FROM game WHERE deleted < datetime('now', ?)"
                     " ORDER BY deleted LIMIT ?)", (f"-{days} days", limit))
    return cur.rowcount


# A photo no saved score uses (read and then retaken, or never saved) is kept this long,
# so a page left open still shows it; then its megabytes go.
UNUSED_PHOTO_DAYS = 7


def forget_unused_photos(db: sqlite3.Connection, days: int = UNUSED_PHOTO_DAYS,
                         limit: int = PHOTOS_FORGOTTEN_AT_ONCE) -> int:
    """Delete up to ``limit`` of the photos older than ``days`` that no score refers to,
    the oldest first; return how many."""
    # A photo a score uses keeps the earlier photos its cards were added to, and theirs: found
    # from the additions (a few), not from every score. (The WITH inside: Python's sqlite3
    # counts no rows for a statement that begins with one.)
    cur = db.execute(
        "DELETE FROM photo WHERE id IN (SELECT id FROM photo WHERE created < datetime('now', ?)"
        " AND id NOT IN (SELECT photo_id FROM score WHERE photo_id IS NOT NULL)"
        " AND id NOT IN (WITH RECURSIVE kept(id) AS ("
        "   SELECT a.earlier_id FROM photo_addition a WHERE a.earlier_id IS NOT NULL"
        "   AND EXISTS (SELECT 1 FROM score s WHERE s.photo_id = a.photo_id)"
        "   UNION SELECT a.earlier_id FROM photo_addition a JOIN kept ON a.photo_id = kept.id"
        "   WHERE a.earlier_id IS NOT NULL) SELECT id FROM kept)"
        " ORDER BY created LIMIT ?)",
        (f"-{days} days", limit))
    return cur.rowcount
