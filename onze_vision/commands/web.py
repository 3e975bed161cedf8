"""``onze-vision serve``: run the score sheet web app on this machine.

Werkzeug's threaded server (Flask's own) is enough for a table-side tool (a handful of
phones on the home Wi-Fi); there is no account and no internet access needed.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import socket
import sqlite3
import sys
from pathlib import Path
from typing import Any

from onze_vision.commands.checks import file_name, non_empty

#: Seconds a connection may send nothing (or take nothing of a reply) before it is dropped.
#: Without it a phone that slept or left the Wi-Fi mid-upload held a thread and its half-sent
#: photo (and a book download its copy of the book) until the server stopped; a slow upload
#: that keeps sending is never cut off.
IDLE_CONNECTION_SECONDS = 60


def request_handler(idle_seconds: float = IDLE_CONNECTION_SECONDS) -> type:
    """Werkzeug's request handler, dropping a connection idle for ``idle_seconds``."""
    from werkzeug.serving import WSGIRequestHandler   # with Flask; only when serving

    return type("IdleTimeoutRequestHandler", (WSGIRequestHandler,), {"timeout": idle_seconds})


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="run the score sheet web app",
        description="Run the score sheet web app (games, photo scoring, go-down checks).",
        epilog="examples:\n"
               "  onze-vision serve                                   # http://127.0.0.1:5000\n"
               "  onze-vision serve --host 0.0.0.0 --port 8000        # phones on the home Wi-Fi",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (0.0.0.0 lets phones on the same network in; default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=5000, help="port, 1-65535 (default 5000)")
    from onze_vision.places import user_data_dir

    # %% for argparse: a user's folder name may hold a %.
    mine = str(user_data_dir()).replace("%", "%%")
    parser.add_argument("--database", metavar="PATH", type=file_name, default=None,
                        help="SQLite file (default: $ONZE_DATABASE, else onze.sqlite in the instance folder: instance/ in "
                             f"a checkout, this user's data folder ({mine}) once installed, made on first start; "
                             "a book an earlier version kept in <prefix>/var/webapp-instance/ is used there until "
                             "moved); created if missing")
    parser.add_argument("--allow-host", action="append", type=non_empty, default=[], metavar="NAME",
                        help="also answer to this name (a Tailscale or hosts-file name); the sheet answers to "
                             "any IP address and this machine's own names, and refuses others (DNS rebinding)")
    parser.add_argument("--whole-photo-days", type=_days, default=None, metavar="DAYS",
                        help="days a game that is over (and unchanged) keeps its photos as taken; then each is "
                             "kept at most 2048 px long, about a fifth of the megabytes (default 30; 'forever' keeps "
                             "them as taken while this server runs; WHOLE_PHOTO_DAYS = None in the instance folder's "
                             "config.py, for good)")
    parser.add_argument("--debug", action="store_true", help="Flask debug mode (this computer only: refused with another --host)")
    parser.set_defaults(handler=serve)

    rescue = subparsers.add_parser(
        "rescue-book",
        help="copy all that can still be read of a damaged score-sheet book into a new one",
        description="Copy every game, player, hand, score and photo that can still be read of a damaged "
                    "book into a new book, row by row (the score sheet's own download does the same while "
                    "it runs); say what could not be read.",
        epilog="example:\n  onze-vision rescue-book instance/onze.sqlite rescued.sqlite\n"
               "  onze-vision serve --database rescued.sqlite",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rescue.add_argument("book", metavar="BOOK", type=file_name, help="the damaged book (an SQLite file)")
    rescue.add_argument("out", metavar="OUT", type=file_name,
                        help="the new book to write (must not exist yet, in a folder that does)")
    rescue.set_defaults(handler=rescue_book)


def _port(text: str) -> int:
    """A TCP port number; argparse turns the error into exit status 2 with the reason."""
    try:
        port = int(text)
    except ValueError:
        port = 0  # not a number: refused below, in the same words
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must be a number from 1 to 65535, not {text!r}")
    return port


def _days(text: str) -> int | str:
    """A number of days (0 or more), or 'forever'; argparse says what was wrong."""
    if text.strip().lower() == "forever":
        return "forever"
    try:
        days = int(text)
    except ValueError:
        days = -1
    from webapp.keepsake import MAX_WHOLE_PHOTO_DAYS

    if not 0 <= days <= MAX_WHOLE_PHOTO_DAYS:
        raise argparse.ArgumentTypeError(
            f"days must be a whole number from 0 to {MAX_WHOLE_PHOTO_DAYS}, or 'forever', not {text!r}")
    return days


def listen_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host``:``port``, or None when it can.

    Checked before the app starts, so the reason comes first and alone rather than after
    a banner that says the sheet is being served.
    """
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return f"cannot listen on {host!r}: {error.strerror or error} (a name or an address of this machine, e.g. 0.0.0.0)"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        # As the server binds: a port in TIME_WAIT after a restart is free to take.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return f"port {port} is in use by another program: stop it, or choose another --port"
            if error.errno == errno.EACCES:
                return f"port {port} needs administrator rights here: choose one above 1023 with --port"
            if error.errno == errno.EADDRNOTAVAIL:
                return f"{host!r} is not an address of this machine: use 127.0.0.1, or 0.0.0.0 for phones"
            return f"cannot listen on {host}:{port}: {error.strerror or error}"
    return None


def database_problem(path: str, shown: str, *, make_folder: bool = True) -> str | None:
    """Why the score sheet cannot keep its book at ``path`` (``shown`` as the user gave it); else None.
    ``make_folder``: a missing folder is made (the default book's); else it is refused.

    Said before anything is written: a folder, or a file that is something other than an
    SQLite database, is never touched; nor is a book that could not be written.
    """
    from webapp.db import disk_state

    target = Path(path)
    if target.is_dir():
        return f"'{shown}' is a folder: give a file name in it, e.g. '{Path(shown) / 'onze.sqlite'}'"
    if target.exists():
        try:
            with target.open("rb") as handle:
                head = handle.read(16)
        except OSError as error:
            return f"cannot read '{shown}': {error.strerror or error}"
        if head and head != b"SQLite format 3\x00":
            return f"'{shown}' is not an SQLite database (the score sheet's book is one): choose another file"
    folder = target.parent
    if not folder.exists():
        if not make_folder:
            # A typo, or a disk not plugged in: a new empty book there would take the
            # evening's scores where nobody looks for them (and hide under the disk once mounted).
            return (f"the folder of '{shown}' ({folder}) does not exist: is its disk plugged in, or the name "
                    "mistyped? Make the folder first to start a new book there")
        return None  # the default instance folder: made with the book
    state = disk_state(folder)
    if state == "read-only":
        return f"'{shown}' is on a disk mounted read-only: mount it writable, or give a --database on another disk"
    if state == "full":
        return f"the disk that holds '{shown}' is full: free some space on it, or give a --database on another disk"
    if target.exists():
        if not os.access(target, os.W_OK):
            return (f"'{shown}' is read-only, and the score sheet writes every score into it: "
                    f"make it writable (chmod u+w '{shown}'), or give another --database")
        shared_memory = target.with_name(target.name + "-shm")
        if shared_memory.exists() and not os.access(shared_memory, os.W_OK):
            return (f"'{shown}-shm', left beside the book by an earlier run, is read-only: "
                    f"remove it or make it writable (SQLite makes it again)")
    if not os.access(folder, os.W_OK | os.X_OK):
        return (f"the folder of '{shown}' cannot be written, and SQLite keeps its -wal and -shm "
                f"files beside the book: choose a folder you can write to")
    return None


def old_place_note(instance_path: str, book: str) -> str | None:
    """What to say when an installed package's default book is still where earlier versions
    kept it (inside the Python environment; :func:`webapp.instance_folder`); else None."""
    from onze_vision import places
    from webapp import BOOK_NAME

    mine = places.user_data_dir()
    if places.in_checkout() or Path(instance_path) == mine:
        return None
    if os.path.abspath(book) == os.path.abspath(os.path.join(instance_path, BOOK_NAME)):
        return (f"the book is where earlier versions kept it, {book}, inside this Python environment: removing "
                f"or making the environment again (pipx reinstall) deletes it with every game. It is used there "
                f"until moved: stop the sheet and move the files of {instance_path} into {mine}, where this "
                f"version keeps a new book")
    if (Path(instance_path) / "config.py").exists():
        return (f"this sheet's settings (config.py) are where earlier versions kept them, {instance_path}, "
                f"inside this Python environment: removing or making the environment again deletes them. "
                f"They are used there until moved: stop the sheet and move the files of {instance_path} "
                f"into {mine}")
    return None


def serve(args: argparse.Namespace) -> int:
    """Create the database if needed and serve until interrupted."""
    from webapp.phones import ALL_ADDRESSES, LISTEN, is_loopback, network_addresses

    problem = listen_problem(args.host, args.port)
    if args.debug and not is_loopback(args.host):
        # The debugger runs code typed into a browser and shows this machine's paths.
        problem = (f"--debug opens a console that runs any code sent to it, so it serves this computer "
                   f"only: drop --debug, or --host {args.host} (the default host, 127.0.0.1, is this computer)")
    if problem is not None:
        print(f"onze-vision serve: error: {problem}", file=sys.stderr)
        return 2
    from webapp import BOOK_NAME, create_app, keepsake
    from webapp.db import BOOK_VERSION, book_version, ensure_schema, says_damaged

    config: dict[str, Any] = {}
    if args.database:
        config["DATABASE"] = os.path.abspath(args.database)
    if args.whole_photo_days is not None:
        config["WHOLE_PHOTO_DAYS"] = None if args.whole_photo_days == "forever" else args.whole_photo_days
    app = create_app(None)
    app.config.update(config)
    app.config[LISTEN] = (args.host, args.port)   # what the sheet tells phones of how to reach it
    if args.allow_host and app.config.get("ALLOWED_HOSTS") is not None:
        app.config["ALLOWED_HOSTS"] = set(app.config["ALLOWED_HOSTS"]) | {
            name.strip().lower().rstrip(".") for name in args.allow_host}
    book = app.config["DATABASE"]
    shown_book = args.database or book
    # Only the default book's folder (the instance folder) is made: a path given by --database
    # or ONZE_DATABASE names a folder that must be there.
    default_book = os.path.join(app.instance_path, BOOK_NAME)
    if note := old_place_note(app.instance_path, book):
        print(f"onze-vision serve: note: {note}", file=sys.stderr, flush=True)
    version = book_version(book)   # read once: what to say of it, and whether it is rewritten
    if version is not None and version > BOOK_VERSION:
        # Opened all the same: what a later version added is left as it is, never removed.
        print(f"onze-vision serve: note: this book was last kept by a newer Onze Vision (book version "
              f"{version}; this one knows up to {BOOK_VERSION}): what that version added is kept but not "
              "shown here. Install the newer version to see all of it.", file=sys.stderr, flush=True)
    problem = database_problem(book, shown_book, make_folder=os.path.abspath(book) == os.path.abspath(default_book))
    is_new = not Path(book).exists() or Path(book).stat().st_size == 0
    if problem is None:
        try:
            if version is not None and version < BOOK_VERSION:   # db.needs_bringing_up_to_date
                print("Bringing the book up to date for this version (once; a large book takes a few seconds)...",
                      flush=True)
            ensure_schema(book)
        except (sqlite3.Error, OSError) as error:
            problem = f"cannot open the database '{shown_book}': {error}"
            if isinstance(error, sqlite3.DatabaseError) and says_damaged(error):
                problem += (": the book is damaged. Put back a good copy, or copy all that can still be read "
                            f"into a new book: onze-vision rescue-book '{shown_book}' rescued.sqlite")
    if problem is not None:
        print(f"onze-vision serve: error: {problem}", file=sys.stderr)
        return 2
    shown = "127.0.0.1" if args.host in ALL_ADDRESSES else args.host
    print(f"Onze Vision score sheet on http://{shown}:{args.port}/ "
          f"({'a new, empty book' if is_new else 'book'} {book})", flush=True)
    if args.host in ALL_ADDRESSES:
        for address in network_addresses():
            print(f"  on a phone on the same network: http://{address}:{args.port}/", flush=True)
    elif is_loopback(args.host):
        print("  this computer only: to score from phones on the same Wi-Fi, start it with --host 0.0.0.0",
              flush=True)
    # Old games' photos are kept smaller, and games deleted long ago removed, by a thread of
    # this server, between the phones' requests.
    keeper = keepsake.start(app)
    try:
        run_sheet(app, host=args.host, port=args.port, debug=args.debug)
    finally:
        keeper.stop()
    return 0


def run_sheet(app: Any, *, host: str, port: int, debug: bool = False) -> None:
    """Serve ``app`` on ``host``:``port`` until Ctrl+C, a thread per request.

    Werkzeug's server, started directly rather than by ``app.run``: that one tells whoever
    starts the sheet "This is a development server. Do not use it in a production deployment",
    which is no advice a family can act on (a handful of phones on the home Wi-Fi is what this
    server is for). ``--debug`` keeps ``app.run``, with its debugger and its warning.
    """
    if debug:
        app.run(host=host, port=port, threaded=True, debug=True, use_reloader=False,
                request_handler=request_handler())
        return
    from werkzeug.serving import make_server   # with Flask; only when serving

    server = make_server(host, port, app, threaded=True, request_handler=request_handler())
    print("Press Ctrl+C to stop it.", flush=True)
    server.serve_forever()   # returns on Ctrl+C, the socket closed


def rescue_book(args: argparse.Namespace) -> int:
    """Copy all that can still be read of a damaged book into a new one; say what was lost."""
    from webapp.db import (
        BOOK_VERSION,
        NEWER_TABLES,
        TABLES,
        book_version,
        read_only_uri,
        remove_snapshot,
        rescue_copy,
        unknown_parts,
    )

    source, out = Path(args.book), Path(args.out)
    if not source.is_file():
        print(f"onze-vision rescue-book: error: '{args.book}' is not a file", file=sys.stderr)
        return 2
    if out.exists():
        print(f"onze-vision rescue-book: error: '{args.out}' exists already: give a new file's name",
              file=sys.stderr)
        return 2
    if not out.parent.is_dir():   # as serve --database: a mistyped folder is not made
        print(f"onze-vision rescue-book: error: '{args.out}': folder '{out.parent}' does not exist",
              file=sys.stderr)
        return 2
    # Read only: a damaged book is never written to, not even by bringing it up to date.
    db = sqlite3.connect(read_only_uri(source), uri=True)
    db.row_factory = sqlite3.Row
    try:
        left_out = unknown_parts(db)
        path, lost = rescue_copy(db)
    except sqlite3.DatabaseError as error:
        print(f"onze-vision rescue-book: error: nothing of '{args.book}' can be read ({error})", file=sys.stderr)
        return 2   # the file given is no book that can be read: bad input, as the README's statuses say
    finally:
        db.close()
    # Not a book at all: not one of the tables every book has can be listed.
    if all(lost.get(table) == -1 for table in TABLES if table not in NEWER_TABLES):
        remove_snapshot(path)
        print(f"onze-vision rescue-book: error: nothing of '{args.book}' can be read: not one of its tables "
              "can be listed (is it a score-sheet book?)", file=sys.stderr)
        return 2
    try:
        shutil.move(str(path), out)
        os.chmod(out, 0o600)   # a new book is this account's only, as the sheet makes them
    finally:
        remove_snapshot(path)
    # The rows kept, as the new book's record of this rescue counted them.
    counts = sqlite3.connect(out)
    kept = json.loads(counts.execute("SELECT kept FROM rescue ORDER BY id DESC LIMIT 1").fetchone()[0])
    counts.close()
    def rows(count: int, table: str) -> str:
        return f"{count} {table.replace('_', ' ')} row{'' if count == 1 else 's'}"

    print(f"Rescued into {args.out}: " + ", ".join(rows(kept[t], t) for t in TABLES) + ".")
    if lost:
        print("Could not be read: " + ", ".join(
            f"the whole {t.replace('_', ' ')} table" if n < 0 else rows(n, t) for t, n in lost.items()) + "."
            + (f" {kept['stand_ins']} player{' is' if kept['stand_ins'] == 1 else 's are'} seated for the lost ones, "
               "each named for their seat (\"Player 3\"): a game has as many as its scores and its rules need."
               if kept.get("stand_ins") else "")
            + (" A score whose photo was lost keeps its cards." if "photo" in lost else ""))
    else:
        print("Every row could be read.")
    if left_out:
        version = book_version(str(source))
        newer = (f" (the book was last kept by a newer Onze Vision, book version {version}; this one knows up "
                 f"to {BOOK_VERSION}: rescue it with that version to keep them)"
                 if version is not None and version > BOOK_VERSION else "")
        print("Left out, as this version does not know them: "
              + ", ".join(f"the {kind} {name}" + (f" of {table}" if table else "") for kind, name, table in left_out)
              + newer + ".")
    print(f"Serve it with: onze-vision serve --database {args.out}")
    return 0
