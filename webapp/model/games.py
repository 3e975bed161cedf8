"""Reading games from the book: one game whole (:func:`load_game`), lists and summaries for
the home page and History, standings, the versions a page's change is checked against; and
the count every change adds to (:func:`_touch`), which a page open on another phone watches.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from flask import abort

from onze_vision.messages import listed, quoted
from onze_vision.variants import VARIANTS, get_variant

from ..db import get_db
from .engine import is_doubled, variant_info
from .housekeeping import DELETED_GAME_DAYS
from .inputs import HANDS, SeatingChangedError
from .names import name_key

#: How recent a game of the same players and rules must be for a new one to be asked about.
TWIN_MINUTES = 30


def recent_twin(variant_name: str, names: Sequence[str]) -> dict[str, Any] | None:
    """The newest game in the book started in the last :data:`TWIN_MINUTES` minutes with the
    same rules and players in the same seats (letter case and spaces aside) and not finished,
    as ``{"id", "minutes"}``: the same table started on a second phone. None where there is none."""
    if str(variant_name or "").strip().lower() not in VARIANTS:
        return None   # no game of rules this version does not know is started here to be a twin
    wanted = [name_key(str(name).strip()) for name in names]
    rows = get_db().execute(
        "SELECT id, CAST((julianday('now') - julianday(created)) * 1440 AS INTEGER) AS minutes FROM game"
        " WHERE deleted IS NULL AND variant = ? AND created >= datetime('now', ?) ORDER BY id DESC",
        (str(variant_name or "").strip().lower(), f"-{TWIN_MINUTES} minutes")).fetchall()
    for row in rows:
        seated = [name_key(r["name"]) for r in get_db().execute(
            "SELECT name FROM player WHERE game_id = ? ORDER BY seat", (row["id"],))]
        if seated == wanted and not load_game(row["id"])["finished"]:
            return {"id": row["id"], "minutes": row["minutes"]}
    return None


def short_deal_text(game: dict[str, Any], hand: dict[str, Any]) -> str | None:
    """Why ``hand`` of ``game`` (as :func:`load_game` gives them) cannot be dealt with a
    stock left (:meth:`~onze_vision.variants.Variant.short_deal_reason`), or None when it can."""
    reason = get_variant(game["variant"]["name"]).short_deal_reason(len(game["players"]), hand["number"])
    return None if reason is None else f"{reason}. Agree at the table how to play this hand before dealing."


def deal_warnings(game_id: int) -> list[str]:
    """A line for each hand of the game that cannot be dealt with a stock left; most games have none."""
    game = load_game(game_id)
    return [f"Hand {hand['number']}: {text}" for hand in game["hands"]
            if (text := short_deal_text(game, hand)) is not None]


# SQLite's integers are 64-bit: a larger id in a URL names no row (and must not raise).
MAX_ROW_ID = 2**63 - 1
#: The most digits a row id has (19): a longer number names no row.
ROW_ID_DIGITS = len(str(MAX_ROW_ID))


def _row_by_id(sql: str, row_id: int) -> sqlite3.Row | None:
    """The row ``sql`` (one ``?`` for the id) finds, or None; an id SQLite cannot hold finds none."""
    return get_db().execute(sql, (row_id,)).fetchone() if 0 <= row_id <= MAX_ROW_ID else None


def _inserted_id(cursor: sqlite3.Cursor) -> int:
    """The id SQLite gave the row an INSERT just made (typed optional; never None after one)."""
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _game_row(game_id: int, *, deleted: bool = False) -> sqlite3.Row:
    """The game's row, in the book or (``deleted``) among the deleted games; else a 404 (a
    409 for a game of rules this version does not know: :func:`games_of_unknown_rules`)."""
    row = _row_by_id("SELECT * FROM game WHERE id = ?", game_id)
    if row is None or (row["deleted"] is not None) != deleted:
        if deleted:
            abort(404, f"Game {game_id} is not among the deleted games (they are kept {DELETED_GAME_DAYS} days).")
        if row is not None:   # a link kept from before it was deleted: say where it is
            abort(404, f"Game {game_id} was deleted ({row['deleted']} UTC): History keeps it "
                       f"{DELETED_GAME_DAYS} days from then, to bring back.")
        abort(404, f"Game {game_id} doesn't exist.")
    if row["variant"] not in VARIANTS:   # refused before anything is read or written
        abort(409, unknown_rules_text(game_id, row["variant"]))
    return row


#: What a player can do about a game of rules this version does not know.
UNKNOWN_RULES_REMEDY = "Update Onze Vision (or open the book where it was made) to see"


def unknown_rules_text(game_id: int, variant_name: str) -> str:
    """Why a game played by rules this version does not know is not shown, and what to do."""
    return (f"Game {game_id} is played by rules this version of Onze Vision does not know ({quoted(variant_name)}): "
            f"the book comes from a newer version, or one with rules of its own. {UNKNOWN_RULES_REMEDY} it; "
            "it is kept as it was, and every other game is shown.")


#: The most game numbers a note names (a book of years may hold hundreds of such games).
NAMED_AT_MOST = 8


def unknown_rules_note(games: Sequence[dict[str, Any]], *, deleted: bool = False) -> str:
    """The note the home page and History show for :func:`games_of_unknown_rules` ("" for none):
    which games, which rules, what is done with them and what to do."""
    if not games:
        return ""
    one = len(games) == 1
    numbers = [str(game["id"]) for game in games[:NAMED_AT_MOST]]
    if len(games) > NAMED_AT_MOST:
        numbers.append(f"{len(games) - NAMED_AT_MOST} more")
    # A name is shown as stored, its middle cut where long (a book may hold anything there).
    rules = listed([name if len(name) <= 40 else f"{name[:18]}…{name[-18:]}"
                    for name in dict.fromkeys(str(g["variant"]) for g in games)])
    who = f"{'Deleted game' if deleted else 'Game'}{'' if one else 's'} {listed(numbers)} {'is' if one else 'are'}"
    if deleted:
        last = min(game["kept_until"] for game in games)
        done = (f"{'it' if one else 'they'} cannot be brought back here, and {'goes' if one else 'go'} for good "
                f"from {last} UTC, as every deleted game does after {DELETED_GAME_DAYS} days")
    else:
        done = f"kept in the book as {'it was' if one else 'they were'}, but left out of the lists and the standings"
    return (f"{who} played by rules this version of Onze Vision does not know ({rules}): {done}. "
            f"{UNKNOWN_RULES_REMEDY} {'it' if one else 'them'}.")


def load_game(game_id: int, *, deleted: bool = False) -> dict[str, Any]:
    """Everything the sheet shows about a game, JSON-ready; 404 if it does not exist (or,
    with ``deleted``, is not among the deleted games), 409 if it is played by rules this
    version does not know (:func:`games_of_unknown_rules`)."""
    db = get_db()
    game = _game_row(game_id, deleted=deleted)
    variant = get_variant(game["variant"])
    # ``id``: the player's row, the same through a move to another seat and a new name.
    players = [dict(seat=r["seat"], name=r["name"], id=r["id"]) for r in
               db.execute("SELECT rowid AS id, seat, name FROM player WHERE game_id = ? ORDER BY seat", (game_id,))]
    hand_rows = {r["number"]: r for r in db.execute("SELECT * FROM hand WHERE game_id = ?", (game_id,))}
    score_rows: dict[tuple[int, int], sqlite3.Row] = {
        (r["hand"], r["seat"]): r for r in db.execute("SELECT * FROM score WHERE game_id = ?", (game_id,))}
    n = len(players)
    # A game the table ended early is judged on the hands it played; scores saved in a hand
    # after those are kept, shown, and counted again if the table plays on.
    ended_after = game["ended_after"]
    played = ended_after or len(HANDS)
    totals = [0] * n
    hands = []
    for number in HANDS:
        counted = number <= played
        row = hand_rows.get(number)
        splash = bool(row["splash"]) if row else False
        scores: list[dict[str, Any] | None] = []
        out_seat = row["out_seat"] if row else None
        for i, player in enumerate(players):
            s = score_rows.get((number, player["seat"]))
            saved = None if s is None else {
                "points": s["points"], "base": s["base"],
                "cards": json.loads(s["cards"]) if s["cards"] is not None else None,
                "photo_id": s["photo_id"], "updated": s["updated"], "version": score_version(s)}
            # Every score has the same keys: only the going-out 0's may hold one set aside.
            shown = None if saved is None else {**saved, "set_aside": None}
            if player["seat"] == out_seat:
                # Going out scores 0. A score saved before the mark is set aside, not
                # overwritten, so undoing a mistaken mark brings it back.
                aside = saved if s is not None and not _is_going_out_row(s) else None
                scores.append({"points": 0, "base": 0, "cards": [], "photo_id": None,
                               "updated": saved["updated"] if saved else None, "set_aside": aside,
                               "version": score_version(s)})
                continue
            if saved is None:
                scores.append(None)
                continue
            if counted:
                totals[i] += saved["points"]
            scores.append(shown)
        hands.append({
            "number": number,
            "contract": str(variant.contract(number)),
            "cards_dealt": variant.cards_dealt(number),
            "cards_left": variant.cards_left_after_deal(n, number),
            "short_deal": not variant.can_deal(n, number),
            "dealer": (game["first_dealer"] - 1 + number - 1) % n + 1,
            "out": out_seat,
            "splash": splash,
            "doubled": is_doubled(variant, number, splash),
            "note": row["note"] if row else "",
            "scores": scores,
            "complete": all(s is not None for s in scores),
            # Every score in and no one marked out, though a hand ends with one player going
            # out (who scores 0): the mark was most likely forgotten. Not in a hand dealt
            # without a stock (Ons, 8 players, hand 7), which the table plays as it agrees.
            "out_unmarked": out_seat is None and variant.can_deal(n, number)
            and all(s is not None and s["points"] > 0 for s in scores),
            "started": any(s is not None for s in scores),
            "counted": counted,
            "totals": list(totals),
        })
    in_play = hands[:played]
    finished = all(h["complete"] for h in in_play)
    # The hand in play: the last one begun while it lacks a score, else the one after it. A
    # score left out of an earlier hand does not hold the table back: it is listed as missing.
    last = max((h["number"] for h in in_play if h["started"] or h["out"] is not None), default=0)
    if last and not hands[last - 1]["complete"]:
        current: int | None = last
    else:
        current = last + 1 if last < played else None
    missing = [{"hand": h["number"],
                "seats": [p["seat"] for p, score in zip(players, h["scores"]) if score is None]}
               for h in in_play if not h["complete"] and h["number"] < (current or played + 1)]
    # The leader is judged on complete hands only: a player whose score for the hand in
    # play is not saved yet would otherwise look ahead.
    complete = [h for h in in_play if h["complete"]]
    standing = [sum(h["scores"][i]["points"] for h in complete) for i in range(n)]
    # The hand the table could end the game after now: the last one every player has a score for.
    last_complete = max((h["number"] for h in hands if h["complete"]), default=0)
    can_end_after = last_complete if ended_after is None and not finished and 0 < last_complete < len(HANDS) \
        else None
    leaders: list[int] = []
    if complete:
        best = min(standing)
        leaders = [p["seat"] for p, t in zip(players, standing) if t == best]
    return {
        "id": game["id"], "variant": variant_info(variant), "decks": game["decks"],
        "first_dealer": game["first_dealer"], "note": game["note"], "corners": game["corners"],
        "joker_shown": bool(game["joker_look"]),
        "created": game["created"], "updated": game["updated"], "changes": game["changes"],
        "deleted": game["deleted"], "ended_after": ended_after,
        "players": players, "hands": hands, "totals": totals,
        "current_hand": current, "finished": finished, "missing": missing,
        "out_unmarked": [h["number"] for h in in_play if h["out_unmarked"]],
        "complete_numbers": [h["number"] for h in complete],
        "leaders": leaders, "winners": leaders if finished else [],
        "complete_hands": len(complete), "standing": standing, "can_end_after": can_end_after,
    }


def score_version(row: sqlite3.Row | None) -> str:
    """A saved score's row as a short token ("" for none): a page sends back the token of the
    score it showed, so that a score changed on another phone since is not replaced unseen
    (``updated`` alone counts whole seconds, and two saves can share one)."""
    if row is None:
        return ""
    return _token(f"{row['updated']}|{row['base']}|{row['points']}|{row['cards']}|{row['photo_id']}")


def _token(seen: str) -> str:
    """A short token of ``seen`` that a page sends back to say what it showed."""
    return hashlib.sha256(seen.encode()).hexdigest()[:16]


def score_words(score: dict[str, Any] | sqlite3.Row | None) -> str:
    """A saved score as the pages say it: "35 with Q♥ 7♠ K♦", "a typed 35", or "no score"."""
    from ..ui import card_label  # display words, as the chips show cards

    if score is None:
        return "no score"
    cards = score["cards"]
    if isinstance(cards, str):
        cards = json.loads(cards)
    if cards is None:
        return f"a typed {score['points']}"
    return f"{score['points']} with {' '.join(card_label(c) for c in cards)}" if cards else f"{score['points']}"


def _seating_of(player_ids: Iterable[int]) -> str:
    return _token(",".join(map(str, player_ids)))


def seating_token(game: dict[str, Any]) -> str:
    """Who sits where, as a short token: a page sends back the seating it was drawn with, so
    that a seat number it names still means the player it showed. A new name keeps it."""
    return _seating_of(p["id"] for p in game["players"])


def check_seating(db: sqlite3.Connection, game_id: int, seating: str | None) -> None:
    """Refuse a change sent by a page drawn before the players were moved to other seats
    (``seating`` as :func:`seating_token` gave it; None: not said, the API)."""
    if seating is None:
        return
    rows = db.execute("SELECT rowid, name FROM player WHERE game_id = ? ORDER BY seat", (game_id,)).fetchall()
    if seating != _seating_of(row["rowid"] for row in rows):
        raise SeatingChangedError(f"The players were moved to other seats on another device since this page was "
                                  f"opened (they now sit {', '.join(row['name'] for row in rows)}), so nothing "
                                  "was saved: open the player's page again.")


def result_text(game: dict[str, Any]) -> str:
    """A finished game's result in words: "Ana wins with 85", "Ana and Bo win with 85"."""
    winners = game["winners"]
    names = " and ".join(_player_name(game, seat) for seat in winners)
    return f"{names} {'wins' if len(winners) == 1 else 'win'} with {game['totals'][winners[0] - 1]}"


def _is_going_out_row(row: sqlite3.Row) -> bool:
    """The empty 0 row that marking a player out wrote before scores were set aside (and that
    saving no cards for the player who went out writes): no score to keep."""
    return row["cards"] == "[]" and row["base"] == 0


def list_games(ids: Iterable[int] | None = None) -> list[dict[str, Any]]:
    """The games ``ids`` (every game in the book where None), newest first, fully loaded;
    those played by rules this version does not know are left out (they cannot be added up)."""
    if ids is None:
        ids = [r["id"] for r in get_db().execute("SELECT id, variant FROM game WHERE deleted IS NULL")
               if r["variant"] in VARIANTS]
    return [load_game(game_id) for game_id in sorted(ids, reverse=True)]


def games_of_unknown_rules(*, deleted: bool = False) -> list[dict[str, Any]]:
    """The games in the book played by rules this version does not know, oldest first, as
    ``{"id", "variant"}``: a book made by a newer version, with rules added since, or by a
    checkout with rules of its own. The lists, totals and standings leave them out, and
    every request on one answers 409 saying why; nothing of them is changed.

    ``deleted``: those among the deleted games instead, with ``kept_until`` (UTC), when
    they go for good as every deleted game does (:data:`DELETED_GAME_DAYS`)."""
    if deleted:
        rows = get_db().execute("SELECT id, variant, datetime(deleted, ?) AS kept_until FROM game"
                                " WHERE deleted >= datetime('now', ?) ORDER BY id",
                                (f"+{DELETED_GAME_DAYS} days", f"-{DELETED_GAME_DAYS} days"))
        return [{"id": r["id"], "variant": r["variant"], "kept_until": r["kept_until"]}
                for r in rows if r["variant"] not in VARIANTS]
    return [{"id": r["id"], "variant": r["variant"]}
            for r in get_db().execute("SELECT id, variant FROM game WHERE deleted IS NULL ORDER BY id")
            if r["variant"] not in VARIANTS]


def game_summaries() -> list[dict[str, Any]]:
    """Every game in the book, newest first, as much as the lists and the standings need:
    ``id``, ``players``, ``ended_after``, ``totals``, ``finished`` and ``winners``, as
    :func:`load_game` gives them, and ``variant_name``. Three queries for the whole book:
    loading each game whole took a second for the home page of a book of 3,000 games."""
    db = get_db()
    games: dict[int, dict[str, Any]] = {
        r["id"]: {"id": r["id"], "ended_after": r["ended_after"], "variant_name": r["variant"], "players": [],
                  "totals": []}
        for r in db.execute("SELECT id, ended_after, variant FROM game WHERE deleted IS NULL ORDER BY id DESC")}
    for r in db.execute("SELECT player.rowid AS id, player.game_id, seat, name FROM player"
                        " JOIN game ON game.id = player.game_id WHERE game.deleted IS NULL ORDER BY player.game_id, seat"):
        games[r["game_id"]]["players"].append({"seat": r["seat"], "name": r["name"], "id": r["id"]})
    for game in games.values():
        game["totals"] = [0] * len(game["players"])
        game["_have"] = 0
    # Each (hand, seat) of a hand played that has a score: a saved row, or the mark of
    # the player who went out (who scores 0, a row saved before the mark set aside).
    rows = db.execute(
        "SELECT s.game_id, s.seat, SUM(s.points) AS total, COUNT(*) AS scored FROM score s"
        " JOIN game g ON g.id = s.game_id AND g.deleted IS NULL"
        " LEFT JOIN hand h ON h.game_id = s.game_id AND h.number = s.hand"
        " WHERE s.hand <= COALESCE(g.ended_after, 7) AND s.seat IS NOT h.out_seat"
        " GROUP BY s.game_id, s.seat")
    for r in rows:
        game = games[r["game_id"]]
        game["totals"][r["seat"] - 1] = r["total"]
        game["_have"] += r["scored"]
    for r in db.execute("SELECT h.game_id FROM hand h JOIN game g ON g.id = h.game_id AND g.deleted IS NULL"
                        " WHERE h.out_seat IS NOT NULL AND h.number <= COALESCE(g.ended_after, 7)"):
        games[r["game_id"]]["_have"] += 1
    for game in games.values():
        played = game["ended_after"] or len(HANDS)
        game["finished"] = game.pop("_have") == played * len(game["players"])
        best = min(game["totals"], default=0)
        game["winners"] = [p["seat"] for p, total in zip(game["players"], game["totals"])
                           if total == best] if game["finished"] else []
    # Games of rules this version does not know are left out: their totals cannot be judged.
    return [game for game in games.values() if game["variant_name"] in VARIANTS]


def deleted_games() -> list[dict[str, Any]]:
    """The deleted games kept to bring back, last deleted first: :data:`DELETED_GAME_DAYS`
    days, then removed (:func:`forget_deleted_games`) by the next deletion or the server's
    next look for what is old (:mod:`webapp.keepsake`), whichever comes first. One past its
    days and not yet removed is not offered."""
    ids = [r["id"] for r in get_db().execute(
        "SELECT id, variant FROM game WHERE deleted >= datetime('now', ?) ORDER BY deleted DESC, id DESC",
        (f"-{DELETED_GAME_DAYS} days",)) if r["variant"] in VARIANTS]
    return [load_game(game_id, deleted=True) for game_id in ids]


def games_by_rules(games: list[dict[str, Any]], rules: str | None) -> list[dict[str, Any]]:
    """The ``games`` (:func:`game_summaries`) played by the variant named ``rules`` (all of
    them for None or ""): totals of different rules do not compare. 404 where no finished
    game was played by them."""
    if not rules:
        return games
    chosen = [game for game in games if game["variant_name"] == rules]
    if not any(game["finished"] for game in chosen):
        played = sorted({game["variant_name"] for game in games if game["finished"]})
        abort(404, f"No finished game was played by the rules {quoted(rules)}"
                   + (f": the book's are {', '.join(played)}." if played else ": the book has no finished game yet."))
    return chosen


def standings(games: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each player's record over the finished ``games`` (as :func:`load_game` gives them).

    A player is known by name, letter case aside, and shown as last written. Rows hold
    ``name``, ``games``, ``wins`` (a shared lowest total is a win for each), ``average``
    (final total) and ``best`` (lowest final total), these two over the games played to
    hand 7 (None where a player has none); most wins first, then most games,
    then the lower average.
    """
    rows: dict[str, dict[str, Any]] = {}
    # Oldest first, so that the newest spelling of a name is the one shown.
    for game in sorted((g for g in games if g["finished"]), key=lambda g: g["id"]):
        for player, total in zip(game["players"], game["totals"]):
            row = rows.setdefault(name_key(player["name"]), {"games": 0, "wins": 0, "totals": []})
            row["name"] = player["name"]
            row["games"] += 1
            row["wins"] += player["seat"] in game["winners"]
            # A game ended early is won and lost, but its total is of fewer hands: it would
            # pass for a best of a whole game.
            if game["ended_after"] is None:
                row["totals"].append(total)
    table = [{"name": row["name"], "games": row["games"], "wins": row["wins"],
              "average": sum(row["totals"]) / len(row["totals"]) if row["totals"] else None,
              "best": min(row["totals"], default=None)}
             for row in rows.values()]
    return sorted(table, key=lambda row: (-row["wins"], -row["games"],
                                          math.inf if row["average"] is None else row["average"],
                                          row["name"].casefold()))


def _player_name(game: dict[str, Any], seat: int) -> str:
    return game["players"][seat - 1]["name"]


def check_hand_and_seat(game: dict[str, Any], hand: int, seat: int | None = None) -> None:
    if hand not in HANDS:
        abort(404, f"Hand {hand} doesn't exist: hands are 1-7.")
    if seat is not None and not 1 <= seat <= len(game["players"]):
        abort(404, f"Player {seat} doesn't exist in game {game['id']} "
                   f"(it has players 1-{len(game['players'])}).")


def _touch(db: sqlite3.Connection, game_id: int) -> None:
    db.execute("UPDATE game SET updated = strftime('%Y-%m-%d %H:%M:%S', 'now'), changes = changes + 1"
               " WHERE id = ?", (game_id,))


def game_changes(game_id: int) -> int:
    """How many times the game's sheet has changed (404 if no such game): one small read a
    page open on another phone repeats to know when to show the new scores."""
    return int(_game_row(game_id)["changes"])
