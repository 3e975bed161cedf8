"""Card art: render installed deck designs once, cut the cards, find their corner indices.

Sources (never committed; rendered at dataset time into a cache folder):

* Debian's ``gnome-cards-data``: SVG sheets in ``/usr/share/aisleriot/cards``, a 13 x 5
  grid (rows clubs, diamonds, hearts, spades, then black Joker, red Joker, back;
  columns A to K).
* Debian's ``kdegames-card-data-kf5``: one SVG per design in ``/usr/share/carddecks``,
  each card an element (``1_spade``, ``10_heart``, ``queen_club``) rendered on its own.
* npm's ``@heruka_urgyen/react-playing-cards`` (CC0; ``AS.svg``, ``TH.svg``, ``2J.svg``
  for the Joker), ``cardsJS`` (LGPL-3.0; a deck traced from a US casino deck, no
  Joker) and ``@younestouati/playing-cards-standard-deck`` (LGPL-3.0; ``1s.svg``,
  ``12h.svg``, ``joker.svg``), fetched with ``npm pack``.
* Font decks: plain card faces drawn here (``onze_vision.synth.fontdeck``) with the
  index in one of 24 typefaces from Debian font packages, so that the classifier meets
  many index fonts, not only the few that card art packages use.
* Glyph decks: the whole cards that Debian's ``fonts-symbola`` and ``fonts-noto-core``
  draw in Unicode's playing-card block (U+1F0A0-1F0FF), on paper filled inside each
  card's outline (split ``"glyphs"``, drawn on request).

Only designs with English corner indices (A K Q J 10), two suit colours (red hearts and
diamonds: red Aces are wild in four variants) and indices in two opposite corners are
listed for training; decks whose courts are lettered in another language lend their number
cards, English Aces and Jokers (split ``"numbers"``, drawn on request). Four-corner decks
(an index in every corner) form a held-out set of their own (split ``"four"``): KDE's
dondorf, and the three held-out designs with their indices copied into the bare corners
(:func:`four_cornered`). Each card's index box is found from the ink in its top-left
corner, so a new design needs no hand-made coordinates (a font deck knows its boxes from
the drawing).
"""

from __future__ import annotations

import gzip
import math
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from onze_vision.synth.codes import CARD_CODES, RANKS
from onze_vision.synth.fontdeck import FONT_DECK_VERSION, FontNotInstalledError, font_deck_cards

AISLERIOT_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
INDEX_FINDER_VERSION = 2  # bump when find_index_box changes: cached decks find their indices again
CARD_HEIGHT = 360  # pixels of the cached art; scenes scale down from here

NUMBER_RANKS: tuple[str, ...] = tuple(rank for rank in RANKS if rank.isdigit())  # 2 to 10
NUMBER_RANKS_AND_ACE: tuple[str, ...] = ("A", *NUMBER_RANKS)

# Sheet layout of gnome-cards-data themes.
SHEET_SUIT_ROWS = {"C": 0, "D": 1, "H": 2, "S": 3}
SHEET_JOKER_CELL = (4, 1)  # the red Joker: both Jokers share the code JK


@dataclass(frozen=True)
class DeckSource:
    """Where one deck design comes from and how it may be used."""

    name: str
    kind: str  # "aisleriot", "kde", "npm", "font" or "glyph"
    origin: str  # theme file, KDE deck folder/file, npm package + folder, or font file (font and glyph decks)
    licence: str
    split: str  # "train"; "numbers" or "glyphs" (training, on request); "val" or "four" (held out of training)
    has_joker: bool = True
    naming: str = "heruka"  # npm only: how card files are named (see NPM_CARD_FILES)
    corners: int = 2  # indices per card: 2 (top-left and its turned copy) or 4 (all four corners)
    add_corners: bool = False  # the art has two indices; draw the other two as copies of them
    # The ranks whose index is English (None: all thirteen). Decks whose courts are lettered
    # in another language (D K B, R D V) lend their number cards, and Aces where "A".
    ranks: tuple[str, ...] | None = None

    def shows(self, code: str) -> bool:
        """Whether this design's ``code`` card is drawn in scenes: an English index, and
        a Joker only where the deck has one."""
        if code == "JK":
            return self.has_joker
        return self.ranks is None or code[:-1] in self.ranks


def _heruka_file(code: str) -> str:
    return "2J.svg" if code == "JK" else code.replace("10", "T") + ".svg"


def _numeric_file(code: str) -> str:
    if code == "JK":
        return "joker.svg"
    rank = {"A": "1", "J": "11", "Q": "12", "K": "13"}.get(code[:-1], code[:-1])
    return f"{rank}{code[-1].lower()}.svg"


# File name of each card code in an npm package's folder, per naming scheme.
NPM_CARD_FILES = {"heruka": _heruka_file, "numeric": _numeric_file}

# Element ids in KDE's card SVGs: ``1_spade``, ``10_heart``, ``queen_club``.
KDE_RANKS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
KDE_SUITS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}


# Procedural decks, one per typeface of a Debian font package (onze_vision/synth/fontdeck.py);
# the package is named beside each file.
FONT_DECKS: tuple[DeckSource, ...] = tuple(
    DeckSource(f"font-{Path(path).stem.lower()}", "font", path, licence, "train")
    for path, licence in (
        ("/usr/share/fonts/opentype/urw-base35/NimbusRoman-Bold.otf", "AGPL-3 with font exception (fonts-urw-base35)"),
        ("/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf", "AGPL-3 with font exception (fonts-urw-base35)"),
        ("/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf", "AGPL-3 with font exception (fonts-urw-base35)"),
        ("/usr/share/fonts/opentype/urw-base35/C059-Bold.otf", "AGPL-3 with font exception (fonts-urw-base35)"),
        ("/usr/share/fonts/opentype/urw-base35/P052-Roman.otf", "AGPL-3 with font exception (fonts-urw-base35)"),
        ("/usr/share/fonts/opentype/urw-base35/URWBookman-Demi.otf", "AGPL-3 with font exception (fonts-urw-base35)"),
        ("/usr/share/fonts/opentype/urw-base35/URWGothic-Demi.otf", "AGPL-3 with font exception (fonts-urw-base35)"),
        ("/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed-Bold.ttf", "Bitstream Vera (fonts-dejavu-core)"),
        ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "Bitstream Vera (fonts-dejavu-core)"),
        ("/usr/share/fonts/truetype/freefont/FreeSerif.ttf", "GPL-3+ with font exception (fonts-freefont-ttf)"),
        ("/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf", "OFL-1.1 (fonts-liberation2)"),
        ("/usr/share/fonts/truetype/crosextra/Caladea-Bold.ttf", "Apache-2.0 (fonts-crosextra-caladea)"),
        ("/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf", "OFL-1.1 (fonts-crosextra-carlito)"),
        ("/usr/share/fonts/opentype/linux-libertine/LinLibertine_RB.otf", "GPL-2+ with font exception / OFL (fonts-linuxlibertine)"),
        ("/usr/share/fonts/opentype/linux-libertine/LinBiolinum_RB.otf", "GPL-2+ with font exception / OFL (fonts-linuxlibertine)"),
        ("/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Regular.otf", "OFL-1.1 (fonts-ebgaramond)"),
        ("/usr/share/fonts/truetype/fonts-oldstandard/OldStandard-Bold.ttf", "OFL-1.1 (fonts-oldstandard)"),
        ("/usr/share/fonts/truetype/open-sans/OpenSans-CondBold.ttf", "Apache-2.0 (fonts-open-sans)"),
        ("/usr/share/fonts/truetype/lato/Lato-Black.ttf", "OFL-1.1 (fonts-lato)"),
        ("/usr/share/fonts/opentype/cantarell/Cantarell-Regular.otf", "OFL-1.1 (fonts-cantarell)"),
        ("/usr/share/fonts/truetype/gentium-basic/GenBkBasB.ttf", "OFL-1.1 (fonts-sil-gentium-basic)"),
        ("/usr/share/fonts/truetype/roboto/unhinted/RobotoCondensed-Bold.ttf", "Apache-2.0 (fonts-roboto-unhinted)"),
        ("/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Light.ttf", "Apache-2.0 (fonts-roboto-unhinted)"),
        ("/usr/share/texmf/fonts/opentype/public/tex-gyre/texgyreheroscn-bold.otf", "GUST font licence (fonts-texgyre)"),
    )
)


# Unicode's playing-card block (U+1F0A0-1F0FF) as two typefaces draw it: whole cards with
# corner indices, court art and (Symbola) a ringed star on the Joker's corners. The package
# is named beside each file.
GLYPH_DECKS: tuple[DeckSource, ...] = (
    DeckSource("glyph-symbola", "glyph", "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
               "free for any use (fonts-symbola)", "glyphs"),
    DeckSource("glyph-noto-symbols2", "glyph", "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
               "OFL-1.1 (fonts-noto-core)", "glyphs"),  # its Jokers have no corner mark: left out
)
# Where each suit's cards start in the block, and each rank's offset (12 is the Knight,
# which Onze has no use for).
GLYPH_SUIT_BASE = {"S": 0x1F0A0, "H": 0x1F0B0, "D": 0x1F0C0, "C": 0x1F0D0}
GLYPH_RANK_OFFSET = {"A": 1, **{str(n): n for n in range(2, 11)}, "J": 11, "Q": 13, "K": 14}
GLYPH_JOKER = 0x1F0CF  # the black Joker
GLYPH_INK_BGR = {"red": (40, 30, 200), "black": (30, 30, 30)}
GLYPH_PAPER_BGR = (250, 252, 252)
POKER_CARD_ASPECT = 63 / 88  # width for a height of 1
GLYPH_DECK_VERSION = 1  # bump when _glyph_cards draws differently: cached glyph decks are drawn again


def glyph_codepoint(code: str) -> int:
    """The Unicode code point of a card code's glyph: ``glyph_codepoint("QH") == 0x1F0BD``."""
    if code == "JK":
        return GLYPH_JOKER
    return GLYPH_SUIT_BASE[code[-1]] + GLYPH_RANK_OFFSET[code[:-1]]


DECKS: tuple[DeckSource, ...] = (
    *(
        DeckSource(theme, "aisleriot", f"{theme}.svgz", "GPL/LGPL (gnome-cards-data)", "train")
        for theme in (
            "anglo", "anglo_modern", "anglo_poker", "atlasnye", "bellot", "gnomangelo",
            "neoclassical", "orell", "paris", "plastic", "simplistic", "tango",
        )
    ),
    DeckSource("heruka-2color", "npm", "@heruka_urgyen/react-playing-cards:2color", "CC0-1.0", "train"),
    DeckSource("cardsjs", "npm", "cardsJS:cards", "LGPL-3.0", "train", has_joker=False),
    DeckSource("younestouati", "npm", "@younestouati/playing-cards-standard-deck:cards", "LGPL-3.0", "train",
               naming="numeric"),
    *(
        DeckSource(name, "kde", origin, "GPL/LGPL (kdegames-card-data-kf5)", "train", has_joker=False)
        for name, origin in (
            ("kde-standard", "svg-standard/standard.svgz"),
            ("kde-penguins", "svg-penguins/penguins.svgz"),
            ("kde-jolly-royal", "svg-jolly-royal/jolly-royal.svgz"),
            ("kde-ancient-egyptians", "svg-ancient-egyptians/Ancient_Egyptians.svgz"),
        )
    ),
    *FONT_DECKS,
    *GLYPH_DECKS,
    # Decks whose courts are lettered in German, Italian, French or Russian: their number
    # cards, English Aces and corner-marked Jokers teach more index faces (a condensed serif
    # family, stars and rings for the Joker). A split of their own, drawn in training scenes
    # on request (make-dataset --number-decks), so the scenes of earlier recipes stay the same.
    *(
        DeckSource(theme, "aisleriot", f"{theme}.svgz", "GPL/LGPL (gnome-cards-data)", "numbers",
                   has_joker=joker, ranks=ranks)
        for theme, ranks, joker in (
            ("berlin", NUMBER_RANKS_AND_ACE, True),
            ("rheinland", NUMBER_RANKS_AND_ACE, True),
            ("lattmann", NUMBER_RANKS_AND_ACE, True),
            ("tarocco", NUMBER_RANKS_AND_ACE, True),
            ("guyenne-classic", NUMBER_RANKS_AND_ACE, True),  # its courts have no index at all
            ("slavic_costumes", NUMBER_RANKS, True),  # Ace "T"
            ("ancient_french", NUMBER_RANKS, False),  # Ace "1"; "JOKER" runs past the corner
        )
    ),
    # Held out: validation on designs the detector never saw.
    DeckSource("tigullio", "aisleriot", "tigullio.svgz", "GPL/LGPL (gnome-cards-data)", "val"),
    DeckSource("ornamental", "aisleriot", "ornamental.svgz", "GPL/LGPL (gnome-cards-data)", "val"),
    DeckSource("heruka-2color-bf", "npm", "@heruka_urgyen/react-playing-cards:2color-bf", "CC0-1.0", "val"),
    # Held out too, on a set of their own: decks with an index in all four corners, as many
    # Latin American and European decks have. KDE's dondorf is drawn so; the three held-out
    # designs get their indices copied into the two bare corners.
    DeckSource("kde-dondorf", "kde", "svg-dondorf/dondorf.svgz", "GPL/LGPL (kdegames-card-data-kf5)", "four",
               has_joker=False, corners=4),
    DeckSource("tigullio-four", "aisleriot", "tigullio.svgz", "GPL/LGPL (gnome-cards-data)", "four",
               corners=4, add_corners=True),
    DeckSource("ornamental-four", "aisleriot", "ornamental.svgz", "GPL/LGPL (gnome-cards-data)", "four",
               corners=4, add_corners=True),
    DeckSource("heruka-2color-bf-four", "npm", "@heruka_urgyen/react-playing-cards:2color-bf", "CC0-1.0", "four",
               corners=4, add_corners=True),
)


class ArtNotInstalledError(RuntimeError):
    """The card art a deck needs is not installed on this machine."""


@dataclass
class DeckArt:
    """The rendered cards of one design: BGRA images and top-left index boxes.

    ``corners`` is 2 when a card has its index top left and, turned, bottom right; 4
    when the top-right corner repeats the top-left index and the bottom-left its turn.
    """

    name: str
    split: str
    cards: dict[str, np.ndarray] = field(default_factory=dict)
    index_boxes: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    corners: int = 2

    @property
    def codes(self) -> list[str]:
        return list(self.cards)


def default_cache_dir() -> Path:
    """The art cache: the checkout's ignored ``datasets/art``; an installed package's, in this
    user's cache folder (``~/.cache/onze-vision/art`` on Linux), not the near-gigabyte of
    PNGs in site-packages."""
    from onze_vision.places import REPO_ROOT, in_checkout, user_cache_dir

    return REPO_ROOT / "datasets" / "art" if in_checkout() else user_cache_dir() / "art"


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    try:
        subprocess.run(cmd, check=True, cwd=cwd, capture_output=True)
    except FileNotFoundError as error:
        raise ArtNotInstalledError(
            f"{cmd[0]!r} is not installed (apt-get install librsvg2-bin nodejs npm)"
        ) from error
    except subprocess.CalledProcessError as error:
        raise ArtNotInstalledError(
            f"{' '.join(cmd)!r} failed: {error.stderr.decode(errors='replace')[-400:]}"
        ) from error


def _render_svg(svg: Path, out: Path, height: int | None = None, width: int | None = None) -> np.ndarray:
    """Render an SVG (or .svgz) to a BGRA array with rsvg-convert, cached as PNG."""
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        source = svg
        if svg.suffix == ".svgz":  # rsvg-convert reads gzip too, but be explicit
            source = out.with_suffix(".svg")
            source.write_bytes(gzip.decompress(svg.read_bytes()))
        size = ["-h", str(height)] if height else ["-w", str(width)]
        _run(["rsvg-convert", *size, str(source), "-o", str(out)])
        if source != svg:
            source.unlink()
    return _rendered(out, f"{svg} to an RGBA image")


def _rendered(png: Path, what: str) -> np.ndarray:
    """The BGRA image rsvg-convert wrote to ``png``; a missing, broken or alpha-less one is
    art that could not be rendered (``what`` says which)."""
    image = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ArtNotInstalledError(f"could not render {what}")
    return image


def _trim_to_card(cell: np.ndarray) -> np.ndarray:
    """Cut a sheet cell down to the card's own opaque area."""
    ys, xs = np.nonzero(cell[:, :, 3] > 32)
    if len(xs) == 0:
        raise ArtNotInstalledError("an empty cell in a card sheet")
    return cell[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _resize_card(card: np.ndarray) -> np.ndarray:
    scale = CARD_HEIGHT / card.shape[0]
    return cv2.resize(card, (round(card.shape[1] * scale), CARD_HEIGHT), interpolation=cv2.INTER_AREA)


def _aisleriot_cards(source: DeckSource, cache: Path) -> dict[str, np.ndarray]:
    theme = AISLERIOT_DIR / source.origin
    if not theme.exists():
        raise ArtNotInstalledError(f"{theme} is missing (apt-get install gnome-cards-data)")
    # Render so that one card is about CARD_HEIGHT * 1.2 tall, then trim and resize.
    sheet = _render_svg(theme, cache / "sheets" / f"{source.name}.png", width=13 * 300)
    cell_w, cell_h = sheet.shape[1] / 13, sheet.shape[0] / 5

    def cell(row: int, col: int) -> np.ndarray:
        y0, y1 = round(row * cell_h), round((row + 1) * cell_h)
        x0, x1 = round(col * cell_w), round((col + 1) * cell_w)
        return _resize_card(_trim_to_card(sheet[y0:y1, x0:x1]))

    cards = {
        rank + suit: cell(row, col)
        for suit, row in SHEET_SUIT_ROWS.items()
        for col, rank in enumerate(RANKS)
    }
    cards["JK"] = cell(*SHEET_JOKER_CELL)
    return cards


#: The version of each npm package the decks are cut from: a seed draws the same scenes only
#: from the same art, and a new release upstream must not change a dataset unasked.
NPM_VERSIONS = {
    "@heruka_urgyen/react-playing-cards": "0.5.0",
    "cardsJS": "1.1.1",
    "@younestouati/playing-cards-standard-deck": "3.0.0",
}


def _npm_package_dir(package: str, cache: Path) -> Path:
    """Fetch an npm package's tarball at its :data:`NPM_VERSIONS` version with ``npm pack``
    (no install scripts) and unpack it."""
    target = cache / "npm" / package.replace("/", "__")
    if (target / "package").exists():
        return target / "package"
    target.mkdir(parents=True, exist_ok=True)
    _run(["npm", "pack", f"{package}@{NPM_VERSIONS[package]}", "--silent"], cwd=target)
    tarballs = list(target.glob("*.tgz"))
    if not tarballs:
        raise ArtNotInstalledError(f"npm pack {package} produced no tarball")
    with tarfile.open(tarballs[0]) as archive:
        archive.extractall(target, filter="data")
    return target / "package"


def _npm_cards(source: DeckSource, cache: Path) -> dict[str, np.ndarray]:
    package, folder = source.origin.split(":")
    root = _npm_package_dir(package, cache)
    card_file = NPM_CARD_FILES[source.naming]
    folders = [p for p in root.rglob(folder) if p.is_dir() and any(p.glob(card_file("AS")))]
    if not folders:
        raise ArtNotInstalledError(f"no folder {folder!r} with {card_file('AS')} in npm package {package}")
    svg_dir = min(folders, key=lambda p: len(p.parts))
    cards: dict[str, np.ndarray] = {}
    for code in CARD_CODES:
        if code == "JK" and not source.has_joker:
            continue
        name = card_file(code)
        png = cache / "cards" / source.name / (Path(name).stem + ".png")
        image = _render_svg(svg_dir / name, png, height=round(CARD_HEIGHT * 1.1))
        cards[code] = _resize_card(_trim_to_card(image))
    return cards


def add_corner_indices(card: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """A copy of ``card`` with its top-left index (``box``) also in the top-right corner,
    and its turned bottom-right index in the bottom-left: a four-corner deck.

    The patch goes as far from the right edge as the index is from the left, and covers
    whatever the art drew there (a court card's frame), as four-corner decks do.
    """
    h, w = card.shape[:2]
    pad = math.ceil(0.08 * (box[3] - box[1]))  # the label's padding (scenes.INDEX_PAD) is copied too
    x1, y1 = max(box[0] - pad, 0), max(box[1] - pad, 0)
    x2, y2 = min(box[2] + pad, w // 2), min(box[3] + pad, h // 2)
    out = card.copy()
    out[y1:y2, w - x2:w - x1] = card[y1:y2, x1:x2]
    out[h - y2:h - y1, x1:x2] = card[h - y2:h - y1, w - x2:w - x1]
    return out


def four_cornered(deck: DeckArt, name: str | None = None) -> DeckArt:
    """The same design with its index copied into the two bare corners (a four-corner
    deck, :func:`add_corner_indices`), named ``name`` (default: the design's, "-four")."""
    if deck.corners == 4:
        return deck
    cards = {code: add_corner_indices(card, deck.index_boxes[code]) for code, card in deck.cards.items()}
    return DeckArt(name or f"{deck.name}-four", deck.split, cards, dict(deck.index_boxes), corners=4)


def find_index_box(card: np.ndarray) -> tuple[int, int, int, int] | None:
    """Return the top-left corner index (rank glyph plus suit pip) as (x1, y1, x2, y2).

    Ink is whatever differs from the card's paper colour inside the card, away from its
    outline. The index is the ink component nearest the corner, grown by the components
    stacked under or beside it; components reaching beyond the corner region (a court
    card's frame, a big pip) are not index.
    """
    h, w = card.shape[:2]
    alpha = card[:, :, 3] > 128
    margin = max(3, round(0.035 * w))
    # Pixels outside the image count as background, so square-cornered art loses its outline too.
    inner = cv2.erode(
        alpha.astype(np.uint8),
        np.ones((2 * margin + 1, 2 * margin + 1), np.uint8),
        borderType=cv2.BORDER_CONSTANT,
        borderValue=0,
    ) > 0
    bgr = card[:, :, :3].astype(np.int16)
    paper = np.median(bgr[inner][:: max(1, inner.sum() // 5000)], axis=0)
    ink = (np.abs(bgr - paper).max(axis=2) > 70) & inner
    ink = cv2.dilate(ink.astype(np.uint8), np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    # 0.45 h: big-index designs (ornamental, heruka 2color-bf) stack a pip reaching 0.43 h
    # under the rank; at 0.4 h their index was the rank glyph alone.
    region_w, region_h = 0.3 * w, 0.45 * h
    boxes = [
        (x, y, x + bw, y + bh)
        for x, y, bw, bh, area in stats[1:count]
        if x + bw <= region_w and y + bh <= region_h and area >= 6
    ]
    if not boxes:
        return None
    x1, y1, x2, y2 = min(boxes, key=lambda b: b[0] + b[1])
    grown = True
    while grown:
        grown = False
        gap = max(0.05 * h, 0.4 * (y2 - y1))  # big rank glyphs sit further above their pip
        for b in boxes:
            inside = b[0] >= x1 and b[1] >= y1 and b[2] <= x2 and b[3] <= y2
            if inside:
                continue
            below = b[1] <= y2 + gap and b[3] > y1 and b[0] < x2 + gap * 0.5 and b[2] > x1 - gap * 0.5
            beside = b[0] <= x2 + gap * 0.6 and b[2] > x1 and b[1] < y2 and b[3] > y1
            if below or beside:
                nx1, ny1, nx2, ny2 = min(x1, b[0]), min(y1, b[1]), max(x2, b[2]), max(y2, b[3])
                if nx2 - nx1 <= region_w and ny2 - ny1 <= region_h:
                    x1, y1, x2, y2 = nx1, ny1, nx2, ny2
                    grown = True
    return int(x1), int(y1), int(x2), int(y2)


def _checked_index_boxes(cards: dict[str, np.ndarray]) -> dict[str, tuple[int, int, int, int]]:
    """Find every card's index; fall back to the deck's typical box where one is odd."""
    found = {code: find_index_box(card) for code, card in cards.items()}
    number_boxes = np.array(
        [box for code, box in found.items() if box and code[:-1] in {"2", "3", "4", "5", "6", "7", "8", "9"}],
        dtype=np.float32,
    )
    typical = np.median(number_boxes, axis=0)
    typical_h = typical[3] - typical[1]
    boxes: dict[str, tuple[int, int, int, int]] = {}
    for code, box in found.items():
        # The box found, when it lies near the corner where the deck's indices lie.
        corner = box if box is not None and max(box[0] - typical[0], box[1] - typical[1]) < typical_h * 0.5 else None
        if code == "JK":
            # A Joker's index is a word or a star of its own size; a Joker with no corner
            # mark at all has no index to learn and is left out of scenes.
            if corner is not None and corner[3] - corner[1] >= 0.3 * typical_h:
                boxes[code] = corner
            continue
        if corner is not None and 0.6 * typical_h <= corner[3] - corner[1] <= 1.6 * typical_h:
            boxes[code] = corner
        else:
            x1, y1, x2, y2 = (int(v) for v in typical)
            boxes[code] = (x1, y1, x2, y2)
    return boxes


def _glyph_ink(font: ImageFont.FreeTypeFont, text: str) -> np.ndarray:
    """One character's ink (0-255), cut to its box with a 4-pixel margin."""
    # Whole pixels: getbbox is typed float for the sake of fractional strokes, and uses none here.
    left, top, right, bottom = (int(v) for v in font.getbbox(text))
    canvas = Image.new("L", (max(1, right - left) + 8, max(1, bottom - top) + 8), 0)
    ImageDraw.Draw(canvas).text((4 - left, 4 - top), text, font=font, fill=255)
    return np.asarray(canvas)


def _glyph_cards(source: DeckSource, cache: Path) -> dict[str, np.ndarray]:
    """Draw each card's glyph of a typeface's playing-card block, on paper filled inside its outline.

    The glyph is one colour (red for hearts and diamonds, as these typefaces are shown in
    colour); its card outline is the outermost ink, so the paper is that outline filled.
    """
    path = Path(source.origin)
    if not path.exists():
        raise ArtNotInstalledError(f"{path} is missing (apt-get install the package named in {source.licence!r})")
    font = ImageFont.truetype(str(path), round(CARD_HEIGHT * 1.4))
    # What the typeface draws for a character it lacks (a box, or nothing), to tell a card apart.
    lacking = _glyph_ink(font, chr(0x10FFFD))
    cards: dict[str, np.ndarray] = {}
    for code in CARD_CODES:
        ink = _glyph_ink(font, chr(glyph_codepoint(code)))
        contours, _ = cv2.findContours((ink > 128).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if not contours or np.array_equal(ink, lacking):  # unequal shapes are unequal
            raise ArtNotInstalledError(f"{path} has no playing card for {code} (U+{glyph_codepoint(code):X})")
        outline = max(contours, key=cv2.contourArea)
        x, y, w, h = cv2.boundingRect(outline)
        paper = np.zeros_like(ink)
        cv2.drawContours(paper, [outline], -1, 255, thickness=cv2.FILLED)
        paper = np.maximum(paper, ink)  # the outline's antialiased rim
        colour = GLYPH_INK_BGR["red" if code[-1] in "HD" else "black"]
        share = (ink.astype(np.float32) / 255)[:, :, None]
        bgr = np.array(GLYPH_PAPER_BGR, np.float32) * (1 - share) + np.array(colour, np.float32) * share
        card = np.dstack([bgr.round().astype(np.uint8), paper])[y : y + h, x : x + w]
        # The typefaces draw squatter cards than a deck's (Symbola 0.79 wide for 1 tall):
        # drawn at a poker card's shape, as printed.
        cards[code] = cv2.resize(card, (round(CARD_HEIGHT * POKER_CARD_ASPECT), CARD_HEIGHT), interpolation=cv2.INTER_AREA)
    return cards


def _kde_cards(source: DeckSource, cache: Path) -> dict[str, np.ndarray]:
    """Render each card element of a KDE deck SVG on its own (``rsvg-convert -i``)."""
    theme = KDE_DIR / source.origin
    if not theme.exists():
        raise ArtNotInstalledError(f"{theme} is missing (apt-get install kdegames-card-data-kf5)")
    svg = cache / "sheets" / f"{source.name}.svg"
    if not svg.exists():
        svg.parent.mkdir(parents=True, exist_ok=True)
        svg.write_bytes(gzip.decompress(theme.read_bytes()))
    folder = cache / "cards" / source.name
    folder.mkdir(parents=True, exist_ok=True)
    cards: dict[str, np.ndarray] = {}
    zoom: float | None = None
    for code in CARD_CODES:
        if code == "JK":
            continue  # KDE decks name their Jokers differently, when they have one at all
        element = f"{KDE_RANKS.get(code[:-1], code[:-1])}_{KDE_SUITS[code[-1]]}"
        png = folder / f"{code}.png"
        if not png.exists():
            if zoom is None:
                # Render the first card at its own size to learn the zoom that makes
                # cards about 1.1 x CARD_HEIGHT tall: -h would squash the element's box.
                _run(["rsvg-convert", "-i", element, "-z", "1", str(svg), "-o", str(png)])
                natural = _trim_to_card(_rendered(png, f"{element} of {theme}")).shape[0]
                zoom = CARD_HEIGHT * 1.1 / natural
            _run(["rsvg-convert", "-i", element, "-z", f"{zoom:.4f}", str(svg), "-o", str(png)])
        cards[code] = _resize_card(_trim_to_card(_rendered(png, f"{element} of {theme}")))
    return cards


def load_deck(source: DeckSource, cache: Path | None = None) -> DeckArt:
    """Render (or read from the cache) one deck design and find its index boxes."""
    cache = cache or default_cache_dir()
    meta_path = cache / "decks" / f"{source.name}.npz"
    data = np.load(meta_path, allow_pickle=False) if meta_path.exists() else None
    if source.kind == "font":
        if data is not None and int(data.get("drawing", 1)) == FONT_DECK_VERSION:
            return _cached_art(source, data)
        # Drawn here, so each index box is known from what was drawn: no ink search.
        codes = [c for c in CARD_CODES if c != "JK" or source.has_joker]
        try:
            cards, boxes = font_deck_cards(source.name, Path(source.origin), CARD_HEIGHT, codes)
        except FontNotInstalledError as error:
            raise ArtNotInstalledError(str(error)) from error
    elif data is not None and (source.kind != "glyph" or int(data.get("drawing", 0)) == GLYPH_DECK_VERSION):
        if "finder" in data and int(data["finder"]) == INDEX_FINDER_VERSION:
            return _cached_art(source, data)
        # Cached by an older index finder: keep the rendered cards, find their indices again.
        cards = _cached_cards(data)
        boxes = _checked_index_boxes(cards)
    else:
        # Said, since the first run renders every design for a minute or two before any scene.
        print(f"rendering deck art '{source.name}' once into {cache} (kept for later runs)", file=sys.stderr,
              flush=True)
        loaders = {"aisleriot": _aisleriot_cards, "kde": _kde_cards, "npm": _npm_cards, "glyph": _glyph_cards}
        cards = loaders[source.kind](source, cache)
        boxes = _checked_index_boxes(cards)
    cards = {code: card for code, card in cards.items() if code in boxes and source.shows(code)}
    art = DeckArt(source.name, source.split, cards, boxes, 2 if source.add_corners else source.corners)
    if source.add_corners:
        art = four_cornered(art, source.name)
    meta_path.parent.mkdir(parents=True, exist_ok=True)
    codes = art.codes
    np.savez(
        meta_path,
        codes=np.array(codes),
        boxes=np.array([art.index_boxes[c] for c in codes]),
        finder=np.array(INDEX_FINDER_VERSION),
        drawing=np.array({"font": FONT_DECK_VERSION, "glyph": GLYPH_DECK_VERSION}.get(source.kind, 0)),
        allow_pickle=True,  # numpy's default, named so that no card_* array can be taken for it
        **{f"card_{i}": art.cards[c] for i, c in enumerate(codes)},
    )
    return art


def _cached_cards(data: np.lib.npyio.NpzFile) -> dict[str, np.ndarray]:
    """The rendered cards of a cached deck, by code."""
    return {str(code): data[f"card_{i}"] for i, code in enumerate(data["codes"])}


def _cached_art(source: DeckSource, data: np.lib.npyio.NpzFile) -> DeckArt:
    """The deck as cached: its cards and the index boxes stored with them."""
    boxes = {str(code): tuple(int(v) for v in data["boxes"][i]) for i, code in enumerate(data["codes"])}
    cards = {code: card for code, card in _cached_cards(data).items() if source.shows(code)}
    return DeckArt(source.name, source.split, cards, boxes, source.corners)  # type: ignore[arg-type]


def load_decks(split: str | None = None, names: list[str] | None = None, cache: Path | None = None) -> list[DeckArt]:
    """Load every listed deck of a split ("train", "numbers", "glyphs", "val", "four"), or the named ones."""
    chosen = [d for d in DECKS if (split is None or d.split == split) and (names is None or d.name in names)]
    if names:
        unknown = set(names) - {d.name for d in DECKS}
        if unknown:
            raise ValueError(f"unknown deck design(s): {', '.join(sorted(unknown))}")
    return [load_deck(d, cache) for d in chosen]
