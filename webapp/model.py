"""The score sheet's data: games, hands, scores, notes and photos.

Pages and the JSON API both go through these functions, so they accept the same input
and fail with the same messages. Rules (values, contracts, doubling, what is possible)
come from the rules engine in :mod:`onze_vision`; this module only stores and adds up.
Bad input raises :class:`InputError` (or the engine's own ``ValueError`` subclasses);
a game, hand or player that does not exist aborts with 404.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import sqlite3
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from flask import abort, current_app
from werkzeug.exceptions import NotFound

from onze_vision.cards import CARD_CODES, Card, parse_cards
from onze_vision.melds import check_down, find_contract
from onze_vision.messages import listed, quoted
from onze_vision.metadata import private_copy, sniff_mime
from onze_vision.scoring import ImpossibleHandError, check_hand_size, check_possible, score_hand
from onze_vision.variants import VARIANTS, Variant, get_variant

from .db import PHOTO_LEFT_AS_TAKEN, get_db, transaction

HANDS: tuple[int, ...] = tuple(range(1, 8))
MAX_NAME_LENGTH = 40
MAX_NOTE_LENGTH = 5000
#: Which corners of the deck's cards carry an index (onze_vision.detector_config.DECK_CORNERS),
#: as the new-game form and the sheet offer them: how a photo's card corners are joined.
DECK_CORNERS = {
    "auto": "not said (each photo tells)",
    "two": "two corners (most decks)",
    "four": "all four corners (Copag-style decks)",
}
#: The most players the sheet has room for: as many as any variant is played by (its
#: new-game form has a name slot for each).
MAX_PLAYERS = max(variant.max_players for variant in VARIANTS.values())
#: The variant a form offers first: the engine's first.
DEFAULT_VARIANT = next(iter(VARIANTS))
_UNSET: Any = object()


class InputError(ValueError):
    """Input the score sheet refuses; the message quotes it and says why."""


class TypedScoresError(InputError):
    """The rules cannot change as asked: scores were typed, and a typed number was counted
    under the old rules. ``count``: how many."""

    def __init__(self, message: str, count: int) -> None:
        super().__init__(message)
        self.count = count


class GameEndedError(InputError):
    """A change to a hand after the one a game was ended at (play on first)."""


class ScoreChangedError(InputError):
    """A score changed on another device since the page that would replace it was drawn.
    ``version``: the score's :func:`score_version` now ("" where not said)."""

    def __init__(self, message: str, version: str = "") -> None:
        super().__init__(message)
        self.version = version


class SeatingChangedError(ScoreChangedError):
    """The players were moved or renamed since the page that names a seat was drawn."""


class HandChangedError(InputError):
    """A hand's field (who went out, the splash, the note) was changed on another device
    since the page changing it was drawn: nothing saved. ``messages``: one per field."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(" ".join(messages))
        self.messages = messages


class NoteChangedError(InputError):
    """The game note was changed on another device since the page sending one was drawn."""

    def __init__(self, message: str, note: str) -> None:
        super().__init__(message)
        self.note = note   # the note saved now


class NamesChangedError(InputError):
    """A player's name was changed on another device, and on the page sending others, since
    it was drawn. ``clashes``: one phrase per seat ("player 2 is now “Bo”")."""

    def __init__(self, clashes: list[str]) -> None:
        super().__init__("Names were changed on another device since this page was opened ("
                         + "; ".join(clashes) + ").")
        self.clashes = clashes


class DetectorUnavailableError(RuntimeError):
    """The card detector cannot run here (its model files are missing)."""


# --------------------------------------------------------------------------- variants


def all_variants() -> list[Variant]:
    """The engine's variants, in its order."""
    return list(VARIANTS.values())


def variant_info(variant: Variant) -> dict[str, Any]:
    """JSON-ready facts about a variant: names, player limits, the seven contracts."""
    return {
        "name": variant.name,
        "title": variant.title,
        "min_players": variant.min_players,
        "max_players": variant.max_players,
        "has_splash": bool(variant.has_splash),
        "summary": variant_summary(variant),
        "hands": [{"number": n, "contract": str(variant.contract(n)),
                   "cards_dealt": variant.cards_dealt(n)} for n in HANDS],
    }


def variant_summary(variant: Variant) -> str:
    """One line a player can choose a variant by: players, wild cards, runs, Aces, splash."""
    ace = {(True, True): "Ace low or high", (True, False): "Ace low",
           (False, True): "Ace high", (False, False): "no Ace"}[(variant.ace_low, variant.ace_high)]
    # The title's words in brackets ("the Caldwell family rules") lead: the list shows the name alone.
    aside = variant.title.partition(" (")[2].rstrip(")")
    # What tells the variants apart: the wild cards' limits, the suits and Ace of a run,
    # melds laid at their least size only, a splash.
    limits = "no limit" if variant.min_naturals == 0 and variant.max_set_wilds is None and variant.wilds_may_touch \
        else variant.wild_limits_text
    parts = [*([aside] if aside else []), f"{variant.min_players}-{variant.max_players} players",
             f"wild: {variant.wild_cards_text} ({limits})",
             f"runs: {'one suit' if variant.runs_same_suit else 'any suits'}, {ace}"]
    if variant.exact_melds:
        parts.append("go down with exactly 3-card sets and 4-card runs")
    if variant.has_splash:
        parts.append("a splash doubles")
    return " · ".join(parts)


def is_doubled(variant: Variant, hand: int, splash: bool) -> bool:
    """A splash doubles the other players' scores; Llenroc's hand 7 always does (the engine says)."""
    return variant.doubles(hand, bool(splash) and bool(variant.has_splash))


def max_card_value(variant: Variant) -> int:
    """The value of the variant's dearest card (Jokers only where it has them)."""
    values = []
    for code in CARD_CODES:
        try:
            values.append(variant.card_value(Card.from_code(code)))
        except ValueError:  # a card this variant does not use (Jokers in ons)
            continue
    return max(values)


def max_points(variant: Variant, hand: int, doubled: bool) -> int:
    """The most a typed score may be: twice the cards dealt, all at the dearest value.

    A real hand rarely holds more than the cards dealt plus a few bought ones, so a
    number above this is a typing slip (an extra digit), not a score.
    """
    most = 2 * variant.cards_dealt(hand) * max_card_value(variant)
    return most * 2 if doubled else most


# --------------------------------------------------------------------------- cards


def parse_card_list(value: str | Sequence[str] | None) -> list[str]:
    """Card codes from text ("7h, 10s QH") or a list; the engine parses each one."""
    if value is None:
        return []
    if isinstance(value, str):
        tokens = [t for t in re.split(r"[\s,;]+", value) if t]
    elif isinstance(value, (list, tuple)):
        tokens = []
        for item in value:
            if not isinstance(item, str):
                raise InputError(f"Cards must be given as codes like \"QH\", not {quoted(item)}.")
            tokens.extend(t for t in re.split(r"[\s,;]+", item) if t)
    else:
        raise InputError(f"Cards must be a list of codes like [\"QH\", \"10S\"], not {quoted(value)}.")
    return [str(card) for card in parse_cards(tokens)]


def score_cards(variant_name: str, cards: str | Sequence[str] | None, *, players: int | None = None,
                decks: int | None = None, splash: bool = False, hand: int | None = None) -> dict[str, Any]:
    """Points of the cards left in a hand (``HandScore.to_dict()``); refuses impossible hands."""
    variant = get_variant(variant_name)
    codes = parse_card_list(cards)
    parsed = parse_cards(codes)
    check_possible(parsed, variant, players=players, decks=decks)
    result = score_hand(parsed, variant, players=players, decks=decks, splash=splash, hand=hand).to_dict()
    result["variant"] = variant.name
    return result


def check_go_down(variant_name: str, hand: int | str, cards: str | Sequence[str] | None, *,
                  whole_hand: bool = False, players: int | None = None,
                  decks: int | None = None) -> dict[str, Any]:
    """Whether the cards make the hand's contract (``GoDown.to_dict()`` plus the contract);
    ``players``/``decks`` (a game's) refuse cards its decks cannot hold."""
    variant = get_variant(variant_name)
    number = parse_hand_number(hand)
    codes = parse_card_list(cards)
    if not codes:
        raise InputError("No cards to check: type or photograph the cards laid down.")
    check = find_contract if whole_hand else check_down
    found = check(variant, number, parse_cards(codes), players=players, decks=decks)
    return {**found.to_dict(), "variant": variant.name, "hand": number, "contract": str(variant.contract(number)),
            "cards": codes, "mode": "hand" if whole_hand else "down",
            "going_out": found.goes_out(whole_hand=whole_hand)}


def parse_hand_number(value: Any) -> int:
    """A hand number 1-7 from a form or JSON value."""
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        raise InputError(f"Hand {quoted(value)} is not a number: hands are 1-7.") from None
    if number not in HANDS:
        raise InputError(f"There is no hand {quoted(number)}: hands are 1-7.")
    return number


# --------------------------------------------------------------------------- games


def _clean_text(value: Any, what: str, limit: int, *, lines: bool = True) -> str:
    """Text as typed, trimmed, its line breaks as "\n" (or, where not ``lines``, its line
    breaks and tabs as one space each run); refused where it holds another control
    character (a NUL) or is longer than ``limit``."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"The {what} must be text, not {quoted(value)}.")
    value = (value.replace("\r\n", "\n").replace("\r", "\n") if lines else _one_line(value)).strip()
    if control := next((char for char in value if unicodedata.category(char) == "Cc" and char not in "\n\t"),
                       None):
        raise InputError(f"The {what} {quoted(value)} holds a control character ({control!r}): type it as "
                         "letters, digits and signs.")
    if len(value) > limit:
        raise InputError(f"The {what} is {len(value)} characters long; the limit is {limit}.")
    return value


def _as_stored(text: str | None) -> str | None:
    """A value a page showed (its ``*_was``) as the book stores text: browsers send a form's
    line breaks as CRLF, and a note kept with LF would otherwise never match what it showed."""
    return None if text is None else text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _one_line(text: str) -> str:
    """``text`` with each run of line breaks and tabs a space (a name is kept on one line)."""
    return re.sub(r"[\t\r\n]+", " ", text)


#: Invisible format characters a name may keep: the joiners within emoji and some scripts' words.
_NAME_JOINERS = frozenset("\u200c\u200d")
#: A flag of a country's part (England's, Scotland's): a black flag, tag letters, a cancel tag.
#: Tag characters anywhere else draw nothing, and would make two names of one look.
_TAG_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
#: Letters and signs that draw nothing (Hangul fillers, the blank Braille pattern).
_BLANK_SIGNS = frozenset("\u115f\u1160\u2800\u3164\uffa0")


def _without_hidden_format(text: str) -> str:
    """``text`` without invisible format characters (a zero-width space, a right-to-left
    override, a stray tag) but the joiners and the tags of a flag."""
    def strip(part: str) -> str:
        return "".join(char for char in part if unicodedata.category(char) != "Cf" or char in _NAME_JOINERS)

    kept, start = [], 0
    for flag in _TAG_FLAG.finditer(text):
        kept += [strip(text[start:flag.start()]), flag.group()]
        start = flag.end()
    return "".join([*kept, strip(text[start:])])


def _clean_name(value: Any) -> str:
    """A player's name as typed, on one line, without invisible format characters: they
    would make "Ann" two players, or show one name as another."""
    typed = _clean_text(value, "player name", MAX_NAME_LENGTH, lines=False)
    name = _without_hidden_format(typed).strip()
    if typed and not name:
        _check_visible([typed])
    return name


# Cached: the standings compare every player of every game (13,000 names in a book of 3,000
# games took 36 ms to normalise on each request).
@functools.lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """What two names are compared by: letter case, the width or form a keyboard gave a
    letter ("Ａnn", full width), invisible format characters and line breaks or tabs (a
    space each run, as a name is kept) aside."""
    return unicodedata.normalize("NFKC", _one_line(_without_hidden_format(name)).strip()).casefold()


def _is_visible(char: str) -> bool:
    """False for spaces, controls, zero-width marks and signs that draw nothing (a name of
    only those shows as blank)."""
    return unicodedata.category(char)[0] not in "ZC" and char not in _BLANK_SIGNS


def _deck_corners(value: Any) -> str:
    """A :data:`DECK_CORNERS` key, or a clear refusal."""
    corners = "auto" if value is None or value == "" else value
    if not isinstance(corners, str) or corners not in DECK_CORNERS:
        raise InputError(f"The deck's indices are in 'two' or 'four' corners (or 'auto': tell from "
                         f"each photo), not {quoted(value)}.")
    return corners


def _check_visible(names: Sequence[str]) -> None:
    """Refuse a name that would show as blank on the sheet."""
    for name in names:
        if not any(_is_visible(char) for char in name):
            raise InputError(f"Player name {quoted(name)} shows nothing on the sheet: type a visible name.")


def _check_different(names: Sequence[str]) -> None:
    """Refuse two players of one name (letter case aside): the sheet could not tell them apart."""
    seen: set[str] = set()
    for name in names:
        if name_key(name) in seen:
            raise InputError(f"Two players are called {quoted(name)}: give each a different name.")
        seen.add(name_key(name))


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
    with transaction() as db:
        cur = db.execute("INSERT INTO game (variant, decks, first_dealer, note, corners) VALUES (?, ?, ?, ?, ?)",
                         (variant.name, decks, dealer, note, corners))
        game_id = _inserted_id(cur)
        db.executemany("INSERT INTO player (game_id, seat, name) VALUES (?, ?, ?)",
                       [(game_id, seat, name) for seat, name in enumerate(players, start=1)])
    return game_id


#: How recent a game of the same players and rules must be for a new one to be asked about.
TWIN_MINUTES = 30


def recent_twin(variant_name: str, names: Sequence[str]) -> dict[str, Any] | None:
    """The newest game in the book started in the last :data:`TWIN_MINUTES` minutes with the
    same rules and players in the same seats (letter case and spaces aside) and not finished,
    as ``{"id", "minutes"}``: the same table started on a second phone. None where there is none."""
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
    """The game's row, in the book or (``deleted``) among the deleted games; else a 404."""
    row = _row_by_id("SELECT * FROM game WHERE id = ?", game_id)
    if row is None or (row["deleted"] is not None) != deleted:
        if deleted:
            abort(404, f"Game {game_id} is not among the deleted games (they are kept {DELETED_GAME_DAYS} days).")
        if row is not None:   # a link kept from before it was deleted: say where it is
            abort(404, f"Game {game_id} was deleted ({row['deleted']} UTC): History keeps it "
                       f"{DELETED_GAME_DAYS} days from then, to bring back.")
        abort(404, f"Game {game_id} doesn't exist.")
    return row


def load_game(game_id: int, *, deleted: bool = False) -> dict[str, Any]:
    """Everything the sheet shows about a game, JSON-ready; 404 if it does not exist (or,
    with ``deleted``, is not among the deleted games)."""
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
            scores.append(saved)
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
    from .ui import card_label   # display words, as the chips show cards

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
    """The games ``ids`` (every game in the book where None), newest first, fully loaded."""
    if ids is None:
        ids = [r["id"] for r in get_db().execute("SELECT id FROM game WHERE deleted IS NULL")]
    return [load_game(game_id) for game_id in sorted(ids, reverse=True)]


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
    return list(games.values())


#: What a row of each table holds, for a rescued book's note: (one, several).
_ROW_WORDS = {"game": ("game", "games"),
              "player": ("player's name (shown as \"Player\" and the seat)", "players' names (shown as \"Player\" "
                         "and the seat)"),
              "hand": ("hand's record (who went out, the splash, the note)", "hands' records (who went out, "
                       "the splash, the note)"),
              "score": ("score", "scores"), "photo": ("photo", "photos"),
              "photo_addition": ("record of which photo another's cards were added to (that earlier photo goes a "
                                 "week after it was taken, unless a score uses it)",
                                 "records of which photos others' cards were added to (those earlier photos go "
                                 "a week after they were taken, unless a score uses them)")}


def rescues() -> list[dict[str, Any]]:
    """The rescues that made this book of what could be read of a damaged one, oldest first:
    ``id``, ``made`` (UTC), ``seen`` (UTC or None), ``lost`` ({table: rows; -1: all}) and
    ``lost_words`` ("3 scores and 1 photo"; "" where everything could be read)."""
    found = []
    for row in get_db().execute("SELECT id, made, lost, seen FROM rescue ORDER BY id"):
        lost = {table: int(n) for table, n in json.loads(row["lost"]).items()}
        parts = []
        for table, n in lost.items():
            one, several = _ROW_WORDS.get(table, (table, table + "s"))
            parts.append(f"all the {several}" if n < 0 else f"{n} {one if n == 1 else several}")
        words = listed(parts)
        found.append({"id": row["id"], "made": row["made"], "seen": row["seen"], "lost": lost, "lost_words": words})
    return found


def mark_rescue_seen(rescue_id: int) -> None:
    """Say a rescue's note was read (the home page stops showing it; History keeps it).
    404 if there is no such rescue."""
    if not 0 <= rescue_id <= MAX_ROW_ID:
        abort(404, f"Rescue {rescue_id} doesn't exist.")
    with transaction() as db:
        cur = db.execute("UPDATE rescue SET seen = COALESCE(seen, strftime('%Y-%m-%d %H:%M:%S', 'now'))"
                         " WHERE id = ?", (rescue_id,))
    if not cur.rowcount:
        abort(404, f"Rescue {rescue_id} doesn't exist.")


def deleted_games() -> list[dict[str, Any]]:
    """The deleted games kept to bring back, last deleted first: :data:`DELETED_GAME_DAYS`
    days, then removed (:func:`forget_deleted_games`) by the next deletion or the server's
    next look for what is old (:mod:`webapp.keepsake`), whichever comes first. One past its
    days and not yet removed is not offered."""
    ids = [r["id"] for r in get_db().execute(
        "SELECT id FROM game WHERE deleted >= datetime('now', ?) ORDER BY deleted DESC, id DESC",
        (f"-{DELETED_GAME_DAYS} days",))]
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


# A whole number as typed: ASCII digits only (int() also takes "٣" and "²"-like digits of
# other scripts, which no keyboard at the table means as points), at most 18 of them.
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,18}")


def _whole_number(value: Any) -> int | None:
    """``value`` as a whole number (an int, an integral float, or ASCII digits); else None.
    Never a bool: JSON's true is not seat 1."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
        return int(value.strip())
    return None


def parse_points(value: Any) -> int:
    """A typed score: a whole number of points, not negative."""
    points = _whole_number(value)
    if points is None:
        raise InputError(f"Score {quoted(value)} is not a whole number of points.")
    if points < 0:
        raise InputError(f"Score {quoted(points)} is negative: a hand scores 0 or more points.")
    return points


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
    with transaction() as db:
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


def _touch(db: sqlite3.Connection, game_id: int) -> None:
    db.execute("UPDATE game SET updated = strftime('%Y-%m-%d %H:%M:%S', 'now'), changes = changes + 1"
               " WHERE id = ?", (game_id,))


def game_changes(game_id: int) -> int:
    """How many times the game's sheet has changed (404 if no such game): one small read a
    page open on another phone repeats to know when to show the new scores."""
    return int(_game_row(game_id)["changes"])


#: Days a deleted game is kept to bring back (:func:`restore_game`) before it goes for good.
DELETED_GAME_DAYS = 30

# What is old is cleared a few at a time, each few in a transaction of its own, after the
# save that occasioned it: what is deleted is overwritten (secure_delete), and clearing
# 1.3 GB of old photos in one transaction held every other phone's save for ten seconds
# (some got "busy"; 190 MB held them a second).
#: Old unused photos (a few MB each) deleted per transaction.
PHOTOS_FORGOTTEN_AT_ONCE = 4
#: Games deleted for good per transaction (each with its photos).
GAMES_FORGOTTEN_AT_ONCE = 1
#: At most this many such transactions after one save; a larger backlog goes over the next saves.
CLEARINGS_PER_SAVE = 8


def clear_old(forget: Callable[..., int], at_once: int) -> int:
    """Run ``forget(db, limit=at_once)`` in short transactions of its own until it finds
    fewer than ``at_once`` (or :data:`CLEARINGS_PER_SAVE` times); return how many went.

    The save that called it is kept already: a clearing the book refuses now (busy, a
    full disk) is logged and left to the next save.
    """
    cleared = 0
    for _ in range(CLEARINGS_PER_SAVE):
        try:
            with transaction() as db:
                gone = forget(db, limit=at_once)
        except sqlite3.Error as error:
            current_app.logger.warning("Clearing old photos or games is left for later: %s", error)
            break
        cleared += gone
        if gone < at_once:
            break
    return cleared


def delete_game(game_id: int) -> dict[str, Any]:
    """Take a game out of the book; return it as it was (404 if none). It is kept
    :data:`DELETED_GAME_DAYS` days, so a tap on the wrong game can be undone."""
    game = load_game(game_id)
    with transaction() as db:
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
    with transaction() as db:
        db.execute("UPDATE game SET deleted = NULL WHERE id = ?", (game_id,))
        _touch(db, game_id)
    return load_game(game_id)


def end_game(game_id: int, after: Any = None) -> dict[str, Any]:
    """End a game before hand 7 (it is late, a player leaves): it is over after the last hand
    every player has a score for, judged on the hands up to it. Scores saved in a later hand
    are kept and not counted; :func:`play_on` takes the end back. A game ended already is
    returned as it is (the same tap sent twice). ``after``: the hand the player was asked
    about; refused where the game would now end after another (a score changed meanwhile)."""
    with transaction() as db:
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
    with transaction() as db:
        db.execute("UPDATE game SET ended_after = NULL WHERE id = ?", (game_id,))
        _touch(db, game_id)
    return load_game(game_id)


def _check_hand_played(db: sqlite3.Connection, game_id: int, hand: int) -> None:
    """Refuse a change to a hand after the one the game was ended at (read inside the write
    transaction: the game may have been ended a moment ago on another phone)."""
    row = db.execute("SELECT ended_after FROM game WHERE id = ?", (game_id,)).fetchone()
    if row is not None and row["ended_after"] is not None and hand > row["ended_after"]:
        raise GameEndedError(f"Game {game_id} was ended after hand {row['ended_after']}: "
                             f"choose \u201cPlay on\u201d on the sheet to change hand {hand}.")


def delete_game_for_good(game_id: int) -> dict[str, Any]:
    """Remove a deleted game with its hands, scores and photos; return it as it was."""
    game = load_game(game_id, deleted=True)
    with transaction() as db:
        db.execute("DELETE FROM game WHERE id = ?", (game_id,))   # the rest cascades
    return game


def forget_deleted_games(db: sqlite3.Connection, days: int = DELETED_GAME_DAYS,
                         limit: int = GAMES_FORGOTTEN_AT_ONCE) -> int:
    """Remove up to ``limit`` of the games deleted more than ``days`` ago, those deleted
    first, with everything they hold; return how many."""
    cur = db.execute("DELETE FROM game WHERE id IN (SELECT id FROM game WHERE deleted < datetime('now', ?)"
                     " ORDER BY deleted LIMIT ?)", (f"-{days} days", limit))
    return cur.rowcount


def delete_score(game_id: int, hand: int, seat: int, *, was: str | None = None,
                 seating: str | None = None) -> dict[str, Any]:
    """Clear one player's score for a hand (to re-enter it); ``was`` and ``seating`` as for
    :func:`save_score`."""
    game = load_game(game_id)
    check_hand_and_seat(game, hand, seat)
    with transaction() as db:
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
    with transaction() as db:
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


def parse_flag(value: Any, what: str) -> bool:
    """A yes-or-no field, from JSON's true/false or a form's words ("on", "no", "1"...);
    ``what`` names it in the refusal ("Splash must be true or false, not 'maybe'.")."""
    if isinstance(value, bool):
        return value
    if value in (None, "", 0, "0", "false", "off", "no"):
        return False
    if value in (1, "1", "true", "on", "yes"):
        return True
    raise InputError(f"{what} must be true or false, not {quoted(value)}.")


def parse_splash(value: Any) -> bool:
    """Whether a hand was a splash (:func:`parse_flag`)."""
    return parse_flag(value, "Splash")


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


def names_to_save(names: Sequence[Any], shown: Sequence[str | None], now: Sequence[str]) -> list[Any]:
    """The names a form sends, each left as its page showed it (``shown``) replaced by the
    name saved ``now``: another device may have corrected it since."""
    return [current if was is not None and name == was else name for name, was, current in zip(names, shown, now)]


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
    with transaction() as db:
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
    with transaction() as db:
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
    with transaction() as db:
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
    with transaction() as db:
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
    with transaction() as db:
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
    with transaction() as db:
        db.execute("UPDATE game SET corners = ? WHERE id = ?", (value, game_id))
        _touch(db, game_id)
    return load_game(game_id)


# --------------------------------------------------------------------------- photos


def _detector() -> Callable[..., Any]:
    """``DETECT`` (called with the photo's bytes and ``corners=``), or the shipped detector."""
    detect = current_app.config.get("DETECT")
    if detect is None:
        from onze_vision.detector import detect_cards  # heavy (ONNX Runtime): only when used
        detect = detect_cards
    return detect


#: Photos read at once. A 50 MP JPEG takes about 250 MB while it is read (a PNG, WebP or
#: HEIC of as many pixels up to 600 MB: decoded whole, then kept at 4096 px) and the
#: networks use every core anyway: more at once only queue inside ONNX Runtime, and sixteen
#: at once took a small server to 4.5 GB. Others wait their turn, for a while.
PHOTOS_READ_AT_ONCE = 2
_reading_slots = threading.BoundedSemaphore(PHOTOS_READ_AT_ONCE)
#: Seconds a photo waits for its turn before the phone is told the sheet is busy (a reading
#: takes a tenth of a second to a few seconds: a queue longer than this is a flood).
READING_WAIT_SECONDS = 30.0


class ReadingBusyError(RuntimeError):
    """Every reading slot stayed taken for :data:`READING_WAIT_SECONDS`: nothing was read or kept."""


@contextmanager
def reading_slot(*, patient: bool = False) -> Iterator[None]:
    """Hold one of the :data:`PHOTOS_READ_AT_ONCE` slots for work as heavy as reading a photo;
    wait at most :data:`READING_WAIT_SECONDS` for it, then raise :class:`ReadingBusyError`
    (``patient``: as long as it takes, for work no phone waits on)."""
    if not _reading_slots.acquire(timeout=None if patient else READING_WAIT_SECONDS):
        raise ReadingBusyError("The score sheet is busy reading other photos: nothing was read. "
                               "Send this photo again in a moment.")
    try:
        yield
    finally:
        _reading_slots.release()


def _sent_photo(data: bytes | None) -> bytes:
    if not data:
        raise InputError("The photo is empty: choose or take a photo of the cards.")
    return data


def read_photo(data: bytes | None, corners: Any = "auto", *, patient: bool = False) -> dict[str, Any]:
    """Run the card detector on uploaded bytes, in a reading slot of its own (``patient``:
    see :func:`reading_slot`); JSON-ready reading. ``corners``: which corners of the deck's
    cards carry an index (:data:`DECK_CORNERS`)."""
    with reading_slot(patient=patient):
        return _read_in_slot(data, corners)


def _read_in_slot(data: bytes | None, corners: Any) -> dict[str, Any]:
    """:func:`read_photo` for a caller that holds a reading slot already."""
    corners = _deck_corners(corners)
    data = _sent_photo(data)
    try:
        reading = _detector()(data, corners=corners)
    except FileNotFoundError:  # the detector's ModelNotFoundError: models/ not installed
        from onze_vision.detector import DEFAULT_MODEL_DIR   # where they were looked for (ONZE_VISION_MODELS)

        raise DetectorUnavailableError(
            f"The card detector's model files are not installed ({DEFAULT_MODEL_DIR}): type the cards instead."
        ) from None
    # The reading as detect --json spells it: cards ("alternative", "check" when they apply),
    # "colourless" (each card offers the other colour) and "light_gains" (the page shows the
    # photo so), "blurred" with its "smear" (the page asks for a sharper photo); "maybe"
    # (possibly missed, never scored unasked) and "colourless" always here.
    read = reading.to_dict()
    return {**read, "width": int(reading.width), "height": int(reading.height),
            "maybe": read.get("maybe", []), "colourless": read.get("colourless", False)}


def store_photo(data: bytes | None, game_id: int | None = None, *,
                adds_to: tuple[int | None, Sequence[str]] | None = None) -> dict[str, Any]:
    """Read the cards in a photo (as the game's deck says its corners are) and keep the photo
    (so the page can draw the boxes on it), without its location, time and device
    (:func:`~onze_vision.metadata.private_copy`): the book is shared whole.

    ``adds_to``: (the photo shown with the list, or None; the cards the list held) where
    this photo's cards are added to a hand's list rather than replace it."""
    game = None if game_id is None else _game_row(game_id)
    corners = "auto" if game is None else game["corners"]
    data = _sent_photo(data)
    # What the photo's cards are added to is checked first: nothing is read for a refusal.
    added_to = None
    if adds_to is not None and adds_to[1]:   # added to no card at all, it is a first photo
        earlier_id, before = adds_to
        if earlier_id is not None:
            if game_id is None:
                raise InputError("A photo added to a hand's cards belongs to a game: name the game.")
            game_photo(earlier_id, game_id)   # 404 before anything is kept
        added_to = {"earlier_id": earlier_id, "cards_before": _list_before(before, game)}
    # One slot for both steps (a HEIC is decoded to be kept as a JPEG: as heavy as a reading),
    # so that a photo waits for its turn once, and never loses it between them.
    with reading_slot():
        kept = private_copy(data)
        # The kept copy is what is read, now and when read again: the same pixels (a HEIC's
        # JPEG copy also decodes reduced, several times faster than the HEIC).
        reading = _read_in_slot(kept, corners)
    with transaction() as db:
        cur = db.execute("INSERT INTO photo (game_id, mime, data, reading) VALUES (?, ?, ?, ?)",
                         (game_id, sniff_mime(kept), kept, json.dumps(reading)))
        photo_id = _inserted_id(cur)
        if added_to is not None:
            db.execute("INSERT INTO photo_addition (photo_id, earlier_id, cards_before) VALUES (?, ?, ?)",
                       (photo_id, added_to["earlier_id"], json.dumps(added_to["cards_before"])))
    clear_old(forget_unused_photos, PHOTOS_FORGOTTEN_AT_ONCE)
    return {"id": photo_id, "game_id": game_id, **reading, "added_to": added_to}


def _list_before(cards: str | Sequence[str], game: sqlite3.Row | None) -> list[str]:
    """The cards a photo's are added to, as codes; refused now, not when the score is saved,
    where no hand can hold them (more than 26; with ``game``, more copies than its decks)."""
    parsed = parse_cards(parse_card_list(cards))
    check_hand_size(parsed)
    if game is not None:
        check_possible(parsed, get_variant(game["variant"]), decks=game["decks"])
    return [str(card) for card in parsed]


def keep_list_with_photo(photo_id: int, cards: str | Sequence[str]) -> None:
    """Keep ``cards`` as the list a photo that read no card adds to (the cards typed before
    it), as if they had been sent with it: the photo's page shows them whenever it is opened.

    Raises:
        InputError, InvalidCardError, TooManyCardsError: ``cards`` are no hand's cards.
    """
    codes = _list_before(cards, None)
    with transaction() as db:
        db.execute("INSERT OR IGNORE INTO photo_addition (photo_id, earlier_id, cards_before) VALUES (?, NULL, ?)",
                   (photo_id, json.dumps(codes)))


def game_photo(photo_id: int, game_id: int, *, with_data: bool = False) -> dict[str, Any]:
    """A stored photo of a game (:func:`get_photo`); 404 if the game has no such photo."""
    photo = get_photo(photo_id, with_data=with_data)
    if photo["game_id"] != game_id:
        abort(404, f"Photo {photo_id} doesn't belong to game {game_id}.")
    return photo


#: The most earlier photos shown with one (a hand photographed in this many parts).
EARLIER_PHOTOS_SHOWN = 8


def earlier_photos(photo: dict[str, Any]) -> list[dict[str, Any]]:
    """The photos whose cards ``photo``'s were added to, the latest first (those still kept,
    of the same game)."""
    found: list[dict[str, Any]] = []
    addition = photo.get("added_to")
    while addition and addition["earlier_id"] is not None and len(found) < EARLIER_PHOTOS_SHOWN:
        try:
            earlier = get_photo(addition["earlier_id"])
        except NotFound:   # forgotten (it was never used), or its game deleted
            break
        if earlier["game_id"] != photo["game_id"] or any(p["id"] == earlier["id"] for p in found):
            break
        found.append(earlier)
        addition = earlier.get("added_to")
    return found


def read_photo_again(photo_id: int, game_id: int) -> dict[str, Any]:
    """Read a game's stored photo again, as the game's deck now says its corners are (after
    the players said which); the photo keeps its id. 404 if the game has no such photo.

    A photo whose cards were added to a list read from earlier photos (a hand in two photos)
    has those read again too, and the list it was added to follows their new reading where
    it was theirs as read (changed by hand, it is the player's and stays). Every photo is
    read before any is written: one that cannot be read leaves them all as they were, to
    be read again together."""
    game = _game_row(game_id)
    photo = game_photo(photo_id, game_id, with_data=True)
    # earlier_photos keeps to the photo's own game; the first photo first.
    chain = [*reversed([game_photo(earlier["id"], game_id, with_data=True) for earlier in earlier_photos(photo)]),
             photo]
    # Patient: the deck is said already, and a photo not read again now would keep the
    # reading of the corners it was read with.
    readings = [read_photo(shown["data"], game["corners"], patient=True) for shown in chain]
    listed_before: list[str] | None = None   # the older photo's list: as read then
    listed_now: list[str] = []                # and as read now
    lists_now: list[list[str]] = []           # each photo's list before it, as it is to be
    for shown, reading in zip(chain, readings):
        addition = shown["added_to"]
        cards_before = addition["cards_before"] if addition else []
        follows = addition is not None and listed_before is not None and Counter(cards_before) == Counter(listed_before)
        lists_now.append(listed_now if follows else cards_before)
        listed_before = cards_before + [card["card"] for card in shown["cards"]]
        listed_now = lists_now[-1] + [card["card"] for card in reading["cards"]]
    with transaction() as db:
        for shown, reading, list_now in zip(chain, readings, lists_now):
            db.execute("UPDATE photo SET reading = ? WHERE id = ?", (json.dumps(reading), shown["id"]))
            if shown["added_to"] is not None and list_now != shown["added_to"]["cards_before"]:
                db.execute("UPDATE photo_addition SET cards_before = ? WHERE photo_id = ?",
                           (json.dumps(list_now), shown["id"]))
    addition = photo["added_to"]
    added_to = None if addition is None else {**addition, "cards_before": lists_now[-1]}
    return {"id": photo_id, "game_id": game_id, **readings[-1], "added_to": added_to}


# A photo no saved score uses (read and then retaken, or never saved) is kept this long,
# so a page left open still shows it; then its megabytes go.
UNUSED_PHOTO_DAYS = 7


def forget_unused_photos(db: sqlite3.Connection, days: int = UNUSED_PHOTO_DAYS,
                         limit: int = PHOTOS_FORGOTTEN_AT_ONCE) -> int:
    """Delete up to ``limit`` of the photos older than ``days`` that no score refers to,
    the oldest first; return how many."""
    # A photo a score uses keeps the earlier photos its cards were added to, and theirs: found
    # from the additions (a few), not from every score. (The WITH inside: Python's sqlite3
    # counts no rows for a statement that begins with one.)
    cur = db.execute(
        "DELETE FROM photo WHERE id IN (SELECT id FROM photo WHERE created < datetime('now', ?)"
        " AND id NOT IN (SELECT photo_id FROM score WHERE photo_id IS NOT NULL)"
        " AND id NOT IN (WITH RECURSIVE kept(id) AS ("
        "   SELECT a.earlier_id FROM photo_addition a WHERE a.earlier_id IS NOT NULL"
        "   AND EXISTS (SELECT 1 FROM score s WHERE s.photo_id = a.photo_id)"
        "   UNION SELECT a.earlier_id FROM photo_addition a JOIN kept ON a.photo_id = kept.id"
        "   WHERE a.earlier_id IS NOT NULL) SELECT id FROM kept)"
        " ORDER BY created LIMIT ?)",
        (f"-{days} days", limit))
    return cur.rowcount


def get_photo(photo_id: int, *, with_data: bool = False) -> dict[str, Any]:
    """A stored photo's reading (and bytes); 404 if there is none, or its game is deleted."""
    row = _row_by_id("SELECT photo.*, game.deleted AS game_deleted FROM photo"
                     " LEFT JOIN game ON game.id = photo.game_id WHERE photo.id = ?", photo_id)
    if row is None:
        abort(404, f"Photo {photo_id} doesn't exist.")
    if row["game_deleted"] is not None:   # not shown, but not said to be gone either: it can come back
        abort(404, f"Photo {photo_id} is of game {row['game_id']}, which was deleted: History keeps it "
                   f"{DELETED_GAME_DAYS} days from then, to bring back.")
    addition = get_db().execute("SELECT earlier_id, cards_before FROM photo_addition WHERE photo_id = ?",
                                (photo_id,)).fetchone()
    photo = {"id": row["id"], "game_id": row["game_id"], "mime": row["mime"], **json.loads(row["reading"]),
             "keepsake": None if row["keepsake"] == PHOTO_LEFT_AS_TAKEN else row["keepsake"],
             "added_to": None if addition is None else
             {"earlier_id": addition["earlier_id"], "cards_before": json.loads(addition["cards_before"])}}
    if with_data:
        photo["data"] = row["data"]
    return photo
