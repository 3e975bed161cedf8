"""The rules: each variant in the words the command line's ``variants`` uses, its seven
contracts hand by hand, what each card counts; and, for a table of N players, its decks
and the cards left to draw from after each deal."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request

from onze_vision.variants import InvalidPlayerCountError, UnknownVariantError, Variant, get_variant

from . import model

bp = Blueprint("rules", __name__)


@bp.route("/rules")
def index() -> str:
    """The variants, each with its one-line summary and a link to its rules."""
    variants = model.all_variants()
    return render_template("rules.html", variants=variants,
                           summaries={v.name: model.variant_summary(v) for v in variants})


@bp.route("/rules/<name>")
def variant(name: str) -> str:
    """One variant's rules; ``?players=N`` adds that table's decks and stock, hand by hand."""
    chosen = variant_or_404(name)
    players = players_arg(chosen)
    return render_template("variant.html", variant=chosen, players=players, hands=chosen.hand_facts(players))


def variant_or_404(name: str) -> Variant:
    """The variant called ``name`` (any case); a 404 naming them all when there is none."""
    try:
        return get_variant(name)
    except UnknownVariantError:
        abort(404, f"Variant {name!r} doesn't exist: the rules are those of "
                   f"{', '.join(v.name for v in model.all_variants())}.")


def players_arg(variant: Variant) -> int | None:
    """The ``players`` query argument, checked against the variant; None when not given."""
    text = request.args.get("players", "").strip()
    if not text:
        return None
    # isascii: "²" is a digit to str.isdigit() and not to int(); a table is never 5000 digits.
    if not (text.isascii() and text.isdigit()) or len(text) > 3:
        abort(400, f"Players must be a whole number, not {text[:20]!r}.")
    try:
        return variant.check_players(int(text))
    except InvalidPlayerCountError as error:
        abort(400, f"{str(error)[0].upper()}{str(error)[1:]}.")
