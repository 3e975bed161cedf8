"""SQLite access in the style of Flask's tutorial: one connection per request in ``g``.

The database runs in WAL mode with a busy timeout, and every write goes through
:func:`transaction` (``BEGIN IMMEDIATE``), so concurrent saves queue up instead of
failing or overwriting each other.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from onze_vision.metadata import private_copy, sniff_mime
from onze_vision.variants import VARIANTS

_schema_ready: set[str] = set()
_schema_lock = threading.Lock()


class BookUnavailableError(RuntimeError):
    """The book cannot be used now for a reason outside the request (its message says
    which, and what to do); nothing of the request was saved or sent."""


class BookGoneError(BookUnavailableError):
    """The book this server opened is no longer where it was (moved or deleted)."""


class NoRoomForCopyError(BookUnavailableError):
    """Too little free disk space to copy the book for a download."""


class BookDamagedError(BookUnavailableError):
    """The book's file is damaged, so it cannot be copied whole (:func:`rescue_copy` takes
    what can still be read)."""


#: Free bytes under which the book's disk counts as full: SQLite cannot make its shared
#: memory file there, and says "disk I/O error" rather than "full".
FULL_BELOW_BYTES = 256 * 1024


def says_damaged(error: sqlite3.DatabaseError) -> bool:
    """Whether SQLite's ``error`` says the book's file is damaged or is no SQLite database."""
    name = getattr(error, "sqlite_errorname", "")
    text = str(error).lower()
    return name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "not a database" in text or "malformed" in text


def book_trouble(error: sqlite3.DatabaseError, path: str) -> str | None:
    """What went wrong with the book at ``path``, and what to do, for the family at the
    table; None where the error is the sheet's own (a bug, not the book's trouble). Every
    such error leaves the book as it was: nothing of the request is saved."""
    name = getattr(error, "sqlite_errorname", "")  # Python 3.11+; the text below otherwise
    text = str(error).lower()
    book = Path(path).name
    folder = Path(path).parent
    disk = disk_state(folder)
    if name == "SQLITE_FULL" or "is full" in text or (disk == "full" and not isinstance(error, sqlite3.IntegrityError)):
        return (f"The disk that holds the book ({book}) is full, so nothing was saved. "
                "Free some space on the computer running the score sheet, then try again.")
    if disk == "read-only":
        return (f"The disk that holds the book ({folder}) is mounted read-only, so nothing was saved. "
                "Mount it writable (or start the score sheet with --database on another disk), then try again.")
    if name.startswith("SQLITE_READONLY") or "readonly" in text:
        return (f"The book ({path}) cannot be written: the file or its folder is read-only, "
                "so nothing was saved. Make both writable (a leftover read-only "
                f"{book}-shm file beside it counts too), then try again.")
    if name.startswith("SQLITE_BUSY") or "locked" in text:
        return ("The book is busy: something has been writing to it for over ten seconds (another "
                "program such as a backup or an SQLite browser, or a large save), so nothing was saved. "
                "Try again in a moment; if it stays busy, close the other program.")
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return (f"The book ({path}) cannot be opened: its folder is missing or not readable. "
                "Nothing was saved.")
    if says_damaged(error):
        return (f"The book ({path}) is damaged or is no longer an SQLite database (was it replaced?), "
                "so nothing was saved. Put back a good copy, or download all that can still be read "
                "(History's download) and start the score sheet on it with --database.")
    if name.startswith("SQLITE_IOERR") or "disk i/o error" in text:
        return f"The book's disk ({folder}) failed to read or write, so nothing was saved. Try again."
    return None


def disk_state(folder: Path) -> str | None:
    """"full", "read-only" or None (fine, or not known) for the disk holding ``folder``."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "read-only"
        return "full" if shutil.disk_usage(folder).free < FULL_BELOW_BYTES else None
    except (OSError, AttributeError):  # gone, or no statvfs (Windows)
        return None


#: Bytes of write-ahead log kept after a checkpoint (SQLite's ``journal_size_limit``).
WAL_KEPT_BYTES = 64 * 1024 * 1024


def connect(path: str) -> sqlite3.Connection:
    """Open ``path`` in autocommit mode (transactions are explicit), WAL, foreign keys on."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    new = not Path(path).exists()
    # A save waits this long for another writer (saves take milliseconds; the longest
    # measured wait, two servers with photos, was half a second), then says the book is busy.
    db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA busy_timeout = 10000")
    db.execute("PRAGMA foreign_keys = ON")
    # What is deleted is overwritten, not left in free pages: a game deleted for good (and
    # its photos) must not be readable in a copy of the book.
    db.execute("PRAGMA secure_delete = ON")
    # A large save (a photo, a game cleared with its photos) grows the write-ahead log to
    # its size; it is cut back to this after each checkpoint rather than kept at its peak.
    db.execute(f"PRAGMA journal_size_limit = {WAL_KEPT_BYTES}")
    if new:
        # A new book is this account's only (its log files take its mode): other accounts on
        # the family laptop have no business reading every game and photo.
        try:
            os.chmod(path, 0o600)
        except OSError:
            pass
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
    ("game", "ended_after", "INTEGER CHECK (ended_after BETWEEN 1 AND 6)"),
    ("photo", "keepsake", "TEXT"),
    ("game", "joker_look", "TEXT"),
)

#: Indexes on added columns, made after them (in ``schema.sql`` they would fail on an older
#: book, whose table lacks the column when the script runs): (name, definition).
ADDED_INDEXES = (
    # The photos still kept as taken, by game: a column after a photo's megabytes is found
    # without reading them (webapp.keepsake).
    ("photo_as_taken", "ON photo (game_id, created) WHERE keepsake IS NULL"),
)

#: What ``photo.keepsake`` holds for a photo looked at and left byte for byte (small already,
#: not smaller re-encoded, or bytes no decoder reads); one made smaller holds when it was.
PHOTO_LEFT_AS_TAKEN = "as taken"


def add_missing_columns(db: sqlite3.Connection) -> list[str]:
    """Add :data:`ADDED_COLUMNS` an older database lacks, and :data:`ADDED_INDEXES`; return
    the columns added as ``table.column``."""
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
    for name, definition in ADDED_INDEXES:
        try:
            db.execute(f"CREATE INDEX IF NOT EXISTS {name} {definition}")
        except sqlite3.DatabaseError as error:
            if not says_damaged(error):
                raise
            # A damaged page of the table: the book still opens (to be read, or rescued);
            # what the index serves waits for a book that can be read whole.
            logging.getLogger(__name__).warning("index %s was not made: %s", name, error)
    return added


#: ``PRAGMA user_version`` of a book this code has brought up to date: 1 = every kept photo
#: is a private copy (:func:`onze_vision.metadata.private_copy`; books from before kept
#: photos as uploaded, location and all); 2 = the file gives back the space of what is
#: deleted (``auto_vacuum = FULL``; a 953 MB book whose games were all deleted stayed 953 MB).
BOOK_VERSION = 2


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
    """Make the tables an older book lacks (and their added columns), its photos private,
    and its file one that shrinks when games and photos are deleted (:data:`BOOK_VERSION`)."""
    # Asked before anything is written: a new book takes it with its first table; an older
    # one takes it with the VACUUM below.
    db.execute("PRAGMA auto_vacuum = FULL")
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(schema_sql())
    add_missing_columns(db)
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version >= BOOK_VERSION:
        return
    rewrite = db.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    if version < 1:
        make_photos_private(db)
        db.execute("PRAGMA user_version = 1")
        # Pages an older SQLite freed without overwriting them (secure_delete off) may
        # still hold the metadata of photos deleted long ago: the book is rewritten whole.
        rewrite = rewrite or db.execute("SELECT 1 FROM photo LIMIT 1").fetchone() is not None
    if rewrite:
        try:
            db.execute("VACUUM")
        except sqlite3.OperationalError as error:  # no room for the copy VACUUM makes: next start
            logging.getLogger(__name__).warning("the book was not rewritten (VACUUM): %s", error)
            return
    db.execute(f"PRAGMA user_version = {BOOK_VERSION}")


def read_only_uri(path: str | Path) -> str:
    """SQLite's URI that opens ``path`` read only; a name with ``#``, ``?`` or ``%`` in it is
    the file it names (as_uri percent-encodes them; pasted in raw, they cut the name short)."""
    return Path(path).resolve().as_uri() + "?mode=ro"


def book_version(path: str) -> int | None:
    """The :data:`BOOK_VERSION` the book at ``path`` was last brought up to (0: before there
    was one); None where there is no such file or it cannot be read (``ensure_schema`` says why)."""
    if not Path(path).is_file():
        return None
    db = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.DatabaseError:
        return None
    finally:
        db.close()


def needs_bringing_up_to_date(path: str) -> bool:
    """Whether the book at ``path`` exists and was last kept by an older version of the
    sheet (its first start here rewrites it, a few seconds per gigabyte)."""
    version = book_version(path)
    return version is not None and version < BOOK_VERSION


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
        if path in _schema_ready and not Path(path).exists():
            # Never start an empty book in its place: the games would seem to be gone, and
            # new ones would go where nobody looks for them.
            raise BookGoneError(
                f"The book is no longer at {path} (moved or deleted?), so nothing was saved. "
                "Put it back, or start the score sheet again with onze-vision serve --database FILE.")
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
        if db.in_transaction:  # SQLite has rolled back already after a full disk or an I/O error
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


# One book copied at a time: each copy reads the whole database, and a page that asked
# for it eight times at once would read it eight times over.
_snapshot_lock = threading.Lock()

#: The folders the book is copied into for a download (one per copy, made by
#: :func:`snapshot`), and how old one must be to be a leftover (a download the server did
#: not live to finish) that the next copy removes. Only such folders are ever removed.
SNAPSHOT_FOLDER_PREFIX = "onze-vision-download-"
SNAPSHOT_NAME = "book.sqlite"
STALE_SNAPSHOT_SECONDS = 24 * 3600

# Room kept free beside a copy, so that making one never fills the disk to its last byte.
SNAPSHOT_SPARE_BYTES = 16 * 1024 * 1024


def snapshot(db: sqlite3.Connection) -> Path:
    """The whole database copied into one compact SQLite file (``VACUUM INTO``: the live
    pages only, not the space deleted games left), consistent even while others write,
    for a family to keep or to open elsewhere with ``--database``.

    Returns the copy's path, alone in a folder of its own: the caller sends it and removes
    it with :func:`remove_snapshot` (it is as large as the book, photos and all, so it is
    never held in memory). Copies an earlier server left behind are removed first.

    Raises:
        NoRoomForCopyError: The temporary folder has too little free space for the copy.
    """
    temp = Path(tempfile.gettempdir())
    remove_stale_snapshots(temp)
    with _snapshot_lock:
        # Checked under the lock: copies made meanwhile have taken their room already.
        needed = _room_for_copy(db, temp)
        folder = Path(tempfile.mkdtemp(prefix=SNAPSHOT_FOLDER_PREFIX, dir=temp))
        path = folder / SNAPSHOT_NAME
        try:
            db.execute("VACUUM INTO ?", (str(path),))  # a single file, not a WAL pair: it opens on its own
        except BaseException as error:
            remove_snapshot(path)
            if isinstance(error, sqlite3.DatabaseError):
                # The copy filled the disk (others took the room meanwhile): said as such. SQLite
                # says "database or disk is full" of a damaged book too: the room tells them apart.
                room = shutil.disk_usage(temp).free
                if room < needed or disk_state(temp) == "full":
                    raise _no_room(needed, room, temp) from None
                if is_damaged(db):
                    raise BookDamagedError(
                        "The book is damaged, so it cannot be copied whole for a download (SQLite: "
                        f"{error}). Nothing was sent. A copy of all that can still be read can be "
                        "downloaded instead; then start the score sheet on it with --database.") from None
            raise
    return path


def is_damaged(db: sqlite3.Connection) -> bool:
    """Whether SQLite finds the book's file damaged (``PRAGMA quick_check``)."""
    try:
        return db.execute("PRAGMA quick_check(1)").fetchone()[0] != "ok"
    except sqlite3.DatabaseError:
        return True


#: Damaged stretches of one table the rescue reads past before it gives up on the rest.
RESCUE_ROUNDS = 100_000

#: The book's tables in the order a copy fills them (each row's references before it).
TABLES = ("game", "player", "hand", "photo", "photo_addition", "score")
#: Tables a book kept by an older version may not have yet (none of their rows were lost).
NEWER_TABLES = frozenset({"photo_addition"})


def _room_for_copy(db: sqlite3.Connection, temp: Path) -> int:
    """The bytes a copy of the book needs in ``temp``; :class:`NoRoomForCopyError` if it has fewer free."""
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    live_pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
    needed, room = live_pages * page_size + SNAPSHOT_SPARE_BYTES, shutil.disk_usage(temp).free
    if needed > room:
        raise _no_room(needed, room, temp)
    return int(needed)


def _quoted(name: str) -> str:
    """An SQL identifier read from a book (a column's, an index's name), quoted."""
    return '"' + name.replace('"', '""') + '"'


def _readable_rowids(db: sqlite3.Connection, table: str) -> tuple[list[int], int]:
    """The rowids of ``table`` that can be read, from the table itself (an index can be damaged
    where the table is not), past its damaged pages; and about how many rows those pages held
    (the rowids they span). Rowids here are positive: every table takes SQLite's own."""
    top = None
    # The last rowid, from the table or else from an index of it (where its last page is damaged).
    try:
        indexes = [row[1] for row in db.execute(f"PRAGMA index_list({table})")]
    except sqlite3.DatabaseError:
        indexes = []
    for source in (f"{table} NOT INDEXED", *(f"{table} INDEXED BY {_quoted(index)}" for index in indexes)):
        try:
            top = db.execute(f"SELECT max(r) FROM (SELECT rowid AS r FROM {source})").fetchone()[0]
            break
        except sqlite3.DatabaseError:
            continue
    if top is None:   # a table of AUTOINCREMENT ids keeps its largest in sqlite_sequence
        try:
            row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).fetchone()
            top = row[0] if row is not None else None
        except sqlite3.DatabaseError:
            pass
    bound = top if top is not None else 2 ** 62

    def first_from(start: int) -> int | None:
        """The first rowid from ``start`` on (None: none); raises where its page is damaged."""
        row = db.execute(f"SELECT rowid FROM {table} NOT INDEXED WHERE rowid >= ? ORDER BY rowid LIMIT 1",
                         (start,)).fetchone()
        return row[0] if row is not None else None

    listed: list[int] = []
    lost = 0
    done = 0   # every rowid up to this one is listed or given up
    resumed = None   # the row the last look found, where the reading went on from
    for _ in range(RESCUE_ROUNDS):
        before = done
        try:
            for (rowid,) in db.execute(f"SELECT rowid FROM {table} NOT INDEXED WHERE rowid > ? ORDER BY rowid",
                                       (done,)):
                if rowid <= done:   # a damaged page pointing back: never read twice, never a loop
                    raise sqlite3.DatabaseError(f"{table}: rowids out of order")
                listed.append(rowid)
                done = rowid
            break
        except sqlite3.DatabaseError:
            pass
        if done == before and resumed == done + 1:
            # The look reads the row the reading in order cannot reach: taken as the look found it.
            listed.append(resumed)
            done = resumed
        # The page after ``done`` is damaged: a start that reads, further on each time twice as far...
        bad, good, found = done + 1, None, None
        step = 1
        while done + step <= bound:
            try:
                found = first_from(done + step)
            except sqlite3.DatabaseError:
                bad, step = done + step, step * 2
                continue
            good = done + step
            break
        if good is None:   # nothing after it can be read
            lost += top - done if top is not None else 1
            break
        # ... then back to the first start that reads: the rows between are the damaged page's.
        while good - bad > 1:
            middle = (bad + good) // 2
            try:
                found, good = first_from(middle), middle
            except sqlite3.DatabaseError:
                bad = middle
        lost += good - 1 - done
        if found is None:
            break
        done, resumed = found - 1, found   # read on from the first row after the damage
    if not listed and lost:
        raise sqlite3.DatabaseError(f"no row of {table} can be read")
    return listed, lost


def unknown_parts(db: sqlite3.Connection) -> list[tuple[str, str, str | None]]:
    """What a book holds that this version does not know (a newer version's additions, or
    anything added by hand), as ``(kind, name, table)``: ``("table", "badge", None)``,
    ``("column", "colour", "game")``, a view or a trigger likewise. A rescue copy leaves them
    out, so it says which. Parts that cannot even be listed (damaged) are not named here."""
    known = sqlite3.connect(":memory:")
    known.row_factory = sqlite3.Row
    try:
        known.executescript(schema_sql())
        add_missing_columns(known)   # as every book this version keeps has them
        known_names = {row[0] for row in known.execute("SELECT name FROM sqlite_master")}
        known_columns = {name: {row[1] for row in known.execute(f"PRAGMA table_xinfo({_quoted(name)})")}
                         for (name,) in known.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        known.close()
    try:
        objects = db.execute("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view', 'trigger') "
                             "ORDER BY rowid").fetchall()
    except sqlite3.DatabaseError:
        return []
    parts: list[tuple[str, str, str | None]] = []
    for kind, name in objects:
        if name.startswith("sqlite_"):   # SQLite's own (sqlite_sequence, sqlite_stat1)
            continue
        if name not in known_names:
            parts.append((kind, name, None))
            continue
        if kind != "table":
            continue
        try:   # xinfo: generated and hidden columns too
            columns = [row[1] for row in db.execute(f"PRAGMA table_xinfo({_quoted(name)})")]
        except sqlite3.DatabaseError:
            continue
        parts.extend(("column", column, name) for column in columns if column not in known_columns[name])
    return parts


def rescue_copy(db: sqlite3.Connection) -> tuple[Path, dict[str, int]]:
    """Copy what can still be read of a damaged book into a new one, row by row, where a
    whole copy (:func:`snapshot`) fails; return its path (removed with :func:`remove_snapshot`)
    and about how many rows of each table could not be read. A score whose photo was lost keeps
    its cards; a row whose game was lost goes with it; a table whose rows cannot even be listed
    is lost whole (counted as -1)."""
    temp = Path(tempfile.gettempdir())
    remove_stale_snapshots(temp)
    lost: dict[str, int] = {}
    with _snapshot_lock:
        _room_for_copy(db, temp)
        folder = Path(tempfile.mkdtemp(prefix=SNAPSHOT_FOLDER_PREFIX, dir=temp))
        path = folder / SNAPSHOT_NAME
        copy = sqlite3.connect(path)
        try:
            copy.executescript(schema_sql())
            for table, column, definition in ADDED_COLUMNS:
                if column not in {row[1] for row in copy.execute(f"PRAGMA table_info({table})")}:
                    copy.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
            copy.execute(f"PRAGMA user_version = {BOOK_VERSION}")
            kept: dict[str, set[int]] = {"game": set(), "photo": set()}
            try:
                present = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            except sqlite3.DatabaseError:
                present = set(TABLES)
            columns = {table: {row[1] for row in copy.execute(f"PRAGMA table_info({table})")} for table in TABLES}
            for table in TABLES:
                if table in NEWER_TABLES and table not in present:
                    continue
                try:
                    rowids, missed = _readable_rowids(db, table)
                except sqlite3.DatabaseError:
                    lost[table] = -1
                    continue
                for rowid in rowids:   # one at a time: a damaged page loses its rows, not the table
                    try:
                        row = db.execute(f"SELECT * FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
                    except sqlite3.DatabaseError:
                        row = None
                    values = dict(row) if row is not None else None
                    if table == "photo_addition" and values is not None and values["photo_id"] not in kept["photo"]:
                        continue   # its photo was lost (and said so): no loss of its own
                    if values is None or (table != "game" and values.get("game_id") is not None
                                          and values["game_id"] not in kept["game"]):
                        missed += 1
                        continue
                    if table == "photo_addition" and values["earlier_id"] not in (None, *kept["photo"]):
                        values["earlier_id"] = None
                    if table in kept:
                        kept[table].add(values["id"])
                    if table == "score" and values.get("photo_id") not in (None, *kept["photo"]):
                        values["photo_id"] = None
                    # The copy's own columns only: a book from a newer version may have more.
                    values = {column: value for column, value in values.items() if column in columns[table]}
                    copy.execute(f"INSERT OR IGNORE INTO {table} ({', '.join(map(_quoted, values))}) "
                                 f"VALUES ({', '.join('?' * len(values))})", tuple(values.values()))
                if missed:
                    lost[table] = missed
            stand_ins = _seat_lost_players(copy)
            _record_rescue(db, copy, lost, stand_ins)
            copy.commit()
        except BaseException:
            copy.close()
            remove_snapshot(path)
            raise
        copy.close()
    return path, lost


def _seat_lost_players(copy: sqlite3.Connection) -> int:
    """Give each seat of a rescued game whose player's row was lost a player named for it
    ("Player 3"): a game's sheet needs every seat its scores, hands and deal name, and as
    many players as its rules are played by at least (a game of onze with two could not be
    added up, and took the whole book's pages down with it). Returns how many were seated."""
    seated = 0
    for (game_id, first_dealer, variant) in copy.execute("SELECT id, first_dealer, variant FROM game").fetchall():
        fewest = VARIANTS[variant].min_players if variant in VARIANTS else 2
        seats = {row[0] for row in copy.execute("SELECT seat FROM player WHERE game_id = ?", (game_id,))}
        named = copy.execute(
            "SELECT MAX(seat) FROM (SELECT seat FROM score WHERE game_id = ?1"
            " UNION ALL SELECT out_seat FROM hand WHERE game_id = ?1)", (game_id,)).fetchone()[0] or 0
        for seat in range(1, max(fewest, first_dealer, named, *seats) + 1):
            if seat not in seats:
                copy.execute("INSERT INTO player (game_id, seat, name) VALUES (?, ?, ?)",
                             (game_id, seat, f"Player {seat}"))
                seated += 1
    return seated


def _record_rescue(db: sqlite3.Connection, copy: sqlite3.Connection, lost: dict[str, int],
                   stand_ins: int = 0) -> None:
    """Write into the rescued ``copy`` that it was rescued and what could not be read (its
    home page and History say so), after the records of earlier rescues ``db`` still holds;
    its ``kept`` counts each table's rows and the players seated for lost ones (``stand_ins``)."""
    try:
        earlier = db.execute("SELECT made, lost, kept, seen FROM rescue ORDER BY id").fetchall()
    except sqlite3.DatabaseError:   # a book from before the table, or the table damaged too
        earlier = []
    copy.executemany("INSERT INTO rescue (made, lost, kept, seen) VALUES (?, ?, ?, ?)",
                     [tuple(row) for row in earlier])
    kept: dict[str, int] = {table: copy.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in TABLES}
    kept["stand_ins"] = stand_ins
    copy.execute("INSERT INTO rescue (lost, kept) VALUES (?, ?)", (json.dumps(lost), json.dumps(kept)))


def _no_room(needed: int, room: int, folder: Path) -> NoRoomForCopyError:
    return NoRoomForCopyError(
        f"Copying the book to download it needs about {_megabytes(needed)} free in {folder}, which has "
        f"{_megabytes(room)}, so nothing was sent. Free some space there (or start the score sheet "
        "with TMPDIR set to a roomier folder), then download again.")


def remove_snapshot(path: Path) -> None:
    """Remove a copy made by :func:`snapshot`, with its folder."""
    if path.parent.name.startswith(SNAPSHOT_FOLDER_PREFIX):
        shutil.rmtree(path.parent, ignore_errors=True)


def remove_stale_snapshots(folder: Path, older_than: float = STALE_SNAPSHOT_SECONDS) -> list[Path]:
    """Remove the copies' folders in ``folder`` older than ``older_than`` seconds (nothing
    else: a book a family downloaded keeps its name wherever it lies); return them."""
    removed = []
    cutoff = time.time() - older_than
    for leftover in folder.glob(SNAPSHOT_FOLDER_PREFIX + "*"):
        try:
            if leftover.is_dir() and not leftover.is_symlink() and leftover.stat().st_mtime < cutoff:
                shutil.rmtree(leftover)
                removed.append(leftover)
        except OSError:  # gone meanwhile, or still open on a system that keeps it
            continue
    return removed


def _megabytes(size: int) -> str:
    return f"{size / 2**20:,.0f} MB" if size >= 2**20 else f"{size / 1024:,.0f} KB"


def init_db(reset: bool = False) -> None:
    """Create the tables; with ``reset`` drop every table first (all data is lost)."""
    path = current_app.config["DATABASE"]
    db = connect(path)
    try:
        if reset:
            for table in (*reversed(TABLES), "rescue"):   # each table before those it refers to
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
