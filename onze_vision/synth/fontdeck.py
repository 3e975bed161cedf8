"""Procedural deck designs drawn from installed fonts: many index typefaces for the classifier.

The shipped classifier's errors on held-out designs are unseen index fonts. Card art
packages are few, but Debian ships dozens of free typefaces; each font deck here draws a
plain card face (paper, rounded corners, an optional frame, pips in the usual places, a
patterned court panel) with the rank in one font and the suit pip from a symbol font,
in a style drawn from a random state seeded by the deck's name: index size, margins,
condensing, weight, "10" squeezed or not, ink colours. The index box is known from what
was drawn, so no ink search is needed.

Fonts are read at dataset time from Debian packages (never committed); see
``FONT_DECKS`` in ``onze_vision.synth.art`` for the list and the packages.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from onze_vision.synth.codes import RANKS

#: Bump when what a font deck draws changes: cached font decks are drawn again.
FONT_DECK_VERSION = 2  # 2: every font deck has a Joker
SUPERSAMPLE = 2  # drawn at twice the size, then area-resized: smooth edges at CARD_HEIGHT
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
# Joker corner marks seen on printed decks: a five-pointed star, or a star with a round
# centre or more points (DejaVu, FreeSerif and Symbola draw all three filled).
STAR_GLYPHS = ("\u2605", "\u272a", "\u2739")
JOKER_WORD = "JOKER"
RED_SUITS = {"H", "D"}
# Fonts with all four filled suit glyphs (checked: DejaVu Sans and Serif share theirs).
PIP_FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/truetype/freefont/FreeSerif.ttf"),
    Path("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"),
)
# Pip centres of number cards in the central panel, (column 0..2, row 0..1): columns left,
# middle, right; rows top to bottom. Pips below the middle are drawn turned, as printed.
PIP_LAYOUTS: dict[str, list[tuple[float, float]]] = {
    "2": [(1, 0), (1, 1)],
    "3": [(1, 0), (1, 0.5), (1, 1)],
    "4": [(0, 0), (2, 0), (0, 1), (2, 1)],
    "5": [(0, 0), (2, 0), (1, 0.5), (0, 1), (2, 1)],
    "6": [(0, 0), (2, 0), (0, 0.5), (2, 0.5), (0, 1), (2, 1)],
    "7": [(0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (0, 1), (2, 1)],
    "8": [(0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (1, 0.75), (0, 1), (2, 1)],
    "9": [(0, 0), (2, 0), (0, 1 / 3), (2, 1 / 3), (1, 0.5), (0, 2 / 3), (2, 2 / 3), (0, 1), (2, 1)],
    "10": [(0, 0), (2, 0), (1, 1 / 6), (0, 1 / 3), (2, 1 / 3), (0, 2 / 3), (2, 2 / 3), (1, 5 / 6), (0, 1), (2, 1)],
}


class FontNotInstalledError(RuntimeError):
    """A font a font deck needs is not installed."""


@dataclass(frozen=True)
class FontDeckStyle:
    """How one font deck looks; drawn once from the deck's name."""

    aspect: float  # card width / height
    paper: tuple[int, int, int]  # BGR
    corner_radius: float  # share of the card width
    frame: int  # 0 none, 1 thin grey outline, 2 coloured inner frame
    rank_height: float  # cap height of the rank, share of the card height
    condense: float  # horizontal scale of the rank glyphs
    stroke: float  # extra stroke, share of the rank height (0: the font's own weight)
    squeeze_ten: bool  # draw "10" no wider than the widest other rank
    margin_x: float  # share of the card width from the left edge to the index column's left
    margin_y: float  # share of the card height from the top edge to the rank's top
    pip_width: float  # index pip width, share of the rank height
    pip_gap: float  # gap between rank and pip, share of the rank height
    pip_stretch: float  # pip height / its natural height
    pip_font: Path
    red: tuple[int, int, int]  # BGR
    black: tuple[int, int, int]  # BGR
    court_colours: tuple[tuple[int, int, int], ...]
    joker_mark: str = "word"  # the Joker's corner mark: "word" (JOKER stacked) or "star"
    joker_ring: bool = False  # the star sits in a ring
    joker_red: bool = True  # ink of the Joker


def style_for(name: str) -> FontDeckStyle:
    """The style of the font deck named ``name``: the same name always draws the same deck."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    tint = rng.uniform(0, 14)
    red = (int(rng.integers(0, 50)), int(rng.integers(0, 40)), int(rng.integers(175, 235)))
    black = (
        (int(rng.integers(0, 40)),) * 3
        if rng.random() < 0.8
        else (int(rng.integers(60, 110)), int(rng.integers(20, 50)), int(rng.integers(10, 40)))
    )
    palette = [(40, 40, 190), (170, 90, 30), (40, 190, 230), (30, 30, 30), (60, 140, 60), (200, 200, 200)]
    picks = rng.choice(len(palette), size=3, replace=False)
    return FontDeckStyle(
        aspect=float(rng.uniform(0.63, 0.72)),
        paper=(int(255 - tint * rng.uniform(1.2, 2.0)), int(255 - tint * 0.5), 255),
        corner_radius=float(rng.uniform(0.03, 0.09)),
        frame=int(rng.choice([0, 0, 1, 2])),
        rank_height=float(rng.uniform(0.065, 0.12)),
        condense=float(rng.choice([1.0, rng.uniform(0.7, 1.1)])),
        stroke=float(rng.choice([0.0, 0.0, rng.uniform(0.02, 0.06)])),
        squeeze_ten=bool(rng.random() < 0.5),
        margin_x=float(rng.uniform(0.03, 0.08)),
        margin_y=float(rng.uniform(0.03, 0.07)),
        pip_width=float(rng.uniform(0.55, 1.0)),
        pip_gap=float(rng.uniform(0.06, 0.3)),
        pip_stretch=float(rng.uniform(0.9, 1.15)),
        pip_font=PIP_FONTS[int(rng.integers(len(PIP_FONTS)))],
        red=red,
        black=black,
        court_colours=tuple(palette[i] for i in picks),
        # Drawn last so that the earlier fields, and the decks drawn before Jokers, stay the same.
        joker_mark=str(rng.choice(["word", "word", "star"])),
        joker_ring=bool(rng.random() < 0.4),
        joker_red=bool(rng.random() < 0.7),
    )


def _glyph(font: ImageFont.FreeTypeFont, text: str, stroke: int = 0) -> np.ndarray:
    """The ink of ``text`` as a float mask in 0..1, cropped to its own bounding box."""
    # Whole pixels: getbbox is typed float for the sake of fractional strokes; ``stroke`` is whole.
    left, top, right, bottom = (int(v) for v in font.getbbox(text, stroke_width=stroke))
    layer = Image.new("L", (right - left + 2, bottom - top + 2), 0)
    ImageDraw.Draw(layer).text((1 - left, 1 - top), text, fill=255, font=font, stroke_width=stroke, stroke_fill=255)
    mask = np.asarray(layer, dtype=np.float32) / 255
    ys, xs = np.nonzero(mask > 0.05)
    if len(xs) == 0:  # font.path is the str _font opened (Pillow also allows bytes or a file)
        raise FontNotInstalledError(f"{font.path!s} draws nothing for {text!r}")
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    if not path.exists():
        raise FontNotInstalledError(f"{path} is missing (see onze_vision/synth/art.py FONT_DECKS for its package)")
    return ImageFont.truetype(str(path), size)


def _scaled(mask: np.ndarray, width: float, height: float) -> np.ndarray:
    return cv2.resize(mask, (max(1, round(width)), max(1, round(height))), interpolation=cv2.INTER_AREA)


def _paint(canvas: np.ndarray, mask: np.ndarray, x: float, y: float, colour: tuple[int, int, int]) -> None:
    """Blend ``colour`` through ``mask`` onto the BGR float canvas at top-left (x, y), clipped."""
    x0, y0 = round(x), round(y)
    h, w = mask.shape
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(canvas.shape[1], x0 + w), min(canvas.shape[0], y0 + h)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    m = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0, None]
    region = canvas[cy0:cy1, cx0:cx1]
    region[:] = region * (1 - m) + np.array(colour, np.float32) * m


class FontDeckPainter:
    """Draws the cards of one font deck; holds its glyphs so each is rasterised once."""

    def __init__(self, name: str, font_path: Path, card_height: int) -> None:
        self.style = style_for(name)
        self.card_height = card_height
        self.h = card_height * SUPERSAMPLE
        self.w = round(self.h * self.style.aspect)
        s = self.style
        rank_px = s.rank_height * self.h
        probe = _font(font_path, 200)
        cap = _glyph(probe, "K").shape[0]  # font size -> cap height
        size = max(8, round(200 * rank_px / cap))
        font = _font(font_path, size)
        stroke = round(s.stroke * rank_px)
        self.ranks: dict[str, np.ndarray] = {}
        for rank in RANKS:
            glyph = _glyph(font, rank, stroke)
            self.ranks[rank] = _scaled(glyph, glyph.shape[1] * rank_px / glyph.shape[0] * s.condense, rank_px)
        widest = max(m.shape[1] for r, m in self.ranks.items() if r != "10")
        if s.squeeze_ten and self.ranks["10"].shape[1] > widest * 1.15:
            self.ranks["10"] = _scaled(self.ranks["10"], widest * 1.15, rank_px)
        self.column_width = max(m.shape[1] for m in self.ranks.values())
        pip_font = _font(s.pip_font, 200)
        self.pips = {suit: _glyph(pip_font, glyph) for suit, glyph in SUIT_GLYPHS.items()}
        # Stacked Joker letters: a little smaller than the ranks, as printed decks draw them.
        letter_px = rank_px * 0.62
        self.joker_letters = [
            _scaled(g, g.shape[1] * letter_px / g.shape[0] * s.condense, letter_px)
            for g in (_glyph(font, letter, stroke) for letter in JOKER_WORD)
        ]
        star_text = STAR_GLYPHS[zlib.crc32(name.encode()) % len(STAR_GLYPHS)]
        self.star = _glyph(pip_font, star_text)

    def _pip(self, suit: str, width: float) -> np.ndarray:
        natural = self.pips[suit]
        height = width * natural.shape[0] / natural.shape[1] * self.style.pip_stretch
        return _scaled(natural, width, height)

    def draw(self, code: str) -> tuple[np.ndarray, tuple[int, int, int, int]]:
        """One card as BGRA at ``card_height`` and its top-left index box (x1, y1, x2, y2)."""
        s, w, h = self.style, self.w, self.h
        face = np.empty((h, w, 3), np.float32)
        face[:] = s.paper
        # The index, drawn on its own layer so that its box is known and its turned copy
        # can be laid in the opposite corner.
        index = np.zeros((h, w), np.float32)
        column_x = s.margin_x * w + self.column_width / 2
        rank_y = s.margin_y * h
        if code == "JK":
            ink = s.red if s.joker_red else s.black
            self._draw_joker(face, index, column_x, rank_y, ink)
        else:
            rank, suit = code[:-1], code[-1]
            ink = s.red if suit in RED_SUITS else s.black
            self._draw_centre(face, rank, suit, ink)
            rank_mask = self.ranks[rank]
            _paint_mask(index, rank_mask, column_x - rank_mask.shape[1] / 2, rank_y)
            pip = self._pip(suit, s.pip_width * s.rank_height * h)
            pip_y = rank_y + rank_mask.shape[0] + s.pip_gap * s.rank_height * h
            _paint_mask(index, pip, column_x - pip.shape[1] / 2, pip_y)
        ys, xs = np.nonzero(index > 0.25)
        box = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float32)
        both = np.maximum(index, index[::-1, ::-1])
        _paint(face, both, 0, 0, ink)

        alpha = np.zeros((h, w), np.uint8)
        radius = round(s.corner_radius * w)
        cv2.rectangle(alpha, (radius, 0), (w - 1 - radius, h - 1), 255, -1)
        cv2.rectangle(alpha, (0, radius), (w - 1, h - 1 - radius), 255, -1)
        for cx, cy in ((radius, radius), (w - 1 - radius, radius), (radius, h - 1 - radius), (w - 1 - radius, h - 1 - radius)):
            cv2.circle(alpha, (cx, cy), radius, 255, -1, lineType=cv2.LINE_AA)
        if s.frame == 1:
            outline = np.zeros((h, w), np.uint8)
            cv2.rectangle(outline, (1, 1), (w - 2, h - 2), 255, max(1, round(0.004 * h)))
            face[outline > 0] = (150, 150, 150)
        card = np.dstack([np.clip(face, 0, 255).astype(np.uint8), alpha])
        width_out = round(self.card_height * s.aspect)
        card = cv2.resize(card, (width_out, self.card_height), interpolation=cv2.INTER_AREA)
        scale = self.card_height / h
        x1, y1 = np.floor(box[:2] * scale).astype(int)
        x2, y2 = np.ceil(box[2:] * scale).astype(int)
        return card, (int(x1), int(y1), int(x2), int(y2))

    def _draw_joker(self, face: np.ndarray, index: np.ndarray, column_x: float, top: float,
                    ink: tuple[int, int, int]) -> None:
        """The Joker: its corner mark on ``index`` (the word stacked, or a star), a face in the centre."""
        s, w, h = self.style, self.w, self.h
        if s.joker_mark == "word":
            y = top
            gap = 0.08 * self.joker_letters[0].shape[0]
            for letter in self.joker_letters:
                _paint_mask(index, letter, column_x - letter.shape[1] / 2, y)
                y += letter.shape[0] + gap
        else:
            width = s.rank_height * h * 1.05
            star = _scaled(self.star, width, width * self.star.shape[0] / self.star.shape[1])
            if s.joker_ring:
                ring = np.zeros((round(width * 1.35),) * 2, np.float32)
                centre = (ring.shape[0] - 1) / 2
                cv2.circle(ring, (round(centre), round(centre)), round(centre - 1), 1.0,
                           max(1, round(width * 0.07)), lineType=cv2.LINE_AA)
                _paint_mask(index, ring, column_x - centre, top)
                _paint_mask(index, _scaled(star, width * 0.7, star.shape[0] * 0.7),
                            column_x - width * 0.35, top + centre - star.shape[0] * 0.35)
            else:
                _paint_mask(index, star, column_x - star.shape[1] / 2, top)
        # The centre: the word across the card over a coloured court panel, like a court card.
        left = (s.margin_x * w + self.column_width) + 0.06 * w
        self._draw_court(face, "JK", "", ink, (left, 0.1 * h, w - left, 0.9 * h), emblem=False)
        # The letters share one height (each was scaled to it), so they line up side by side.
        word = np.concatenate([np.pad(letter, ((0, 0), (0, max(1, letter.shape[1] // 8))))
                               for letter in self.joker_letters], axis=1)
        scale = min(1.0, (w - 2 * left) * 0.9 / word.shape[1])
        word = _scaled(word, word.shape[1] * scale, word.shape[0] * scale)
        band_top = round(h / 2 - word.shape[0])
        face[band_top:band_top + 2 * word.shape[0], round(left):round(w - left)] = s.paper
        _paint(face, word, w / 2 - word.shape[1] / 2, h / 2 - word.shape[0] / 2, ink)

    def _draw_centre(self, face: np.ndarray, rank: str, suit: str, ink: tuple[int, int, int]) -> None:
        s, w, h = self.style, self.w, self.h
        # The panel between the two index columns, clear of them.
        left = (s.margin_x * w + self.column_width) + 0.06 * w
        right = w - left
        top, bottom = 0.1 * h, 0.9 * h
        if s.frame == 2:
            cv2.rectangle(face, (round(left - 0.02 * w), round(top - 0.02 * h)),
                          (round(right + 0.02 * w), round(bottom + 0.02 * h)), s.court_colours[0], max(2, round(0.006 * h)))
        if rank in PIP_LAYOUTS:
            pip_w = min(0.16 * w, (right - left) / 3.2)
            for col, row in PIP_LAYOUTS[rank]:
                pip = self._pip(suit, pip_w)
                cx = left + pip_w / 2 + col * (right - left - pip_w) / 2
                cy = top + pip.shape[0] / 2 + row * (bottom - top - pip.shape[0])
                if row > 0.5:
                    pip = pip[::-1, ::-1]
                _paint(face, pip, cx - pip.shape[1] / 2, cy - pip.shape[0] / 2, ink)
        elif rank == "A":
            pip = self._pip(suit, (right - left) * 0.7)
            _paint(face, pip, w / 2 - pip.shape[1] / 2, h / 2 - pip.shape[0] / 2, ink)
        else:
            self._draw_court(face, rank, suit, ink, (left, top, right, bottom))

    def _draw_court(self, face: np.ndarray, rank: str, suit: str, ink: tuple[int, int, int],
                    panel: tuple[float, float, float, float], emblem: bool = True) -> None:
        """A court panel: coloured bands and shapes, mirrored top to bottom like real court art.

        ``emblem`` adds the suit pip and the rank letter in the panel (not on a Joker).
        """
        s = self.style
        left, top, right, bottom = (round(v) for v in panel)
        rng = np.random.default_rng(zlib.crc32(f"{s}{rank}{suit}".encode()))
        half = np.empty(((bottom - top) // 2, right - left, 3), np.float32)
        half[:] = s.paper
        for _ in range(int(rng.integers(4, 9))):
            colour = s.court_colours[int(rng.integers(len(s.court_colours)))]
            x, y = rng.uniform(0, half.shape[1]), rng.uniform(0, half.shape[0])
            size = rng.uniform(0.1, 0.45) * half.shape[1]
            if rng.random() < 0.5:
                cv2.circle(half, (round(x), round(y)), round(size / 2), colour, -1, lineType=cv2.LINE_AA)
            else:
                angle = rng.uniform(0, np.pi)
                dx, dy = np.cos(angle) * size, np.sin(angle) * size
                cv2.line(half, (round(x - dx), round(y - dy)), (round(x + dx), round(y + dy)), colour,
                         max(2, round(size * 0.15)), lineType=cv2.LINE_AA)
        if emblem:
            pip = self._pip(suit, half.shape[1] * 0.25)
            _paint(half, pip, half.shape[1] * 0.08, half.shape[0] * 0.08, ink)
            letter = _scaled(self.ranks[rank], self.ranks[rank].shape[1] * 1.6, self.ranks[rank].shape[0] * 1.6)
            _paint(half, letter, half.shape[1] / 2 - letter.shape[1] / 2, half.shape[0] * 0.45, ink)
        panel_img = np.concatenate([half, half[::-1, ::-1]], axis=0)
        face[top : top + panel_img.shape[0], left:right] = panel_img
        cv2.rectangle(face, (left, top), (right - 1, top + panel_img.shape[0] - 1), ink, max(2, round(0.004 * self.h)))


def _paint_mask(layer: np.ndarray, mask: np.ndarray, x: float, y: float) -> None:
    """Max-composite ``mask`` into the single-channel ``layer`` at top-left (x, y)."""
    x0, y0 = round(x), round(y)
    h, w = mask.shape
    region = layer[y0 : y0 + h, x0 : x0 + w]
    np.maximum(region, mask[: region.shape[0], : region.shape[1]], out=region)


def font_deck_cards(name: str, font_path: Path, card_height: int, codes: list[str]) -> tuple[
        dict[str, np.ndarray], dict[str, tuple[int, int, int, int]]]:
    """Draw the named font deck's cards and their top-left index boxes."""
    painter = FontDeckPainter(name, font_path, card_height)
    cards: dict[str, np.ndarray] = {}
    boxes: dict[str, tuple[int, int, int, int]] = {}
    for code in codes:
        cards[code], boxes[code] = painter.draw(code)
    return cards, boxes
