"""Render one synthetic photo of Onze cards with exact corner-index labels.

A scene is laid out on a flat table plane (a spread hand, a fan, rows of laid-down
melds, or a loose pile), then seen through a camera: a perspective homography, light
falloff and shadows, glare, white balance, blur, noise and JPEG. Every card is drawn in
z-order and writes its id into an *owner map*, so after drawing we know, pixel by pixel,
which card is seen. A corner index is labelled only when at least ``MIN_VISIBLE`` of
its area shows; the rest is covered by another card, a thumb or the photo's edge.
It also records how much of its rank half shows (``rank_visible``): half an index can
show with its rank glyph covered, and such a corner cannot be read for sure.

Labels say which physical card each index belongs to (``card_id``), so the two corners
of one card count once and two identical cards from two decks count twice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from onze_vision.synth.art import DeckArt
from onze_vision.synth.backgrounds import BackgroundBank
from onze_vision.synth.blur import motion_kernel
from onze_vision.synth.printed import draw_print

MIN_VISIBLE = 0.5  # a corner more than half covered carries no label
MIN_INDEX_PX = 6  # indices smaller than this are unreadable: no label
INDEX_PAD = 0.08  # label boxes reach this fraction of the index height past the ink
INDEX_PX = (11.0, 60.0)  # index heights, log-uniform: a whole table far away to a close-up
LAYOUTS = ("spread", "fan", "melds", "pile")
LAYOUT_WEIGHTS = (0.32, 0.36, 0.22, 0.10)


@dataclass
class IndexLabel:
    """One visible corner index."""

    code: str
    card_id: int
    corner: str  # "tl", "br" (the turned copy), and on four-corner decks "tr", "bl"
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in image pixels
    visible: float
    down: tuple[float, float]  # unit vector of "down" as the index reads
    rank_visible: float = 1.0  # share of the index's rank half (nearer the card's corner) that shows


@dataclass
class PlacedCard:
    """One physical card in the scene."""

    card_id: int
    code: str
    deck: str
    center: tuple[float, float]
    labelled_corners: int = 0


@dataclass
class Scene:
    """A rendered photo and what is in it."""

    image: np.ndarray  # BGR uint8
    layout: str
    labels: list[IndexLabel] = field(default_factory=list)
    cards: list[PlacedCard] = field(default_factory=list)
    printed: list[tuple[float, float, float, float]] = field(default_factory=list)  # word boxes of print


@dataclass(frozen=True)
class CardPlacement:
    """One card of a deck design, placed on the table plane."""

    code: str
    deck: DeckArt
    matrix: np.ndarray  # 3x3: card-art pixels -> table plane


def place_card(deck: DeckArt, code: str, center: tuple[float, float], angle_deg: float, height: float) -> CardPlacement:
    """Place ``code`` with its centre at ``center``, turned ``angle_deg``, ``height`` pixels tall."""
    art = deck.cards[code]
    scale = height / art.shape[0]
    return CardPlacement(code, deck, _similarity(center[0], center[1], angle_deg, scale, art.shape[1], art.shape[0]))


def _similarity(cx: float, cy: float, angle_deg: float, scale: float, w: float, h: float) -> np.ndarray:
    """Card pixels -> table: scale, rotate about the card centre, move the centre to (cx, cy)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    return np.array(
        [[c, -s, cx - c * w / 2 + s * h / 2], [s, c, cy - s * w / 2 - c * h / 2], [0, 0, 1]],
        dtype=np.float64,
    )


def _pick_cards(rng: np.random.Generator, decks: list[DeckArt], count: int) -> list[tuple[str, DeckArt]]:
    """Cards from one or two deck designs, two copies of each: duplicates happen as in play."""
    chosen = [decks[rng.integers(len(decks))]]
    if len(decks) > 1 and rng.random() < 0.15:
        chosen.append(decks[rng.integers(len(decks))])
    pool = [(code, deck) for deck in chosen for code in deck.codes for _ in range(2)]
    picks = [pool[i] for i in rng.choice(len(pool), size=min(count, len(pool)), replace=False)]
    if count >= 2 and rng.random() < 0.25:  # make sure two identical cards meet
        picks[-1] = picks[int(rng.integers(len(picks) - 1))]
    return picks


def deal_jokers(rng: np.random.Generator, picks: list[tuple[str, DeckArt]]) -> list[tuple[str, DeckArt]]:
    """``picks`` with one to three of them (at most half) turned into Jokers of their decks.

    Two Jokers in 108 cards make them 2 % of the indices a detector is taught, too few to
    learn marks as varied as a ringed star and a stacked word (``--jokers``). A deck
    without a Joker keeps its cards.
    """
    slots = [i for i, (_, deck) in enumerate(picks) if "JK" in deck.codes]
    if not slots:
        return picks
    count = min(int(rng.integers(1, 4)), max(1, len(picks) // 2), len(slots))
    dealt = list(picks)
    for i in rng.choice(slots, size=count, replace=False):
        dealt[int(i)] = ("JK", picks[int(i)][1])
    return dealt


def _layout_cards(
    rng: np.random.Generator,
    layout: str,
    picks: list[tuple[str, DeckArt]],
    size: tuple[int, int],
    index_px: tuple[float, float] = INDEX_PX,
) -> list[CardPlacement]:
    """Place the picked cards on the table plane (image-sized) for one layout."""
    width, height = size
    # Index height in pixels, log-uniform: from a whole table far away to a close-up.
    index_h = math.exp(rng.uniform(math.log(index_px[0]), math.log(index_px[1])))
    ref = picks[0][1]
    ref_card = ref.cards[picks[0][0]]
    ref_index_h = ref.index_boxes[picks[0][0]][3] - ref.index_boxes[picks[0][0]][1]
    scale = index_h / max(ref_index_h, 1)
    card_h = ref_card.shape[0] * scale
    card_w = ref_card.shape[1] * scale
    n = len(picks)
    centre = np.array([width / 2, height / 2]) + rng.normal(0, 0.12, 2) * [width, height]
    turn = rng.uniform(0, 360) if rng.random() < 0.35 else rng.normal(0, 12)
    positions: list[tuple[float, float, float]] = []  # x, y, angle in the layout frame
    if layout == "spread":
        per_row = max(1, int(rng.integers(max(1, min(n, 3)), min(n, 7) + 1)))
        step_x = card_w * rng.uniform(0.55, 1.25)
        step_y = card_h * rng.uniform(0.75, 1.25)
        for i in range(n):
            row, col = divmod(i, per_row)
            positions.append(
                (
                    col * step_x + rng.normal(0, card_w * 0.08),
                    row * step_y + rng.normal(0, card_h * 0.06),
                    rng.normal(0, 8),
                )
            )
    elif layout == "fan":
        spread = rng.uniform(4, 14) if rng.random() < 0.5 else rng.uniform(12, 24)  # tight or loose
        radius = card_h * rng.uniform(0.5, 1.4)
        for i in range(n):
            angle = (i - (n - 1) / 2) * spread / max(1, n / 8) ** 0.3
            a = math.radians(angle)
            positions.append((radius * math.sin(a), -radius * math.cos(a), angle + rng.normal(0, 1.5)))
    elif layout == "melds":
        rows = max(1, min(4, int(rng.integers(1, 5))))
        per_row = max(1, math.ceil(n / rows))
        step_x = card_w * rng.uniform(0.18, 0.45)
        step_y = card_h * rng.uniform(0.3, 1.1)
        for i in range(n):
            row, col = divmod(i, per_row)
            positions.append((col * step_x + row * rng.normal(0, card_w * 0.1), row * step_y, rng.normal(0, 3)))
    else:  # pile
        for _ in range(n):
            positions.append(
                (rng.normal(0, card_w * 0.7), rng.normal(0, card_h * 0.5), rng.uniform(0, 360))
            )
    xy = np.array([(p[0], p[1]) for p in positions], dtype=np.float64)
    xy -= xy.mean(axis=0)
    t = math.radians(turn)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    xy = xy @ rot.T + centre
    cards = []
    for (code, deck), (x, y), (_, _, angle) in zip(picks, xy, positions):
        art = deck.cards[code]
        # Each design's index is a different share of its card: keep the card size, not the index size.
        s = card_h / art.shape[0]
        cards.append(CardPlacement(code, deck, _similarity(x, y, angle + turn, s, art.shape[1], art.shape[0])))
    if layout == "fan" and rng.random() < 0.5:
        cards.reverse()  # fanned the other way: the right-hand card lies underneath
    return cards


def _camera(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A homography for a phone held above the table: tilt, a little zoom."""
    w, h = size
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    tilt = rng.uniform(0, 0.16)
    jitter = rng.uniform(-tilt, tilt, (4, 2)) * [w, h]
    side = rng.integers(4)  # which edge is further from the camera
    shrink = np.zeros((4, 2))
    far = [(0, 1), (1, 2), (2, 3), (3, 0)][side]
    for i in far:
        shrink[i] = (np.array([w / 2, h / 2]) - src[i]) * tilt
    dst = (src + jitter * 0.4 + shrink).astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def _pyramid_level(art: np.ndarray, scale: float) -> tuple[np.ndarray, float]:
    """Downsample the art towards the drawn size first: warping 360 px to 40 px aliases.

    ``scale`` is drawn pixels per art pixel. Returns the level and its size as a share of
    the art; the level stays at most twice the drawn size, so no detail is lost.
    """
    level = art
    factor = 1.0
    while scale / factor < 0.5 and min(level.shape[:2]) > 32:
        level = cv2.pyrDown(level)
        factor /= 2
    return level, factor


def _shift(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def _level_to_image(full: np.ndarray, factor: float) -> np.ndarray:
    """The warp that draws a pyramid level of the art where ``full`` puts the art.

    ``full`` and every label take pixel edges on whole numbers (pixel ``i`` spans ``i`` to
    ``i + 1``, as an index box does); OpenCV's warp puts pixel centres there, and
    ``cv2.pyrDown`` centres a level's pixel ``j`` on the art's pixel ``j / factor``. Warping
    with ``full`` itself drew the ink about half a pixel right of and below its label (0.45-1.0
    px on a plain card 60-180 px tall, 3-10 % of a small index).
    """
    return _shift(-0.5, -0.5) @ full @ _shift(0.5, 0.5) @ np.diag([1 / factor, 1 / factor, 1.0])


def _apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.hstack([points, np.ones((len(points), 1))]) @ matrix.T
    return pts[:, :2] / pts[:, 2:3]


def _polygon_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


def _index_quads(card: CardPlacement) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The padded index quads in card pixels, each with its reading-down vector: TL and
    BR, and on a four-corner deck TR and BL too.

    Each quad starts with the two points of its index's top edge (as the index reads).
    """
    h, w = card.deck.cards[card.code].shape[:2]
    bx1, by1, bx2, by2 = card.deck.index_boxes[card.code]
    pad = INDEX_PAD * (by2 - by1)
    x1, y1, x2, y2 = bx1 - pad, by1 - pad, bx2 + pad, by2 + pad
    tl = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float64)
    br = np.array([[w, h]]) - tl  # the 180-degree turned index in the opposite corner
    quads = [("tl", tl, np.array([0.0, 1.0])), ("br", br, np.array([0.0, -1.0]))]
    if card.deck.corners == 4:
        tr = np.array([[w - x2, y1], [w - x1, y1], [w - x1, y2], [w - x2, y2]], dtype=np.float64)
        quads += [("tr", tr, np.array([0.0, 1.0])), ("bl", np.array([[w, h]]) - tr, np.array([0.0, -1.0]))]
    return quads


SHARE_SAMPLES = 4  # owner pixels are cut into 4x4 samples to count how much of a quad shows
MAX_SHARE_SAMPLES = 1 << 26  # over this (a 2048x2048-px box) a quad is counted on the photo's part only


def _shown_share(quad: np.ndarray, owner: np.ndarray, card_id: int) -> float:
    """The share of a quad (image pixels, their edges on whole numbers) where the owner map
    shows the card: off the photo counts as hidden.

    The quad is filled on a raster ``SHARE_SAMPLES`` times finer than the photo's, over its
    whole extent, the part off the photo included; the share is the filled samples whose
    photo pixel shows the card over all filled samples. Both counts come from one fill, so
    the border a fill adds weighs alike in each: a small index wholly shown counts 1, where
    dividing a filled pixel count by the quad's area counted an 8x8 index 1.27 and one
    37.5 % shown 0.56, over the threshold. A quad over ``MAX_SHARE_SAMPLES`` (a card far off
    a tilted photo) is filled on the photo only and divided by its area, where the border
    is a negligible share; where none of the card is in the photo it is 0, no fill made.
    """
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    h, w = owner.shape
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if cx1 <= cx0 or cy1 <= cy0:  # wholly off the photo (and a negative bound would wrap a slice)
        return 0.0
    seen_on_photo = owner[cy0:cy1, cx0:cx1] == card_id  # the quad's box on the photo, per pixel
    # Nothing of the card in the photo under the quad: none of it shows. Said before any
    # raster is made, because a card placed far off the photo under a steep camera tilt has
    # quads tens of thousands of pixels wide (one asked for 5 GiB of samples; a worker died).
    if not seen_on_photo.any():
        return 0.0
    k = SHARE_SAMPLES
    if (y1 - y0) * (x1 - x0) * k * k > MAX_SHARE_SAMPLES:
        # Part of a huge quad shows: fill its part on the photo only, and take the total from
        # its area, where the border a fill adds is a negligible share.
        window = np.array([[cx0, cy0], [cx1, cy0], [cx1, cy1], [cx0, cy1]], np.float32)
        _, part = cv2.intersectConvexConvex(quad.astype(np.float32), window)
        if part is None or len(part) < 3:
            return 0.0
        filled = _fill(part.reshape(-1, 2).astype(np.float64), cx0, cy0, cx1, cy1)
        return min(1.0, _count_seen(filled, seen_on_photo) / (_polygon_area(quad) * k * k))
    filled = _fill(quad, x0, y0, x1, y1)
    total = int(np.count_nonzero(filled))
    if total == 0:
        return 0.0
    seen = np.full((y1 - y0, x1 - x0), False)
    seen[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0] = seen_on_photo
    return _count_seen(filled, seen) / total


def _fill(polygon: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """A convex polygon filled on a raster ``SHARE_SAMPLES`` times finer than pixels
    ``x0..x1, y0..y1`` (True where filled)."""
    k = SHARE_SAMPLES
    fine = np.zeros(((y1 - y0) * k, (x1 - x0) * k), np.uint8)
    shift = 4  # fillConvexPoly's fractional bits: vertices placed to 1/16 of a sample
    # A sample's centre lies at a whole number in OpenCV's raster: move the edges half a sample.
    vertices = np.round(((polygon - [x0, y0]) * k - 0.5) * (1 << shift)).astype(np.int32)
    cv2.fillConvexPoly(fine, vertices, 1, lineType=cv2.LINE_8, shift=shift)
    return fine.astype(bool)


def _count_seen(filled: np.ndarray, seen: np.ndarray) -> float:
    """Filled samples whose pixel is ``seen`` (``seen`` is per pixel, ``filled`` per sample)."""
    k = SHARE_SAMPLES
    return float(np.count_nonzero(filled & np.repeat(np.repeat(seen, k, axis=0), k, axis=1)))


def _rank_half(quad: np.ndarray) -> np.ndarray:
    """The half of an index quad from :func:`_index_quads` that holds the rank glyph.

    The rank reads above the suit pip: the half on the side of the quad's first two
    points, in the top-left index and in its 180-degree turned copy alike.
    """
    top, bottom = quad[[0, 1]], quad[[3, 2]]
    middle = (top + bottom) / 2
    return np.array([top[0], top[1], middle[1], middle[0]])


def _lighting(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Uneven light, a cast shadow, a glare spot and a white balance, in float."""
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.normal(0, 1, 2)
    ramp = (xx / w - 0.5) * gx + (yy / h - 0.5) * gy
    out *= (rng.uniform(0.75, 1.1) + 0.25 * ramp)[..., None]
    if rng.random() < 0.3:  # a cast shadow: a soft-edged polygon
        pts = (rng.uniform(0, 1, (4, 2)) * [w, h]).astype(np.int32)
        mask: np.ndarray = np.zeros((h, w), np.float32)  # blurred below (OpenCV's stubs give no dtype)
        cv2.fillConvexPoly(mask, cv2.convexHull(pts), 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, w / 60))
        out *= (1 - mask * rng.uniform(0.2, 0.45))[..., None]
    if rng.random() < 0.25:  # glare on glossy cards
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.03, 0.15) * w
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        out += (blob * rng.uniform(60, 170))[..., None]
    out *= rng.uniform(0.88, 1.12, 3)[None, None, :]
    return out


def _sensor(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Blur (focus or motion), noise and JPEG compression."""
    if rng.random() < 0.15:
        image = cv2.filter2D(image, -1, motion_kernel(int(rng.integers(3, 6)), rng.uniform(0, 180)))
    elif rng.random() < 0.6:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 0.9))
    image = image + rng.normal(0, rng.uniform(0, 7), image.shape).astype(np.float32)
    image = np.clip(image, 0, 255).astype(np.uint8)
    quality = int(rng.integers(45, 96))
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    assert decoded is not None  # the JPEG OpenCV encoded just above
    return decoded


def render_scene(
    rng: np.random.Generator,
    decks: list[DeckArt],
    backgrounds: BackgroundBank,
    size: tuple[int, int] = (320, 320),
    layout: str | None = None,
    card_count: int | None = None,
    index_px: tuple[float, float] = INDEX_PX,
    printed_share: float = 0.0,
    print_split: str = "train",
    print_rng: np.random.Generator | None = None,
    joker_share: float = 0.0,
    joker_rng: np.random.Generator | None = None,
) -> Scene:
    """Render one random scene; the same generator state always gives the same scene.

    A share ``printed_share`` of scenes has print on the table (``synth.printed``), set
    in the typefaces of ``print_split`` and drawn from ``print_rng`` (default ``rng``).
    With a generator of its own, a scene with print and one without are the same scene
    but for the print; at share 0 nothing is drawn from either for it. A share
    ``joker_share`` of scenes has Jokers dealt in (:func:`deal_jokers`), drawn from
    ``joker_rng`` (default ``rng``) in the same way: with a generator of its own, the
    scene keeps its layout, card count and camera draws (the cards are sized by their
    indices, so a Joker's can move its neighbours a little).
    """
    layout = layout or str(rng.choice(LAYOUTS, p=LAYOUT_WEIGHTS))
    count = card_count or int(rng.integers(1, 14) if layout != "fan" else rng.integers(3, 14))
    picks = _pick_cards(rng, decks, count)
    joker_rng = joker_rng or rng
    if joker_share > 0 and joker_rng.random() < joker_share:
        picks = deal_jokers(joker_rng, picks)
    cards = _layout_cards(rng, layout, picks, size, index_px)
    print_rng = print_rng or rng
    print_px = None
    if printed_share > 0 and print_rng.random() < printed_share:
        # Capitals from a third of the scene's index height to all of it: rank-sized print.
        first = cards[0]
        box = first.deck.index_boxes[first.code]
        index_h = (box[3] - box[1]) * math.sqrt(abs(np.linalg.det(first.matrix[:2, :2])))
        print_px = (0.3 * index_h, 1.0 * index_h)
    return compose_scene(rng, cards, backgrounds, size, layout=layout, print_px=print_px, print_split=print_split,
                         print_rng=print_rng)


def compose_scene(
    rng: np.random.Generator,
    cards: list[CardPlacement],
    backgrounds: BackgroundBank,
    size: tuple[int, int] = (320, 320),
    layout: str = "custom",
    camera_effects: bool = True,
    print_px: tuple[float, float] | None = None,
    print_split: str = "train",
    print_rng: np.random.Generator | None = None,
) -> Scene:
    """Draw placed cards (first at the bottom) through a camera and label what shows.

    With ``camera_effects`` off the table plane is the image (no tilt, light, blur or
    noise), which tests use to check labels against known geometry. With ``print_px``
    (a range of capital heights in pixels) print, drawn from ``print_rng`` (default
    ``rng``), lies on the table under the cards, never labelled.
    """
    width, height = size
    camera = _camera(rng, size) if camera_effects else np.eye(3)

    canvas = backgrounds.sample(rng, size).astype(np.float32)
    printed = draw_print(print_rng or rng, canvas, print_px, print_split) if print_px is not None else []
    owner = np.full((height, width), -1, np.int16)
    shadow_shift = rng.normal(0, 2.0, 2) + [1.5, 2.5]
    for card_id, card in enumerate(cards):
        art = card.deck.cards[card.code]
        full = camera @ card.matrix
        level, factor = _pyramid_level(art, float(np.sqrt(abs(np.linalg.det(full[:2, :2])))))
        to_image = _level_to_image(full, factor)
        warped = cv2.warpPerspective(level, to_image, size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        alpha = warped[:, :, 3].astype(np.float32) / 255.0
        if not alpha.any():
            continue
        # A soft drop shadow where the card lifts off the table or the card beneath.
        shadow = cv2.warpAffine(alpha, np.array([[1, 0, shadow_shift[0]], [0, 1, shadow_shift[1]]], np.float32), size)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 1.5)
        canvas *= (1 - 0.35 * shadow)[..., None]
        tint = rng.uniform(0.85, 1.05) * rng.uniform(0.97, 1.03, 3)
        canvas = canvas * (1 - alpha[..., None]) + warped[:, :, :3].astype(np.float32) * tint * alpha[..., None]
        owner[alpha > 0.5] = card_id

    if layout == "fan" and camera_effects and rng.random() < 0.4:  # a thumb on the fan's pivot
        middle = cards[len(cards) // 2]
        mh, mw = middle.deck.cards[middle.code].shape[:2]
        pivot = _apply(camera @ middle.matrix, np.array([[mw / 2, mh * 0.95]]))[0]
        axes = (int(width * rng.uniform(0.05, 0.12)), int(height * rng.uniform(0.08, 0.18)))
        skin = np.array([rng.uniform(60, 140), rng.uniform(110, 170), rng.uniform(160, 230)], np.float32)
        thumb = np.zeros((height, width), np.uint8)
        cv2.ellipse(thumb, (int(pivot[0]), int(pivot[1])), axes, rng.uniform(0, 180), 0, 360, 1, -1)
        canvas[thumb > 0] = skin
        owner[thumb > 0] = -2

    scene = Scene(image=np.zeros((height, width, 3), np.uint8), layout=layout, printed=printed)
    for card_id, card in enumerate(cards):
        full = camera @ card.matrix
        art = card.deck.cards[card.code]
        centre = _apply(full, np.array([[art.shape[1] / 2, art.shape[0] / 2]]))[0]
        placed = PlacedCard(card_id, card.code, card.deck.name, (float(centre[0]), float(centre[1])))
        for corner, quad_card, down_card in _index_quads(card):
            quad = _apply(full, quad_card)
            area = _polygon_area(quad)
            x1, y1 = quad.min(axis=0)
            x2, y2 = quad.max(axis=0)
            if area < 1 or min(x2 - x1, y2 - y1) < MIN_INDEX_PX:
                continue
            visible = _shown_share(quad, owner, card_id)
            if visible < MIN_VISIBLE:
                continue
            rank_visible = _shown_share(_apply(full, _rank_half(quad_card)), owner, card_id)
            mid = quad_card.mean(axis=0)
            a, b = _apply(full, np.array([mid, mid + down_card * 5]))
            down = (b - a) / max(np.linalg.norm(b - a), 1e-6)
            box = (max(0.0, x1), max(0.0, y1), min(float(width), x2), min(float(height), y2))
            scene.labels.append(
                IndexLabel(card.code, card_id, corner, box, min(visible, 1.0), (float(down[0]), float(down[1])),
                           min(rank_visible, 1.0))
            )
            placed.labelled_corners += 1
        scene.cards.append(placed)

    if camera_effects:
        scene.image = _sensor(rng, _lighting(rng, canvas))
    else:
        scene.image = np.clip(canvas, 0, 255).astype(np.uint8)
    return scene
