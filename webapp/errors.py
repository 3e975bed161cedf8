"""Error answers: JSON under /api/, a page elsewhere, with the same message; a book that
cannot be used now (full disk, read-only, locked, damaged, moved away) answers 503 with
what was sent, to send again."""

from __future__ import annotations

import json
import sqlite3
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, jsonify, make_response, render_template, request, url_for
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from .db import BookDamagedError, BookUnavailableError, book_trouble, says_damaged


def init_app(app: Flask) -> None:
    """Errors as JSON under /api/, as a page elsewhere; the message is the same."""

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(error: RequestEntityTooLarge) -> Any:
        # Werkzeug's own words (an upload over MAX_CONTENT_LENGTH) are replaced by the limit;
        # a view's own (a JSON body over its limit) are kept.
        message = error.description
        if message == RequestEntityTooLarge.description:
            limit_mb = app.config["MAX_CONTENT_LENGTH"] / (1024 * 1024)
            message = f"The upload is too large: the limit is {limit_mb:g} MB."
        if is_api_request():
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
        if is_api_request():
            return jsonify(error=message), 503
        if isinstance(error, BookDamagedError) or (isinstance(error, sqlite3.DatabaseError) and says_damaged(error)):
            # Any page of a damaged book offers what can still be read: History's own page
            # may be among those that cannot be drawn.
            return render_template("error.html", code=503, message=message,
                                   rescue_url=url_for("history.export_rescued")), 503
        return _page_to_send_again(503, message)

    from .model import ReadingBusyError   # here: the model imports the database layer this module serves

    @app.errorhandler(ReadingBusyError)
    def reading_busy(error: ReadingBusyError) -> Any:
        # A flood of photos (or a few huge ones): this one waited its turn long enough.
        app.logger.warning("a photo was refused: %s", error)
        response = make_response(jsonify(error=str(error)) if is_api_request()
                                 else _page_to_send_again(503, str(error)))
        response.status_code = 503
        response.headers["Retry-After"] = "5"
        return response

    # Imported here: the CSRF module imports is_api_request from this one.
    from .csrf import StaleFormError

    @app.errorhandler(StaleFormError)
    def stale_form(error: StaleFormError) -> Any:
        # What was typed is not lost with the token: it comes back with a fresh one (this
        # page draws it), to send again with one tap. Only where the browser says the form
        # was this sheet's own: another site's forged form must not get a button to confirm.
        if _sent_from_this_site():
            try:
                return _page_to_send_again(400, f"{error.description} What you sent is below: send it again.",
                                           title="Nothing was saved yet")
            except HTTPException:   # the form itself cannot be read (too many parts): said without it
                pass
        return render_template("error.html", code=400, title="Nothing was saved yet",
                               message=f"{error.description} Reload the page and try again."), 400

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        message = error.description or error.name
        if is_api_request():
            # The response Werkzeug would have sent carries the headers that go with the
            # code (Allow on a 405); only its body becomes JSON.
            answer = error.get_response()
            answer.set_data(json.dumps({"error": message}))
            answer.mimetype = "application/json"
            return answer
        return render_template("error.html", code=error.code, message=message), error.code


def _page_to_send_again(code: int, message: str, title: str | None = None) -> Any:
    """The error page with what a refused form sent, to send again as it was, and where it
    was going (the game, hand and player its address names)."""
    sent = [(name, value) for name, values in request.form.lists() if name != "csrf_token"
            for value in values] if request.method == "POST" else []
    files = [upload.filename or name for name, upload in request.files.items(multi=True) if upload]
    # Shown: what a person typed or chose; the page's own bookkeeping is sent again unseen.
    shown = [(name.replace("_", " "), value) for name, value in sent
             if value and name not in ("mode", "photo_id", "was", "form_id") and not name.endswith("_was")]
    # A form that carried a photo cannot be sent again without it: back to its page instead.
    back = _same_site_referrer() if files else None
    return render_template("error.html", code=code, message=message, sent=sent, shown=shown, title=title,
                           files=files, retry_url=request.path, back_url=back, where=_where_sent()), code


def _where_sent() -> str | None:
    """The game, hand and player a form was sent for, in words ("Game 2, hand 4, Ben"), from
    its address; None where it names no game or the game cannot be read now."""
    args = request.view_args or {}
    if "game_id" not in args:
        return None
    try:
        from .model import load_game, seating_token   # here: the model imports the database layer this module serves

        game = load_game(args["game_id"])
    except Exception:   # the book unavailable, the game gone: said without it
        return None
    words = [f"Game {game['id']}"]
    if "hand" in args and 1 <= args["hand"] <= 7:
        words.append(f"hand {args['hand']}")
    if "seat" in args and 1 <= args["seat"] <= len(game["players"]):
        # Named only where the page's seating is the game's: after a move the seat is another's.
        if request.form.get("seating") in (None, seating_token(game)):
            words.append(game["players"][args["seat"] - 1]["name"])
    return ", ".join(words)


def _sent_from_this_site() -> bool:
    """Whether the browser says this request came from one of the sheet's own pages
    (``Origin``, or ``Sec-Fetch-Site`` where a browser sends no ``Origin``)."""
    origin = request.headers.get("Origin")
    if origin is not None:
        return urlsplit(origin).netloc == request.host
    return request.headers.get("Sec-Fetch-Site") == "same-origin"


def is_api_request() -> bool:
    """Whether the request is for the JSON API (``/api`` or under ``/api/``), answered in JSON."""
    return request.path == "/api" or request.path.startswith("/api/")


def _same_site_referrer() -> str | None:
    """The page a request came from, where it is this sheet's own; else None."""
    referrer = request.referrer
    if not referrer:
        return None
    parts = urlsplit(referrer)
    if parts.netloc != request.host or parts.scheme not in ("http", "https"):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")
