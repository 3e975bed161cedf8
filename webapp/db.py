"""SQLite access in the style of Flask's tutorial: one connection per request in ``g``.

The database runs in WAL mode with a busy timeout, and every write goes through
:func:`transaction` (``BEGIN IMMEDIATE``), so concurrent saves queue up instead of
failing or overwriting each other.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from onze_vision.metadata import private_copy, sniff_mime

_schema_ready: set[str] = set()
_schema_lock = threading.Lock()


def connect(path: str) -> sqlite3.Connection:
    """Open ``path`` in autocommit mode (transactions are explicit), WAL, foreign keys on."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA busy_timeout = 30000")
    db.execute("PRAGMA foreign_keys = ON")
    # What is deleted is overwritten, not left in free pages: a game deleted for good (and
    # its photos) must not be readable in a copy of the book.
    db.execute("PRAGMA secure_delete = ON")
    return db


def schema_sql() -> str:
    """The text of ``schema.sql`` shipped with the package."""
    return resources.files("webapp").joinpath("schema.sql").read_text(encoding="utf-8")


#: Columns added to a table after it was first shipped: (table, column, its definition).
#: ``CREATE TABLE IF NOT EXISTS`` leaves an older database's table as it was, so these are
#: added to it; every existing row takes the column's default.
ADDED_COLUMNS = (
    ("game", "corners", "TEXT NOT NULL DEFAULT 'auto' CHECK (corners IN ('auto', 'two', 'four'))"),
    ("game", "changes", "INTEGER NOT NULL DEFAULT 0"),
    ("game", "deleted", "TEXT"),
)


def add_missing_columns(db: sqlite3.Connection) -> list[str]:
    """Add :data:`ADDED_COLUMNS` an older database lacks; return them as ``table.column``."""
    added = []
    for table, column, definition in ADDED_COLUMNS:
        present = {row["name"] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in present:
            try:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
            except sqlite3.OperationalError as error:
                if "duplicate column" not in str(error):  # another process added it first
                    raise
                continue
            added.append(f"{table}.{column}")
    return added


#: ``PRAGMA user_version`` of a book this code has brought up to date: 1 = every kept photo
#: is a private copy (:func:`onze_vision.metadata.private_copy`). Books from before it kept
#: photos as uploaded, location and all.
BOOK_VERSION = 1


def make_photos_private(db: sqlite3.Connection) -> int:
    """Replace every kept photo that still carries metadata by its private copy, one photo
    per transaction (a large book is never held in memory, nor locked for long); the old
    bytes are overwritten (``secure_delete``) and the write-ahead log emptied. Returns how
    many photos changed. Bytes that are no photo are left as they are."""
    changed = 0
    for (photo_id,) in db.execute("SELECT id FROM photo ORDER BY id").fetchall():
        row = db.execute("SELECT data FROM photo WHERE id = ?", (photo_id,)).fetchone()
        if row is None:  # deleted meanwhile by another process
            continue
        try:
            kept = private_copy(row["data"])
        except ValueError:
            continue
        if kept != row["data"]:
            with transaction(db):
                db.execute("UPDATE photo SET data = ?, mime = ? WHERE id = ?",
                           (kept, sniff_mime(kept), photo_id))
            changed += 1
    if changed:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return changed


def bring_up_to_date(db: sqlite3.Connection) -> None:
    """Make the tables an older book lacks (and their added columns), and its photos private."""
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(schema_sql())
    add_missing_columns(db)
    if db.execute("PRAGMA user_version").fetchone()[0] < BOOK_VERSION:
        make_photos_private(db)
        db.execute(f"PRAGMA user_version = {BOOK_VERSION}")


def ensure_schema(path: str) -> None:
    """Create the tables in ``path`` if they are missing (once per process per file)."""
    with _schema_lock:
        if path in _schema_ready and Path(path).exists():
            return
        db = connect(path)
        try:
            bring_up_to_date(db)
        finally:
            db.close()
        _schema_ready.add(path)


def get_db() -> sqlite3.Connection:
    """The request's connection, opened (and the schema made sure of) on first use."""
    if "db" not in g:
        path = current_app.config["DATABASE"]
        ensure_schema(path)
        g.db = connect(path)
    return g.db


def close_db(e: BaseException | None = None) -> None:
    """Close the request's connection, if one was opened."""
    db = g.pop("db", None)
    if db is not None:
        db.close()


@contextmanager
def transaction(db: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
    """Run a block as one write transaction; roll back on any error (nothing half-saved)."""
    db = db or get_db()
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# One book copied at a time: each copy reads the whole database, and a page that asked
# for it eight times at once would read it eight times over.
_snapshot_lock = threading.Lock()


def snapshot(db: sqlite3.Connection) -> Path:
    """The whole database copied into one SQLite file, consistent even while others write
    (SQLite's online backup), for a family to keep or to open elsewhere with ``--database``.

    Returns a temporary file's path: the caller sends it and removes it (it is as large
    as the book, photos and all, so it is never held in memory).
    """
    handle, name = tempfile.mkstemp(prefix="onze-book-", suffix=".sqlite")
    os.close(handle)
    path = Path(name)
    try:
        with _snapshot_lock:
            copy = sqlite3.connect(path)
            try:
                db.backup(copy)
                # A single file, not a WAL pair: the copy opens on its own wherever it goes.
                copy.execute("PRAGMA journal_mode = DELETE")
            finally:
                copy.close()
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def init_db(reset: bool = False) -> None:
    """Create the tables; with ``reset`` drop every table first (all data is lost)."""
    path = current_app.config["DATABASE"]
    db = connect(path)
    try:
        if reset:
            for table in ("score", "photo", "hand", "player", "game"):
                db.execute(f"DROP TABLE IF EXISTS {table}")
        bring_up_to_date(db)
    finally:
        db.close()
    _schema_ready.add(path)


@click.command("init-db")
@click.option("--reset", is_flag=True, help="Drop all tables first (deletes every game).")
@with_appcontext
def init_db_command(reset: bool) -> None:
    """Create the score sheet's tables (keeps existing games unless --reset)."""
    init_db(reset=reset)
    click.echo(f"Initialized the database at {current_app.config['DATABASE']}.")


def init_app(app: Flask) -> None:
    """Register the teardown and the ``init-db`` command on ``app``."""
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
