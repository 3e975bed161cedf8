"""From named corner indices to physical cards: which indices are one card's corners,
reading them together, and what to offer the player beside each card.

A card's two indices sit in opposite corners: seen from one index, as it reads
(``down``, and ``right = (down_y, -down_x)``; for an upright card's top-left index
down = (0, 1) and right = (1, 0)), the other lies down and to the right, along the
card's diagonal at ``atan2(b, a)`` from ``down``, where ``(a, b)`` is the card centre's
offset from the index (``center_offset``, fitted on the training scenes). Two detections
are one card when they have the same rank and suit colour, their ``down`` vectors point
roughly opposite, each sees the other within ``pair_max_angle`` of that diagonal, and
they are ``pair_distance`` index sizes apart (``s = sqrt(box w * h)``, undoing the
growth of a turned index's axis-aligned box, see :func:`index_size`). The angle does
not depend on how large the index is drawn for its card, so jumbo indices pair as well
as small ones (predicting the centre at ``s * (a, b)`` split half the cards of such
designs). Before pairing, two corners on one diagonal whose readings can agree were
read together (:func:`read_corners_together`), so a card's corners mostly name one code
already; where they still differ in suit, the card takes the code of its more confident
corner: hearts read as diamonds on one corner is outvoted. Two
identical cards from two decks lie side by side (same orientation, different centres)
and stay two cards; an index with no partner (fanned hands hide one corner) is a card.

Decks with an index in all four corners (``four_corners``): the top-right index reads
like the top-left one and the bottom-left is its half turn, so a card shows up to four.
Top right and bottom left lie on the other diagonal (``-atan2(b, a)``); the two indices
of a long side see each other straight down, those of a short side straight across,
whatever the design. :func:`corner_grouping` joins them only where every two indices of a
card lie as their corners must, each index a different corner; and it joins across a
short side only in a photo where a four-corner card has shown itself otherwise, because
two cards of one rank and colour side by side in a two-corner deck's row lie that way.
In such a photo every link competes at once, the straightest and nearest first, so a
diagonal to the next card of the same rank cannot take a corner whose own side is
straighter. The detector, taught top-left and bottom-right indices, misses a third of the
other two; such a photo is looked at mirrored too (``mirrored_look``), where they lie as
the indices it was taught, and their ways down are read from their crops mirrored.
A player who knows the deck can say so (``corners`` of
:meth:`~onze_vision.detector.CardDetector.detect_cards`):
"four" groups every photo so, even a column of cards that shows only their top strips;
"two" never joins more than the diagonal.
The reported card box is the union of its index boxes (for an unpaired index, the index
box itself): it marks where the card was read, not the card's outline.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, NamedTuple

import numpy as np

from onze_vision.cards import CARD_CODES, JOKER_CODE, RED_SUITS
from onze_vision.detections import Detections, box_iou
from onze_vision.detector_config import DetectorConfig
from onze_vision.messages import listed, quoted

__all__ = ["DetectedCard", "InvalidReadingError", "index_size", "unit_vectors", "CORNER_LINKS", "CornerGrouping",
           "corner_grouping", "read_corners_together", "pair_groups", "pair_grouping", "pair_indices", "runner_up",
           "other_colour", "split_at_operating_point", "MAYBE_MAX_IOU", "possibly_missed", "card_corner_distance"]


#: What two corners of one card must agree on: rank and suit colour ("10H" -> "10 red").
#: A suit is most often misread as the other suit of its colour (hearts/diamonds,
#: spades/clubs); requiring the colour keeps two cards of one rank from pairing.
_PAIR_KEY: tuple[str, ...] = tuple(
    code if code == "JK" else f"{code[:-1]} {'red' if code[-1] in RED_SUITS else 'black'}" for code in CARD_CODES
)


def _same_rank_and_colour(class_ids: np.ndarray) -> np.ndarray:
    """[n, n]: which two indices, by their codes' numbers (:data:`CARD_CODES`), name one
    rank in one suit colour (:data:`_PAIR_KEY`); a number past the codes ("none") matches
    nothing."""
    key = [_PAIR_KEY[c] if c < len(CARD_CODES) else f"none {row}" for row, c in enumerate(map(int, class_ids))]
    key_array = np.array(key, dtype=object)
    return key_array[:, None] == key_array[None, :]


#: Why a card read is for the player to check (:attr:`DetectedCard.doubt`).
Doubt = Literal["alternative", "faint", "joker_count"]


class InvalidReadingError(ValueError):
    """A card reading written out (:meth:`DetectedCard.to_dict`) lacks a field or holds a bad value."""


@dataclass(frozen=True)
class DetectedCard:
    """One physical card.

    Attributes:
        card: Card code, e.g. "QH", "10S", "JK".
        confidence: Detector score x classifier probability (the better of its indices).
        box: (x1, y1, x2, y2) in full-photo pixels: the union of its index boxes.
        corners: How many of its corner indices were read (1 or 2; up to 4 on a four-corner deck).
        alternative: When the code was read unsure (``unsure_below``), the next most
            likely code, for the player to check against the photo; otherwise None.
        check: The confidence is under ``check_below``: a weak reading for the player to
            check against the photo, whether or not there is an alternative to offer.
        count_unsure: A Joker whose mark reads the same every way up (a star), in a photo
            that says nothing of how far apart a card's two corners lie (no other card shows
            both, no Joker look learned): one Joker's two corners and two Jokers look alike
            there, so how many Jokers the photo shows is for the player to check.
    """

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    corners: int = 1
    alternative: str | None = None
    check: bool = False
    count_unsure: bool = False

    @property
    def doubt(self) -> Doubt | None:
        """Why the reading is to be checked, the one said where several apply: its next most
        likely code ("alternative", the most a player can act on), else a weak reading
        ("faint"), else a Joker that may be counted once too often or too seldom
        ("joker_count"); None for a sure reading."""
        if self.alternative is not None:
            return "alternative"
        if self.check:
            return "faint"
        return "joker_count" if self.count_unsure else None

    @property
    def is_unsure(self) -> bool:
        """True when the reading is to be checked (it has a :attr:`doubt`)."""
        return self.doubt is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"card", "confidence", "box"}``, plus ``"alternative"`` and
        ``"check": true`` and ``"count_unsure": true`` when they apply."""
        out: dict[str, Any] = {"card": self.card, "confidence": round(self.confidence, 4),
                               "box": [round(v, 1) for v in self.box]}
        if self.alternative is not None:
            out["alternative"] = self.alternative
        if self.check:
            out["check"] = True
        if self.count_unsure:
            out["count_unsure"] = True
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DetectedCard:
        """The card :meth:`to_dict` wrote (a reading kept by the web app, a card of
        ``detect --json``): ``DetectedCard.from_dict(card.to_dict())`` is ``card`` but for
        ``corners`` (not written: 1) and the rounding of ``confidence`` and ``box``.

        Raises:
            InvalidReadingError: ``data`` is no mapping, lacks ``card``, ``confidence`` or
                ``box``, or one of its fields is not what :meth:`to_dict` writes (the message
                quotes it).
        """
        if not isinstance(data, Mapping):
            raise InvalidReadingError(f"A card reading is a JSON object, not {quoted(data)}.")
        missing = [key for key in ("card", "confidence", "box") if key not in data]
        if missing:
            raise InvalidReadingError(
                f"The card reading {quoted(dict(data))} has no {listed([repr(key) for key in missing])}.")
        for key in ("card", "alternative"):
            code = data.get(key)
            if (key == "card" or code is not None) and code not in CARD_CODES:
                raise InvalidReadingError(
                    f"The card reading's {key!r} is {quoted(code)}: not a card code (QH, 10S, JK, ...).")
        confidence, box = data["confidence"], data["box"]
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
            raise InvalidReadingError(
                f"The card reading's 'confidence' is {quoted(confidence)}: not a number from 0 to 1.")
        if (not isinstance(box, Sequence) or isinstance(box, str) or len(box) != 4
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in box)):
            raise InvalidReadingError(f"The card reading's 'box' is {quoted(box)}: not four numbers [x1, y1, x2, y2].")
        flags = {key: data.get(key, False) for key in ("check", "count_unsure")}
        for key, value in flags.items():
            if not isinstance(value, bool):
                raise InvalidReadingError(f"The card reading's {key!r} is {quoted(value)}: not true or false.")
        x1, y1, x2, y2 = (float(v) for v in box)
        return cls(data["card"], float(confidence), (x1, y1, x2, y2), alternative=data.get("alternative"),
                   check=flags["check"], count_unsure=flags["count_unsure"])


def index_size(wh: np.ndarray, down: np.ndarray | None = None, aspect: float = 0.0) -> np.ndarray:
    """Return ``s = sqrt(w * h)`` of each index as if it stood upright.

    The detector's boxes are axis-aligned: a turned index gets a bigger box (by ~1.5x
    at 45 degrees), which would throw its predicted card centre too far. A W x H
    rectangle (H = aspect x W) turned so its down vector is (dx, dy) has the box
    (W|dy| + H|dx|) x (W|dx| + H|dy|), so the upright area is the box area divided by
    ``(|dy| + k|dx|)(|dx| + k|dy|) / k``. With ``aspect`` 0 (``index_aspect``'s default,
    and the shipped config's) the box is taken as it is, and ``down`` is not needed.
    """
    wh = np.asarray(wh, dtype=np.float64).reshape(-1, 2)
    size = np.sqrt(np.clip(wh[:, 0] * wh[:, 1], 0, None))
    if aspect <= 0:
        return size
    if down is None:
        raise ValueError("index_size: an aspect corrects a turned box by its down vector; none was given")
    cos, sin = np.abs(down[:, 1]), np.abs(down[:, 0])
    growth = (cos + aspect * sin) * (sin + aspect * cos) / aspect
    return size / np.sqrt(np.maximum(growth, 1.0))


def unit_vectors(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero)."""
    return vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-9)


#: How two corner indices of one card lie (see the module docstring): the link's name,
#: whether their ``down`` vectors agree, and the role each index takes on the card. In
#: its own reading frame an index sits on the card's left ("L": top left, or bottom right
#: read turned) or on its right ("R": top right, or bottom left turned; four-corner decks).
#: "across" holds when the first index is the left one; "side" leaves the roles unsaid.
CORNER_LINKS = ("diagonal", "other diagonal", "side", "across")


def _angle_gap(angle: np.ndarray, target: float) -> np.ndarray:
    """Degrees between two directions, wrapped into [0, 180]."""
    return np.abs((angle - target + 180.0) % 360.0 - 180.0)


def _corner_links(centres: np.ndarray, wh: np.ndarray, down: np.ndarray, compatible: np.ndarray,
                  config: DetectorConfig, kinds: Sequence[str] = CORNER_LINKS) -> list[tuple[float, int, int, str]]:
    """Which pairs of indices lie as two corners of one card could, by the links of
    ``kinds``: ``(cost, i, j, link)``, ``i < j`` but for "across" (the left index first),
    cheapest first. ``cost`` is the worse of their two angles off the link's line as a
    share of its tolerance (at most 1), plus ``link_distance_cost`` per index size
    between them.

    Each index sees the other from its own reading frame (``down``, and ``right``). On
    the card's diagonal (at ``atan2(b, a)`` of ``center_offset`` from ``down``) lie the
    top-left and bottom-right indices: ``down`` vectors opposite, within ``pair_max_angle``.
    On a four-corner deck, also the top-right and bottom-left ones (the other diagonal, at
    ``-atan2(b, a)``), the two indices of one long side (``down`` opposite, each straight
    down from the other) and of one short side (``down`` alike; the left one sees the other
    straight to its right), those two within ``side_max_angle``: the sides' angles do not
    depend on the design. Every link keeps ``pair_distance`` index sizes apart.
    """
    down = unit_vectors(np.asarray(down, dtype=np.float64).reshape(-1, 2))
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)
    size = index_size(wh, down, config.index_aspect)
    a, b = config.center_offset
    diagonal = math.degrees(math.atan2(b, a))

    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    offset = centres[None, :] - centres[:, None]  # [i, j]: from index i to index j
    seen = np.degrees(np.arctan2(np.einsum("ijk,ik->ij", offset, right), np.einsum("ijk,ik->ij", offset, down)))
    distance = np.linalg.norm(offset, axis=2) / ((size[:, None] + size[None, :]) / 2)
    possible = np.triu(compatible & (distance >= config.pair_distance[0]) & (distance <= config.pair_distance[1]), k=1)
    opposite = down @ down.T < config.pair_max_dot
    alike = down @ down.T > -config.pair_max_dot
    # Each link: the angle each index must see the other at (i's view, then j's), which
    # pairs of down vectors it takes, and its tolerance.
    lines = [
        ("diagonal", diagonal, diagonal, opposite, config.pair_max_angle),
        ("other diagonal", -diagonal, -diagonal, opposite, config.pair_max_angle),
        ("side", 0.0, 0.0, opposite, config.side_max_angle),
        ("across", 90.0, -90.0, alike, config.side_max_angle),
        ("across", -90.0, 90.0, alike, config.side_max_angle),
    ]
    links: list[tuple[float, int, int, str]] = []
    for name, view_i, view_j, downs, tolerance in (line for line in lines if line[0] in kinds):
        miss = np.maximum(_angle_gap(seen, view_i), _angle_gap(seen.T, view_j)) / max(tolerance, 1e-9)
        cost = miss + config.link_distance_cost * distance
        for i, j in zip(*np.nonzero(possible & downs & (miss <= 1.0))):
            # "across" with the left index second is stored as seen from it: (j, i).
            first, second = (int(i), int(j)) if name != "across" or view_i > 0 else (int(j), int(i))
            links.append((float(cost[i, j]), first, second, name))
    links.sort(key=lambda link: (link[0], min(link[1], link[2]), max(link[1], link[2])))
    return links


def _has_corner_roles(rows: Sequence[int], linked: set[tuple[int, int, str]], down: np.ndarray) -> bool:
    """Whether indices ``rows`` can be the corners of one card, each a different one.

    Each index takes a side (left or right, in its own reading frame) and reads upright
    or turned (``down`` tells, against the first row's). Two corners of one card then lie
    as one link says: both left and turned apart on the diagonal, both right on the other
    diagonal, sides apart and turned apart on a long side, sides apart and alike across a
    short side (the left one first). Every two of ``rows`` must be so ``linked``.
    """
    turned = {row: bool(down[row] @ down[rows[0]] < 0) for row in rows}
    pairs = list(itertools.combinations(rows, 2))
    for sides in itertools.product("LR", repeat=len(rows)):
        side = dict(zip(rows, sides))
        if len({(side[row], turned[row]) for row in rows}) < len(rows):
            continue
        if all(_implied_link(i, j, side, turned) in linked for i, j in pairs):
            return True
    return False


def _implied_link(i: int, j: int, side: dict[int, str], turned: dict[int, bool]) -> tuple[int, int, str]:
    """The link two corners of one card must have, given each one's side and turn."""
    if turned[i] == turned[j]:
        return (i, j, "across") if side[i] == "L" else (j, i, "across")
    if side[i] == side[j]:
        return (min(i, j), max(i, j), "diagonal" if side[i] == "L" else "other diagonal")
    return min(i, j), max(i, j), "side"


def _join_corners(groups: list[list[int]], links: Sequence[tuple[float, int, int, str]],
                  linked: set[tuple[int, int, str]], down: np.ndarray) -> set[str]:
    """Join ``groups`` (lists of rows, changed in place) along ``links`` in their order,
    where the joined rows can be one card's corners (see :func:`corner_grouping`); the
    kinds of link that joined two (empty: none did)."""
    group_of = {row: group for group in groups for row in group}
    joined: set[str] = set()
    for _, i, j, kind in links:
        first, second = group_of[i], group_of[j]
        if first is second or len(first) + len(second) > 4 or not _has_corner_roles(first + second, linked, down):
            continue
        first.extend(second)
        groups.remove(second)
        for row in second:
            group_of[row] = first
        joined.add(kind)
    return joined


class CornerGrouping(NamedTuple):
    """Index detections grouped into cards (:func:`corner_grouping`).

    Attributes:
        groups: Tuples of row numbers, each in increasing order, listed by their first row;
            every row is in exactly one.
        four_corner_deck_seen: A link other than a card's diagonal joined two of its indices:
            the photo shows a deck with an index in all four corners (never with
            ``four_corners`` off).
    """

    groups: list[tuple[int, ...]]
    four_corner_deck_seen: bool


def corner_grouping(centres: np.ndarray, wh: np.ndarray, down: np.ndarray, compatible: np.ndarray,
                    config: DetectorConfig = DetectorConfig()) -> CornerGrouping:
    """Group index detections into cards, and say whether the photo shows a four-corner deck.

    Links (:func:`_corner_links`) between ``compatible`` indices are taken cheapest
    first (closest to their line, and nearer with ``link_distance_cost``); a link joins
    two groups when all their indices can be corners of one card, each a different one,
    every two of them linked as their corners would be (:func:`_has_corner_roles`): two
    at most on a two-corner deck, four on a four-corner one.

    The diagonals are joined first, as on every deck. With ``four_corners``, then the
    other diagonals and the long sides; if one of those joined two groups, the photo shows
    a four-corner deck, and the groups are formed again from every link, the short sides
    too, cheapest first: a diagonal joined first can take a corner from the card whose own
    side link is straighter (two cards of one rank side by side). Short sides only then:
    two cards of one rank and colour side by side in a row of a two-corner deck lie as one
    card's top corners would. With ``four_corner_deck`` (the player said the deck has four
    corners) every photo is grouped from all its links at once.
    """
    down = unit_vectors(np.asarray(down, dtype=np.float64).reshape(-1, 2))
    kinds = CORNER_LINKS if config.four_corners else ("diagonal",)
    links = _corner_links(centres, wh, down, compatible, config, kinds)
    linked = {(i, j, link) for _, i, j, link in links}
    groups = [[row] for row in range(len(down))]
    if config.four_corners and config.four_corner_deck:
        seen = bool(_join_corners(groups, links, linked, down) - {"diagonal"})
    else:
        _join_corners(groups, [link for link in links if link[3] == "diagonal"], linked, down)
        seen = config.four_corners and bool(
            _join_corners(groups, [link for link in links if link[3] in ("other diagonal", "side")], linked, down))
        if seen:
            groups = [[row] for row in range(len(down))]
            _join_corners(groups, links, linked, down)
    return CornerGrouping(sorted(tuple(sorted(group)) for group in groups), seen)


def card_corner_distance(xyxy: np.ndarray, probs: np.ndarray, down: np.ndarray, det_score: np.ndarray,
                         config: DetectorConfig = DetectorConfig()) -> float | None:
    """How far apart (pixels) a card's two diagonal corners lie in this photo: the median over
    the cards whose two corners are both read surely as one code (``unsure_below``, detector
    score ``conf_threshold``) and lie on their card's diagonal, each card once (nearest its
    line first); None where no card shows both. Every card of one deck is one size, so this
    says how far apart the corners of a card whose marks tell no way down lie.
    """
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    if len(xyxy) < 2:
        return None
    code = probs.argmax(axis=1)
    sure = ((probs.max(axis=1) >= config.unsure_below) & (code < len(CARD_CODES))
            & (np.asarray(det_score) >= config.conf_threshold))
    compatible = (code[:, None] == code[None, :]) & sure[:, None] & sure[None, :]
    centres, wh = (xyxy[:, :2] + xyxy[:, 2:]) / 2, xyxy[:, 2:] - xyxy[:, :2]
    taken: set[int] = set()
    apart = []
    for _, i, j, _ in _corner_links(centres, wh, down, compatible, config, ("diagonal",)):
        if i not in taken and j not in taken:
            taken |= {i, j}
            apart.append(float(np.linalg.norm(centres[j] - centres[i])))
    return float(np.median(apart)) if apart else None


def read_corners_together(xyxy: np.ndarray, probs: np.ndarray, down: np.ndarray, det_score: np.ndarray,
                          config: DetectorConfig = DetectorConfig()) -> np.ndarray:
    """Read the corners of one card as one: each gets the card's joint reading.

    Indices are taken for one card's corners as :func:`corner_grouping` groups them (on
    its diagonal; on a four-corner deck, in a photo that shows one, along every link) when
    each has a detector score of at least ``conf_threshold`` and every two of them can
    agree: the chance that both name the same code, ``sum_c p_i(c) p_j(c)``, is at least
    ``pair_min_agreement``. The corners are independent looks at one code, so the card's
    reading is their product renormalised (``p_i * p_j`` for two): a blurred corner read
    6H at 0.6 and 5H at 0.3 is read 5H with a sharp partner that says 5H at 0.9. A low
    agreement keeps two cards that merely lie on a diagonal apart.

    Args:
        xyxy: Index boxes [N, 4].
        probs: Classifier probabilities [N, 54] (53 codes, then "none").
        down: Reading directions [N, 2].
        det_score: Detector scores [N].
        config: Supplies the pairing geometry, ``conf_threshold`` and ``pair_min_agreement``.

    Returns:
        A copy of the probabilities with each paired row replaced by its card's joint reading.
    """
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    if len(xyxy) < 2 or config.pair_min_agreement > 1:
        return probs.copy()  # a copy, as always: the caller may change what it is given
    codes = probs[:, : len(CARD_CODES)].astype(np.float64)
    sure = np.asarray(det_score) >= config.conf_threshold
    compatible = (codes @ codes.T >= config.pair_min_agreement) & sure[:, None] & sure[None, :]
    joint = probs.copy()
    centres, wh = (xyxy[:, :2] + xyxy[:, 2:]) / 2, xyxy[:, 2:] - xyxy[:, :2]
    if config.four_corners and not config.four_corner_deck:
        # Along every link where the photo shows a four-corner deck (four-tune960: card
        # precision 0.901 -> 0.924, mAP50 0.862 -> 0.879), else along the diagonal alone:
        # the other links fuse readings of neighbouring two-corner cards. The photo shows one
        # as the cards are paired: corners read as one rank and colour (pair_groups), not
        # merely readings that can agree, which link more neighbours.
        same_card = _same_rank_and_colour(probs.argmax(axis=1)) & sure[:, None] & sure[None, :]
        seen = corner_grouping(centres, wh, down, same_card, config).four_corner_deck_seen
        config = replace(config, four_corner_deck=True) if seen else replace(config, four_corners=False)
    for group in corner_grouping(centres, wh, down, compatible, config).groups:
        if len(group) > 1:
            both = np.prod(probs[list(group)].astype(np.float64), axis=0)
            joint[list(group)] = both / max(both.sum(), 1e-12)
    return joint


def pair_groups(indices: Detections, config: DetectorConfig = DetectorConfig()) -> list[tuple[int, ...]]:
    """Group index detections into physical cards: tuples of 1 to 4 row numbers
    (:func:`pair_grouping`)."""
    return pair_grouping(indices, config).groups


def pair_grouping(indices: Detections, config: DetectorConfig = DetectorConfig()) -> CornerGrouping:
    """Group index detections into physical cards (:func:`corner_grouping`, with indices
    of the same rank and suit colour).

    See the module docstring for the rules; groups are formed greedily, the cheapest
    links first (:func:`corner_grouping`).
    """
    if len(indices) == 0:
        return CornerGrouping([], False)
    # Same rank and colour, not same code: a corner whose suit pip is blurred or half
    # covered is often read as the other suit of its colour, yet the card's corners
    # agree on where the card is. The card takes the code of its most confident corner.
    return corner_grouping(indices.center, indices.wh, indices.data["down"],
                           _same_rank_and_colour(indices.class_id), config)


def pair_indices(indices: Detections, config: DetectorConfig = DetectorConfig(),
                 colourless: bool = False, grouping: CornerGrouping | None = None) -> list[DetectedCard]:
    """Join the corner indices of each physical card (see the module docstring).

    Args:
        indices: Index detections: ``class_id`` into :data:`CARD_CODES`, ``confidence``,
            and ``data["down"]`` [N, 2]; where there, ``data["count_unsure"]`` [N] marks the
            Joker corners whose pairing was a guess (:attr:`DetectedCard.count_unsure`).
        config: Supplies ``unsure_below`` and ``alternative_min`` (the alternative,
            :func:`runner_up`) and ``check_below``; without ``grouping``, also the
            grouping's settings (:func:`pair_grouping`: the pairing geometry,
            ``four_corners``, ``four_corner_deck``).
        colourless: The photo has no colour (:func:`~onze_vision.imageio.is_colourless`):
            every suited card's alternative is its rank in the other colour
            (:func:`other_colour`), since colour is what tells the suits apart.
        grouping: The indices' :func:`pair_grouping` with ``config``, where already made.

    Returns:
        One :class:`DetectedCard` per card, sorted left to right; its box is the union
        of its index boxes, its confidence the best of theirs, its alternative (see
        :func:`runner_up`) that of its best index, flagged to check under ``check_below``
        (or its code's own floor, ``check_floors``), and a Joker its count unsure where any
        of its corners is marked so and another marked corner is read in a Joker too (one
        alone is one Joker, however its corners paired).
    """
    cards: list[DetectedCard] = []
    probs = indices.data.get("probs")
    count_unsure = indices.data.get("count_unsure")
    marked = 0   # marked corners read into Jokers
    joker = CARD_CODES.index(JOKER_CODE)
    for members in (grouping or pair_grouping(indices, config)).groups:
        rows = list(members)
        boxes = indices.xyxy[rows]
        box = (float(boxes[:, 0].min()), float(boxes[:, 1].min()),
               float(boxes[:, 2].max()), float(boxes[:, 3].max()))
        best = rows[int(indices.confidence[rows].argmax())]
        code = int(indices.class_id[best])
        alternative = runner_up(probs[best], code, config) if probs is not None else None
        if colourless and probs is not None:
            alternative = other_colour(probs[best], code) or alternative
        confidence = float(indices.confidence[best])
        floor = max([config.check_below, *(f for c, f in config.check_floors if c == CARD_CODES[code])])
        joker_marks = int(count_unsure[rows].sum()) if count_unsure is not None and code == joker else 0
        cards.append(DetectedCard(CARD_CODES[code], confidence, box, len(rows), alternative,
                                  check=confidence < floor, count_unsure=joker_marks > 0))
        marked += joker_marks
    if 0 < marked < 2:   # the photo's other marked corner was not read into a card
        cards = [replace(card, count_unsure=False) for card in cards]
    cards.sort(key=lambda card: (card.box[0], card.box[1]))
    return cards


def runner_up(probs: np.ndarray, code: int, config: DetectorConfig = DetectorConfig()) -> str | None:
    """The code to offer beside ``code`` when an index reads it unsure, or None.

    Args:
        probs: One index's classifier probabilities [54] (53 codes, then "none").
        code: The code it is read as (a column of ``probs``).
        config: Supplies ``unsure_below`` and ``alternative_min``.
    """
    if probs[code] >= config.unsure_below:
        return None
    others = np.array(probs[: len(CARD_CODES)], dtype=np.float64)
    others[code] = -1.0
    best = int(others.argmax())
    return CARD_CODES[best] if others[best] >= config.alternative_min else None


#: The suits of each colour; in a photo without colour a suit is only known up to its colour's pair.
_OTHER_COLOUR_SUITS = {"S": "HD", "C": "HD", "H": "SC", "D": "SC"}


def other_colour(probs: np.ndarray, code: int) -> str | None:
    """The code to offer beside ``code`` in a photo without colour, or None for a Joker.

    The same rank in the other colour, in the suit of that colour the classifier rates
    higher. Measured on the real photos made grey: the ranks stay right, red suits are
    read black (0 of 20 red cards kept their colour), and of the two red suits the
    higher rated was the right one for 16 of the 20.

    Args:
        probs: One index's classifier probabilities [54] (53 codes, then "none").
        code: The code it is read as (a column of ``probs``).
    """
    read = CARD_CODES[code]
    if read == "JK":
        return None
    rank, suit = read[:-1], read[-1]
    candidates = [CARD_CODES.index(rank + other) for other in _OTHER_COLOUR_SUITS[suit]]
    return CARD_CODES[max(candidates, key=lambda column: float(probs[column]))]


def split_at_operating_point(indices: Detections, config: DetectorConfig, conf_threshold: float | None = None,
                             min_class_prob: float | None = None) -> tuple[Detections, Detections]:
    """(the indices the operating point keeps, the candidates for :func:`possibly_missed`).

    Kept: a detector score (``data["det_score"]``) of at least ``conf_threshold`` and a
    code probability (``data["class_prob"]``) of at least ``min_class_prob`` (the config's
    by default). Candidates: the others with at least ``maybe_conf`` and ``maybe_prob``
    (none when ``maybe_conf`` is 0), or with the floors of their code (``maybe_floors``).
    The runtime and the evaluation split the same way.
    """
    conf = config.conf_threshold if conf_threshold is None else conf_threshold
    min_prob = config.min_class_prob if min_class_prob is None else min_class_prob
    det_score, class_prob = indices.data["det_score"], indices.data["class_prob"]
    keep = (det_score >= conf) & (class_prob >= min_prob)
    maybe = (det_score >= config.maybe_conf) & (class_prob >= config.maybe_prob) & (config.maybe_conf > 0)
    for code, score, prob in config.maybe_floors:
        maybe |= (indices.class_id == CARD_CODES.index(code)) & (det_score >= score) & (class_prob >= prob)
    maybe &= ~keep
    return indices[keep], indices[maybe]


#: A candidate index overlapping a read one by more than this is that index seen again.
MAYBE_MAX_IOU = 0.3


def possibly_missed(indices: Detections, candidates: Detections,
                    config: DetectorConfig = DetectorConfig()) -> list[DetectedCard]:
    """Cards the operating point left out, for the player to confirm.

    ``candidates`` are named indices under the operating point (see ``maybe_conf``). One
    that overlaps a read index (IoU > :data:`MAYBE_MAX_IOU`) is that index seen again, and
    one that pairs with a read index is the other corner of a card already read: both
    are dropped. The rest are paired into cards as :func:`pair_indices` pairs.
    """
    if len(candidates) == 0:
        return []
    if len(indices):
        candidates = candidates[box_iou(candidates.xyxy, indices.xyxy).max(axis=1) <= MAYBE_MAX_IOU]
        groups = pair_groups(Detections.merge([indices, candidates]), config)
        partnered = {row - len(indices) for group in groups if min(group) < len(indices) for row in group}
        candidates = candidates[np.array([row not in partnered for row in range(len(candidates))], bool)]
    return pair_indices(candidates, config) if len(candidates) else []
