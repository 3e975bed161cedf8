"""Games and the score sheet: start a game, see hands 1-7 by players, the game note."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from werkzeug.exceptions import NotFound

from . import model
from .remembered import recall, remember

bp = Blueprint("sheet", __name__)


@bp.route("/")
def index() -> str:
    """Home: games in progress first, then the last few finished, and the button to start one."""
    summaries = model.game_summaries()
    playing = [g["id"] for g in summaries if not g["finished"]]
    shown = playing[:IN_PLAY_ON_HOME] + [g["id"] for g in summaries if g["finished"]][:FINISHED_ON_HOME]
    return render_template("index.html", games=model.list_games(shown), finished_on_home=FINISHED_ON_HOME,
                           more_in_play=max(0, len(playing) - IN_PLAY_ON_HOME),
                           rescues=[r for r in model.rescues() if r["seen"] is None],
                           unknown_rules=model.unknown_rules_note(model.games_of_unknown_rules()))


#: Finished games the home page lists (History has them all).
FINISHED_ON_HOME = 5
#: Games in play the home page lists, newest first: games left unfinished pile up over the
#: years (231 in a book of 3,000 games made the page 63 KB), and History has them all.
IN_PLAY_ON_HOME = 10


@bp.route("/games/new", methods=("GET", "POST"))
def new_game() -> Any:
    """Start a game: variant, 2-8 named players in seating order, the first dealer."""
    form: dict[str, Any] = {"variant": model.DEFAULT_VARIANT, "names": [""] * model.MAX_PLAYERS, "first_dealer": "1",
                            "note": "", "corners": "auto"}
    if request.method == "POST":
        # The same form sent again (Back, then "Start the game" once more) opens the game it
        # started rather than starting a copy another phone might go on scoring.
        started = _started_by(request.form.get("form_id", ""))
        if started is not None:
            flash("This game was started already: here it is.", "ok")
            return redirect(url_for("sheet.game", game_id=started))
        names = [request.form.get(f"player{i}", "") for i in range(1, model.MAX_PLAYERS + 1)]
        form = {"variant": request.form.get("variant", ""), "names": names,
                "first_dealer": request.form.get("first_dealer", "1"), "note": request.form.get("note", ""),
                "corners": request.form.get("corners", "auto"), "joker_from": request.form.get("joker_from", "")}
        # The form has a slot per possible player: blank ones are left out, and so shift the
        # seats after them (the dealer is picked by slot).
        try:
            filled = [i for i, n in enumerate(names, start=1) if n.strip()]
            slot = _slot(form["first_dealer"])
            # Too few names is the first thing to say; the dealer's slot matters after.
            if slot not in filled and len(filled) >= 2:
                raise model.InputError(f"The first dealer (player {slot}) has no name: "
                                       "pick one of the named players.")
            dealer = filled.index(slot) + 1 if slot in filled else 1
            players = [names[i - 1] for i in filled]
            # The same table started on two phones: said, not made twice unasked (scores saved
            # into two games cannot be brought together).
            twin = model.recent_twin(form["variant"], players)
            if twin is not None and request.form.get("twin_ok") != str(twin["id"]):
                return _new_game_page(form, twin=twin), 409
            game_id = model.create_game(form["variant"], players, dealer, form["note"], form["corners"])
            # Played again with the same deck: its Joker, shown in the game before, is known still.
            if form["joker_from"]:
                model.copy_game_joker(form["joker_from"], game_id)
        except ValueError as error:
            flash(str(error), "error")
            # The names the refusal is about are marked for a screen reader, not only said
            # (a seat left empty is no fault here: two to eight of the boxes are filled).
            form["invalid"] = [bool(n.strip()) and bad for n, bad in zip(names, model.refused_names(names))]
            return _new_game_page(form), 400
        _remember_start(request.form.get("form_id", ""), game_id)
        flash("Game started: deal the first hand.", "ok")
        for text in model.deal_warnings(game_id):
            flash(text, "warn")
        return redirect(url_for("sheet.game", game_id=game_id))
    if "again" in request.args:
        form = _play_again_form(request.args["again"])
    return _new_game_page(form)


def _play_again_form(value: str) -> dict[str, Any]:
    """The new-game form filled from game ``value``: its variant, players in their seats and
    deck, and the deal passed on from the last hand's dealer to the next seat, as at the table
    (the last hand played: hand 7, or the hand a game ended early ended after)."""
    try:
        game_id = int(value)
    except ValueError:
        abort(404, f"Game {value!r} doesn't exist.")
    game = model.load_game(game_id)
    players = [p["name"] for p in game["players"]]
    last_played = game["ended_after"] or len(game["hands"])
    dealer = game["hands"][last_played - 1]["dealer"] % len(players) + 1
    flash(f"Playing again: the players, rules and deck of game {game_id}; {players[dealer - 1]} deals first "
          "this time. Change anything before starting.", "ok")
    return {"variant": game["variant"]["name"], "names": players + [""] * (model.MAX_PLAYERS - len(players)),
            "first_dealer": str(dealer), "note": "", "corners": game["corners"],
            "joker_from": str(game_id) if game["joker_shown"] else ""}


def _new_game_page(form: dict[str, Any], twin: dict[str, Any] | None = None) -> str:
    variants = model.all_variants()
    # One id per form drawn (kept when the form comes back with an error): what it started is
    # remembered in the session, so sending it twice starts one game.
    form_id = request.form.get("form_id") or secrets.token_urlsafe(12)
    return render_template("new_game.html", form=form, variants=variants, form_id=form_id[:32], twin=twin,
                           summaries={v.name: model.variant_summary(v) for v in variants})


#: How many started forms a session remembers (a phone starts a few games an evening).
_STARTS_REMEMBERED = 20


def _started_by(form_id: str) -> int | None:
    """The game the new-game form ``form_id`` started in this session, where it still exists."""
    game_id = recall("started", form_id[:32]) if form_id else None
    if game_id is None:
        return None
    try:
        model.load_game(game_id)
    except NotFound:   # deleted since: the form may start a game again
        return None
    return int(game_id)


def _remember_start(form_id: str, game_id: int) -> None:
    if form_id:
        remember("started", form_id[:32], game_id, _STARTS_REMEMBERED)


def _slot(value: str) -> int:
    """The first dealer's slot on the form (1-8)."""
    try:
        return int(value or 1)
    except ValueError:
        raise model.InputError(f"The first dealer {value!r} is not a player number (1-{model.MAX_PLAYERS}).") from None


@bp.route("/games/<int:game_id>")
def game(game_id: int) -> str:
    """The score sheet: hands as rows, players as columns, totals and the leader."""
    game = model.load_game(game_id)
    return render_template("sheet.html", game=game, note_text=game["note"])


@bp.route("/games/<int:game_id>/note", methods=("GET", "POST"))
def game_note(game_id: int) -> Any:
    """Save the game's note; a refused note comes back in the box as it was typed."""
    if request.method == "GET":   # a reload of a refused note's page
        return redirect(url_for("sheet.game", game_id=game_id) + "#notes")
    note, was = request.form.get("note", ""), request.form.get("note_was")
    if was is not None and note == was:   # left as shown: what is saved now stays
        game = model.load_game(game_id)
        flash("Note saved." if game["note"] == was else
              "The game note was changed on another device since this page was opened: here it is.", "ok")
        return redirect(url_for("sheet.game", game_id=game_id) + "#notes")
    try:
        model.set_game_note(game_id, note, was=was)
    except model.NoteChangedError as error:
        # Changed here and on another phone since this page was drawn: neither wins unseen.
        flash(f"{error} Yours is in the box, not saved yet: save again to replace the other, which reads: "
              f"\u201c{error.note}\u201d", "error")
        return render_template("sheet.html", game=model.load_game(game_id), note_text=note), 409
    except ValueError as error:
        flash(str(error), "error")
        return render_template("sheet.html", game=model.load_game(game_id),
                               note_text=request.form.get("note", "")), 400
    flash("Note saved.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#notes")


@bp.route("/games/<int:game_id>/players", methods=("GET", "POST"))
def game_players(game_id: int) -> Any:
    """Correct the players' names; refused names come back in their boxes as they were typed."""
    if request.method == "GET":   # a reload of a refused form's page
        return redirect(url_for("sheet.game", game_id=game_id) + "#players")
    game = model.load_game(game_id)
    names = [request.form.get(f"player{seat}", "") for seat in range(1, len(game["players"]) + 1)]
    # A name left as the page showed it keeps what it is now (another phone may have fixed
    # it since); one changed both here and there is not saved over unseen.
    shown = [request.form.get(f"player{seat}_was") for seat in range(1, len(names) + 1)]
    try:
        model.set_player_names(game_id, names, shown=shown)
    except model.NamesChangedError as error:
        flash(f"{error} Yours are in the boxes, not saved yet: save again to replace them.", "error")
        game = model.load_game(game_id)
        return render_template("sheet.html", game=game, note_text=game["note"], player_names=names), 409
    except ValueError as error:
        flash(str(error), "error")
        game = model.load_game(game_id)
        now = [p["name"] for p in game["players"]]
        boxes = model.names_to_save(names, shown, now)
        # The boxes the refusal is about are marked for a screen reader, not only said.
        return render_template("sheet.html", game=game, note_text=game["note"],
                               player_names=boxes, names_invalid=model.refused_names(boxes)), 400
    flash("Names saved.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#players")


@bp.route("/games/<int:game_id>/corners", methods=("GET", "POST"))
def game_corners(game_id: int) -> Any:
    """Say which corners of the game's deck carry an index; photos read from now on use it."""
    if request.method == "POST":
        try:
            game = model.set_game_corners(game_id, request.form.get("corners"))
        except ValueError as error:
            return _sheet_refusal(game_id, error)
        flash(f"Deck saved: {model.DECK_CORNERS[game['corners']]}.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#deck")


@bp.route("/games/<int:game_id>/joker", methods=("POST",))
def game_joker(game_id: int) -> Any:
    """Show the app the deck's Joker (a photo of one): photos read from now on know it."""
    upload = request.files.get("joker_photo")
    try:
        if upload is None or not upload.filename:
            raise model.InputError("No photo was sent: take a photo of one Joker of this deck, alone.")
        model.set_game_joker(game_id, upload.read())
    except (ValueError, model.DetectorUnavailableError, model.ReadingBusyError) as error:
        if isinstance(error, ValueError):
            return _sheet_refusal(game_id, error)
        flash(str(error), "error")
        game = model.load_game(game_id)
        return render_template("sheet.html", game=game, note_text=game["note"]), 503
    flash("Joker learned: in photos read from now on, a corner that looks like it is read as a Joker.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#deck")


@bp.route("/games/<int:game_id>/joker/forget", methods=("POST",))
def forget_joker(game_id: int) -> Any:
    """Forget the Joker shown (another deck, or a photo of the wrong card)."""
    model.forget_game_joker(game_id)
    flash("The Joker shown is forgotten: photos read from now on are read as any deck's.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#deck")


@bp.route("/games/<int:game_id>/delete", methods=("POST",))
def delete_game(game_id: int) -> Any:
    """Take a game out of the book (the page asks first); the message offers to undo it."""
    game = model.delete_game(game_id)
    names = ", ".join(p["name"] for p in game["players"])
    flash(f"Game {game_id} ({names}) deleted.", "ok")
    flash(str(game_id), "undo-delete")   # base.html draws it as the Undo button
    return redirect(url_for("sheet.index"))


@bp.route("/games/<int:game_id>/end", methods=("POST",))
def end_game(game_id: int) -> Any:
    """End the game before hand 7, after the last hand every player has a score for (the
    page asks first); Play on takes it back."""
    try:
        game = model.end_game(game_id, request.form.get("after"))
    except ValueError as error:
        return _sheet_refusal(game_id, error)
    flash(f"Game over after hand {game['ended_after']}: {model.result_text(game)}.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#winner")


@bp.route("/games/<int:game_id>/play-on", methods=("POST",))
def play_on(game_id: int) -> Any:
    """Take back ending the game early: it runs to hand 7, every kept score counting again."""
    model.play_on(game_id)
    flash("Playing on: the game runs to hand 7, and every saved score counts.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id))


def _dealer_now(game: dict[str, Any]) -> str:
    """", and Cy deals hand 3" for the hand in play (a move or a new first dealer changes it)."""
    number = game["current_hand"]
    if number is None:
        return ""
    dealer = game["players"][game["hands"][number - 1]["dealer"] - 1]["name"]
    return f", and {dealer} deals hand {number}"


def _sheet_refusal(game_id: int, error: ValueError, **context: Any) -> Any:
    """The sheet drawn again with why a change to it was refused (nothing changed)."""
    flash(str(error), "error")
    game = model.load_game(game_id)
    return render_template("sheet.html", game=game, note_text=game["note"], **context), 400


@bp.route("/games/<int:game_id>/dealer", methods=("POST",))
def game_dealer(game_id: int) -> Any:
    """Say who dealt hand 1 (chosen wrong at the start); each hand's dealer follows."""
    try:
        game = model.set_first_dealer(game_id, request.form.get("first_dealer", ""),
                                      seating=request.form.get("seating"))
    except ValueError as error:
        return _sheet_refusal(game_id, error)
    flash(f"{game['players'][game['first_dealer'] - 1]['name']} dealt hand 1: every hand's dealer "
          f"follows{_dealer_now(game)}.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#seating")


@bp.route("/games/<int:game_id>/players/<int:seat>/move", methods=("POST",))
def move_player(game_id: int, seat: int) -> Any:
    """Move a player to another seat (the seating was typed in the wrong order), with their scores."""
    try:
        game = model.move_player(game_id, seat, request.form.get("to", ""), seating=request.form.get("seating"))
    except ValueError as error:
        return _sheet_refusal(game_id, error)
    order = ", ".join(p["name"] for p in game["players"])
    flash(f"Seating saved: {order}. Each player keeps their scores{_dealer_now(game)}.", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#seating")


@bp.route("/games/<int:game_id>/variant", methods=("POST",))
def game_variant(game_id: int) -> Any:
    """Change the game's rules (the wrong variant was chosen): cards saved are scored again."""
    asked = request.form.get("variant", "")
    keep_typed = False
    rules_before = model.load_game(game_id)["variant"]["name"]
    try:
        keep_typed = model.parse_flag(request.form.get("keep_typed"), "Keeping the typed scores")
        game = model.set_variant(game_id, asked, keep_typed=keep_typed)
    except model.TypedScoresError as error:
        # One more tap changes them anyway, keeping the typed numbers as they are.
        return _sheet_refusal(game_id, error, keep_typed_offer={"variant": asked, "count": error.count})
    except ValueError as error:
        return _sheet_refusal(game_id, error)
    if game["variant"]["name"] == rules_before:   # the rules it had: nothing counted again
        flash(f"The game is played by {game['variant']['title']} already: nothing changed.", "ok")
        return redirect(url_for("sheet.game", game_id=game_id) + "#rules-choice")
    kept = " Typed scores were kept as typed." if keep_typed and any(
        score is not None and score["cards"] is None for h in game["hands"] for score in h["scores"]) else ""
    flash(f"Rules saved: {game['variant']['title']}, {game['decks']} decks. Every score from cards was "
          f"counted again under them.{kept}", "ok")
    return redirect(url_for("sheet.game", game_id=game_id) + "#rules-choice")
