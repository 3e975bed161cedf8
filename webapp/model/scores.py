"""A hand's scores and marks: saved, cleared and checked against what the page showed (a
score changed on another phone meanwhile is not overwritten).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from onze_vision.cards import parse_cards
from onze_vision.messages import quoted
from onze_vision.scoring import ImpossibleHandError, check_possible, score_hand
from onze_vision.variants import Variant, get_variant

from .. import db as book
from .engine import all_variants, is_doubled, max_points, parse_card_list
from .games import (
    _is_going_out_row,
    _player_name,
    _row_by_id,
    _touch,
    check_hand_and_seat,
    check_seating,
    load_game,
    score_version,
    score_words,
)
from .inputs import (
    _UNSET,
    MAX_NOTE_LENGTH,
    GameEndedError,
    HandChangedError,
    InputError,
    ScoreChangedError,
    _as_stored,
    _clean_text,
    _whole_number,
    parse_points,
    parse_splash,
)


def _saved_score(db: sqlite3.Connection, game_id: int, hand: int, seat: int) -> sqlite3.Row | None:
    """The player's score for the hand as saved now (None: none)."""
    return db.execute("SELECT * FROM score WHERE game_id = ? AND hand = ? AND seat = ?",
                      (game_id, hand, seat)).fetchone()


def _check_unchanged(game: dict[str, Any], hand: int, seat: int, was: str | None, row: sqlite3.Row | None) -> None:
    """Refuse to replace or clear a score that changed since the page sending ``was`` (its
    :func:`score_version`) was drawn; ``was`` None: the sender showed none (the API).
    ``row``: the score saved now (:func:`_saved_score`, read inside the write transaction)."""
    if was is None:
        return
    if score_version(row) != was:
        raise ScoreChangedError(f"{_player_name(game, seat)}'s score for hand {hand} was changed on another "
                                f"device since this page was opened: it is now {score_words(row)}.",
                                score_version(row))


def save_score(game_id: int, hand: int, seat: int, *, cards: Any = None, points: Any = None,
               photo_id: Any = None, was: str | None = None, seating: str | None = None) -> dict[str, Any]:
    """Save one player's score for one hand, from the cards left or a typed number.

    Cards are scored by the engine (doubled on a splash) and checked against the decks in
    play, alone and together with the other players' saved cards for the hand. A typed
    number is the points of the cards left, before doubling. ``was``: the
    :func:`score_version` of the score the sending page showed; a score changed since is
    not replaced (:class:`ScoreChangedError`); ``seating``: the players as the page showed
    them (:func:`seating_token`), refused if they moved since. Returns the reloaded game.
    """
    with book.transaction() as db:
        # The game is read inside the write transaction: rules changed a moment ago on
        # another phone are the rules this score is counted under.
        game = load_game(game_id)
        check_hand_and_seat(game, hand, seat)
        variant = get_variant(game["variant"]["name"])
        name = _player_name(game, seat)
        players, decks = len(game["players"]), game["decks"]
        if (cards is None) == (points is None):
            raise InputError("Send either the cards left in the hand or the points, not both or neither.")
        card_codes: list[str] | None = None
        if cards is not None:
            card_codes = parse_card_list(cards)
            parsed = parse_cards(card_codes)
            check_possible(parsed, variant, players=players, decks=decks)
            base = score_hand(parsed, variant, players=players, decks=decks, splash=False).points
        else:
            try:
                base = parse_points(points)
            except InputError as error:
                raise InputError(f"For {name}: {error}") from None
            limit = max_points(variant, hand, doubled=False)
            if base > limit:
                raise InputError(f"{name}'s score {quoted(base)} is more than any hand {hand} can hold "
                                 f"(at most {limit} before doubling): check the number.")
        photo = _photo_ref(photo_id, game_id)
        _check_hand_played(db, game_id, hand)
        check_seating(db, game_id, seating)
        # Who went out, the splash and the other players' cards are read inside the write
        # transaction: one saved a moment ago by another phone must count here.
        row = db.execute("SELECT out_seat, splash FROM hand WHERE game_id = ? AND number = ?",
                         (game_id, hand)).fetchone()
        out_seat = row["out_seat"] if row else None
        splash = bool(row["splash"]) if row else False
        if card_codes is not None and not card_codes and out_seat != seat:
            raise InputError(f"No cards for {name}: only the player who went out has none left. "
                             f"Add the cards {name} holds, or mark {name} as out on the hand.")
        if out_seat == seat and base != 0:
            raise InputError(f"{name} went out in hand {hand}, so their score is 0, not {quoted(base)}.")
        saved = _saved_score(db, game_id, hand, seat)
        if _is_the_same_score(saved, base, card_codes, photo):
            # The same score sent again (a second tap, a reload that sends the form again):
            # it is saved, whatever the page showed before; nothing for other phones to reload.
            return game
        _check_unchanged(game, hand, seat, was, saved)
        if card_codes is not None:
            others = _saved_cards(db, game_id, hand, leaving_out=(seat, out_seat))
            try:
                check_possible(parse_cards(others + card_codes), variant, players=players, decks=decks)
            except ImpossibleHandError as error:
                raise ImpossibleHandError(f"With the other players' saved cards for hand {hand}: {error}") from None
            final = score_hand(parsed, variant, players=players, decks=decks, splash=splash, hand=hand).points
        else:
            final = _typed_final(variant, base, is_doubled(variant, hand, splash))
        db.execute(
            "INSERT INTO score (game_id, hand, seat, base, points, cards, photo_id) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id, hand, seat) DO UPDATE SET base = excluded.base, points = excluded.points,"
            " cards = excluded.cards, photo_id = excluded.photo_id,"
            " updated = strftime('%Y-%m-%d %H:%M:%S', 'now')",
            (game_id, hand, seat, base, final, json.dumps(card_codes) if card_codes is not None else None, photo))
        _touch(db, game_id)
    return load_game(game_id)


def _is_the_same_score(row: sqlite3.Row | None, base: int, card_codes: list[str] | None,
                       photo: int | None) -> bool:
    """Whether the saved score ``row`` is already the one being saved."""
    if row is None:
        return False
    cards = json.dumps(card_codes) if card_codes is not None else None
    return (row["base"], row["cards"], row["photo_id"]) == (base, cards, photo)


def _typed_final(variant: Variant, base: int, doubled: bool) -> int:
    """A typed score as the sheet shows it: doubled like ``score_hand`` doubles (total × 2)."""
    return base * 2 if doubled else base


def _photo_ref(photo_id: Any, game_id: int) -> int | None:
    if photo_id in (None, ""):
        return None
    photo = _whole_number(photo_id)
    if photo is None:
        raise InputError(f"Photo {quoted(photo_id)} is not a photo number.")
    row = _row_by_id("SELECT game_id FROM photo WHERE id = ?", photo)
    if row is None or row["game_id"] not in (None, game_id):
        raise InputError(f"Photo {photo} doesn't exist in game {game_id}.")
    return photo


def _check_hand_played(db: sqlite3.Connection, game_id: int, hand: int) -> None:
    """Refuse a change to a hand after the one the game was ended at (read inside the write
    transaction: the game may have been ended a moment ago on another phone)."""
    row = db.execute("SELECT ended_after FROM game WHERE id = ?", (game_id,)).fetchone()
    if row is not None and row["ended_after"] is not None and hand > row["ended_after"]:
        raise GameEndedError(f"Game {game_id} was ended after hand {row['ended_after']}: "
                             f"choose \u201cPlay on\u201d on the sheet to change hand {hand}.")


def delete_score(game_id: int, hand: int, seat: int, *, was: str | None = None,
                 seating: str | None = None) -> dict[str, Any]:
    """Clear one player's score for a hand (to re-enter it); ``was`` and ``seating`` as for
    :func:`save_score`."""
    game = load_game(game_id)
    check_hand_and_seat(game, hand, seat)
    with book.transaction() as db:
        _check_hand_played(db, game_id, hand)
        check_seating(db, game_id, seating)
        out = db.execute("SELECT out_seat FROM hand WHERE game_id = ? AND number = ?", (game_id, hand)).fetchone()
        if out is not None and out["out_seat"] == seat:
            # Their 0 is the mark's; what was saved before it is set aside, to count again if
            # the mark is undone. Clearing would lose that, and change nothing shown.
            raise InputError(f"{_player_name(game, seat)} went out in hand {hand}: the score is 0, and one "
                             "saved before is kept aside. To change it, first change who went out.")
        saved = _saved_score(db, game_id, hand, seat)
        if saved is None:
            return game   # cleared already (the same clear sent twice): what was asked is so
        _check_unchanged(game, hand, seat, was, saved)
        db.execute("DELETE FROM score WHERE game_id = ? AND hand = ? AND seat = ?", (game_id, hand, seat))
        _touch(db, game_id)
    return load_game(game_id)


def save_hand(game_id: int, hand: int, *, out: Any = _UNSET, splash: Any = _UNSET,
              note: Any = _UNSET, seating: str | None = None,
              shown: dict[str, str] | None = None) -> dict[str, Any]:
    """Record who went out, the splash and the note of a hand; rescore the hand to match.

    The player who went out scores 0; a score they had saved is set aside, not lost, and
    counts again if the mark is moved or undone. When doubling changes, every saved score
    of the hand is recomputed (cards by the engine, typed numbers from their base).
    ``shown``: the fields as the sending page showed them (:func:`hand_fields`); a field
    changed here that another device changed to something else since is not saved over
    (:class:`HandChangedError`, nothing saved). ``seating`` as for :func:`save_score`.
    """
    with book.transaction() as db:
        # Read inside the write transaction: the rules and marks saved a moment ago on
        # another phone are those this change is judged and scored under.
        game = load_game(game_id)
        check_hand_and_seat(game, hand)
        variant = get_variant(game["variant"]["name"])
        players, decks = len(game["players"]), game["decks"]
        asked_out = None if out is _UNSET else _out_seat(out, game)
        asked_splash = None if splash is _UNSET else parse_splash(splash)
        asked_note = None if note is _UNSET else _clean_text(note, "hand note", MAX_NOTE_LENGTH)
        _check_hand_played(db, game_id, hand)
        if out is not _UNSET:   # a seat named as who went out must still be the player shown
            check_seating(db, game_id, seating)
        if shown:
            sent = {field: value for field, value in (("out", out), ("splash", splash), ("note", note))
                    if value is not _UNSET}
            _check_hand_unchanged(game, hand, shown, sent)
        # What is not asked to change keeps its value as stored now, read inside the write
        # transaction: a change saved a moment ago from another phone is not undone.
        row = db.execute("SELECT out_seat, splash, note FROM hand WHERE game_id = ? AND number = ?",
                         (game_id, hand)).fetchone()
        new_out = (row["out_seat"] if row else None) if out is _UNSET else asked_out
        new_splash = (bool(row["splash"]) if row else False) if asked_splash is None else asked_splash
        new_note = (row["note"] if row else "") if asked_note is None else asked_note
        if new_splash and not variant.has_splash:
            raise InputError(f"{variant.title} has no splash: only "
                             f"{', '.join(v.title.partition(' (')[0] for v in all_variants() if v.has_splash)} doubles on a splash.")
        if new_splash and new_out is None:
            if asked_splash is None:   # the mark cleared on a hand already marked a splash
                raise InputError("This hand is marked a splash, which needs the player who went out: "
                                 "untick the splash first, then clear who went out.")
            raise InputError("A splash needs the player who went out: mark who went out.")
        old_out = row["out_seat"] if row else None
        if (new_out, new_splash, new_note) == ((old_out, bool(row["splash"]), row["note"]) if row else
                                               (None, False, "")):
            # Nothing changes: the sheets open on other phones are not told to reload.
            return load_game(game_id)
        if new_out != old_out:
            _check_cards_counted(db, game, variant, hand, new_out)
        doubled = is_doubled(variant, hand, new_splash)
        db.execute(
            "INSERT INTO hand (game_id, number, out_seat, splash, note) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id, number) DO UPDATE SET out_seat = excluded.out_seat,"
            " splash = excluded.splash, note = excluded.note",
            (game_id, hand, new_out, int(new_splash), new_note))
        # Re-read inside the transaction: another player's score may have just been saved.
        rows = db.execute("SELECT * FROM score WHERE game_id = ? AND hand = ?", (game_id, hand)).fetchall()
        for row in rows:
            if _is_going_out_row(row):
                if row["seat"] != new_out:
                    db.execute("DELETE FROM score WHERE game_id = ? AND hand = ? AND seat = ?",
                               (game_id, hand, row["seat"]))
                continue
            # The out player's own row is rescored too: it is set aside, and comes back
            # as it should read if the mark is undone.
            if row["cards"] is not None:
                parsed = parse_cards(json.loads(row["cards"]))
                points = score_hand(parsed, variant, players=players, decks=decks, splash=new_splash,
                                    hand=hand).points
            else:
                points = _typed_final(variant, row["base"], doubled)
            db.execute("UPDATE score SET points = ? WHERE game_id = ? AND hand = ? AND seat = ?",
                       (points, game_id, hand, row["seat"]))
        _touch(db, game_id)
    return load_game(game_id)


def hand_fields(game: dict[str, Any], hand: int) -> dict[str, str]:
    """A hand's out, splash and note as its form sends them (``out_was``...)."""
    h = game["hands"][hand - 1]
    return {"out": str(h["out"] or ""), "splash": "1" if h["splash"] else "", "note": h["note"]}


def _check_hand_unchanged(game: dict[str, Any], hand: int, shown: dict[str, str], sent: dict[str, Any]) -> None:
    """Refuse a change to a hand's field that another device changed to something else since
    the page was drawn (``shown``: the fields as it showed them; ``sent``: as it sends them)."""
    now = hand_fields(game, hand)
    h = game["hands"][hand - 1]
    messages = []
    for field, value in sent.items():
        was = _as_stored(shown.get(field))
        if was is None or was == now[field] or _as_stored(str(value)) == now[field]:
            continue
        if field == "out":
            other = (f"{_player_name(game, h['out'])} was marked as out" if h["out"]
                     else "The 'went out' mark was cleared")
        elif field == "splash":
            other = "The splash was " + ("ticked" if h["splash"] else "unticked")
        else:
            other = f"The note was changed to \u201c{h['note']}\u201d"
        messages.append(f"{other} on another device since this page was opened.")
    if messages:
        raise HandChangedError(messages)


def _saved_cards(db: sqlite3.Connection, game_id: int, hand: int, leaving_out: tuple[int | None, ...]) -> list[str]:
    """The codes of every card list saved for the hand, but those of the seats ``leaving_out``."""
    return [code for row in db.execute(
        "SELECT seat, cards FROM score WHERE game_id = ? AND hand = ? AND cards IS NOT NULL", (game_id, hand))
        if row["seat"] not in leaving_out for code in json.loads(row["cards"])]


def _check_cards_counted(db: sqlite3.Connection, game: dict[str, Any], variant: Variant, hand: int,
                         out_seat: int | None) -> None:
    """The saved cards that count with ``out_seat`` marked out are possible together.

    The cards of the player who went out are set aside, so they were not checked against the
    others' saved since; moving or clearing the mark counts them again, and three QH from two
    decks must not be scored silently.
    """
    counted = _saved_cards(db, game["id"], hand, leaving_out=(out_seat,))
    try:
        check_possible(parse_cards(counted), variant, players=len(game["players"]), decks=game["decks"])
    except ImpossibleHandError as error:
        who = "clearing who went out" if out_seat is None else f"marking {_player_name(game, out_seat)} out"
        raise ImpossibleHandError(
            f"Not saved: {who} would count the set-aside cards again, and with the other players' saved "
            f"cards for hand {hand}: {error}; correct the cards first.") from None


def _out_seat(value: Any, game: dict[str, Any]) -> int | None:
    if value is None or (not isinstance(value, bool) and value in ("", "none", 0, "0")):
        return None
    seat = _whole_number(value)
    if seat is None:
        raise InputError(f"Who went out must be a player number, not {quoted(value)}.")
    if not 1 <= seat <= len(game["players"]):
        raise InputError(f"Player {quoted(seat)} doesn't exist in game {game['id']} "
                         f"(it has players 1-{len(game['players'])}).")
    return seat
