"""Check a go-down: are these cards the hand's contract? Drawn as melds, or why not."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from onze_vision.detections import reading_order

from . import model

bp = Blueprint("godown", __name__)


@bp.route("/godown", methods=("GET", "POST"))
@bp.route("/games/<int:game_id>/godown", methods=("GET", "POST"))
def check(game_id: int | None = None) -> Any:
    """The form (variant or game, hand, cards typed or photographed) and the verdict."""
    game = model.load_game(game_id) if game_id is not None else None
    default_hand = (game["current_hand"] or 7) if game else 1
    form = {
        "variant": game["variant"]["name"] if game else request.values.get("variant", model.DEFAULT_VARIANT),
        "hand": request.values.get("hand", str(default_hand)),
        "cards": request.values.get("cards", ""),
        "mode": request.values.get("mode", "down"),
    }
    result = error = photo = None
    status = 200
    if request.method == "POST":
        try:
            upload = request.files.get("photo")
            if upload is not None and upload.filename:
                photo = model.store_photo(upload.read(), game_id)
                if not photo["cards"]:
                    # Keep what was typed: the photo replaces the list only with cards it read.
                    raise model.InputError("No card could be read in this photo: the list below is "
                                           "as it was; check it, or take a closer photo.")
                # Row by row: melds photographed one under another are checked as laid.
                read = photo["cards"]
                form["cards"] = " ".join(read[i]["card"] for i in reading_order([c["box"] for c in read]))
            elif request.form.get("photo_id", "").isdigit():
                photo = model.get_photo(int(request.form["photo_id"]))   # keep showing the photo
            in_game = {"players": len(game["players"]), "decks": game["decks"]} if game else {}
            result = model.check_go_down(form["variant"], form["hand"], form["cards"],
                                         whole_hand=form["mode"] == "hand", **in_game)
            form["cards"] = " ".join(result["cards"])   # as the engine spells them
        except (ValueError, model.DetectorUnavailableError, model.ReadingBusyError) as exc:
            error = str(exc)
            status = 400 if isinstance(exc, ValueError) else 503
    variants = model.all_variants()
    # The hand list names each hand's contract in the variant chosen (the first, until one is).
    shown = next((v for v in variants if v.name == form["variant"]), variants[0])
    contracts = {n: str(shown.contract(n)) for n in model.HANDS}
    return render_template("godown.html", game=game, form=form, result=result, error=error,
                           photo=photo, variants=variants, contracts=contracts), status
