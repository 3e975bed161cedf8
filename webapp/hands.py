"""A hand of a game: who went out, the splash, the note, and each player's score,
typed or read from a photo of the cards left and corrected as chips."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from werkzeug.exceptions import NotFound

from . import model
from .db import get_db
from .remembered import forget, recall, remember

bp = Blueprint("hands", __name__)


def _row_id(text: str) -> int | None:
    """A row id sent in a form field, or None where it is none (empty, not ASCII digits, or
    more digits than a row id has: Python refuses to read 5,000 of them as a number)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= model.ROW_ID_DIGITS else None


def _hand_url(game_id: int, hand: int) -> str:
    return url_for("hands.hand", game_id=game_id, hand=hand)


def _load(game_id: int, hand: int, seat: int | None = None) -> dict[str, Any]:
    game = model.load_game(game_id)
    model.check_hand_and_seat(game, hand, seat)
    return game


@bp.route("/games/<int:game_id>/hands/<int:hand>", methods=("GET", "POST"))
def hand(game_id: int, hand: int) -> Any:
    """Show the hand; POST saves who went out, the splash and the note."""
    game = _load(game_id, hand)
    if request.method == "POST":
        changes = _changed_hand_fields(request.form)
        before = game["hands"][hand - 1]
        shown = {field: request.form[f"{field}_was"] for field in changes if f"{field}_was" in request.form}
        try:
            saved = model.save_hand(game_id, hand, **changes, seating=request.form.get("seating"), shown=shown)
        except model.HandChangedError as error:
            # Both devices changed the same field: neither wins unseen. The page comes back
            # with this device's choice kept and the other's said; one more tap saves it.
            for message in error.messages:
                flash(message, "error")
            return _hand_page(model.load_game(game_id), hand, form=_sent_hand_form(request.form),
                              conflict=True, status=409)
        except model.SeatingChangedError as error:
            flash(str(error), "error")   # the seat chosen meant a player who sits elsewhere now
            return _hand_page(model.load_game(game_id), hand, status=409)
        except ValueError as error:
            flash(str(error), "error")
            # Show the form as it was sent, so nothing typed is lost.
            return _hand_page(game, hand, form=_sent_hand_form(request.form), status=400)
        after = saved["hands"][hand - 1]
        flash(f"Hand {hand} saved.", "ok")
        was_out = before["out"]
        if was_out is not None and after["out"] != was_out and after["scores"][was_out - 1] is not None:
            name = game["players"][was_out - 1]["name"]
            flash(f"{name} is no longer marked as out: their saved score "
                  f"({after['scores'][was_out - 1]['points']}) counts again.", "ok")
        out = after["out"]
        if out is not None and out != before["out"] and after["scores"][out - 1]["set_aside"]:
            name = game["players"][out - 1]["name"]
            flash(f"{name}'s saved score ({after['scores'][out - 1]['set_aside']['points']}) is set aside "
                  f"while {name} is marked as out; it comes back if the mark is undone.", "ok")
        return redirect(_hand_url(game_id, hand))
    return _hand_page(game, hand)


# Each field of the hand form comes with the value the page was drawn with ("out_was"...):
# a field left as it was is not sent on, so a page open in another tab cannot undo
# what was saved from this one since.
HAND_FIELDS = ("out", "splash", "note")


def _changed_hand_fields(form: Any) -> dict[str, str]:
    changes = {}
    for field in HAND_FIELDS:
        value = form.get(field, "")
        was = form.get(f"{field}_was")
        if was is None or value != was:
            changes[field] = value
    return changes


def _sent_hand_form(form: Any) -> dict[str, Any]:
    return {"out": form.get("out", ""), "splash": bool(form.get("splash")), "note": form.get("note", "")}


def _hand_page(game: dict[str, Any], hand: int, *, form: dict[str, Any] | None = None,
               typed: dict[int, str] | None = None, typed_error: str | None = None, conflict: bool = False,
               status: int = 200) -> Any:
    h = game["hands"][hand - 1]
    # As the form was drawn, the splash as a tick box wants it (a bool); a sent form over it.
    shown: dict[str, Any] = {**model.hand_fields(game, hand), "splash": h["splash"], **(form or {})}
    # Players with a photo read on this phone and not saved: said beside their name.
    waiting = {p["seat"] for p in game["players"] if _waiting_photo(game, hand, p["seat"]) is not None}
    return render_template("hand.html", game=game, h=h, form=shown, was=model.hand_fields(game, hand),
                           typed=typed or {}, typed_error=typed_error, conflict=conflict, waiting=waiting,
                           undoable=_undoable(game, hand)), status


def _undoable(game: dict[str, Any], hand: int) -> set[int]:
    """The seats whose score this phone replaced or cleared last, unchanged since: each can
    have its earlier score put back."""
    seats = set()
    for seat, score in enumerate(game["hands"][hand - 1]["scores"], start=1):
        kept = recall("replaced", _memory_key(game, hand, seat))
        if kept is not None and kept["after"] == (score["version"] if score else ""):
            seats.add(seat)
    return seats


@bp.route("/games/<int:game_id>/hands/<int:hand>/players/<int:seat>", methods=("GET", "POST"))
def player(game_id: int, hand: int, seat: int) -> Any:
    """One player's score for one hand: photo, chips, live points; POST saves it."""
    game = _load(game_id, hand, seat)
    if request.method == "POST":
        mode = request.form.get("mode", "cards")
        # The score the page showed (absent from a page drawn before the field was): one
        # changed on another phone since is not replaced unseen.
        was = request.form.get("was")
        try:
            seating = request.form.get("seating")
            if mode == "points":
                after = model.save_score(game_id, hand, seat, points=request.form.get("points", ""), was=was,
                                         seating=seating)
            else:
                after = model.save_score(game_id, hand, seat, cards=request.form.get("cards", ""),
                                         photo_id=request.form.get("photo_id") or None, was=was, seating=seating)
        except model.SeatingChangedError as error:
            # What was sent was for the player the page showed, who sits elsewhere now: nothing
            # goes in another player's box. Where the page said which player it was (their row),
            # what was sent goes back to that player's new seat, to save again knowingly.
            sent = request.form.get("points") if mode == "points" else request.form.get("cards")
            now = model.load_game(game_id)
            moved = next((p for p in now["players"] if str(p["id"]) == request.form.get("player_id", "")), None)
            if moved is None:
                flash(f"{error} What you sent: {sent or 'nothing'}.", "error")
                return _hand_page(now, hand, status=409)
            said = str(error).removesuffix(": open the player's page again.")
            back = (f"{said}. What you sent is back for {moved['name']}, now in seat {moved['seat']}: "
                    "check it, then save again.")
            if mode == "points":
                return _hand_page(now, hand, typed={moved["seat"]: sent or ""}, typed_error=back, status=409)
            flash(back, "error")
            return redirect(url_for("hands.player", game_id=game_id, hand=hand, seat=moved["seat"],
                                    photo=_row_id(request.form.get("photo_id") or ""), list=sent or ""))
        except ValueError as error:
            status, message = 400, str(error)
            if isinstance(error, model.ScoreChangedError):
                # Drawn again with the score as it is now: one more tap saves knowingly.
                said = str(error)
                if error.version and recall("saved", _memory_key(game, hand, seat)) == error.version:
                    # This phone saved it (another tab, or this page come back to with Back).
                    said = said.replace("was changed on another device since this page was opened",
                                        "was saved from this phone since this page was opened (in another "
                                        "tab, or before going Back)")
                message = f"{said} Yours is below, not saved yet: save again to replace it."
                game, status = model.load_game(game_id), 409
            if mode == "points":
                # Said beside the box the page scrolls to, not at the top out of sight.
                return _hand_page(game, hand, typed={seat: request.form.get("points", "")}, typed_error=message,
                                  status=status)
            # Keep what was typed so the player can fix it; nothing was saved. A photo that is
            # gone (let go a week after it was read unsaved) must not take the list with it.
            shown = request.form.get("photo_id") or None
            gone = shown is not None and not _is_game_photo(shown, game_id)
            if gone:
                message = f"{message} The cards are below as sent: save them again, without the photo."
            flash(message, "error")
            return _player_page(game, hand, seat, cards_text=request.form.get("cards", ""),
                                photo_id=None if gone else shown, no_photo=gone, status=status)
        forget("pending", _memory_key(game, hand, seat))
        _forget_drafts(game_id, hand, seat)
        name = game["players"][seat - 1]["name"]
        before = game["hands"][hand - 1]["scores"][seat - 1]
        now = after["hands"][hand - 1]["scores"][seat - 1]
        if now is not None:   # a clash with it later is this phone's own: said so
            remember("saved", _memory_key(game, hand, seat), now["version"], _UNDOS_KEPT)
        if _offer_undo(game, hand, seat, before, now):
            flash(f"Saved {name}'s score for hand {hand}: {model.score_words(now)} "
                  f"(it was {model.score_words(before)}).", "ok")
            flash(f"{game_id}/{hand}/{seat}", "undo-score")
            if not after["finished"]:   # at the player's card, with its Undo beside the score
                return redirect(f"{_hand_url(game_id, hand)}#player-{seat}")
        else:
            flash(f"Saved {name}'s score for hand {hand}.", "ok")
        return redirect(_after_score_url(game_id, hand, seat))
    return _player_page(game, hand, seat, photo_id=request.args.get("photo"))


def _forget_drafts(game_id: int, hand: int, seat: int) -> None:
    """Tell the next page drawn on this phone that the player's score changed: the card list
    typed there and kept for a reload (cards.js) is spent. (A list kept under the key of "no
    score yet" would otherwise come back after the score is cleared.)"""
    flash(url_for("hands.player", game_id=game_id, hand=hand, seat=seat), "forget-draft")


def _after_score_url(game_id: int, hand: int, seat: int) -> str:
    """Where a saved score leads: the sheet with its winner when that score ended the game;
    else the hand's page at the next player still without a score (a phone need not scroll
    back down past the players done), or at the way on to the next hand when every one has one."""
    game = model.load_game(game_id)
    if game["finished"]:
        flash(f"Game over: {model.result_text(game)}.", "ok")
        return url_for("sheet.game", game_id=game_id) + "#winner"
    scores = game["hands"][hand - 1]["scores"]
    seats = len(scores)
    following = [(seat + step - 1) % seats + 1 for step in range(1, seats + 1)]
    waiting = next((s for s in following if scores[s - 1] is None), None)
    return f"{_hand_url(game_id, hand)}#{'hand-done' if waiting is None else f'player-{waiting}'}"


#: A photo read for a player and not saved yet is kept waiting on that player's page (in the
#: session: the phone that took it), for this many players at once.
_PENDING_KEPT = 40


def _seating_refused(game: dict[str, Any], hand: int) -> Any | None:
    """The hand's page, saying so, where the form sent was drawn before the players moved to
    other seats (its seat would name another player now); None where it was not."""
    try:
        model.check_seating(get_db(), game["id"], request.form.get("seating"))
    except model.SeatingChangedError as error:
        flash(str(error), "error")
        return _hand_page(game, hand, status=409)
    return None


def _memory_key(game: dict[str, Any], hand: int, seat: int) -> str:
    """Where this phone's session keeps what it remembers of a player's hand: by the player's
    row, not the seat, so that it follows a player moved to another seat (and a new name)."""
    return f"{game['id']}/{hand}/p{game['players'][seat - 1]['id']}"


def _waiting_photo(game: dict[str, Any], hand: int, seat: int) -> int | None:
    """The photo read for this player on this phone and not saved with their score since."""
    photo_id = recall("pending", _memory_key(game, hand, seat))
    saved = game["hands"][hand - 1]["scores"][seat - 1]
    return None if photo_id is None or (saved and saved.get("photo_id") == photo_id) else int(photo_id)


def _is_game_photo(photo_id: str, game_id: int) -> bool:
    """Whether ``photo_id`` names a photo the game still keeps."""
    row_id = _row_id(photo_id)
    if row_id is None:
        return False
    try:
        model.game_photo(row_id, game_id)
    except NotFound:
        return False
    return True


def _player_page(game: dict[str, Any], hand: int, seat: int, *, cards_text: str | None = None,
                 photo_id: Any = None, no_photo: bool = False, status: int = 200) -> Any:
    """A player's page for a hand; ``no_photo``: drawn with no photo at all, not even the
    saved score's (the one sent with the cards is gone)."""
    h = game["hands"][hand - 1]
    saved = h["scores"][seat - 1]
    photo = None
    waiting = False
    seen_twice: list[str] = []
    seen_in_photo = False
    if photo_id in (None, "") and cards_text is None:
        # A photo read and left without saving (another page opened, the phone locked) waits here.
        pending = _waiting_photo(game, hand, seat)
        if pending is not None:
            try:
                model.get_photo(pending)
                photo_id, waiting = pending, True
            except NotFound:   # forgotten a week after it was read unsaved, or its game deleted
                forget("pending", _memory_key(game, hand, seat))
    if photo_id not in (None, ""):
        try:
            photo = model.get_photo(int(photo_id))
        except ValueError:
            abort(404, f"Photo {photo_id!r} doesn't exist.")
        if photo["game_id"] not in (None, game["id"]):
            abort(404, f"Photo {photo_id} doesn't exist in game {game['id']}.")
    elif saved and saved.get("photo_id") and not no_photo:
        photo = model.get_photo(saved["photo_id"])
    if cards_text is None and request.args.get("list") is not None:
        cards_text = request.args["list"]   # a list handed on (a photo added, then let go)
    if cards_text is None:
        # A photo already saved with this score (Back, or a reload, after saving) shows
        # the cards as saved, corrections and all: saving again must not undo them.
        saved_from_photo = bool(saved and photo is not None and saved.get("photo_id") == photo["id"])
        if photo is not None and (request.args.get("photo") or waiting) and not saved_from_photo:
            # A fresh photo: start from what was read (after the cards it was added to).
            before = photo["added_to"]["cards_before"] if photo["added_to"] else []
            read = [c["card"] for c in photo["cards"]]
            cards = before + read
            seen_twice = sorted(set(before) & set(read))
            seen_in_photo = photo["added_to"] is not None and photo["added_to"]["earlier_id"] is not None
        elif saved and saved["cards"] is not None:
            cards = saved["cards"]
        else:
            cards = []
        cards_text = " ".join(cards)
    # A photo read on this phone and not saved can be let go, keeping the score as saved.
    forgettable = photo is not None and recall("pending", _memory_key(game, hand, seat)) == photo["id"] \
        and not (saved and saved.get("photo_id") == photo["id"])
    return render_template("player.html", game=game, h=h, seat=seat, saved=saved, photo=photo,
                           earlier_photos=model.earlier_photos(photo) if photo else [], seen_twice=seen_twice,
                           seen_in_photo=seen_in_photo,
                           cards_text=cards_text, waiting=waiting, forgettable=forgettable), status


@bp.route("/games/<int:game_id>/hands/<int:hand>/players/<int:seat>/forget-photo", methods=("POST",))
def forget_photo(game_id: int, hand: int, seat: int) -> Any:
    """Let go of a photo read for the player on this phone and not saved (the wrong hand
    photographed): the player's page shows the score as saved again."""
    game = _load(game_id, hand, seat)
    if (refused := _seating_refused(game, hand)) is not None:
        return refused
    key = _memory_key(game, hand, seat)
    pending = recall("pending", key)
    forget("pending", key)
    saved = game["hands"][hand - 1]["scores"][seat - 1]
    name = game["players"][seat - 1]["name"]
    try:
        added_to = model.game_photo(int(pending), game_id)["added_to"] if pending is not None else None
    except NotFound:
        added_to = None
    if added_to is not None:
        # A photo added to a list: the list comes back as it was before it, with its photo.
        earlier = added_to["earlier_id"]
        if earlier is not None and not (saved and saved.get("photo_id") == earlier):
            remember("pending", key, earlier, _PENDING_KEPT)
        flash(f"The photo added is let go; the list is as it was before it: {' '.join(added_to['cards_before'])}.",
              "ok")
        return redirect(url_for("hands.player", game_id=game_id, hand=hand, seat=seat, photo=earlier,
                                list=" ".join(added_to["cards_before"])))
    flash(f"The photo is let go; {name}'s score for hand {hand} stays "
          f"{model.score_words(saved) if saved else 'unsaved'}.", "ok")
    return redirect(url_for("hands.player", game_id=game_id, hand=hand, seat=seat))


@bp.route("/games/<int:game_id>/hands/<int:hand>/players/<int:seat>/photo", methods=("POST",))
def player_photo(game_id: int, hand: int, seat: int) -> Any:
    """Upload a photo of the cards left: read the cards, keep the photo, show it boxed."""
    game = _load(game_id, hand, seat)
    if (refused := _seating_refused(game, hand)) is not None:
        return refused
    # A photo sent as "more cards" adds what it reads to the list as it stands (a hand in two
    # photos, a card missed and photographed alone); a photo sent as "photo" replaces it.
    more = request.files.get("more_photo")
    adding = more is not None and bool(more.filename)
    upload = more if adding else request.files.get("photo")
    other = request.files.get("photo")
    current = request.form.get("current_photo", "")
    shown = _row_id(current)
    try:
        if upload is None or not upload.filename:
            raise model.InputError("No photo was sent: take or choose a photo of the cards.")
        if adding and other is not None and other.filename:
            raise model.InputError("Two photos were chosen: choose one, either to read afresh or to add its "
                                   "cards to the list, and send it.")
        before = model.parse_card_list(request.form.get("cards_text", "")) if adding else []
        if before and shown is not None and not _is_game_photo(str(shown), game_id):
            shown = None   # forgotten since, or never this game's: the cards still count
        photo = model.store_photo(upload.read(), game_id, adds_to=(shown, before) if before else None)
    except (ValueError, model.DetectorUnavailableError, model.ReadingBusyError) as error:
        message = str(error)
        flash(message[:1].upper() + message[1:], "error")
        # A failed photo changes nothing: the page comes back with the photo it showed and
        # the card list as the player had it (sent along by the page's script).
        return _player_page(game, hand, seat, cards_text=request.form.get("cards_text"), photo_id=shown,
                            status=400 if isinstance(error, ValueError) else 503)
    remember("pending", _memory_key(game, hand, seat), photo["id"], _PENDING_KEPT)
    found = len(photo["cards"])
    added_to = photo["added_to"]
    # What to do when nothing is read, and why when the photo is blurred.
    retake = "take a sharper photo, the phone held still" if photo.get("blurred") else "take a closer photo"
    if added_to is not None and found:
        photo_word = "photos" if added_to["earlier_id"] is not None else "photo"
        flash(f"Read {found} card{'s' if found != 1 else ''} in this photo and added {'them' if found != 1 else 'it'} "
              f"to the {len(added_to['cards_before'])} in the list: check the cards against the {photo_word}, "
              "then save.", "ok")
    elif added_to is not None:
        flash(f"No card could be read in this photo, so the list is as it was: {retake}, or type the cards "
              "missing below.", "error")
    elif found and photo.get("blurred"):
        # Said first, not under a green "read": a blurred photo's reading is the one to doubt.
        flash(f"Read {found} card{'s' if found != 1 else ''}{_points_words(game, hand, seat, photo)}, but the photo "
              "looks blurred: check each card against the hand, or take the photo again held still.", "warn")
    elif found:
        flash(f"Read {found} card{'s' if found != 1 else ''}{_points_words(game, hand, seat, photo)}: check "
              f"{'them' if found != 1 else 'it'} against the photo, then save.", "ok")
    elif typed := " ".join(request.form.get("cards_text", "").split()):
        # Nothing read: the cards already typed stay in the list (a photo that reads nothing
        # must not cost what was typed), kept with the photo as the list it adds to, so the
        # page opened again later shows them too.
        flash(f"No card could be read in this photo, so the list is as it was: {retake}, or type the cards "
              "missing below.", "error")
        try:
            model.keep_list_with_photo(photo["id"], typed)
        except ValueError:   # not cards (a word being typed): handed on as it was typed
            return redirect(url_for("hands.player", game_id=game_id, hand=hand, seat=seat, photo=photo["id"],
                                    list=typed))
    elif photo.get("maybe"):
        flash("No card could be read for sure: add the ones possibly missed if they are there, "
              f"type or pick the others below, or {retake}.", "error")
    else:
        flash(f"No card could be read in this photo: is the hand in it? Type or pick the cards below, "
              f"or {retake}.", "error")
    return redirect(url_for("hands.player", game_id=game_id, hand=hand, seat=seat, photo=photo["id"]))


def _points_words(game: dict[str, Any], hand: int, seat: int, photo: dict[str, Any]) -> str:
    """", 37 points": what the cards read would score as they stand (the page's figure
    before any change), said at the top where a phone shows it without scrolling; "" where
    they score nothing to say (the player went out) or cannot be scored (more copies than
    the decks hold: the page says why)."""
    if game["hands"][hand - 1]["out"] == seat:
        return ""
    try:
        points = model.score_cards(game["variant"]["name"], [c["card"] for c in photo["cards"]],
                                   players=len(game["players"]), decks=game["decks"],
                                   splash=game["hands"][hand - 1]["splash"], hand=hand)["points"]
    except ValueError:
        return ""
    return f", {points} point{'s' if points != 1 else ''}"


@bp.route("/games/<int:game_id>/hands/<int:hand>/players/<int:seat>/four-corners", methods=("POST",))
def four_corner_deck(game_id: int, hand: int, seat: int) -> Any:
    """The photo shows a deck with an index in all four corners: say so for the game, and
    read the photo again so (a card whose top strip alone shows is then one card)."""
    game = _load(game_id, hand, seat)
    if (refused := _seating_refused(game, hand)) is not None:
        return refused
    given = request.form.get("photo_id", "")
    photo_id = _row_id(given)
    if photo_id is not None:
        model.game_photo(photo_id, game_id)  # 404 before anything changes
    model.set_game_corners(game_id, "four")
    if photo_id is None:
        flash("Deck saved: all four corners. Photos read from now on count each card once.", "ok")
        return redirect(url_for("hands.player", game_id=game_id, hand=hand, seat=seat))
    try:
        photo = model.read_photo_again(photo_id, game_id)
    except model.DetectorUnavailableError as error:
        flash(f"Deck saved: all four corners. {error}", "error")
    else:
        # Where the photo's cards were added to a list, the list's count is what to check.
        before = photo["added_to"]["cards_before"] if photo["added_to"] else []
        listed = len(before) + len(photo["cards"])
        photos = "photos" if photo["added_to"] and photo["added_to"]["earlier_id"] is not None else "photo"
        flash(f"Deck saved: all four corners. The {photos} read again: {listed} card{'s' if listed != 1 else ''}"
              f"{' in the list' if before else ''}; check them against the {photos}, then save.", "ok")
    return redirect(url_for("hands.player", game_id=game_id, hand=hand, seat=seat, photo=photo_id))


@bp.route("/games/<int:game_id>/hands/<int:hand>/players/<int:seat>/delete", methods=("POST",))
def delete_score(game_id: int, hand: int, seat: int) -> Any:
    """Clear a player's score for a hand; the message offers to put it back."""
    game = _load(game_id, hand, seat)
    before = game["hands"][hand - 1]["scores"][seat - 1]
    try:
        model.delete_score(game_id, hand, seat, was=request.form.get("was"), seating=request.form.get("seating"))
    except ValueError as error:
        flash(f"{error} Nothing was cleared." if isinstance(error, model.ScoreChangedError) else str(error), "error")
        return _hand_page(model.load_game(game_id), hand, status=409 if isinstance(error, model.ScoreChangedError)
                          else 400)
    _forget_drafts(game_id, hand, seat)
    name = game["players"][seat - 1]["name"]
    if _offer_undo(game, hand, seat, before, None):
        flash(f"Cleared {name}'s score for hand {hand}: it was {model.score_words(before)}.", "ok")
        flash(f"{game_id}/{hand}/{seat}", "undo-score")
    else:
        flash(f"Cleared {name}'s score for hand {hand}.", "ok")
    return redirect(f"{_hand_url(game_id, hand)}#player-{seat}")


#: How many replaced or cleared scores a phone can put back (the newest ones).
_UNDOS_KEPT = 10


def _offer_undo(game: dict[str, Any], hand: int, seat: int, before: dict[str, Any] | None,
                now: dict[str, Any] | None) -> bool:
    """Remember a score this phone just replaced or cleared, to put back with one tap
    (:func:`undo_score`); False where there was none to lose (no score, or the 0 of the
    player who went out)."""
    if before is None or game["hands"][hand - 1]["out"] == seat or (
            now is not None and (now["cards"], now["base"], now["photo_id"])
            == (before["cards"], before["base"], before["photo_id"])):
        return False
    remember("replaced", _memory_key(game, hand, seat),
             {"cards": before["cards"], "base": before["base"], "photo_id": before["photo_id"],
              "after": now["version"] if now else ""}, _UNDOS_KEPT)
    return True


@bp.route("/games/<int:game_id>/hands/<int:hand>/players/<int:seat>/undo", methods=("POST",))
def undo_score(game_id: int, hand: int, seat: int) -> Any:
    """Put back the score this phone last replaced or cleared for the player, unless it has
    changed again since (on this phone or another)."""
    game = _load(game_id, hand, seat)
    if (refused := _seating_refused(game, hand)) is not None:
        return refused
    name = game["players"][seat - 1]["name"]
    key = _memory_key(game, hand, seat)
    kept = recall("replaced", key)
    if kept is None:
        flash(f"There is no earlier score of {name}'s for hand {hand} to put back on this phone.", "error")
        return redirect(_hand_url(game_id, hand))
    seating = request.form.get("seating")
    try:
        if kept["cards"] is None:
            after = model.save_score(game_id, hand, seat, points=kept["base"], was=kept["after"], seating=seating)
        else:
            after = model.save_score(game_id, hand, seat, cards=kept["cards"], photo_id=kept["photo_id"],
                                     was=kept["after"], seating=seating)
    except ValueError as error:
        # A score changed since is not put back ever; a refusal that can pass (the game ended
        # early: Play on; a page drawn before a move) keeps the Undo for later.
        if isinstance(error, model.ScoreChangedError) and not isinstance(error, model.SeatingChangedError):
            forget("replaced", key)
        flash(f"Not put back: {error}", "error")
        return redirect(_hand_url(game_id, hand))
    forget("replaced", key)
    _forget_drafts(game_id, hand, seat)
    flash(f"{name}'s score for hand {hand} is back: "
          f"{model.score_words(after['hands'][hand - 1]['scores'][seat - 1])}.", "ok")
    return redirect(f"{_hand_url(game_id, hand)}#player-{seat}")


@bp.route("/photos/<int:photo_id>")
def photo(photo_id: int) -> Response:
    """A stored photo's bytes (served by the app: the page works offline)."""
    stored = model.get_photo(photo_id, with_data=True)
    response = Response(stored["data"], mimetype=stored["mime"])
    response.headers["Cache-Control"] = "private, max-age=86400"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
