"""Changing a game as a whole: starting, ending, playing on, deleting and bringing back;
its players, seats and first dealer; its rules, note and deck.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from flask import abort

from onze_vision.cards import parse_cards
from onze_vision.messages import listed, quoted
from onze_vision.scoring import ImpossibleHandError, check_possible, score_hand
from onze_vision.variants import get_variant

from .. import db as book
from .engine import is_doubled, max_points, variant_info
from .games import _game_row, _inserted_id, _player_name, _row_by_id, _touch, check_seating, load_game
from .housekeeping import GAMES_FORGOTTEN_AT_ONCE, clear_old, forget_deleted_games
from .inputs import (
    MAX_NOTE_LENGTH,
    InputError,
    NamesChangedError,
    NoteChangedError,
    TypedScoresError,
    _as_stored,
    _clean_text,
    _deck_corners,
    _whole_number,
)
from .names import _check_different, _check_visible, _clean_name, name_key, names_to_save
from .scores import _typed_final


def create_game(variant_name: str, names: Iterable[Any], first_dealer: Any = 1, note: Any = "",
                corners: Any = "auto") -> int:
    """Start a game; return its id. ``first_dealer`` is a seat number (1-based) or a name;
    ``corners`` which corners of the deck's cards carry an index (:data:`DECK_CORNERS`)."""
    variant = get_variant(str(variant_name or "").strip())
    players = [_clean_name(name) for name in names]
    for seat, name in enumerate(players, start=1):
        if not name:
            raise InputError(f"Player {seat}'s name is blank: name every player, in seat order.")
    _check_visible(players)
    info = variant_info(variant)
    low, high = info["min_players"], info["max_players"]
    if not low <= len(players) <= high:
        raise InputError(f"{variant.title} is played by {low}-{high} players; "
                         f"{len(players)} {'was' if len(players) == 1 else 'were'} named.")
    _check_different(players)
    dealer = _dealer_seat(first_dealer, players)
    decks = variant.decks_for(len(players))
    note = _clean_text(note, "game note", MAX_NOTE_LENGTH)
    corners = _deck_corners(corners)
    with book.transaction() as db:
        cur = db.execute("INSERT INTO game (variant, decks, first_dealer, note, corners) VALUES (?, ?, ?, ?, ?)",
                         (variant.name, decks, dealer, note, corners))
        game_id = _inserted_id(cur)
        db.executemany("INSERT INTO player (game_id, seat, name) VALUES (?, ?, ?)",
                       [(game_id, seat, name) for seat, name in enumerate(players, start=1)])
    return game_id


def _dealer_seat(value: Any, players: list[str]) -> int:
    if value is None or value == "":
        return 1
    seat_number = _whole_number(value)
    if seat_number is not None and not isinstance(value, float):
        seat = seat_number
        if not 1 <= seat <= len(players):
            raise InputError(f"The first dealer must be player 1-{len(players)}, not {quoted(seat)}.")
        return seat
    if isinstance(value, str):
        for seat, name in enumerate(players, start=1):
            if name_key(name) == name_key(value.strip()):
                return seat
        raise InputError(f"The first dealer {quoted(value)} is not one of the players.")
    raise InputError(f"The first dealer must be a seat number or a player's name, not {quoted(value)}.")


def delete_game(game_id: int) -> dict[str, Any]:
    """Take a game out of the book; return it as it was (404 if none). It is kept
    :data:`DELETED_GAME_DAYS` days, so a tap on the wrong game can be undone."""
    game = load_game(game_id)
    with book.transaction() as db:
        db.execute("UPDATE game SET deleted = strftime('%Y-%m-%d %H:%M:%S', 'now') WHERE id = ?", (game_id,))
        _touch(db, game_id)   # a page open on another phone learns of it
    clear_old(forget_deleted_games, GAMES_FORGOTTEN_AT_ONCE)
    return game


def restore_game(game_id: int) -> dict[str, Any]:
    """Bring a deleted game back into the book as it was (404 if it is neither deleted nor
    in the book: one brought back already, the same tap sent twice, is returned as it is)."""
    row = _row_by_id("SELECT deleted FROM game WHERE id = ?", game_id)
    if row is not None and row["deleted"] is None:
        return load_game(game_id)
    _game_row(game_id, deleted=True)
    with book.transaction() as db:
        db.execute("UPDATE game SET deleted = NULL WHERE id = ?", (game_id,))
        _touch(db, game_id)
    return load_game(game_id)


def end_game(game_id: int, after: Any = None) -> dict[str, Any]:
    """End a game before hand 7 (it is late, a player leaves): it is over after the last hand
    every player has a score for, judged on the hands up to it. Scores saved in a later hand
    are kept and not counted; :func:`play_on` takes the end back. A game ended already is
    returned as it is (the same tap sent twice). ``after``: the hand the player was asked
    about; refused where the game would now end after another (a score changed meanwhile)."""
    with book.transaction() as db:
        # Judged inside the write transaction: a score saved a moment ago on another phone counts.
        game = load_game(game_id)
        if game["ended_after"] is not None:
            return game
        if game["finished"]:
            raise InputError(f"Game {game_id} is over already: every player has a score for all 7 hands.")
        ending = game["can_end_after"]
        if ending is None:
            raise InputError(f"Game {game_id} has no hand with every player's score yet: "
                             "a game ends after a whole hand.")
        if after not in (None, "") and _whole_number(after) != ending:
            raise InputError(f"Game {game_id} would now end after hand {ending}, not hand {after}: a score "
                             "was changed on another device meanwhile. Look at the sheet, then end it again.")
        for m in game["missing"]:
            if m["hand"] < ending:
                lacking = " and ".join(_player_name(game, seat) for seat in m["seats"])
                raise InputError(f"Hand {m['hand']} has no score for {lacking}: save it before "
                                 f"ending the game after hand {ending}.")
        db.execute("UPDATE game SET ended_after = ? WHERE id = ?", (ending, game_id))
        _touch(db, game_id)
    return load_game(game_id)


def play_on(game_id: int) -> dict[str, Any]:
    """Take back :func:`end_game`: the game runs to hand 7 again, every kept score counting."""
    _game_row(game_id)
    with book.transaction() as db:
        db.execute("UPDATE game SET ended_after = NULL WHERE id = ?", (game_id,))
        _touch(db, game_id)
    return load_game(game_id)


def delete_game_for_good(game_id: int) -> dict[str, Any]:
    """Remove a deleted game with its hands, scores and photos; return it as it was."""
    game = load_game(game_id, deleted=True)
    with book.transaction() as db:
        db.execute("DELETE FROM game WHERE id = ?", (game_id,))   # the rest cascades
    return game


def set_player_names(game_id: int, names: Any, *, shown: Sequence[str | None] | None = None) -> dict[str, Any]:
    """Correct the players' names (a typo, a nickname), given in seat order.

    Seats, scores and the dealer stay as they are: only the names change. Every name is
    checked as when the game started, and none is saved unless all pass, so two players
    may swap names in one go. ``shown``: the names as the sending page showed them (None
    for a seat it did not say): a name left as shown keeps what is saved now (another
    device may have corrected it since), and one changed both here and there since is not
    saved over (:class:`NamesChangedError`, nothing saved).
    """
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise InputError(f"The players' names come as a list in seat order, not {quoted(names)}.")
    with book.transaction() as db:
        game = load_game(game_id)   # the names saved now, read inside the write transaction
        count = len(game["players"])
        if len(names) != count:
            raise InputError(f"Game {game_id} has {count} players and {len(names)} "
                             f"{'name was' if len(names) == 1 else 'names were'} given: a name is corrected "
                             "in its seat, players are not added or removed once the game has started.")
        now = [player["name"] for player in game["players"]]
        if shown is not None:
            clashes = [f"player {seat} is now \u201c{current}\u201d" for seat, (name, was, current)
                       in enumerate(zip(names, shown, now), start=1)
                       if was is not None and current != was and name != was]
            if clashes:
                raise NamesChangedError(clashes)
            names = names_to_save(names, shown, now)
        cleaned = [_clean_name(name) for name in names]
        for seat, name in enumerate(cleaned, start=1):
            if not name:
                raise InputError(f"Player {seat}'s name is blank: every player keeps a name "
                                 f"(it was {quoted(now[seat - 1])}).")
        _check_visible(cleaned)
        _check_different(cleaned)
        if cleaned == now:
            return game   # the same names again: nothing for the other phones to reload
        db.executemany("UPDATE player SET name = ? WHERE game_id = ? AND seat = ?",
                       [(name, game_id, seat) for seat, name in enumerate(cleaned, start=1)])
        _touch(db, game_id)
    return load_game(game_id)


def set_first_dealer(game_id: int, dealer: Any, *, seating: str | None = None) -> dict[str, Any]:
    """Say who dealt hand 1 (a seat number or a name; it was chosen wrong at the start):
    each hand's dealer follows from it. Seats and scores stay as they are. ``seating`` as
    for :func:`save_score`."""
    game = load_game(game_id)
    seat = _dealer_seat(dealer, [p["name"] for p in game["players"]])
    with book.transaction() as db:
        check_seating(db, game_id, seating)
        if seat == _game_row(game_id)["first_dealer"]:
            return load_game(game_id)   # no change: nothing for the other phones to reload
        db.execute("UPDATE game SET first_dealer = ? WHERE id = ?", (seat, game_id))
        _touch(db, game_id)
    return load_game(game_id)


def move_player(game_id: int, seat: Any, to: Any, *, seating: str | None = None) -> dict[str, Any]:
    """Move the player in ``seat`` to seat ``to`` (the seating was typed in the wrong order);
    the players between shift one seat. Each player keeps their scores, the hands they went
    out in, and whether they dealt first. ``seating`` as for :func:`save_score`: the same
    move sent twice would undo itself."""
    game = load_game(game_id)
    count = len(game["players"])
    old, new = _whole_number(seat), _whole_number(to)
    if old is None or not 1 <= old <= count:   # the seat the address names: no such player
        abort(404, f"Player {quoted(seat) if old is None else old} doesn't exist in game {game_id} "
                   f"(it has players 1-{count}).")
    if new is None or not 1 <= new <= count:
        raise InputError(f"Seat {quoted(to)} is not one of game {game_id}'s seats (1-{count}).")
    assert old is not None and new is not None
    order = list(range(1, count + 1))
    order.insert(new - 1, order.pop(old - 1))           # order[i]: the old seat now at seat i + 1
    moved = {before: after for after, before in enumerate(order, start=1) if before != after}
    if not moved:
        return game
    # Two steps, through seats no game has, so that no two rows share a seat on the way.
    aside = 100
    with book.transaction() as db:
        check_seating(db, game_id, seating)
        for before, after in moved.items():
            db.execute("UPDATE player SET seat = ? WHERE game_id = ? AND seat = ?", (after + aside, game_id, before))
            db.execute("UPDATE score SET seat = ? WHERE game_id = ? AND seat = ?", (after + aside, game_id, before))
            db.execute("UPDATE hand SET out_seat = ? WHERE game_id = ? AND out_seat = ?",
                       (after + aside, game_id, before))
        for table, column in (("player", "seat"), ("score", "seat"), ("hand", "out_seat")):
            db.execute(f"UPDATE {table} SET {column} = {column} - ? WHERE game_id = ? AND {column} > ?",
                       (aside, game_id, aside))
        db.execute("UPDATE game SET first_dealer = ? WHERE id = ?",
                   (moved.get(game["first_dealer"], game["first_dealer"]), game_id))
        _touch(db, game_id)
    return load_game(game_id)


#: The typed scores a refusal names one by one (the others are counted).
TYPED_SCORES_NAMED = 6


def set_variant(game_id: int, variant_name: Any, *, keep_typed: bool = False) -> dict[str, Any]:
    """Change the game's rules (the wrong variant was chosen at the start): the decks follow
    the new rules, and every score saved from cards is scored again under them. A typed
    score's points were counted under the old rules: it is refused (:class:`TypedScoresError`,
    naming them all), or with ``keep_typed`` kept as typed (doubled as the new rules double
    its hand). Refused too, changing nothing, where a hand is marked a splash the new rules
    lack, or the cards saved could not be dealt from the new rules' decks."""
    game = load_game(game_id)
    variant = get_variant(str(variant_name or "").strip())
    players = len(game["players"])
    info = variant_info(variant)
    if not info["min_players"] <= players <= info["max_players"]:
        raise InputError(f"{variant.title} is played by {info['min_players']}-{info['max_players']} players; "
                         f"game {game_id} has {players}.")
    decks = variant.decks_for(players)
    if variant.name == game["variant"]["name"]:
        # The rules it has: nothing to count again, so nothing to refuse (a PUT sent twice).
        return game
    with book.transaction() as db:
        # Judged on what is saved now, inside the write transaction.
        rows = db.execute("SELECT * FROM score WHERE game_id = ? ORDER BY hand, seat", (game_id,)).fetchall()
        marks = db.execute("SELECT number, out_seat, splash FROM hand WHERE game_id = ?", (game_id,)).fetchall()
        outs = {row["number"]: row["out_seat"] for row in marks}
        # A score set aside for the player marked out counts for nothing now, but comes back
        # with the mark undone: a typed one is refused as any typed score is.
        counted = [row for row in rows if row["seat"] != outs.get(row["hand"])]
        typed = [row for row in rows if row["cards"] is None]
        if typed and not keep_typed:
            named = [f"{_player_name(game, row['seat'])}'s for hand {row['hand']} ({row['base']}"
                     f"{', set aside while they are marked out' if row['seat'] == outs.get(row['hand']) else ''})"
                     for row in typed[:TYPED_SCORES_NAMED]]
            if len(typed) > TYPED_SCORES_NAMED:
                named.append(f"{len(typed) - TYPED_SCORES_NAMED} more")
            names = listed(named)
            what = "A score was" if len(typed) == 1 else f"{len(typed)} scores were"
            raise TypedScoresError(
                f"{what} typed, not saved as cards: {names}. A typed number cannot be counted again "
                "under other rules: keep it as typed, or save it as the cards (or clear it), then change the rules.",
                len(typed))
        for row in typed:   # kept as typed: a number the new rules' hand can hold
            limit = max_points(variant, row["hand"], doubled=False)
            if row["base"] > limit:
                raise InputError(f"{_player_name(game, row['seat'])}'s typed score for hand {row['hand']} "
                                 f"({row['base']}) is more than any hand {row['hand']} of {variant.title} can "
                                 f"hold (at most {limit} before doubling): correct or clear it first.")
        splashes = {row["number"]: bool(row["splash"]) for row in marks}
        marked = [number for number, splash in splashes.items() if splash]
        if marked and not variant.has_splash:
            raise InputError(f"Hand {marked[0]} is marked a splash, which {variant.title} does not have: "
                             "untick it first.")
        for hand in sorted({row["hand"] for row in counted}):
            cards = [code for row in counted if row["hand"] == hand and row["cards"] is not None
                     for code in json.loads(row["cards"])]
            try:
                check_possible(parse_cards(cards), variant, players=players, decks=decks)
            except ImpossibleHandError as error:
                raise ImpossibleHandError(f"Under {variant.title}, hand {hand}'s saved cards: {error}") from None
        for row in rows:
            splash = splashes.get(row["hand"], False)
            if row["cards"] is None:   # kept as typed: doubled as the new rules double its hand
                db.execute("UPDATE score SET points = ? WHERE game_id = ? AND hand = ? AND seat = ?",
                           (_typed_final(variant, row["base"], is_doubled(variant, row["hand"], splash)),
                            game_id, row["hand"], row["seat"]))
                continue
            parsed = parse_cards(json.loads(row["cards"]))
            base = score_hand(parsed, variant, players=players, decks=decks, splash=False).points
            points = score_hand(parsed, variant, players=players, decks=decks, splash=splash, hand=row["hand"]).points
            db.execute("UPDATE score SET base = ?, points = ? WHERE game_id = ? AND hand = ? AND seat = ?",
                       (base, points, game_id, row["hand"], row["seat"]))
        db.execute("UPDATE game SET variant = ?, decks = ? WHERE id = ?", (variant.name, decks, game_id))
        _touch(db, game_id)
    return load_game(game_id)


def set_game_note(game_id: int, note: Any, *, was: str | None = None) -> dict[str, Any]:
    """Replace the game's note (the Onze Book's margin). ``was``: the note as the sending
    page showed it; one changed to another since on another device is not saved over
    (:class:`NoteChangedError`); None: the sender showed none (the API)."""
    with book.transaction() as db:
        row = _game_row(game_id)   # judged on the note saved now, inside the write transaction
        text = _clean_text(note, "game note", MAX_NOTE_LENGTH)
        if text == row["note"]:
            return load_game(game_id)   # the same note again: nothing for the other phones to reload
        if was is not None and row["note"] != _as_stored(was):
            raise NoteChangedError("The game note was changed on another device since this page was opened.",
                                   row["note"])
        db.execute("UPDATE game SET note = ? WHERE id = ?", (text, game_id))
        _touch(db, game_id)
    return load_game(game_id)


def set_game_corners(game_id: int, corners: Any) -> dict[str, Any]:
    """Say which corners of the game's deck carry an index; photos read from now on use it
    (cards already saved stay as they are)."""
    row = _game_row(game_id)
    value = _deck_corners(corners)
    if value == row["corners"]:
        return load_game(game_id)   # no change: nothing for the other phones to reload
    with book.transaction() as db:
        db.execute("UPDATE game SET corners = ? WHERE id = ?", (value, game_id))
        _touch(db, game_id)
    return load_game(game_id)
