"""Onze Vision's score sheet: a Flask app that scores Onze hands from photos.

Built like Flask's tutorial app: :func:`create_app` is the factory, the SQLite
database lives in the instance folder unless ``DATABASE`` (or ``ONZE_DATABASE``) says
otherwise, and each area of the product is a blueprint. The instance folder is
``instance/`` in a checkout and this user's data folder once installed
(:func:`instance_folder`).
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Any

from flask import Flask
from werkzeug.routing import IntegerConverter

#: Largest upload accepted (a phone photo is 2-12 MB).
DEFAULT_MAX_UPLOAD = 20 * 1024 * 1024
#: The default book's name in the instance folder.
BOOK_NAME = "onze.sqlite"


def instance_folder(flask_default: str) -> str:
    """The instance folder (the default book, the session key, ``config.py``).

    In a checkout, Flask's own: ``instance/``. Once installed, Flask's would be
    ``<prefix>/var/webapp-instance``, inside the Python environment, which a reinstall
    (``pipx reinstall``, a venv made again) deletes with every game: this user's data folder
    instead (:func:`onze_vision.places.user_data_dir`). A book or settings (``config.py``)
    already at the old place, and neither at the new, keep being used there: nobody's games
    or settings vanish on an upgrade (``onze-vision serve`` says where they are and where to
    move them).
    """
    from onze_vision import places

    if places.in_checkout():
        return flask_default
    mine = places.user_data_dir()
    kept = (BOOK_NAME, "config.py")
    if any((Path(flask_default) / name).exists() for name in kept) and not any((mine / name).exists() for name in kept):
        return flask_default
    return str(mine)


class ScoreSheet(Flask):
    """Flask, with the instance folder :func:`instance_folder` chooses."""

    def auto_find_instance_path(self) -> str:
        return instance_folder(super().auto_find_instance_path())


def _secret_key(instance_path: str) -> str:
    """A key kept in the instance folder, so sessions (and CSRF tokens) survive restarts.

    Where that folder cannot be written (a package installed by another user, read-only),
    a key for this run only: the sheet still works, and a page open across a restart asks
    for a reload when it next saves.
    """
    path = Path(instance_path) / "secret_key"
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Readable by this account only: whoever reads it can sign any phone's session.
            # Written whole under another name, then put in place: a server started at the
            # same moment reads one key or the other, never half of one.
            part = path.with_name(f".secret_key.{os.getpid()}")
            with os.fdopen(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as key:
                key.write(secrets.token_hex(32))
            try:
                os.link(part, path)   # never replaces a key another server wrote first
            except FileExistsError:
                pass
            except OSError:           # a file system without links: put in place, unless there
                if not path.exists():
                    os.replace(part, path)
            finally:
                part.unlink(missing_ok=True)
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return secrets.token_hex(32)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Create and configure the app.

    Args:
        test_config: Settings that replace the defaults and ``config.py`` (tests pass a
            temporary ``DATABASE`` and a stub ``DETECT`` here).
    """
    # The instance folder is made only when something is kept there (the key, the book):
    # with --database elsewhere, an install's read-only prefix is never written.
    from . import keepsake

    app = ScoreSheet(__name__, instance_relative_config=True)
    app.url_map.converters["int"] = RowIdConverter
    app.config.from_mapping(
        DATABASE=os.environ.get("ONZE_DATABASE") or os.path.join(app.instance_path, BOOK_NAME),
        MAX_CONTENT_LENGTH=DEFAULT_MAX_UPLOAD,
        # The function that reads cards from photo bytes; None means the shipped detector.
        DETECT=None,
        CSRF_ENABLED=True,
        # How often a sheet open on a phone asks whether another phone changed it (0: never).
        LIVE_POLL_SECONDS=4,
        # The session (and its CSRF token) is not sent with what another site's page loads.
        SESSION_COOKIE_SAMESITE="Lax",
        # Days a game over keeps its photos as taken before they are kept smaller, at most
        # KEEPSAKE_LONG_SIDE pixels long (webapp.keepsake); None keeps them as taken for ever.
        WHOLE_PHOTO_DAYS=keepsake.WHOLE_PHOTO_DAYS,
        KEEPSAKE_LONG_SIDE=keepsake.KEEPSAKE_LONG_SIDE,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ.get("ONZE_SECRET_KEY") or _secret_key(app.instance_path)

    from . import csrf, db, errors, guard, remembered, ui
    db.init_app(app)
    keepsake.init_app(app)
    remembered.init_app(app)
    guard.init_app(app)   # before the CSRF check: another site's request is refused first
    csrf.init_app(app)
    ui.init_app(app)

    from . import api, godown, hands, history, rules, sheet
    app.register_blueprint(sheet.bp)
    app.register_blueprint(hands.bp)
    app.register_blueprint(godown.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(rules.bp)
    app.register_blueprint(api.bp)
    app.add_url_rule("/", endpoint="index")

    errors.init_app(app)
    return app


class RowIdConverter(IntegerConverter):
    """``<int:...>`` in the addresses: no more digits than Python reads as a number. Its
    refusal of 4,301 came out of the routing as a 500; such an address now matches no page
    (404). Up to there, an id past any row is "Game N doesn't exist", as for any other."""

    regex = rf"\d{{1,{sys.get_int_max_str_digits() or 4300}}}"
