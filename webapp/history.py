"""History: the players' standings over finished games, every game with its round-by-round
breakdown; CSV and JSON export."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, url_for

from onze_vision.messages import quoted
from onze_vision.variants import get_variant

from . import model
from .db import get_db, remove_snapshot, rescue_copy, snapshot

bp = Blueprint("history", __name__)


#: Games shown hand by hand on one page of the history: a book of 1,000 games on one page
#: was 13 MB of HTML, 6 s for a desktop browser to draw.
GAMES_PER_PAGE = 20


@bp.route("/history")
def index() -> str:
    """The standings over every finished game; the games, newest first, each hand by hand,
    :data:`GAMES_PER_PAGE` to a page (``?page=2`` for older ones); then the games deleted
    lately, to bring back."""
    every_game = model.game_summaries()   # the standings count them all
    on_page, page, pages = page_of(every_game, request.args.get("page", "1"), "the history")
    # The standings over one variant's games where asked (?rules=onze): totals of other rules
    # do not compare. Each variant the finished games were played by is offered.
    rules = request.args.get("rules", "")
    counted = model.games_by_rules(every_game, rules)
    played = sorted({game["variant_name"] for game in every_game if game["finished"]})
    unknown_rules = model.unknown_rules_note(model.games_of_unknown_rules())
    deleted_unknown_rules = model.unknown_rules_note(model.games_of_unknown_rules(deleted=True), deleted=True)
    return render_template("history.html", games=model.list_games(g["id"] for g in on_page),
                           rescues=model.rescues(), unknown_rules=unknown_rules,
                           deleted_unknown_rules=deleted_unknown_rules,
                           standings=model.standings(counted), rules=rules,
                           rules_played=[model.variant_info(get_variant(name)) for name in played],
                           finished=sum(game["finished"] for game in counted),
                           page=page, pages=pages, total=len(every_game),
                           first=(page - 1) * GAMES_PER_PAGE + 1,
                           deleted=model.deleted_games(), kept_days=model.DELETED_GAME_DAYS)


def page_of(games: list[dict[str, Any]], asked: str, what: str) -> tuple[list[dict[str, Any]], int, int]:
    """Page ``asked`` (as sent in ``?page=``, from 1) of ``games``, :data:`GAMES_PER_PAGE` to a
    page, with its number and how many pages there are; 404 for a page ``what`` lacks, 400
    for a ``page`` that is no number (a client's mistake, not a page gone)."""
    pages = max(1, math.ceil(len(games) / GAMES_PER_PAGE))
    # An empty or odd page is quoted: "Page '' of the games", not "Page  of the games".
    shown = asked if asked.strip() and asked.isprintable() and len(asked) <= 20 else quoted(asked)
    digits = asked.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        abort(400, f"Page {shown} of {what} is no page number: it has pages 1-{pages}.")
    page = int(asked) if len(digits) <= 9 else 0
    if not 1 <= page <= pages:
        abort(404, f"Page {shown} of {what} doesn't exist: it has pages 1-{pages}.")
    first = (page - 1) * GAMES_PER_PAGE
    return games[first:first + GAMES_PER_PAGE], page, pages


@bp.route("/games/<int:game_id>/restore", methods=("POST",))
def restore_game(game_id: int) -> Any:
    """Bring a deleted game back into the book, as it was."""
    model.restore_game(game_id)
    flash(f"Game {game_id} is back in the book.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id))


@bp.route("/games/<int:game_id>/delete-for-good", methods=("POST",))
def delete_for_good(game_id: int) -> Any:
    """Remove a deleted game with its scores and photos (the page asks first)."""
    game = model.delete_game_for_good(game_id)
    flash(f"Game {game_id} ({', '.join(p['name'] for p in game['players'])}) and its photos are gone for good.", "ok")
    return redirect(url_for("history.index") + "#deleted")


# A text cell starting with one of these is a formula to a spreadsheet: a player named
# '=HYPERLINK(...)' must stay a name (OWASP's advice: lead with a quote).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


# A formula start after a separator a spreadsheet may split on: where the list separator
# is ";" (Dutch, German, French Excel), "x;=2*21" opens its second cell with "=".
_FORMULA_AFTER_SEPARATOR = re.compile(r"([;\t\r\n|] *)(?=[" + re.escape("".join(FORMULA_STARTS)) + "])")


def spreadsheet_safe(cell: Any) -> Any:
    """``cell`` as a spreadsheet shows it as text: a ' before anything it would run, at the
    start or after a separator a spreadsheet in another language may split the cell on."""
    if not isinstance(cell, str):
        return cell
    cell = _FORMULA_AFTER_SEPARATOR.sub(r"\1'", cell)
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


#: The separators a CSV may be asked for (``?sep=``): a comma, or a semicolon for a spreadsheet
#: whose language writes decimal commas (Dutch, German, Spanish, French Excel), which opens a
#: comma CSV with every row in one column.
CSV_SEPARATORS = {"comma": ",", "semicolon": ";"}


def csv_separator(asked: str | None) -> str:
    """The separator ``?sep=`` asks for (a comma when not asked); 400 for another word."""
    if asked is None:
        return ","
    if asked not in CSV_SEPARATORS:
        abort(400, f"sep is {' or '.join(CSV_SEPARATORS)}, not {quoted(asked)}.")
    return CSV_SEPARATORS[asked]


def game_csv(game: dict[str, Any], separator: str = ",") -> str:
    """The sheet as CSV: one row per hand, one column per player, then totals and notes."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=separator)

    def row(*cells: Any) -> None:
        writer.writerow([spreadsheet_safe(cell) for cell in cells])

    names = [p["name"] for p in game["players"]]
    # "doubled": the points of the hand are doubled, by a splash or by the rules (llenroc's
    # hand 7 always is): a doubled hand's points read right only with it said.
    row("hand", "contract", "cards dealt", "dealer", *names, "went out", "splash", "doubled", "note")
    for h in game["hands"]:
        row(h["number"], h["contract"], h["cards_dealt"], names[h["dealer"] - 1],
            *["" if s is None else s["points"] for s in h["scores"]],
            names[h["out"] - 1] if h["out"] else "", "yes" if h["splash"] else "", "x2" if h["doubled"] else "",
            h["note"])
    row("total", "", "", "", *game["totals"], "", "", "", "")
    row("winner", ", ".join(names[s - 1] for s in game["winners"]))
    if game["ended_after"]:
        row("ended after hand", game["ended_after"])
    row("game note", game["note"])
    return out.getvalue()


# Excel reads a CSV as UTF-8 only when it starts with a byte-order mark ("Zoë", not "ZoÃ«").
UTF8_BOM = "\ufeff"


def _download_name(game: dict[str, Any], ext: str) -> str:
    return f"onze-game-{game['id']}-{game['variant']['name']}.{ext}"


@bp.route("/history/onze-book.sqlite")
def export_book() -> Response:
    """Download every game, score and photo as one SQLite file: ``onze-vision serve
    --database FILE`` opens it on another machine."""
    name = f"onze-book-{time.strftime('%Y-%m-%d')}.sqlite"
    if request.method == "HEAD":
        return _head_of_copy(name)
    return _send_copy(snapshot(get_db()), name)


#: What a downloaded book is sent as.
BOOK_MIMETYPE = "application/vnd.sqlite3"


def _head_of_copy(name: str) -> Response:
    """What a HEAD of a download is told (a download manager asks first): no copy of the
    book is made for it (copying a large book takes seconds), so no length is said."""
    return Response(mimetype=BOOK_MIMETYPE, headers=_download_headers(name))


def _download_headers(name: str) -> dict[str, str]:
    """The headers that make a browser save a response as the file ``name``."""
    return {"Content-Disposition": f'attachment; filename="{name}"'}


def _send_copy(path: Path, name: str, headers: dict[str, str] | None = None) -> Response:
    """Send a copy of the book made for a download, as ``name``, and remove it."""
    def chunks() -> Iterator[bytes]:
        # Sent a megabyte at a time, and removed once sent (or once the download is dropped).
        try:
            with path.open("rb") as copy:
                while block := copy.read(1 << 20):
                    yield block
        finally:
            remove_snapshot(path)

    response = Response(chunks(), mimetype=BOOK_MIMETYPE,
                        headers={**_download_headers(name), "Content-Length": str(path.stat().st_size),
                                 **(headers or {})})
    # And where the body is never read (a download dropped before its first byte): a
    # generator never started has no cleanup to run, and the copy would stay behind.
    response.call_on_close(lambda: remove_snapshot(path))
    return response


@bp.route("/history/onze-book-rescued.sqlite")
def export_rescued() -> Response:
    """Download all that can still be read of a damaged book, row by row, as one SQLite file
    (the whole-book download offers it when the book cannot be copied whole)."""
    name = f"onze-book-rescued-{time.strftime('%Y-%m-%d')}.sqlite"
    if request.method == "HEAD":
        return _head_of_copy(name)
    path, lost = rescue_copy(get_db())
    current_app.logger.warning("rescued the book; rows that could not be read: %s", lost or "none")
    # What was lost, for whoever looks: {"photo": 2} is two photos; -1 a table lost whole.
    return _send_copy(path, name, {"X-Onze-Rows-Lost": json.dumps(lost)})


@bp.post("/history/rescues/<int:rescue_id>/seen")
def rescue_seen(rescue_id: int) -> Any:
    """The note of a rescued book was read: the home page stops showing it."""
    model.mark_rescue_seen(rescue_id)
    return redirect(url_for("index"))


@bp.route("/games/<int:game_id>/export.csv")
def export_csv(game_id: int) -> Response:
    """Download the sheet as CSV (``?sep=semicolon``: for a spreadsheet in a decimal-comma language)."""
    separator = csv_separator(request.args.get("sep"))
    game = model.load_game(game_id)
    return Response(UTF8_BOM + game_csv(game, separator), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{_download_name(game, "csv")}"'})


@bp.route("/games/<int:game_id>/export.json")
def export_json(game_id: int) -> Response:
    """Download the whole game (the API's game object) as JSON."""
    game = model.load_game(game_id)
    return Response(json.dumps(game, indent=2, ensure_ascii=False), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{_download_name(game, "json")}"'})


@bp.route("/games/<int:game_id>/print")
def printable(game_id: int) -> str:
    """A clean score sheet for paper (the print stylesheet does the rest)."""
    return render_template("print.html", game=model.load_game(game_id))
