"""What this phone's session remembers between pages, a few entries per kind: the games the
new-game forms it sent started, the photos it read and has not saved. The session is a
signed cookie, so each kind keeps only its newest entries."""

from __future__ import annotations

from typing import Any

from flask import Flask, session


def _lasting() -> None:
    # Kept when the browser closes (Flask's default: 31 days): a phone's home-screen app may
    # be closed between hands, and with its cookie went its token, its photos read and not
    # saved, and the scores it could put back. Set once: setting it marks the session changed.
    if not session.permanent:
        session.permanent = True


def init_app(app: Flask) -> None:
    """Keep each phone's session across browser restarts. The cookie is sent only when the
    session changes: sent with every answer (a stylesheet, the sheet's poll every few
    seconds), an answer begun before a save and ended after it put back the session as it
    was, losing what the save remembered."""
    app.config["SESSION_REFRESH_EACH_REQUEST"] = False
    app.before_request(_lasting)


def remember(kind: str, key: str, value: Any, keep: int) -> None:
    """Remember ``value`` under ``key`` among the ``kind`` entries, keeping the newest ``keep``."""
    entries = {k: v for k, v in session.get(kind, {}).items() if k != key}
    session[kind] = {**dict(list(entries.items())[-(keep - 1):]), key: value}


def recall(kind: str, key: str) -> Any:
    """What ``key`` holds among the ``kind`` entries; None when nothing."""
    return session.get(kind, {}).get(key)


def forget(kind: str, key: str) -> None:
    """Forget ``key`` among the ``kind`` entries."""
    if key in session.get(kind, {}):
        session[kind] = {k: v for k, v in session[kind].items() if k != key}
