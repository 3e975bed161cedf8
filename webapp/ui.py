"""Template helpers: card labels with suit symbols, the card list for pickers."""

from __future__ import annotations

from flask import Flask

SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def card_label(code: str) -> str:
    """ "QH" -> "Q♥"; "JK" -> "Joker". Display only: codes are parsed by the engine."""
    code = str(code)
    if code == "JK":
        return "Joker"
    return code[:-1] + SUIT_SYMBOLS.get(code[-1:], code[-1:])


def card_class(code: str) -> str:
    """CSS class for a card's colour."""
    code = str(code)
    if code == "JK":
        return "card-joker"
    return "card-red" if code[-1:] in ("H", "D") else "card-black"


def init_app(app: Flask) -> None:
    """Register the filters and globals."""
    from onze_vision.cards import CARD_CODES

    app.jinja_env.filters["card_label"] = card_label
    app.jinja_env.filters["card_class"] = card_class
    app.jinja_env.globals["CARD_CODES"] = list(CARD_CODES)
    app.jinja_env.globals["card_choices"] = lambda: [(c, card_label(c)) for c in CARD_CODES]

