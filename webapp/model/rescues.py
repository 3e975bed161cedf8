"""A book rescued from a damaged one: when it was made, what could not be read, and whether
its note was read.
"""

from __future__ import annotations

import json
from typing import Any

from flask import abort

from onze_vision.messages import listed

from .. import db as book
from ..db import get_db
from .games import MAX_ROW_ID

#: What a row of each table holds, for a rescued book's note: (one, several).
_ROW_WORDS = {"game": ("game", "games"),
              "player": ("player's name (shown as \"Player\" and the seat)", "players' names (shown as \"Player\" "
                         "and the seat)"),
              "hand": ("hand's record (who went out, the splash, the note)", "hands' records (who went out, "
                       "the splash, the note)"),
              "score": ("score", "scores"), "photo": ("photo", "photos"),
              "photo_addition": ("record of which photo another's cards were added to (that earlier photo goes a "
                                 "week after it was taken, unless a score uses it)",
                                 "records of which photos others' cards were added to (those earlier photos go "
                                 "a week after they were taken, unless a score uses them)")}


def rescues() -> list[dict[str, Any]]:
    """The rescues that made this book of what could be read of a damaged one, oldest first:
    ``id``, ``made`` (UTC), ``seen`` (UTC or None), ``lost`` ({table: rows; -1: all}) and
    ``lost_words`` ("3 scores and 1 photo"; "" where everything could be read)."""
    found = []
    for row in get_db().execute("SELECT id, made, lost, seen FROM rescue ORDER BY id"):
        lost = {table: int(n) for table, n in json.loads(row["lost"]).items()}
        parts = []
        for table, n in lost.items():
            one, several = _ROW_WORDS.get(table, (table, table + "s"))
            parts.append(f"all the {several}" if n < 0 else f"{n} {one if n == 1 else several}")
        words = listed(parts)
        found.append({"id": row["id"], "made": row["made"], "seen": row["seen"], "lost": lost, "lost_words": words})
    return found


def mark_rescue_seen(rescue_id: int) -> None:
    """Say a rescue's note was read (the home page stops showing it; History keeps it).
    404 if there is no such rescue."""
    if not 0 <= rescue_id <= MAX_ROW_ID:
        abort(404, f"Rescue {rescue_id} doesn't exist.")
    with book.transaction() as db:
        cur = db.execute("UPDATE rescue SET seen = COALESCE(seen, strftime('%Y-%m-%d %H:%M:%S', 'now'))"
                         " WHERE id = ?", (rescue_id,))
    if not cur.rowcount:
        abort(404, f"Rescue {rescue_id} doesn't exist.")
