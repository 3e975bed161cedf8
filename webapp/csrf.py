"""CSRF protection in a few lines: one random token per session.

Every POST/PUT/PATCH/DELETE must send it back, as the form field ``csrf_token`` or the
``X-CSRF-Token`` header (the page's fetch calls), unless the view is marked
:func:`exempt` (API calls that compute and change nothing).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import TypeVar

from flask import Flask, abort, current_app, request, session
from werkzeug.exceptions import BadRequest

from .errors import is_api_request

F = TypeVar("F", bound=Callable)
_exempt_views: set[str] = set()


class StaleFormError(BadRequest):
    """A page's form sent without the session's token (the page was open across a restart,
    or the phone let go of the session's cookie): answered with what was sent, to send again."""

    description = ("This phone had forgotten the score sheet (the page was open a long time, or the phone "
                   "let go of its cookie), so nothing was saved.")


def get_token() -> str:
    """The session's token, created on first use."""
    if "csrf_token" not in session:
        session["csrf_token"] = secrets.token_urlsafe(32)
    return session["csrf_token"]


def exempt(view: F) -> F:
    """Mark a view that changes nothing as not needing the token."""
    _exempt_views.add(f"{view.__module__}.{view.__name__}")
    return view


def _check() -> None:
    if request.method in ("GET", "HEAD", "OPTIONS") or not current_app.config["CSRF_ENABLED"]:
        return
    if request.routing_exception is not None:
        return   # no view will run: the answer is the 404 or 405, not a token's absence
    view = current_app.view_functions.get(request.endpoint or "")
    if view is not None and f"{view.__module__}.{view.__name__}" in _exempt_views:
        return
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    expected = session.get("csrf_token")
    if not expected or not hmac.compare_digest(str(sent), expected):
        if is_api_request():
            abort(400, "The security token (the X-CSRF-Token header) is missing or out of date: send "
                       "the one GET /api/csrf gives, with the session cookie it sets.")
        raise StaleFormError()


def init_app(app: Flask) -> None:
    """Check the token before every request and give templates ``csrf_token()``."""
    app.before_request(_check)
    app.jinja_env.globals["csrf_token"] = get_token
