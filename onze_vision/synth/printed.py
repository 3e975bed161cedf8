"""Printed matter on the table: score sheets, labels, book covers, a newspaper.

A phone photo of a hand often shows print beside the cards. Seen through the closer look
(``onze_vision.detector``), a word of print is as large as a corner index, and the
classifier, which never saw print except the Jokers' corner word, read words on a bottle
and a book as a 2 and as Jokers (``models/HISTORY.md``, far shots). Scenes drawn with print
give the classifier print to call "none": lines of words in typefaces read from Debian
font packages at dataset time (never committed), at the height of the scene's indices,
turned any way, dark or coloured ink, on a paper patch or straight on the table.

Print is never labelled: it is drawn under the cards, and the boxes of its words are kept
apart (``Scene.printed``) so crops can be cut from them as negatives.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: Typefaces of the print, by the split of the scenes it is drawn in: the held-out split's
#: print is set in other typefaces than the training split's. Packages as for the font
#: decks (``datasets/README.md``).
PRINT_FONTS: dict[str, tuple[str, ...]] = {
    "train": (
        "/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf",
        "/usr/share/fonts/opentype/urw-base35/NimbusRoman-Regular.otf",
        "/usr/share/fonts/opentype/urw-base35/NimbusRoman-Italic.otf",
        "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Regular.otf",
        "/usr/share/fonts/opentype/urw-base35/URWGothic-Book.otf",
        "/usr/share/fonts/opentype/urw-base35/C059-Roman.otf",
        "/usr/share/fonts/opentype/urw-base35/P052-Bold.otf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",
        "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/liberation2/LiberationSerif-Italic.ttf",
        "/usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf",
        "/usr/share/fonts/truetype/lato/Lato-Regular.ttf",
        "/usr/share/fonts/truetype/lato/Lato-Bold.ttf",
        "/usr/share/fonts/truetype/open-sans/OpenSans-Regular.ttf",
        "/usr/share/fonts/truetype/open-sans/OpenSans-Bold.ttf",
        "/usr/share/fonts/truetype/roboto/unhinted/RobotoCondensed-Regular.ttf",
        "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
        "/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf",
        "/usr/share/fonts/opentype/linux-libertine/LinBiolinum_R.otf",
    ),
    "val": (
        "/usr/share/fonts/truetype/gentium-basic/GenBasR.ttf",
        "/usr/share/fonts/opentype/cantarell/Cantarell-Bold.otf",
        "/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf",
        "/usr/share/fonts/truetype/freefont/FreeMonoBold.ttf",
        "/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Italic.otf",
        "/usr/share/fonts/truetype/fonts-oldstandard/OldStandard-Regular.ttf",
        "/usr/share/fonts/truetype/crosextra/Caladea-Regular.ttf",
        "/usr/share/fonts/opentype/urw-base35/URWBookman-Light.otf",
        "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Regular.otf",
        "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Black.ttf",
    ),
}

# What lies on a card table: score sheets, packaging, a book, a newspaper; in the languages
# the game is played in. No lone rank (a bare "K" or "10" without its suit is what a half-
# covered index looks like; teaching it as "none" would teach the classifier to miss cards),
# and no "JOKER": some decks print that word down a Joker's corner as its index.
WORDS: tuple[str, ...] = (
    "SCORE", "TOTAL", "ROUND", "HAND", "PLAYER", "NAME", "GAME", "WINNER", "Onze", "Once",
    "rummy", "Jan", "Anna", "Pedro", "Marie", "Kees", "Joao", "Lotte", "Oma", "Opa",
    "the", "and", "of", "with", "KING", "QUEEN", "JACK", "ACE", "Spades", "Diamonds",
    "HEARTS", "CLUBS", "het", "een", "van", "de", "voor", "niet", "um", "uma", "com",
    "para", "que", "nao", "Milk", "Water", "Cola", "Beer", "Wine", "Tea", "Coffee",
    "Orange", "Sugar", "NET", "WT", "Best", "before", "Ingredients", "PRICE", "SALE",
    "Chapter", "Page", "News", "Daily", "Times", "Weather", "Sports", "MENU", "Pizza",
    "Cheese", "Bread", "Salt", "Keep", "cool", "Made", "in", "Holland", "Brasil",
    "Recycle", "Shake", "well", "OPEN", "HERE", "EAN", "Tel", "www", "Lot", "No",
)
NUMBERS: tuple[str, ...] = (
    "25", "35", "40", "55", "60", "75", "85", "120", "150", "210", "2024", "2026", "1.5L",
    "330ml", "7,50", "3.99", "500g", "12%", "No.4", "p.17", "#21", "x2", "45", "90",
)
INK_COLOURS = ((20, 20, 20), (40, 30, 25), (90, 30, 20), (30, 30, 150), (20, 20, 200), (30, 100, 30))
PAPER_COLOURS = ((245, 245, 242), (225, 238, 245), (200, 225, 240), (235, 235, 235), (60, 60, 60))
MAX_GLYPH_PX = 200  # larger print is drawn this size and scaled up: same look, bounded cost

_font_cache: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}


class PrintFontNotInstalledError(RuntimeError):
    """A typeface the print is set in is not installed."""


def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    key = (path, size)
    if key not in _font_cache:
        if not Path(path).exists():
            raise PrintFontNotInstalledError(f"{path} is missing (see datasets/README.md for the font packages)")
        _font_cache[key] = ImageFont.truetype(path, size)
    return _font_cache[key]


def _phrase(rng: np.random.Generator) -> str:
    """One line of print: a few words and numbers."""
    count = int(rng.integers(1, 5))
    tokens = [str(rng.choice(NUMBERS)) if rng.random() < 0.25 else str(rng.choice(WORDS)) for _ in range(count)]
    line = " ".join(tokens)
    return line.upper() if rng.random() < 0.3 else line


def _block(rng: np.random.Generator, font_path: str, glyph_px: int, ink: tuple[int, ...]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Lines of print on a transparent patch: BGRA and the box of each word in it."""
    font = _font(font_path, glyph_px)
    lines = [_phrase(rng) for _ in range(int(rng.integers(1, 5)))]
    leading = int(glyph_px * rng.uniform(1.2, 1.7))
    widths = [int(font.getlength(line)) for line in lines]
    pad = glyph_px // 2
    width, height = max(widths) + 2 * pad, leading * len(lines) + 2 * pad
    patch = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(patch)
    words: list[np.ndarray] = []
    for row, line in enumerate(lines):
        y = pad + row * leading
        x = float(pad)
        for word in line.split(" "):
            draw.text((x, y), word, font=font, fill=(*ink[::-1], 255))  # PIL takes RGB
            left, top, right, bottom = draw.textbbox((x, y), word, font=font)
            words.append(np.array([left, top, right, bottom], np.float64))
            x += font.getlength(word + " ")
    rgba = np.asarray(patch)
    return cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA), words


def draw_print(
    rng: np.random.Generator, canvas: np.ndarray, glyph_px: tuple[float, float], split: str = "train",
) -> list[tuple[float, float, float, float]]:
    """Draw one to three blocks of print on ``canvas`` (float BGR, drawn in place).

    ``glyph_px`` is the range of the print's capital height in pixels, one drawn per
    block. Returns the box of every word drawn, in canvas pixels (clipped to it).
    """
    if split not in PRINT_FONTS:
        raise ValueError(f"no print is set for the split {split!r}; use one of {sorted(PRINT_FONTS)}")
    height, width = canvas.shape[:2]
    word_boxes: list[tuple[float, float, float, float]] = []
    for _ in range(int(rng.integers(1, 4))):
        cap_px = float(rng.uniform(*glyph_px))
        # PIL's size is the em; capitals are about 0.7 of it.
        em_px = cap_px / 0.7
        drawn_px = int(np.clip(round(em_px), 6, MAX_GLYPH_PX))
        scale = em_px / drawn_px
        ink = INK_COLOURS[int(rng.integers(len(INK_COLOURS)))]
        paper = PAPER_COLOURS[int(rng.integers(len(PAPER_COLOURS)))] if rng.random() < 0.6 else None
        if paper is not None and sum(paper) < 300:
            ink = (235, 235, 235)  # light print on a dark label
        font_path = str(rng.choice(PRINT_FONTS[split]))
        block, words = _block(rng, font_path, drawn_px, ink)
        bh, bw = block.shape[:2]
        centre = (rng.uniform(0, width), rng.uniform(0, height))
        angle = float(rng.uniform(-180, 180)) if rng.random() < 0.7 else float(rng.normal(0, 8))
        matrix = cv2.getRotationMatrix2D((bw / 2, bh / 2), angle, scale)
        matrix[:, 2] += np.array(centre) - (bw / 2, bh / 2)
        warped = cv2.warpAffine(block, matrix, (width, height), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                                borderValue=(0, 0, 0, 0))
        if paper is not None:
            sheet = cv2.warpAffine(np.full((bh, bw), 255, np.uint8), matrix, (width, height), flags=cv2.INTER_LINEAR)
            sheet_alpha = (sheet.astype(np.float32) / 255.0)[..., None]
            tone = np.array(paper, np.float32) * rng.uniform(0.85, 1.05)
            canvas *= 1 - sheet_alpha
            canvas += tone * sheet_alpha
        alpha = (warped[:, :, 3].astype(np.float32) / 255.0 * rng.uniform(0.75, 1.0))[..., None]
        canvas *= 1 - alpha
        canvas += warped[:, :, :3].astype(np.float32) * alpha
        for box in words:
            corners = np.array([[box[0], box[1], 1], [box[2], box[1], 1], [box[2], box[3], 1], [box[0], box[3], 1]])
            points = corners @ matrix.T
            x1, y1 = np.clip(points.min(axis=0), 0, [width, height])
            x2, y2 = np.clip(points.max(axis=0), 0, [width, height])
            if x2 - x1 >= 2 and y2 - y1 >= 2:
                word_boxes.append((float(x1), float(y1), float(x2), float(y2)))
    return word_boxes
