"""Template helpers: card labels with suit symbols, the card list for pickers, the part
of a photo the cards lie in, the cards of a reading to check."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from flask import Flask
from markupsafe import Markup, escape

from onze_vision.cards import CARD_CODES, Card
from onze_vision.pairing import DetectedCard, Doubt
from onze_vision.variants import VARIANTS

from .phones import phone_way, qr_svg

SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def card_label(code: str) -> str:
    """ "QH" -> "Q♥"; "JK" -> "Joker". Display only: codes are parsed by the engine."""
    code = str(code)
    if code == "JK":
        return "Joker"
    return code[:-1] + SUIT_SYMBOLS.get(code[-1:], code[-1:])


def card_spoken(code: str) -> str:
    """ "QH" -> "queen of hearts", "JK" -> "joker": a card as a screen reader should say it
    (some voices read "♥" as "black heart suit", the Unicode name of the symbol)."""
    return Card.from_code(str(code)).name.lower()


def card_said(code: str) -> Markup:
    """A card shown as "Q♥" and said as "queen of hearts": the one way every page writes a card
    for both the eye and a screen reader (templates: ``said()`` in _macros.html)."""
    return Markup('<span aria-hidden="true">{}</span><span class="visually-hidden">{}</span>').format(
        card_label(code), card_spoken(code))


# A card code standing as a word of its own in a sentence the engine wrote ("... from 10C KC").
_CODE_IN_WORDS = re.compile(r"(?<![\w])(?:10|[2-9AJQK])[SHDC](?![\w])|(?<![\w])JK(?![\w])")


def cards_in_words(text: str) -> Markup:
    """The engine's sentence with each card code shown as the chips show it, in its suit's
    colour: "no set can be made from 10C KH" -> "no set can be made from 10♣ <span
    class="card-red">K♥</span>". Display only; the rest of the sentence is escaped."""
    def shown(match: re.Match[str]) -> str:
        code = match.group(0)
        # Said in words (a screen reader reads "♥" as "black heart suit"), shown as the chips.
        return f'<span class="{card_class(code)}">{card_said(code)}</span>'

    return Markup(_CODE_IN_WORDS.sub(shown, str(escape(str(text)))))


_COUNT_DIGITS = {"one": "1", "two": "2", "three": "3", "four": "4"}


def contract_short(words: str) -> str:
    """A contract in figures, for a phone's narrow sheet: "two sets + one run" -> "2 sets + 1 run"."""
    return " ".join(_COUNT_DIGITS.get(word, word) for word in words.split(" "))


def card_class(code: str) -> str:
    """CSS class for a card's colour."""
    code = str(code)
    if code == "JK":
        return "card-joker"
    return "card-red" if code[-1:] in ("H", "D") else "card-black"


#: A photo is shown zoomed to its cards when they (with their margin) span at most this
#: share of its long side: a far shot's cards are otherwise a few pixels on a phone.
ZOOM_AT_MOST = 0.6
#: The least a zoomed frame shows, in photo pixels along its long side: on a phone (a frame
#: some 350 CSS px wide, 2-3 device pixels each) the photo's pixels are enlarged at most
#: about 1.5 times. Closer, one card's corner of a small photo filled the frame, blurred,
#: without the card and the table around it that the player checks it by.
ZOOM_MIN_PX = 480.0


def cards_region(photo: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    """(x, y, width, height) of the part of ``photo`` to show, or None for the whole photo.

    ``photo`` has ``width``, ``height``, ``cards`` and ``maybe`` (each with a ``box``). The
    region is the box around every card read or offered, grown by a quarter of its long
    side (at least 3 % of the photo's), and to :data:`ZOOM_MIN_PX` long around its centre,
    within the photo; a photo whose region so spans more than :data:`ZOOM_AT_MOST` of its
    long side is shown whole (a small photo always).
    """
    width, height = float(photo["width"]), float(photo["height"])
    boxes = [card["box"] for card in [*(photo.get("cards") or []), *(photo.get("maybe") or [])]]
    if not boxes or width <= 0 or height <= 0:
        return None
    x1, y1 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x2, y2 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    margin = max(0.25 * max(x2 - x1, y2 - y1), 0.03 * max(width, height))
    x1, y1 = max(0.0, x1 - margin), max(0.0, y1 - margin)
    x2, y2 = min(width, x2 + margin), min(height, y2 + margin)
    span_x, span_y = x2 - x1, y2 - y1
    grow = max(1.0, ZOOM_MIN_PX / max(span_x, span_y))
    if grow > 1.0:   # grown around its centre, moved (not cut) to lie within the photo
        centre_x, centre_y = (x1 + x2) / 2, (y1 + y2) / 2
        span_x, span_y = span_x * grow, span_y * grow
        x1 = min(max(0.0, centre_x - span_x / 2), width - span_x)
        y1 = min(max(0.0, centre_y - span_y / 2), height - span_y)
    if max(span_x, span_y) > ZOOM_AT_MOST * max(width, height) or span_x > width or span_y > height:
        return None   # most of the photo, or (a long thin photo) more than one of its sides
    return x1, y1, span_x, span_y


#: A label's width per character, in font sizes (bold digits and suit signs; a guess that
#: errs wide, so that labels placed apart stay apart).
_LABEL_CHAR_WIDTH = 0.66


def card_doubt(card: Mapping[str, Any]) -> Doubt | None:
    """Why a card of a reading kept as JSON is to be checked (:attr:`DetectedCard.doubt`,
    read from the flags :meth:`DetectedCard.to_dict` writes, so readings kept before a
    reason was added still say theirs); None for a sure reading."""
    return DetectedCard.from_dict(card).doubt


def cards_to_check(photo: Mapping[str, Any]) -> dict[Doubt, list[Mapping[str, Any]]]:
    """The cards of ``photo`` (a reading kept as JSON) to check, by why (:func:`card_doubt`):
    every reason a key, its cards in the reading's order; the sure readings are left out."""
    by_doubt: dict[Doubt, list[Mapping[str, Any]]] = {"alternative": [], "faint": [], "joker_count": []}
    for card in photo.get("cards") or []:
        doubt = card_doubt(card)
        if doubt is not None:
            by_doubt[doubt].append(card)
    return by_doubt


def box_labels(photo: Mapping[str, Any], stroke: float) -> list[dict[str, Any]]:
    """Each box to draw on ``photo`` with where its label goes, so that labels do not pile on
    one another where the cards lie close (a tight fan; a corner read twice).

    Returns one dict per card read, then per card offered as possibly missed, in that order:
    ``card``, ``kind`` ("read", "unsure" or "maybe"), ``box``, ``label`` (its words),
    ``alternative`` (a card read unsure: its next most likely code, else absent or None), and
    ``x``, ``y`` (the label's baseline start), with ``font`` its size. Labels are placed
    greedily, sure readings first: above the box, else inside its top, below it, to its
    right or its left; where every place is taken, the one overlapping least.
    """
    font = stroke * 10.5   # some 15 CSS px on a phone, whatever the photo's size (the frame scales both)
    width, height = float(photo["width"]), float(photo["height"])
    entries: list[dict[str, Any]] = []
    for card in photo.get("cards") or []:
        kind = "read" if card_doubt(card) is None else "unsure"
        entries.append({"card": card["card"], "kind": kind, "box": card["box"],
                        "alternative": card.get("alternative")})
    for card in photo.get("maybe") or []:
        entries.append({"card": card["card"], "kind": "maybe", "box": card["box"]})
    placed: list[tuple[float, float, float, float]] = []

    def overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
        return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))

    order = sorted(range(len(entries)), key=lambda i: ("read", "unsure", "maybe").index(entries[i]["kind"]))
    for i in order:
        entry = entries[i]
        entry["label"] = card_label(entry["card"]) + ("" if entry["kind"] == "read" else "?")
        x1, y1, x2, y2 = (float(v) for v in entry["box"])
        w = _LABEL_CHAR_WIDTH * font * len(entry["label"])
        candidates = [(x1, y1 - stroke * 2), (x1 + stroke * 2, y1 + font + stroke),
                      (x1, y2 + font), (x2 + stroke * 2, y1 + font), (x1 - w - stroke * 2, y1 + font)]
        best: tuple[float, float, float, float] | None = None
        best_cost = math.inf
        for x, y in candidates:
            # Kept on the photo: a label off its edge is not drawn at all.
            x = min(max(x, 0.0), max(width - w, 0.0))
            y = min(max(y, font), height)
            rect = (x, y - font * 0.9, x + w, y + font * 0.2)
            cost = sum(overlap(rect, other) for other in placed)
            if cost < best_cost:
                best, best_cost = rect, cost
            if cost == 0:
                break
        assert best is not None
        placed.append(best)
        entry.update(x=best[0], y=best[1] + font * 0.9, font=font)
    return entries


def uses_jokers(variant_name: str | None) -> bool:
    """Whether the variant ``variant_name`` deals Jokers (True when none is named, or for a
    name no variant has: the editor then offers every card and the engine judges)."""
    variant = VARIANTS.get(variant_name or "")
    return variant is None or variant.uses_jokers


def card_choices(variant_name: str | None = None) -> list[tuple[str, str]]:
    """The cards a picker offers, as (code, label): all 53, but no Joker for rules played
    without them (ons): picking one only brought the refusal."""
    return [(code, card_label(code)) for code in CARD_CODES if code != "JK" or uses_jokers(variant_name)]


def init_app(app: Flask) -> None:
    """Register the filters and globals."""
    from .model import DECK_CORNERS, DELETED_GAME_DAYS, all_variants, seating_token, short_deal_text

    app.jinja_env.filters["card_label"] = card_label
    app.jinja_env.filters["card_spoken"] = card_spoken
    app.jinja_env.filters["card_said"] = card_said
    app.jinja_env.filters["card_class"] = card_class
    app.jinja_env.filters["contract_short"] = contract_short
    app.jinja_env.filters["cards_in_words"] = cards_in_words
    app.jinja_env.globals["CARD_CODES"] = list(CARD_CODES)
    app.jinja_env.globals["card_choices"] = card_choices
    app.jinja_env.globals["uses_jokers"] = uses_jokers
    app.jinja_env.globals["cards_region"] = cards_region
    app.jinja_env.globals["box_labels"] = box_labels
    app.jinja_env.globals["cards_to_check"] = cards_to_check
    app.jinja_env.globals["DECK_CORNERS"] = dict(DECK_CORNERS)
    app.jinja_env.globals["short_deal_text"] = short_deal_text
    app.jinja_env.globals["deleted_days"] = DELETED_GAME_DAYS
    app.jinja_env.globals["all_variants"] = all_variants
    app.jinja_env.globals["seating_token"] = seating_token
    app.jinja_env.globals["phone_way"] = phone_way
    app.jinja_env.globals["qr_svg"] = qr_svg

