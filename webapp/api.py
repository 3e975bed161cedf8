"""The JSON API under /api/: everything the pages do, with the same messages.

Errors are ``{"error": "..."}`` with 400 (bad input), 404 (no such game, hand,
player or photo), 409 (a score changed since its "was"; a game of rules this version does
not know) or 413 (upload or JSON body too large). Calls that change data need the CSRF
token from ``GET /api/csrf`` in the ``X-CSRF-Token`` header (same session cookie).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request, url_for
from werkzeug.exceptions import NotFound

from onze_vision.messages import listed, quoted

from . import csrf, model, rules
from .history import csv_separator, game_csv, page_of

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.errorhandler(ValueError)
def bad_input(error: ValueError) -> tuple[Response, int]:
    """Engine and input errors: the message as it is, HTTP 400, nothing changed."""
    return jsonify(error=str(error)), 400


@bp.errorhandler(model.ScoreChangedError)
def score_changed(error: model.ScoreChangedError) -> tuple[Response, int]:
    """A score changed since the caller read it (its ``was``): 409, nothing changed."""
    return jsonify(error=str(error)), 409


@bp.errorhandler(model.DetectorUnavailableError)
def no_detector(error: model.DetectorUnavailableError) -> tuple[Response, int]:
    """Photos cannot be read on this install; typing cards still works."""
    return jsonify(error=str(error)), 503


#: The largest JSON body a call takes: a whole game's names, notes and cards fit many
#: times over. MAX_CONTENT_LENGTH is for photos; a 17 MB card list took 12 s to parse.
MAX_JSON_BYTES = 256 * 1024


#: The most digits a number sent to the API may have: a row id's.
_LONGEST_NUMBER = model.ROW_ID_DIGITS


def _json(fields: tuple[str, ...], *, nullable: tuple[str, ...] = (), flags: tuple[str, ...] = (),
          texts: tuple[str, ...] = ()) -> dict[str, Any]:
    """The JSON object sent, holding only ``fields``.

    A misspelt field is refused by name rather than ignored (``{"outt": 2}`` changed nothing,
    unsaid). ``null`` is taken only by the ``nullable`` fields (where it means "no one" or "not
    said"), ``true``/``false`` only by the ``flags``, and the ``texts`` must be strings: a
    ``null`` note or splash had reset what was saved, and a seat sent as ``true`` was quoted
    back as Python's ``True``.
    """
    data = _json_object()
    for key, value in data.items():
        if key not in fields:
            shown = json.dumps(key) if len(key) <= 40 else quoted(key)
            raise model.InputError(f"{shown} is not a field of this call, which takes "
                                   f"{listed([json.dumps(field) for field in fields])}.")
        if value is None and key not in nullable:
            raise model.InputError(f'"{key}": null is not a value this call takes: send one.')
        if isinstance(value, bool) and key not in flags:
            raise model.InputError(f'"{key}": {json.dumps(value)} is not a value this call takes '
                                   "(true and false are for yes-or-no fields).")
        if key in texts and value is not None and not isinstance(value, str):
            raise model.InputError(f'"{key}" is text (a JSON string), not {json.dumps(value)[:40]}.')
    return data


def _json_object() -> dict[str, Any]:
    size = request.content_length
    if size is not None and size > MAX_JSON_BYTES:
        abort(413, f"The JSON sent is {size / 1024:.0f} KB; a call takes at most {MAX_JSON_BYTES // 1024} KB.")
    body = _body_up_to(MAX_JSON_BYTES)
    if len(body) > MAX_JSON_BYTES:
        abort(413, f"The JSON sent is over {MAX_JSON_BYTES // 1024} KB; a call takes at most "
                   f"{MAX_JSON_BYTES // 1024} KB.")
    try:
        data = json.loads(body, parse_int=_json_int) if request.is_json else None
    except model.InputError:
        raise
    except (ValueError, RecursionError):   # not JSON, or "[[[[..." deeper than Python parses
        data = None
    if not isinstance(data, dict):
        raise model.InputError("Send a JSON object (Content-Type: application/json).")
    return data


def _json_int(digits: str) -> int:
    """A whole number in the JSON sent; one longer than any field takes is refused by name
    (Python reads no more than 4,300 digits, and said so as if the JSON were not JSON)."""
    if len(digits.lstrip("-")) > _LONGEST_NUMBER:
        raise model.InputError(f"The JSON sent holds a number of {len(digits.lstrip('-'))} digits "
                               f"({digits[:12]}...): no field takes more than {_LONGEST_NUMBER}.")
    return int(digits)


def _field(data: dict[str, Any], key: str) -> Any:
    """``data[key]``, or a refusal: a call that replaces a value must say the new one."""
    if key not in data:
        raise model.InputError(f"Send {{\"{key}\": ...}}: the JSON object sent has no \"{key}\".")
    return data[key]


@contextmanager
def _ids_in_the_body() -> Iterator[None]:
    """A game or photo that an id in the body names and the book lacks is bad input (400),
    as a photo number in a score's body is: 404 is for what the URL names."""
    try:
        yield
    except NotFound as error:
        raise model.InputError(str(error.description)) from error


def _game_in_the_body(game_id: Any) -> dict[str, Any]:
    """The game a body's ``"game_id"`` names (400 where the book lacks it)."""
    with _ids_in_the_body():
        return model.load_game(_int(game_id, "game_id"))


def _only(field: str, *, text: bool = False) -> Any:
    """The value of a call that replaces one thing, sent as its one field (``text``: a string)."""
    return _field(_json((field,), texts=(field,) if text else ()), field)


def _game_json(game: dict[str, Any]) -> dict[str, Any]:
    return {**game, "url": url_for("sheet.game", game_id=game["id"])}


def _body_up_to(limit: int) -> bytes:
    """The request's body, read to one byte past ``limit``: a chunked body says no size,
    must not be taken whole, and must not pass for a shorter one."""
    body, left = bytearray(), limit + 1
    while left > 0 and (chunk := request.stream.read(left)):
        body += chunk
        left -= len(chunk)
    return bytes(body)


def _photo_bytes() -> bytes:
    upload = request.files.get("photo")
    if upload is not None:
        return upload.read()
    if request.mimetype in ("image/jpeg", "image/png", "image/webp", "image/heic", "image/heif",
                            "application/octet-stream"):
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        if limit is None:
            return request.get_data()
        # Read to a byte past the limit, never cut at it: a body sent chunked says no size,
        # and one cut was read as "a truncated JPEG". (Werkzeug's stream mostly refuses it
        # first, as a 413 too.)
        body = _body_up_to(limit)
        if len(body) > limit:
            abort(413)
        return body
    raise model.InputError("No photo was sent: post it as the multipart field \"photo\".")


@bp.get("/csrf")
def csrf_token() -> Response:
    """The session's CSRF token, for the X-CSRF-Token header."""
    return jsonify(token=csrf.get_token())


@bp.get("/variants")
def variants() -> Response:
    """The variants: names, player limits, contracts and cards dealt per hand."""
    return jsonify(variants=[model.variant_info(v) for v in model.all_variants()])


@bp.get("/variants/<name>")
def variant_rules(name: str) -> Response:
    """One variant's rules as the Rules page says them; ``?players=N`` adds that table's
    decks and, hand by hand, the cards the deal leaves."""
    chosen = rules.variant_or_404(name)
    players = rules.players_arg(chosen)
    table = None if players is None else chosen.table_facts(players)
    return jsonify({**chosen.to_dict(),
                    "rules": [{"topic": topic, "words": words} for topic, words in chosen.rules_in_words()],
                    "card_values": [{"cards": cards, "points": points} for cards, points in chosen.card_values],
                    "hands": chosen.hand_facts(players), "table": table})


@bp.get("/cards")
def cards() -> Response:
    """The 53 card codes."""
    from onze_vision.cards import CARD_CODES
    return jsonify(cards=list(CARD_CODES))


@bp.post("/cards/parse")
@csrf.exempt
def parse_cards() -> Response:
    """Canonical codes from typed text: {"text": "7h 10s"} -> {"cards": ["7H", "10S"]}."""
    data = _json(("text", "cards"), texts=("text",))
    if ("text" in data) == ("cards" in data):   # neither, or both: which would it read?
        raise model.InputError('Send {"text": "7h 10s"} or {"cards": [...]}: the JSON object sent has '
                               f'{"both" if data else "neither"}.')
    return jsonify(cards=model.parse_card_list(data.get("text", data.get("cards"))))


@bp.get("/games")
def games() -> Response:
    """Every game, newest first; with ``?page=N``, 20 to a page (a book of years loads whole
    in seconds), with ``page``, ``pages`` and ``total``."""
    # Games of rules this version does not know are named apart: they cannot be added up.
    unknown = model.games_of_unknown_rules()
    if "page" not in request.args:
        return jsonify(games=[_game_json(g) for g in model.list_games()], unknown_rules=unknown)
    every_game = model.game_summaries()
    on_page, page, pages = page_of(every_game, request.args["page"], "the games")
    return jsonify(games=[_game_json(g) for g in model.list_games(g["id"] for g in on_page)],
                   page=page, pages=pages, total=len(every_game), unknown_rules=unknown)


@bp.get("/games/deleted")
def deleted_games() -> Response:
    """The deleted games kept to bring back (History's "Deleted games"), last deleted first:
    each as it was, with the time of its deletion (``deleted``, UTC)."""
    return jsonify(games=[_game_json(g) for g in model.deleted_games()],
                   unknown_rules=model.games_of_unknown_rules(deleted=True))


@bp.get("/standings")
def standings() -> Response:
    """Each player's record over the finished games (the history page's standings);
    ``?variant=onze``: over the games of those rules only."""
    return jsonify(standings=model.standings(model.games_by_rules(model.game_summaries(),
                                                                  request.args.get("variant"))))


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    """Start a game: {"variant", "players": [names], "first_dealer": seat or name, "note",
    "corners": "auto" | "two" | "four" (which corners of the deck's cards carry an index)}."""
    data = _json(("variant", "players", "first_dealer", "note", "corners"), texts=("variant", "note", "corners"))
    names = data.get("players")
    if not isinstance(names, list):
        raise model.InputError("\"players\" must be a list of 2-8 names.")
    game_id = model.create_game(data.get("variant", ""), names, data.get("first_dealer", 1), data.get("note", ""),
                                data.get("corners", "auto"))
    return jsonify(_game_json(model.load_game(game_id))), 201


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> Response:
    """One game: players, hands 1-7 with scores, totals, leaders, winners."""
    return jsonify(_game_json(model.load_game(game_id)))


@bp.get("/games/<int:game_id>/changes")
def game_changes(game_id: int) -> Response:
    """How many times the game has changed: poll it, and load the game when it grows."""
    return jsonify(id=game_id, changes=model.game_changes(game_id))


@bp.post("/games/<int:game_id>/restore")
def restore_game(game_id: int) -> Response:
    """Bring a deleted game back (within DELETED_GAME_DAYS days of its deletion)."""
    return jsonify(_game_json(model.restore_game(game_id)))


@bp.post("/games/<int:game_id>/end")
def end_game(game_id: int) -> Response:
    """End the game before hand 7, after the last hand every player has a score for."""
    return jsonify(_game_json(model.end_game(game_id)))


@bp.post("/games/<int:game_id>/play-on")
def play_on(game_id: int) -> Response:
    """Take back ending the game early: it runs to hand 7 again."""
    return jsonify(_game_json(model.play_on(game_id)))


@bp.delete("/games/<int:game_id>")
def delete_game(game_id: int) -> Response:
    """Take a game out of the book; returns it as it was. It is kept DELETED_GAME_DAYS days
    (POST /api/games/<id>/restore brings it back), then removed with its scores and photos."""
    return jsonify(_game_json(model.delete_game(game_id)))


@bp.post("/games/<int:game_id>/delete-for-good")
def delete_game_for_good(game_id: int) -> Response:
    """Remove a deleted game now, with its hands, scores and photos (overwritten in the
    file), as History's "Delete for good" does; returns it as it was. 404 unless it is
    among the deleted games: a game in the book is deleted first (DELETE), so one call
    can never remove a game in play."""
    return jsonify(_game_json(model.delete_game_for_good(game_id)))


@bp.get("/games/<int:game_id>/export.csv")
def game_export_csv(game_id: int) -> Response:
    """The sheet as CSV (same as the page's export)."""
    separator = csv_separator(request.args.get("sep"))
    return Response(game_csv(model.load_game(game_id), separator), mimetype="text/csv")


@bp.route("/games/<int:game_id>/note", methods=("POST", "PUT"))
def game_note(game_id: int) -> Response:
    """Replace the game's note: {"note": "..."}."""
    return jsonify(_game_json(model.set_game_note(game_id, _only("note", text=True))))


@bp.route("/games/<int:game_id>/players", methods=("POST", "PUT"))
def game_players(game_id: int) -> Response:
    """Correct the players' names, in seat order: {"players": ["Ann", "Bo", ...]}."""
    return jsonify(_game_json(model.set_player_names(game_id, _only("players"))))


@bp.route("/games/<int:game_id>/corners", methods=("POST", "PUT"))
def game_corners(game_id: int) -> Response:
    """Say which corners of the game's deck carry an index: {"corners": "auto" | "two" | "four"};
    photos read from then on join a card's corners so."""
    return jsonify(_game_json(model.set_game_corners(game_id, _only("corners", text=True))))


@bp.route("/games/<int:game_id>/joker", methods=("POST", "PUT", "DELETE"))
def game_joker(game_id: int) -> Response:
    """Show the game's deck's Joker: multipart field "photo", a photo of one Joker alone;
    photos read from then on read an index that looks like it as a Joker. DELETE forgets it."""
    if request.method == "DELETE":
        return jsonify(_game_json(model.forget_game_joker(game_id)))
    return jsonify(_game_json(model.set_game_joker(game_id, _photo_bytes())))


@bp.route("/games/<int:game_id>/dealer", methods=("POST", "PUT"))
def game_dealer(game_id: int) -> Response:
    """Who dealt hand 1: {"first_dealer": seat or name}; every hand's dealer follows."""
    return jsonify(_game_json(model.set_first_dealer(game_id, _only("first_dealer"))))


@bp.post("/games/<int:game_id>/players/<int:seat>/move")
def move_player(game_id: int, seat: int) -> Response:
    """Move a player to another seat with their scores: {"to": seat}."""
    return jsonify(_game_json(model.move_player(game_id, seat, _only("to"))))


@bp.route("/games/<int:game_id>/variant", methods=("POST", "PUT"))
def game_variant(game_id: int) -> Response:
    """Change the game's rules: {"variant": name}; scores from cards are counted again. A typed
    score refuses the change, unless "keep_typed": true keeps typed scores as typed."""
    data = _json(("variant", "keep_typed"), flags=("keep_typed",), texts=("variant",))
    keep_typed = model.parse_flag(data.get("keep_typed", False), "\"keep_typed\"")
    return jsonify(_game_json(model.set_variant(game_id, _field(data, "variant"), keep_typed=keep_typed)))


@bp.route("/games/<int:game_id>/hands/<int:hand>", methods=("POST", "PUT"))
def hand(game_id: int, hand: int) -> Response:
    """Who went out, splash, note of a hand; any subset of {"out": seat|null, "splash", "note"}."""
    data = _json(("out", "splash", "note"), nullable=("out",), flags=("splash",), texts=("note",))
    out = data.get("out")
    if out is not None and (out == 0 or str(out).strip().lower() in ("", "0", "-0", "none")):
        # The page's form says "no one" with an empty choice; the API says it with null only
        # (a client counting seats from 0 would have cleared the mark with seat 1's 0).
        raise model.InputError(f'"out" is the seat of the player who went out (from 1), or null for no one; '
                               f"not {json.dumps(out)[:40]}.")
    kwargs = {key: data[key] for key in ("out", "splash", "note") if key in data}
    return jsonify(_game_json(model.save_hand(game_id, hand, **kwargs)))


@bp.route("/games/<int:game_id>/hands/<int:hand>/scores/<int:seat>", methods=("POST", "PUT"))
def score(game_id: int, hand: int, seat: int) -> Response:
    """Save a score: {"cards": [...], "photo_id": n} or {"points": n} (before doubling); with
    "was" (the score's "version" as read, "" for none), only over that score."""
    data = _json(("cards", "points", "photo_id", "was"), nullable=("cards", "points", "photo_id", "was"))
    was = data.get("was")
    if was is not None and not isinstance(was, str):
        raise model.InputError("\"was\" is the score's \"version\" as read (a string, \"\" for no score), "
                               f"not {quoted(was)}.")
    game = model.save_score(game_id, hand, seat, cards=data.get("cards"), points=data.get("points"),
                            photo_id=data.get("photo_id"), was=was)
    return jsonify(_game_json(game))


@bp.delete("/games/<int:game_id>/hands/<int:hand>/scores/<int:seat>")
def delete_score(game_id: int, hand: int, seat: int) -> Response:
    """Clear a saved score; with ``?was=VERSION``, only the score as read (409 otherwise)."""
    return jsonify(_game_json(model.delete_score(game_id, hand, seat, was=request.args.get("was"))))


@bp.post("/score")
@csrf.exempt
def score_cards() -> Response:
    """Points of cards: {"variant", "cards", "players"?, "decks"?, "splash"?, "hand"?, "game_id"?}.

    With ``game_id`` the game's variant, players and decks are used (sending them too is a
    400). Returns the engine's HandScore (points, breakdown, doubled, splash); an impossible
    hand is a 400.
    """
    data = _json(("variant", "cards", "players", "decks", "splash", "hand", "game_id"),
                 nullable=("players", "decks", "hand", "game_id"),
                 flags=("splash",), texts=("variant",))
    if "cards" not in data:
        raise model.InputError('Send {"cards": [...]} (or a string of codes): the JSON object sent has no "cards".')
    kwargs: dict[str, Any] = {"splash": model.parse_splash(data.get("splash", False))}
    variant = data.get("variant", "")
    if data.get("game_id") is not None:
        _game_brings_its_own(data, ("variant", "players", "decks"))
        g = _game_in_the_body(data["game_id"])
        variant, kwargs["players"], kwargs["decks"] = g["variant"]["name"], len(g["players"]), g["decks"]
    else:
        for key in ("players", "decks"):
            if data.get(key) is not None:
                kwargs[key] = _int(data[key], key)
    if data.get("hand") is not None:
        kwargs["hand"] = model.parse_hand_number(data["hand"])
    return jsonify(model.score_cards(variant, data.get("cards"), **kwargs))


def _game_brings_its_own(data: dict[str, Any], fields: tuple[str, ...]) -> None:
    """Refuse ``fields`` sent beside a ``game_id``, which brings its own: one of them would be
    ignored, and a caller who sent it would not learn that it was."""
    sent = [field for field in fields if data.get(field) is not None]
    if sent:
        named = listed([f'"{field}"' for field in sent])
        raise model.InputError(f'Send "game_id" or {named}, not both: a game brings its own rules, players and decks.')


def _int(value: Any, name: str) -> int:
    # isascii: str.isdigit() also accepts "²", which int() refuses.
    text = str(value).strip()
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not (text.isascii() and text.isdigit()):
        raise model.InputError(f"\"{name}\" must be a whole number, not {quoted(value)}.")
    if isinstance(value, str) and len(text) > _LONGEST_NUMBER:   # int() refuses 4,301 digits, in its words
        raise model.InputError(f"\"{name}\" must be a number of at most {_LONGEST_NUMBER} digits, "
                               f"not {quoted(value)}.")
    return int(value)


@bp.post("/godown")
@csrf.exempt
def godown() -> Response:
    """Check a go-down: {"variant" or "game_id", "hand" (default: the game's current), "cards",
    "mode": "down" (every card used) or "hand" (find the contract in a whole hand)}."""
    data = _json(("variant", "game_id", "hand", "cards", "mode"), nullable=("game_id", "hand", "mode"),
                 texts=("variant",))
    variant, hand = data.get("variant", ""), data.get("hand")
    in_game: dict[str, int] = {}
    if data.get("game_id") is not None:
        _game_brings_its_own(data, ("variant",))
        g = _game_in_the_body(data["game_id"])
        variant = g["variant"]["name"]
        in_game = {"players": len(g["players"]), "decks": g["decks"]}   # the game's decks bound the cards
        if hand is None:
            hand = g["current_hand"] or 7
    if hand is None:
        raise model.InputError("Say which hand (1-7) the go-down is for.")
    mode = "down" if data.get("mode") is None else data["mode"]   # null: not said, as "hand" above
    if mode not in ("down", "hand"):
        raise model.InputError(f"\"mode\" is \"down\" (the cards laid down, every one in a meld) or \"hand\" "
                               f"(find the contract in a whole hand), not {quoted(mode)}.")
    return jsonify(model.check_go_down(variant, hand, data.get("cards"), whole_hand=mode == "hand", **in_game))


@bp.post("/detect")
@csrf.exempt
def detect() -> Response:
    """Read the cards in a photo (multipart field "photo", or the raw image as the body).

    Nothing is stored: {"width", "height", "cards": [{"card", "confidence", "box"}], "maybe": [...]};
    a card read unsure also has "alternative", its next most likely code ("check": true, read
    faintly; "count_unsure": true, a Joker that may be one card's two corners); "maybe" lists
    cards possibly missed (read under the operating point), never counted unasked;
    "blurred": true (with the "smear" read) marks a photo too blurred to trust ("unshaken":
    true where its cards were read with a straight shake taken out of it). Optional
    field or query "corners": "two" or "four" when the deck's indices are known to be in
    so many corners ("auto", the default: tell from the photo).
    """
    corners = request.form.get("corners") or request.args.get("corners") or "auto"
    return jsonify(model.read_photo(_photo_bytes(), corners))


@bp.post("/photos")
def photos() -> tuple[Response, int]:
    """Read and keep a photo (optional form field game_id): the reading plus "id" and "url".
    Optional fields "cards_before" (codes) and "earlier_id" (the photo they were read from):
    this photo's cards are added to those (a hand in two photos); its reading says so."""
    game_id = request.form.get("game_id") or request.args.get("game_id")
    before = model.parse_card_list(request.form.get("cards_before", ""))
    earlier = request.form.get("earlier_id")
    if earlier and not before:
        raise model.InputError("\"earlier_id\" needs \"cards_before\": the cards the photo's are added to.")
    adds_to = (_int(earlier, "earlier_id") if earlier else None, before) if before else None
    with _ids_in_the_body():   # the game and the earlier photo named
        photo = model.store_photo(_photo_bytes(), _int(game_id, "game_id") if game_id else None, adds_to=adds_to)
    return jsonify({**photo, "url": url_for("hands.photo", photo_id=photo["id"])}), 201


@bp.get("/photos/<int:photo_id>")
def photo(photo_id: int) -> Response:
    """A stored photo's reading and url."""
    stored = model.get_photo(photo_id)
    return jsonify({**stored, "url": url_for("hands.photo", photo_id=photo_id)})
