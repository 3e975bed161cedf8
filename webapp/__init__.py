"""Onze Vision's score sheet: a Flask app that scores Onze hands from photos.

Built like Flask's tutorial app: :func:`create_app` is the factory, the SQLite
database lives in the instance folder unless ``DATABASE`` (or ``ONZE_DATABASE``) says
otherwise, and each area of the product is a blueprint.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from .db import BookUnavailableError, book_trouble

#: Largest upload accepted (a phone photo is 2-12 MB).
DEFAULT_MAX_UPLOAD = 20 * 1024 * 1024


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
            path.write_text(secrets.token_hex(32), encoding="utf-8")
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return secrets.token_hex(32)


def _same_site_referrer() -> str | None:
    """The page a request came from, where it is this sheet's own; else None."""
    referrer = request.referrer
    if not referrer:
        return None
    parts = urlsplit(referrer)
    if parts.netloc != request.host or parts.scheme not in ("http", "https"):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Create and configure the app.

    Args:
        test_config: Settings that replace the defaults and ``config.py`` (tests pass a
            temporary ``DATABASE`` and a stub ``DETECT`` here).
    """
    # The instance folder is made only when something is kept there (the key, the book):
    # with --database elsewhere, an install's read-only prefix is never written.
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        DATABASE=os.environ.get("ONZE_DATABASE") or os.path.join(app.instance_path, "onze.sqlite"),
        MAX_CONTENT_LENGTH=DEFAULT_MAX_UPLOAD,
        # The function that reads cards from photo bytes; None means the shipped detector.
        DETECT=None,
        CSRF_ENABLED=True,
        # How often a sheet open on a phone asks whether another phone changed it (0: never).
        LIVE_POLL_SECONDS=4,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ.get("ONZE_SECRET_KEY") or _secret_key(app.instance_path)

    from . import csrf, db, guard, ui
    db.init_app(app)
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

    _register_error_pages(app)
    return app


def _register_error_pages(app: Flask) -> None:
    """Errors as JSON under /api/, as a page elsewhere; the message is the same."""

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(error: RequestEntityTooLarge) -> Any:
        limit_mb = app.config["MAX_CONTENT_LENGTH"] / (1024 * 1024)
        message = f"The upload is too large: the limit is {limit_mb:g} MB."
        if request.path.startswith("/api/"):
            return jsonify(error=message), 413
        return render_template("error.html", code=413, message=message), 413

    @app.errorhandler(sqlite3.DatabaseError)
    @app.errorhandler(BookUnavailableError)
    def book_unavailable(error: Exception) -> Any:
        # The disk is full, the book read-only, locked, damaged or gone: nothing was saved,
        # and what was sent comes back to be sent again once that is mended. An error of the
        # sheet's own (a bug, "no such column") stays a 500.
        if isinstance(error, sqlite3.DatabaseError):
            message = book_trouble(error, app.config["DATABASE"])
            if message is None:
                raise error
        else:
            message = str(error)
        app.logger.error("the book is unavailable: %s", error)
        if request.path.startswith("/api/"):
            return jsonify(error=message), 503
        sent = [(name, value) for name, values in request.form.lists() if name != "csrf_token"
                for value in values] if request.method == "POST" else []
        files = [upload.filename or name for name, upload in request.files.items(multi=True) if upload]
        # Shown: what a person typed or chose; the page's own bookkeeping is sent again unseen.
        shown = [(name.replace("_", " "), value) for name, value in sent
                 if value and name not in ("mode", "photo_id") and not name.endswith("_was")]
        # A form that carried a photo cannot be sent again without it: back to its page instead.
        back = _same_site_referrer() if files else None
        return render_template("error.html", code=503, message=message, sent=sent, shown=shown,
                               files=files, retry_url=request.path, back_url=back), 503

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        message = error.description or error.name
        if request.path.startswith("/api/"):
            return jsonify(error=message), error.code
        return render_template("error.html", code=error.code, message=message), error.code
