"""Read the cards in a photo: corner-index detector + index classifier, then pairing.

Pipeline (all numpy / OpenCV / onnxruntime; no torch):

1. :func:`~onze_vision.imageio.load_image` decodes the photo reduced, keeping its long
   side >= ``decode_factor`` x the detector's input size. A photo in bad light (a warm
   lamp, a dim room) has its channels scaled so the cards' white is white
   (:mod:`onze_vision.light`, ``balance_from``).
2. The image is letterboxed (grey 114) to the detector's square input, as Ultralytics does.
3. The one-class detector finds corner indices; confidence threshold + numpy NMS. Where
   they are small at its input (a far shot of a large photo), it looks again at their part
   of the photo, decoded finer and in tiles (:func:`plan_closer_look`).
4. Each box is cut with :func:`~onze_vision.indexcrop.crop_index` from the decoded image
   (more pixels than the letterboxed one) and all crops are classified in one batch: 53
   codes + "none", and the card's ``down`` direction as the index reads. An index read
   unsure is read again from moved and turned crops
   (:func:`~onze_vision.indexcrop.reading_views`) and its readings are averaged.
5. :func:`read_corners_together`: two indices that sit on one card's diagonal and whose
   readings can agree are read as one card, each with the product of their
   probabilities (a sharp corner outvotes its blurred partner).
6. Of nested boxes (one index boxed whole and again as its rank glyph alone, an overlap
   NMS by IoU lets through) only the most confident stays.
7. :func:`pair_indices` joins the corner indices of one physical card. In a photo
   without colour (:func:`~onze_vision.imageio.is_colourless`) each card offers its rank
   in the other colour (:func:`other_colour`): there red and black suits look alike.

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
whatever the design. :func:`corner_groups` joins them only where every two indices of a
card lie as their corners must, each index a different corner; and it joins across a
short side only in a photo where a four-corner card has shown itself otherwise, because
two cards of one rank and colour side by side in a two-corner deck's row lie that way.
In such a photo every link competes at once, the straightest and nearest first, so a
diagonal to the next card of the same rank cannot take a corner whose own side is
straighter. The detector, taught top-left and bottom-right indices, misses a third of the
other two; such a photo is looked at mirrored too (``mirrored_look``), where they lie as
the indices it was taught, and their ways down are read from their crops mirrored.
A player who knows the deck can say so (``corners`` of :meth:`CardDetector.detect_cards`):
"four" groups every photo so, even a column of cards that shows only their top strips;
"two" never joins more than the diagonal.
The reported card box is the union of its index boxes (for an unpaired index, the index
box itself): it marks where the card was read, not the card's outline.
"""

from __future__ import annotations

import ast
import itertools
import json
import math
import os
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from onze_vision.cards import CARD_CODES
from onze_vision.detections import Detections, box_iou, non_max_suppression
from onze_vision.imageio import ImageSource, LoadedImage, decode_finer, is_colourless, load_image
from onze_vision.indexcrop import (
    NONE_CLASS,
    crop_index,
    crop_view,
    crops_to_tensor,
    reading_views,
    turn_back,
)
from onze_vision.light import apply_gains, light_gains
from onze_vision.sharpness import GAUGE_FILE, BlurGauge

DETECTOR_FILE = "index_detector.onnx"
CLASSIFIER_FILE = "index_classifier.onnx"
CONFIG_FILE = "detector.json"


#: The models folder of a checkout (a clone, or an editable install).
CHECKOUT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"


def default_model_dir(checkout: Path = CHECKOUT_MODEL_DIR, prefix: str = sys.prefix) -> Path:
    """Where the shipped models are: ``$ONZE_VISION_MODELS``, else the checkout's ``models/``,
    else where ``pip install .`` put them (``<prefix>/share/onze-vision/models``, see
    ``pyproject.toml``)."""
    if os.environ.get("ONZE_VISION_MODELS"):
        return Path(os.environ["ONZE_VISION_MODELS"])
    installed = Path(prefix) / "share" / "onze-vision" / "models"
    if not (checkout / DETECTOR_FILE).exists() and (installed / DETECTOR_FILE).exists():
        return installed
    return checkout


#: Where the shipped models live (see :func:`default_model_dir`).
DEFAULT_MODEL_DIR = default_model_dir()
#: The classifier's 54 outputs: the 53 card codes, then "none" (not an index).
CLASS_NAMES: tuple[str, ...] = (*CARD_CODES, NONE_CLASS)

#: What two corners of one card must agree on: rank and suit colour ("10H" -> "10 red").
#: A suit is most often misread as the other suit of its colour (hearts/diamonds,
#: spades/clubs); requiring the colour keeps two cards of one rank from pairing.
_PAIR_KEY: tuple[str, ...] = tuple(
    code if code == "JK" else f"{code[:-1]} {'red' if code[-1] in 'HD' else 'black'}" for code in CARD_CODES
)


def _same_rank_and_colour(class_ids: np.ndarray) -> np.ndarray:
    """[n, n]: which two indices, by their codes' numbers (:data:`CARD_CODES`), name one
    rank in one suit colour (:data:`_PAIR_KEY`); a number past the codes ("none") matches
    nothing."""
    key = [_PAIR_KEY[c] if c < len(CARD_CODES) else f"none {row}" for row, c in enumerate(map(int, class_ids))]
    key_array = np.array(key, dtype=object)
    return key_array[:, None] == key_array[None, :]

#: Timing keys filled by :meth:`CardDetector.read_indices` / :meth:`CardDetector.detect_cards`.
TIMING_KEYS = ("decode", "preprocess", "detector", "classifier", "postprocess")


class ModelNotFoundError(FileNotFoundError):
    """A model file the detector needs is missing."""


class InvalidModelError(ValueError):
    """A model file does not have the inputs and outputs of the contract."""


class UnknownDeckCornersError(ValueError):
    """A deck was said to have its indices in corners other than "auto", "two" or "four"."""


#: Which corners of a deck's cards carry an index, as a player can say it: "two" (most
#: decks: top left and bottom right), "four" (Copag-style decks), or "auto" (as
#: ``detector.json`` says: four where the photo shows a four-corner card).
DECK_CORNERS = ("auto", "two", "four")


#: Keys of ``detector.json`` as the training recipe writes them -> DetectorConfig fields.
CONFIG_KEYS = {
    "detector_conf": "conf_threshold",
    "nms_iou": "iou_threshold",
    "classifier_min_prob": "min_class_prob",
}


@dataclass(frozen=True)
class DetectorConfig:
    """Runtime constants, read from ``models/detector.json`` (missing keys keep defaults).

    Attributes:
        imgsz: Detector input size; the ONNX metadata ``imgsz`` wins when present.
        conf_threshold: Minimum detector score of a corner index.
        iou_threshold: NMS overlap threshold.
        min_class_prob: Minimum classifier probability of the index's code.
        center_offset: (a, b): the card centre is ``a`` index sizes down and ``b`` right
            of the index centre, as the index reads; its direction is the card's diagonal.
        pair_max_angle: Degrees by which the line to a partner may miss that diagonal.
        pair_distance: (min, max) distance of two paired indices, in index sizes.
        pair_max_dot: Paired ``down`` vectors must have a dot product below this.
        four_corners: Also join the corners of decks with an index in all four corners:
            top right with bottom left (the other diagonal), and the two indices of one
            side of the card (:func:`corner_groups`); without it such a card is counted
            two or three times.
        side_max_angle: Degrees by which the line between the two indices of one side may
            miss the side (straight down, or straight across, as each index reads).
        four_corner_deck: The deck is known to have an index in all four corners (the
            player said so, :meth:`for_deck`): every photo is grouped from all its links at
            once, short sides too, as one that shows a four-corner card is (with
            ``four_corners``). A column of cards that shows only their top strips shows
            nothing else to tell the deck by.
        mirrored_look: On a four-corner deck (said so, or shown by the photo with
            ``four_corners``), the detector looks at the photo mirrored too, and keeps the
            indices of both looks (:meth:`IndexDetector.locate`). It was taught indices in
            the top-left and bottom-right corners only, and finds about two thirds of the
            top-right and bottom-left ones; mirrored, those lie where it was taught them.
        link_distance_cost: Links are joined cheapest first; a link costs its miss (its
            angle off its line, as a share of the tolerance) plus this per index size its
            two indices lie apart (0: the angle alone). Of two links about as straight,
            the nearer is then taken: two cards of one rank side by side, the far one's
            corner can lie as straight as the near one's own.
        pair_min_agreement: Two corners on one diagonal are read together as one card
            when the chance that their readings name the same code is at least this
            (:func:`read_corners_together`); above 1 turns the joint reading off.
        index_aspect: Height / width of an upright index box; undoes the growth of the
            axis-aligned box of a turned index (0, the default, turns the correction off:
            ``center_offset`` must be fitted with the same ``s`` the runtime uses).
        decode_factor: Decode the photo with its long side >= this x ``imgsz``.
        nested_overlap: Of two named indices whose intersection covers more than this
            share of the smaller box, only the more confident is kept (one index boxed
            twice, whole and rank alone: nearly all of the smaller box lies inside). Two
            real neighbours in a tight fan overlap less (of the labels of generated scenes
            that overlap another by more than 0.3, 99 % overlap it by at most 0.76), and
            both must stay.
        crop_shift: An index the centred crop reads unsure of (see ``reread_below``) is
            read again from four crops moved by this share of the box's longer side left,
            right, up and down (0: none), and its readings are averaged
            (:func:`~onze_vision.indexcrop.reading_views`): a detector's box is off the
            true one by a few pixels, and the average is less often sure of a wrong code
            than one view.
        crop_turns: Such an index is also read from its centred crop turned a quarter, a
            half and three quarters (the classifier learned every quarter turn, and each
            turn is a different input to it), the ``down`` vectors turned back.
        reread_below: Top probability of the centred reading (after a card's corners are
            read together) under which the other views are read too (above 1: every index;
            the sure ones are rarely changed by them).
        unsure_below: A card whose code is read with a probability under this is reported
            unsure, with its next most likely code as the ``alternative`` the player is
            offered (0: never); a wrong reading is mostly an unsure one, and mostly its
            runner-up is the card (``models/HISTORY.md``).
        alternative_min: The runner-up is offered only when its probability is at least
            this: a card unsure between its code and "not an index" has no alternative code.
        check_below: A card whose confidence (detector score x code probability) is under
            this is reported to be checked (``DetectedCard.check``) even with no alternative
            code to offer: a weak reading of either kind (0: never).
        maybe_conf: Indices the operating point leaves out with a detector score of at
            least this (and ``maybe_prob``) are offered as cards possibly missed, for the
            player to add with one tap (0: never; see :func:`possibly_missed`).
        maybe_prob: The classifier probability of their code such a card needs.
        zoom_below: When the indices found measure under this many pixels at the
            detector's input (their median), the detector looks again at the part of the
            photo they lie in, enlarged and decoded finer, and every index is cut from
            that finer image (0: never; see :func:`plan_closer_look`). A far shot of a
            whole table shrinks its indices below what the detector finds and the
            classifier reads; the photo had the pixels.
        zoom_target: The index size, in detector input pixels, the closer look aims for.
        zoom_tiles: At most this many detector inputs (tiles) the closer look may take;
            a region too large for them is seen less closely.
        zoom_min_gain: The closer look is taken only when it enlarges the indices at least
            this much (cards spread over the whole photo leave nothing to enlarge).
        zoom_floor: Detector score of the indices that place and size the closer look.
        zoom_margin: Index sizes added around them, for the indices the first look missed.
        zoom_blind_tiles: When the first look finds no index scoring ``zoom_floor``, the
            detector looks at the whole photo again in up to this many tiles, decoded
            finer, and a closer look is placed with what that finds (0: never; see
            :func:`plan_blind_look`). Cards far enough away leave the first look nothing.
        balance_from: When the photo's white is off enough that one of its colour
            channels needs a gain of at least this to make it white (a warm lamp, a dim
            room), every channel is scaled by its gain before anything is read
            (:func:`~onze_vision.light.light_gains`; 0: never). Photos in good light
            stay exactly as decoded.
        balance_max_gain: The largest gain a channel is given.
        blur_warn_from: A photo whose indices the blur gauge reads smeared by at least this
            share of an index (their median; :mod:`~onze_vision.sharpness`) is reported
            blurred, for the player to retake (0: never; also never without the gauge).
        code_weights: (code, weight) pairs: the classifier's probability of that card code
            is multiplied by its weight, and the codes' probabilities are scaled back to
            the share they had (JSON: an object, ``{"JK": 3.0}``). The weights choose
            between codes only; the probability that the crop is no index ("none") is
            left as read, so no weight makes an index of what the classifier calls none.
            A card's corners read together are weighed once, not once per corner.
            A Joker's mark differs from deck to deck far more than a rank does: on a
            design it was not taught, the Joker's probability is low even where it is the
            best reading, and red codes with a little each outvote it.
        maybe_floors: (code, detector score, code probability) triples: indices read as
            that code are also offered as possibly missed down to the first number, where
            their code probability is at least the second (JSON: an object,
            ``{"JK": [0.05, 0.6]}``). The detector, taught mostly rank glyphs, scores the
            Joker marks of designs it was not taught low (a ringed star: 0.01-0.5) where the
            classifier still names them surely. Offered, not counted: the print and patterns
            of a table, which the detector also scores low, are sometimes named Jokers too.
    """

    imgsz: int = 640
    conf_threshold: float = 0.25
    iou_threshold: float = 0.5
    min_class_prob: float = 0.5
    # Fitted on the generated training scenes. With the true index boxes, +-20 degrees and
    # 1.5-12 sizes group 0.999 of training-design cards right and 0.996 of held-out ones;
    # 20 rather than 15 keeps pairing the corners of a card photographed from lower down.
    center_offset: tuple[float, float] = (1.78, 1.34)
    pair_max_angle: float = 20.0
    pair_distance: tuple[float, float] = (1.5, 12.0)
    pair_max_dot: float = -0.5
    four_corners: bool = False
    side_max_angle: float = 12.0
    four_corner_deck: bool = False
    mirrored_look: bool = False
    link_distance_cost: float = 0.0
    index_aspect: float = 0.0
    pair_min_agreement: float = 0.05
    decode_factor: float = 1.5
    nested_overlap: float = 0.85
    crop_shift: float = 0.0
    crop_turns: bool = False
    reread_below: float = 1.01
    unsure_below: float = 0.0
    alternative_min: float = 0.0
    check_below: float = 0.0
    maybe_conf: float = 0.0
    maybe_prob: float = 0.0
    zoom_below: float = 0.0
    zoom_target: float = 40.0
    zoom_tiles: int = 1
    zoom_min_gain: float = 1.5
    zoom_floor: float = 0.25
    zoom_margin: float = 3.0
    zoom_blind_tiles: int = 0
    balance_from: float = 0.0
    balance_max_gain: float = 3.0
    blur_warn_from: float = 0.0
    code_weights: tuple[tuple[str, float], ...] = ()
    maybe_floors: tuple[tuple[str, float, float], ...] = ()

    def __post_init__(self) -> None:
        for code, weight in self.code_weights:
            if code not in CARD_CODES:
                raise ValueError(f"code_weights: {code!r} is not a card code")
            if not weight > 0 or not math.isfinite(weight):
                raise ValueError(f"code_weights: the weight of {code!r} must be a positive number, got {weight}")
        for code, score, prob in self.maybe_floors:
            if code not in CARD_CODES:
                raise ValueError(f"maybe_floors: {code!r} is not a card code")
            if not (0.0 < score <= 1.0 and 0.0 <= prob <= 1.0):
                raise ValueError(f"maybe_floors: {code!r} needs a detector score in (0, 1] and a code "
                                 f"probability in [0, 1], got [{score}, {prob}]")
        if self.crop_shift < 0:
            raise ValueError(f"crop_shift must be >= 0, got {self.crop_shift}")
        if self.link_distance_cost < 0:
            raise ValueError(f"link_distance_cost must be >= 0, got {self.link_distance_cost}")
        for name in ("zoom_below", "zoom_target", "zoom_margin"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.zoom_tiles < 1:
            raise ValueError(f"zoom_tiles must be >= 1, got {self.zoom_tiles}")
        if self.zoom_blind_tiles < 0:
            raise ValueError(f"zoom_blind_tiles must be >= 0, got {self.zoom_blind_tiles}")
        if self.zoom_min_gain < 1:
            raise ValueError(f"zoom_min_gain must be >= 1, got {self.zoom_min_gain}")
        if self.balance_from != 0 and self.balance_from < 1:
            raise ValueError(f"balance_from must be 0 (never) or >= 1, got {self.balance_from}")
        if self.blur_warn_from < 0:
            raise ValueError(f"blur_warn_from must be >= 0 (0: never), got {self.blur_warn_from}")
        if self.balance_max_gain < 1:
            raise ValueError(f"balance_max_gain must be >= 1, got {self.balance_max_gain}")
        for name in ("unsure_below", "alternative_min", "check_below", "maybe_conf", "maybe_prob", "zoom_floor"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {getattr(self, name)}")

    def for_deck(self, corners: str) -> DetectorConfig:
        """This config for a deck whose cards carry an index in ``corners`` corners (see
        :data:`DECK_CORNERS`): "two" joins a card's corners on its diagonal only, "four" along
        every link in every photo (``four_corner_deck``), "auto" leaves it as it is.

        Raises:
            UnknownDeckCornersError: ``corners`` is none of those.
        """
        if corners not in DECK_CORNERS:
            raise UnknownDeckCornersError(
                f"a deck's indices are in 'two' or 'four' corners (or 'auto': tell from the photo), not {corners!r}")
        if corners == "two":
            return replace(self, four_corners=False, four_corner_deck=False)
        if corners == "four":
            return replace(self, four_corners=True, four_corner_deck=True)
        return self

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> DetectorConfig:
        """Build a config from a mapping, ignoring keys it does not know."""
        known = {f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in values.items():
            key = CONFIG_KEYS.get(key, key)
            if key not in known or value is None:
                continue
            if key == "imgsz":
                value = int(value[0] if isinstance(value, (list, tuple)) else value)
            elif key in ("zoom_tiles", "zoom_blind_tiles"):
                value = int(value)
            elif key in ("crop_turns", "four_corners", "four_corner_deck", "mirrored_look"):
                if not isinstance(value, bool):
                    raise TypeError(f"{key} must be true or false, got {value!r}")
            elif key in ("center_offset", "pair_distance"):
                value = (float(value[0]), float(value[1]))
            elif key == "code_weights":
                if not isinstance(value, (dict, list, tuple)):
                    raise TypeError(f'code_weights must be an object of code: weight (e.g. {{"JK": 3.0}}), got {value!r}')
                pairs = value.items() if isinstance(value, dict) else value
                value = tuple((str(code), float(weight)) for code, weight in pairs)
            elif key == "maybe_floors":
                if not isinstance(value, dict) or not all(
                        isinstance(floor, (list, tuple)) and len(floor) == 2 for floor in value.values()):
                    raise TypeError(f'maybe_floors must be an object of code: [detector score, code probability] '
                                    f'(e.g. {{"JK": [0.05, 0.6]}}), got {value!r}')
                value = tuple((str(code), float(score), float(prob)) for code, (score, prob) in value.items())
            else:
                value = float(value)
            kwargs[key] = value
        return cls(**kwargs)

    @classmethod
    def from_json(cls, path: str | Path) -> DetectorConfig:
        """Read ``detector.json``; a missing file gives the defaults."""
        path = Path(path)
        if not path.exists():
            return cls()
        try:
            values = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(values, dict):
                raise TypeError(f"expected an object, got {type(values).__name__}")
            return cls.from_dict(values)
        except (ValueError, TypeError, IndexError) as error:
            raise InvalidModelError(f"'{path}' is not a valid detector config: {error}") from None


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
    """

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    corners: int = 1
    alternative: str | None = None
    check: bool = False

    @property
    def is_unsure(self) -> bool:
        """True when the reading is to be checked: an alternative code, or a weak reading."""
        return self.alternative is not None or self.check

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"card", "confidence", "box"}``, plus ``"alternative"`` and
        ``"check": true`` when they apply."""
        out: dict[str, Any] = {"card": self.card, "confidence": round(self.confidence, 4),
                               "box": [round(v, 1) for v in self.box]}
        if self.alternative is not None:
            out["alternative"] = self.alternative
        if self.check:
            out["check"] = True
        return out


@dataclass(frozen=True)
class PhotoReading:
    """The cards read from one photo.

    Attributes:
        width: Full-photo width (after EXIF rotation).
        height: Full-photo height.
        cards: One entry per physical card, left to right.
        timings: Milliseconds per stage (see :data:`TIMING_KEYS`).
        maybe: Cards possibly missed: read below the operating point, on no card read
            (:func:`possibly_missed`), for the player to confirm; never scored unasked.
        colourless: The photo has no colour (black and white, a mono filter), so red
            and black suits look alike: each card offers its other-colour alternative.
        light_gains: When the photo's light was evened out before it was read (a warm
            lamp, a dim room; ``balance_from``), the gains of its red, green and blue
            channels, so the photo can be shown as it was read; otherwise None.
        smear: How far the blur gauge reads the photo's indices smeared, as a share of an
            index (the median over those named); None without the gauge or without an index
            named.
        blurred: The smear reaches ``blur_warn_from``: a shaken or out-of-focus photo,
            whose cards may be missed or misread; the player should retake it.
        four_corner_deck: The photo shows a deck with an index in all four corners (a
            card's corners joined other than on its diagonal). Where the deck was not said
            to be one, the player can say so: a card of it whose top strip alone shows in a
            photo is then one card, not two.
    """

    width: int
    height: int
    cards: list[DetectedCard]
    timings: dict[str, float] = field(default_factory=dict, compare=False)
    maybe: list[DetectedCard] = field(default_factory=list)
    colourless: bool = False
    light_gains: tuple[float, float, float] | None = None
    smear: float | None = field(default=None, compare=False)
    blurred: bool = False
    four_corner_deck: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"width", "height", "cards": [...]}``, plus ``"maybe": [...]`` when
        there are any, ``"colourless": true`` for a photo without colour and
        ``"light_gains": {"red", "green", "blue"}`` for one whose light was evened out,
        ``"blurred": true`` with its ``"smear"`` for one too blurred to trust, and
        ``"four_corner_deck": true`` for one that shows a deck with an index in all four
        corners."""
        out: dict[str, Any] = {"width": self.width, "height": self.height, "cards": [c.to_dict() for c in self.cards]}
        if self.maybe:
            out["maybe"] = [c.to_dict() for c in self.maybe]
        if self.colourless:
            out["colourless"] = True
        if self.light_gains is not None:
            out["light_gains"] = dict(zip(("red", "green", "blue"), (round(g, 3) for g in self.light_gains)))
        if self.blurred:
            out["blurred"] = True
            out["smear"] = None if self.smear is None else round(self.smear, 3)
        if self.four_corner_deck:
            out["four_corner_deck"] = True
        return out


def letterbox(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Resize keeping the aspect ratio and pad with grey 114 to ``size`` (h, w), like Ultralytics.

    Returns:
        The padded image, the resize ratio and the (left, top) padding.
    """
    height, width = image.shape[:2]
    ratio = min(size[0] / height, size[1] / width)
    new_w, new_h = round(width * ratio), round(height * ratio)
    if (new_w, new_h) != (width, height):
        interpolation = cv2.INTER_AREA if ratio < 1 else cv2.INTER_LINEAR
        image = cv2.resize(image, (new_w, new_h), interpolation=interpolation)
    pad_w, pad_h = (size[1] - new_w) / 2, (size[0] - new_h) / 2
    top, bottom = round(pad_h - 0.1), round(pad_h + 0.1)
    left, right = round(pad_w - 0.1), round(pad_w + 0.1)
    padded = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT,
                                value=(114, 114, 114))
    return padded, ratio, (left, top)


def index_size(wh: np.ndarray, down: np.ndarray, aspect: float) -> np.ndarray:
    """Return ``s = sqrt(w * h)`` of each index as if it stood upright.

    The detector's boxes are axis-aligned: a turned index gets a bigger box (by ~1.5x
    at 45 degrees), which would throw its predicted card centre too far. A W x H
    rectangle (H = aspect x W) turned so its down vector is (dx, dy) has the box
    (W|dy| + H|dx|) x (W|dx| + H|dy|), so the upright area is the box area divided by
    ``(|dy| + k|dx|)(|dx| + k|dy|) / k``.
    """
    wh = np.asarray(wh, dtype=np.float64).reshape(-1, 2)
    size = np.sqrt(np.clip(wh[:, 0] * wh[:, 1], 0, None))
    if aspect <= 0:
        return size
    cos, sin = np.abs(down[:, 1]), np.abs(down[:, 0])
    growth = (cos + aspect * sin) * (sin + aspect * cos) / aspect
    return size / np.sqrt(np.maximum(growth, 1.0))


def _unit(vectors: np.ndarray) -> np.ndarray:
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
    down = _unit(np.asarray(down, dtype=np.float64).reshape(-1, 2))
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
    where the joined rows can be one card's corners (see :func:`corner_groups`); the
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


def corner_groups(centres: np.ndarray, wh: np.ndarray, down: np.ndarray, compatible: np.ndarray,
                  config: DetectorConfig = DetectorConfig()) -> list[tuple[int, ...]]:
    """The groups of :func:`corner_grouping`: one tuple of row numbers per card."""
    return corner_grouping(centres, wh, down, compatible, config).groups


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
    down = _unit(np.asarray(down, dtype=np.float64).reshape(-1, 2))
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
        The probabilities with each paired row replaced by its card's joint reading.
    """
    xyxy = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    if len(xyxy) < 2 or config.pair_min_agreement > 1:
        return probs
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
    for group in corner_groups(centres, wh, down, compatible, config):
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
            and ``data["down"]`` [N, 2].
        config: Supplies ``center_offset``, ``pair_max_angle``, ``pair_distance``,
            ``pair_max_dot`` and ``index_aspect``.
        colourless: The photo has no colour (:func:`~onze_vision.imageio.is_colourless`):
            every suited card's alternative is its rank in the other colour
            (:func:`other_colour`), since colour is what tells the suits apart.
        grouping: The indices' :func:`pair_grouping` with ``config``, where already made.

    Returns:
        One :class:`DetectedCard` per card, sorted left to right; its box is the union
        of its index boxes, its confidence the best of theirs, its alternative (see
        :func:`runner_up`) that of its best index, flagged to check under ``check_below``.
    """
    cards: list[DetectedCard] = []
    probs = indices.data.get("probs")
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
        cards.append(DetectedCard(CARD_CODES[code], confidence, box, len(rows), alternative,
                                  check=confidence < config.check_below))
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


#: Neighbouring tiles of a closer look overlap by this many index sizes, so that an index
#: cut by one tile's edge lies whole in the next.
TILE_OVERLAP = 2.5


@dataclass(frozen=True)
class CloserLook:
    """Where the detector looks a second time, and how closely (:func:`plan_closer_look`).

    Attributes:
        region: x1, y1, x2, y2 of the part of the photo the first look's indices lie in,
            grown by the margin, in full-photo pixels.
        input_scale: Detector input pixels per full-photo pixel it is seen at.
        tiles: The squares (x1, y1, x2, y2, full-photo pixels, within the photo) the
            detector is given one at a time; together they cover ``region``.
    """

    region: tuple[float, float, float, float]
    input_scale: float
    tiles: tuple[tuple[float, float, float, float], ...] = ()


def _tile_starts(low: float, high: float, side: float, overlap: float, limit: float) -> list[float]:
    """Starts of the fewest tiles of ``side`` overlapping by ``overlap`` that cover
    [low, high], kept within [0, limit]."""
    span = high - low
    # Less a hair: a side fitted to the span exactly must not round up to one tile more.
    count = 1 if span <= side else math.ceil((span - overlap) / (side - overlap) - 1e-9)
    if count == 1:
        starts = [low + (span - side) / 2]
    else:
        step = (span - side) / (count - 1)
        starts = [low + i * step for i in range(count)]
    return [min(max(start, 0.0), max(limit - side, 0.0)) for start in starts]


def plan_closer_look(xyxy: np.ndarray, det_score: np.ndarray, photo_size: tuple[int, int],
                     input_scale: float, input_side: int, config: DetectorConfig) -> CloserLook | None:
    """Whether and where to look again at small indices (``zoom_below``), or None.

    Args:
        xyxy: Boxes of the first look, in full-photo pixels.
        det_score: Their detector scores; those of at least ``zoom_floor`` count.
        photo_size: (width, height) of the full photo.
        input_scale: Detector input pixels per full-photo pixel in the first look.
        input_side: The detector's (square) input side.
        config: ``zoom_below``, ``zoom_target``, ``zoom_tiles``, ``zoom_min_gain``,
            ``zoom_floor``, ``zoom_margin``.

    The region is the box around those indices grown by ``zoom_margin`` index sizes
    (their median), within the photo. It is seen so that the median index measures
    ``zoom_target`` input pixels, in as many input-sized tiles as that takes, or less
    closely when it would take more than ``zoom_tiles`` tiles or more pixels than the
    photo has; and only when that enlarges it by ``zoom_min_gain`` or more.
    """
    found = np.asarray(det_score) >= config.zoom_floor
    if config.zoom_below <= 0 or not found.any():
        return None
    boxes = np.asarray(xyxy, np.float64)[found]
    size = float(np.median(np.sqrt(np.clip((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 0, None))))
    if size <= 0 or size * input_scale >= config.zoom_below:
        return None
    width, height = photo_size
    margin = config.zoom_margin * size
    x1, y1 = max(0.0, boxes[:, 0].min() - margin), max(0.0, boxes[:, 1].min() - margin)
    x2, y2 = min(float(width), boxes[:, 2].max() + margin), min(float(height), boxes[:, 3].max() + margin)
    overlap = TILE_OVERLAP * size
    # Never past the photo's own pixels: enlarging them further only blurs (a small
    # photo the first look already enlarged gets no second look).
    scale = min(config.zoom_target / size, _closest_fit((x1, y1, x2, y2), overlap, input_side, config.zoom_tiles),
                1.0)
    if scale < config.zoom_min_gain * input_scale:
        return None
    return CloserLook((x1, y1, x2, y2), scale, _tiles((x1, y1, x2, y2), input_side / scale, overlap, photo_size))


#: A blind look is taken only when it enlarges the photo at least this much: the indices
#: a first look finds nothing of measure under about 12 input pixels, and the detector
#: finds them from about 16 (``models/HISTORY.md``).
BLIND_MIN_GAIN = 1.5


def plan_blind_look(photo_size: tuple[int, int], input_scale: float, input_side: int,
                    config: DetectorConfig) -> CloserLook | None:
    """Where to look again when the first look found no index (``zoom_blind_tiles``), or None.

    Args:
        photo_size: (width, height) of the full photo.
        input_scale: Detector input pixels per full-photo pixel in the first look.
        input_side: The detector's (square) input side.
        config: ``zoom_blind_tiles``, ``zoom_below``.

    A photo of a table from far away can hold cards whose indices are too small for the
    first look to find any, so there is nothing to place a closer look with. The whole
    photo is then seen as closely as ``zoom_blind_tiles`` input-sized tiles allow, never
    past its own pixels, when that enlarges it ``BLIND_MIN_GAIN`` times or more. Tiles
    overlap by the largest index the closer look is for (``zoom_below`` at the first
    look's scale), so each index lies whole in one of them.
    """
    if config.zoom_blind_tiles <= 0 or config.zoom_below <= 0 or input_scale <= 0:
        return None
    width, height = photo_size
    region = (0.0, 0.0, float(width), float(height))
    overlap = config.zoom_below / input_scale
    scale = min(_closest_fit(region, overlap, input_side, config.zoom_blind_tiles), 1.0)
    if scale < BLIND_MIN_GAIN * input_scale:
        return None
    return CloserLook(region, scale, _tiles(region, input_side / scale, overlap, photo_size))


def _closest_fit(region: tuple[float, float, float, float], overlap: float, input_side: int,
                 max_tiles: int) -> float:
    """The largest scale (input pixels per photo pixel) at which ``region`` fits in at most
    ``max_tiles`` input-sized tiles overlapping by ``overlap`` photo pixels."""
    x1, y1, x2, y2 = region
    return max(min(input_side * cols / (x2 - x1 + (cols - 1) * overlap),
                   input_side * rows / (y2 - y1 + (rows - 1) * overlap))
               for cols in range(1, max_tiles + 1) for rows in range(1, max_tiles // cols + 1))


def _tiles(region: tuple[float, float, float, float], side: float, overlap: float,
           photo_size: tuple[int, int]) -> tuple[tuple[float, float, float, float], ...]:
    """Squares of ``side`` photo pixels, overlapping by ``overlap``, covering ``region`` within the photo."""
    x1, y1, x2, y2 = region
    width, height = photo_size
    return tuple((tx, ty, min(tx + side, float(width)), min(ty + side, float(height)))
                 for ty in _tile_starts(y1, y2, side, overlap, height)
                 for tx in _tile_starts(x1, x2, side, overlap, width))


def _session(path: Path, threads: int | None) -> Any:
    """An onnxruntime CPU session: ``threads`` intra-op threads (default: every core)."""
    import onnxruntime as ort  # heavy: only when a model is loaded

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except (ort.capi.onnxruntime_pybind11_state.Fail, ort.capi.onnxruntime_pybind11_state.InvalidProtobuf,
            ort.capi.onnxruntime_pybind11_state.InvalidGraph) as error:
        # A damaged or half-copied file: say which, not onnxruntime's stack.
        raise InvalidModelError(f"'{path}' is not a usable ONNX model ({str(error).splitlines()[0][:200]}); "
                                "copy the file again from the project's models/") from None


class IndexDetector:
    """The one-class corner-index detector alone (``index_detector.onnx``); thread-safe.

    :class:`CardDetector` names what it finds; training uses it by itself to mine the
    boxes it gets wrong.

    Args:
        path: The ONNX export.
        imgsz: Input size when the export records none.
        threads: onnxruntime intra-op threads (default: CPU count).
    """

    def __init__(self, path: str | Path, imgsz: int = 640, threads: int | None = None) -> None:
        path = Path(path)
        if not path.exists():
            raise ModelNotFoundError(f"model file missing: {path}")
        self._session = _session(path, threads)
        self._input = self._session.get_inputs()[0].name
        self.input_size = self._input_size(imgsz)

    def _input_size(self, default: int) -> tuple[int, int]:
        """(h, w) from the ONNX metadata ``imgsz``, else the static input shape, else ``default``."""
        meta = self._session.get_modelmeta().custom_metadata_map
        if "imgsz" in meta:
            value = ast.literal_eval(meta["imgsz"])
            if isinstance(value, int):
                return value, value
            return int(value[0]), int(value[1])
        shape = self._session.get_inputs()[0].shape
        if len(shape) == 4 and all(isinstance(v, int) for v in shape[2:]):
            return int(shape[2]), int(shape[3])
        return default, default

    def locate(self, image_bgr: np.ndarray, conf_threshold: float, iou_threshold: float = 0.5,
               clock: _Stopwatch | None = None, mirrored: bool = False,
               memo: LookMemo | None = None) -> Detections:
        """Corner-index boxes in ``image_bgr``'s pixels, not yet named.

        Args:
            image_bgr: A decoded image (H x W x 3, BGR uint8); it is letterboxed here.
            conf_threshold: Minimum detector score.
            iou_threshold: NMS overlap threshold.
            clock: Receives the "preprocess" and "detector" laps.
            mirrored: Also look at the image mirrored left to right, and keep the boxes of
                both looks (NMS over them together): a four-corner deck's top-right and
                bottom-left indices lie, mirrored, where the detector learned indices lie
                (``mirrored_look``).
            memo: Looks already taken at this very image object, reused rather than run
                again (a photo read again with a mirrored look).

        Returns:
            Boxes clipped to the image with their detector scores; ``class_id`` is
            :data:`SEEN_MIRRORED` for a box the mirrored look scored higher (a top-right or
            bottom-left index, as the detector judges from the card around it), else 0.
        """
        clock = clock or _Stopwatch(None)
        padded, ratio, (left, top) = letterbox(image_bgr, self.input_size)
        blob = cv2.dnn.blobFromImage(padded, 1.0 / 255.0, swapRB=True)
        clock.lap("preprocess")

        boxes = memo.find(image_bgr, conf_threshold) if memo is not None else None
        if boxes is None:
            output = self._session.run(None, {self._input: blob})[0]
            clock.lap("detector")
            boxes = Detections.from_yolo_output(output, conf_threshold, iou_threshold)
            if memo is not None:
                memo.keep(image_bgr, conf_threshold, boxes)
        if mirrored:
            seen = Detections.from_yolo_output(
                self._session.run(None, {self._input: np.ascontiguousarray(blob[..., ::-1])})[0],
                conf_threshold, iou_threshold)
            clock.lap("detector")
            # Back to the letterbox's own left and right: x -> input width - x.
            input_w = float(blob.shape[3])
            seen = Detections(np.stack([input_w - seen.xyxy[:, 2], seen.xyxy[:, 1],
                                        input_w - seen.xyxy[:, 0], seen.xyxy[:, 3]], axis=1),
                              seen.confidence, np.full(len(seen), SEEN_MIRRORED, np.int64))
            boxes = Detections.merge([boxes, seen])
            boxes = boxes[non_max_suppression(boxes.xyxy, boxes.confidence, iou_threshold)]
        height, width = image_bgr.shape[:2]
        xyxy = (boxes.xyxy - np.array([left, top, left, top], np.float32)) / ratio
        boxes = Detections(np.clip(xyxy, 0, [width, height, width, height]), boxes.confidence, boxes.class_id)
        # A box in the letterbox's padding is clipped to nothing: no index is under a pixel wide.
        return boxes[(boxes.wh >= 1.0).all(axis=1)]


#: The ``class_id`` of a located box the mirrored look scored higher (:meth:`IndexDetector.locate`).
SEEN_MIRRORED = 1


class LookMemo:
    """The detector's plain looks within one read of a photo (letterbox pixels), by the
    image object looked at and the score floor: a second read of the photo with a mirrored
    look runs only the mirrored pass on what it already saw."""

    def __init__(self) -> None:
        # The images are kept alive with their boxes, so an object's identity is never reused.
        self._looks: list[tuple[np.ndarray, float, Detections]] = []

    def find(self, image: np.ndarray, conf_threshold: float) -> Detections | None:
        """The boxes of an earlier look at ``image`` (this very object) at this floor, or None."""
        return next((boxes for seen, floor, boxes in self._looks if seen is image and floor == conf_threshold), None)

    def keep(self, image: np.ndarray, conf_threshold: float, boxes: Detections) -> None:
        """Remember the boxes a look at ``image`` found."""
        self._looks.append((image, conf_threshold, boxes))


class CardDetector:
    """Both ONNX models, loaded once; :meth:`detect_cards` is safe to call from many threads.

    Args:
        model_dir: Folder with ``index_detector.onnx``, ``index_classifier.onnx`` and
            (optional) ``detector.json``.
        config: Overrides ``detector.json``.
        threads: onnxruntime intra-op threads (default: CPU count).
    """

    def __init__(
        self,
        model_dir: str | Path = DEFAULT_MODEL_DIR,
        config: DetectorConfig | None = None,
        threads: int | None = None,
    ) -> None:
        self.model_dir = Path(model_dir)
        paths = [self.model_dir / DETECTOR_FILE, self.model_dir / CLASSIFIER_FILE]  # the gauge is optional
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise ModelNotFoundError(
                f"model file(s) missing: {', '.join(missing)} (train and export the models, "
                f"or point ONZE_VISION_MODELS at a folder that has them)"
            )
        base = config or DetectorConfig.from_json(self.model_dir / CONFIG_FILE)
        self._indices = IndexDetector(paths[0], base.imgsz, threads)
        self._classifier = _session(paths[1], threads)
        self.input_size = self._indices.input_size
        self.config = DetectorConfig(**{**{f.name: getattr(base, f.name) for f in fields(base)},
                                        "imgsz": max(self.input_size)})
        self._check_classifier()
        gauge = self.model_dir / GAUGE_FILE
        # One thread: a third session's pool of spinning threads cost 18 ms a photo on two
        # cores (measured); the gauge's 32 crops take about 2 ms on one.
        self._gauge = self._load_gauge(gauge, 1) if gauge.exists() else None
        self._code_weights = np.ones(len(CARD_CODES), np.float32)
        for code, weight in self.config.code_weights:
            self._code_weights[CARD_CODES.index(code)] = weight
        # The views an unsure index is read from besides its centred crop.
        self._extra_views = reading_views(self.config.crop_shift, self.config.crop_turns)[1:]

    @property
    def blur_gauge(self) -> BlurGauge | None:
        """The blur gauge (``blur_gauge.onnx`` beside the models), or None when there is none."""
        return self._gauge

    @staticmethod
    def _load_gauge(path: Path, threads: int | None) -> BlurGauge:
        try:
            return BlurGauge(_session(path, threads))
        except ValueError as error:
            raise InvalidModelError(f"'{path}': {error}") from None

    def _check_classifier(self) -> None:
        inputs = self._classifier.get_inputs()
        outputs = [o.name for o in self._classifier.get_outputs()]
        if len(inputs) != 1 or len(outputs) < 2:
            raise InvalidModelError(
                f"classifier must take one input and give 'probs' and 'down'; it has inputs "
                f"{[i.name for i in inputs]} and outputs {outputs}"
            )
        self._crops_input = inputs[0].name
        # Contract names first; otherwise the export order (probs, down).
        self._classifier_outputs = ["probs", "down"] if {"probs", "down"} <= set(outputs) else outputs[:2]
        batch = inputs[0].shape[0]
        self._classifier_batch = batch if isinstance(batch, int) and batch > 0 else None
        crop = inputs[0].shape[2:]
        if all(isinstance(v, int) for v in crop) and tuple(crop) != (48, 48):
            raise InvalidModelError(f"classifier input must be [N, 3, 48, 48], got {inputs[0].shape}")

    def read_indices(
        self,
        src: ImageSource | LoadedImage,
        *,
        conf_threshold: float | None = None,
        min_class_prob: float | None = None,
        timings: dict[str, float] | None = None,
    ) -> Detections:
        """Detect and name every corner index (before pairing).

        Args:
            src: Anything :func:`load_image` takes, or an already loaded image.
            conf_threshold: Override of the detector score threshold (e.g. 0.001 for mAP).
            min_class_prob: Override of the classifier probability threshold.
            timings: When given, filled with milliseconds per stage.

        Returns:
            Boxes in full-photo pixels; ``class_id`` indexes :data:`CARD_CODES`;
            ``confidence`` = detector score x code probability; ``data`` holds ``down``
            [N, 2], ``det_score``, ``class_prob`` and ``probs`` [N, 54] (every code's
            probability, after the joint reading of a card's corners). Crops the
            classifier calls "none" are dropped.
        """
        return self._read(src, conf_threshold, min_class_prob, timings, gauge=False)[1]

    def detect_cards(self, src: ImageSource | LoadedImage, *, corners: str = "auto") -> PhotoReading:
        """Read one photo: one :class:`DetectedCard` per physical card.

        Args:
            src: Anything :func:`load_image` takes, or an already loaded image.
            corners: Which corners of the deck's cards carry an index, where the player
                knows (:data:`DECK_CORNERS`, :meth:`DetectorConfig.for_deck`): a four-corner
                card whose top strip alone shows is one card only when the deck is known
                to be, or the photo shows it.

        Raises:
            InvalidImageError: The input is not a readable photo.
            UnknownDeckCornersError: ``corners`` is not one of :data:`DECK_CORNERS`.
        """
        deck = self.config.for_deck(corners)  # before the photo is read: a bad value costs nothing
        timings: dict[str, float] = {}
        loaded, indices, candidates, gains, smear = self._read(src, None, None, timings, deck=deck)
        start = time.perf_counter()
        colourless = is_colourless(loaded.image)
        grouping = pair_grouping(indices, deck)
        cards = pair_indices(indices, deck, colourless, grouping)
        maybe = possibly_missed(indices, candidates, deck)
        timings["postprocess"] += (time.perf_counter() - start) * 1000
        light = None if gains is None else (float(gains[2]), float(gains[1]), float(gains[0]))
        blurred = smear is not None and 0 < self.config.blur_warn_from <= smear
        return PhotoReading(loaded.width, loaded.height, cards, timings, maybe, colourless, light, smear, blurred,
                            grouping.four_corner_deck_seen)

    def _read(
        self,
        src: ImageSource | LoadedImage,
        conf_threshold: float | None,
        min_class_prob: float | None,
        timings: dict[str, float] | None,
        gauge: bool = True,
        deck: DetectorConfig | None = None,
    ) -> tuple[LoadedImage, Detections, Detections, np.ndarray | None, float | None]:
        """The photo (its light evened out where it needed it), its named indices at the
        thresholds, the candidates under them (``maybe_conf``), the light gains (B, G, R)
        or None, and with ``gauge`` the photo's smear as the blur gauge reads it (None: not
        asked, no gauge, or no index named). ``deck``: the config as the deck's corners were
        said (:meth:`DetectorConfig.for_deck`), which groups a card's corners to read them
        together."""
        config = deck or self.config
        conf = config.conf_threshold if conf_threshold is None else conf_threshold
        min_prob = config.min_class_prob if min_class_prob is None else min_class_prob
        clock = _Stopwatch(timings)

        loaded = src if isinstance(src, LoadedImage) else load_image(
            src, max_side=math.ceil(config.decode_factor * max(self.input_size)))
        gains = self.gains_for_light(loaded.image)
        if gains is not None:
            loaded = replace(loaded, image=apply_gains(loaded.image, gains))
        clock.lap("decode")

        # Candidates for "possibly missed" are located in the same pass, down to maybe_conf
        # and the floors of maybe_floors.
        common_floor = min(conf, config.maybe_conf) if config.maybe_conf > 0 else conf
        floor = min([common_floor, *(score for _, score, _ in config.maybe_floors)])
        # A deck said to have four corners is looked at mirrored at once; one the photo shows
        # (with the indices the first look found) is looked at again, mirrored.
        mirrored = config.mirrored_look and config.four_corners and config.four_corner_deck
        memo = LookMemo()
        image, scale, boxes = self._look(loaded, floor, clock, gains, mirrored, memo)
        found, crops = self._name(image, scale, boxes, config, clock)
        if config.mirrored_look and not mirrored and self._shows_four_corner_deck(found, config):
            image, scale, boxes = self._look(loaded, floor, clock, gains, True, memo)
            found, crops = self._name(image, scale, boxes, config, clock)
        smear = None
        if gauge and len(found) and self._gauge is not None:
            # On the centred crops of what was named down to the floor every code shares, however
            # sure: the warning's threshold was chosen on those, and the fainter boxes a code's
            # own floor adds would move the median. Not on boxes named "none": the gauge knows
            # indices, and on the table's texture it reads blur where there is none (24 of 281
            # card-free parts of real photos would be reported blurred).
            clock.lap("postprocess")
            gauged = found.data["det_score"] >= common_floor
            smear = self._gauge.photo_smear(crops[gauged], found.data["det_score"][gauged])
            clock.lap("classifier")  # a network's time, with the classifier's
        indices, candidates = split_at_operating_point(found, config, conf, min_prob)
        indices = indices.without_nested(config.nested_overlap)
        candidates = candidates.without_nested(config.nested_overlap)
        clock.lap("postprocess")
        return loaded, indices, candidates, gains, smear

    def _name(self, image: np.ndarray, scale: float, boxes: Detections, config: DetectorConfig,
              clock: _Stopwatch) -> tuple[Detections, np.ndarray]:
        """Name the located ``boxes`` (pixels of ``image``, ``scale`` of them per full-photo
        pixel): (the indices named a code, in full-photo pixels, at every score; their
        centred crops, for the blur gauge). Boxes read as "none" are dropped."""
        xyxy = boxes.xyxy
        tensor = crops_to_tensor([crop_index(image, box) for box in xyxy])
        clock.lap("preprocess")

        probs, down = self._classify(tensor)
        # A top-right or bottom-left index's way down is read from its crop mirrored: the
        # classifier, taught the other two corners, bends it towards where their card edges
        # lie (four-tune960: 9 degrees off at the median, 2.8 mirrored); its code is read
        # as it is (mirrored glyphs read wrong).
        mirrored = np.flatnonzero(boxes.class_id == SEEN_MIRRORED)
        mirrored_down = None
        if len(mirrored):
            mirrored_down = self._classify(np.ascontiguousarray(tensor[mirrored][..., ::-1]))[1] * [-1.0, 1.0]
            down[mirrored] = mirrored_down
        # Unsure is judged after a card's two corners are read together: a corner its sure
        # partner settles needs no more views (most corners of a spread card).
        joint = self._weighed(read_corners_together(xyxy, probs, down, boxes.confidence, config))
        unsure = np.flatnonzero(joint.max(axis=1) < config.reread_below) if self._extra_views else []
        if len(unsure):
            self._read_again(image, xyxy, unsure, probs, down)
            if mirrored_down is not None:
                down[mirrored] = mirrored_down
            joint = self._weighed(read_corners_together(xyxy, probs, down, boxes.confidence, config))
        clock.lap("classifier")

        probs = joint
        code = probs.argmax(axis=1) if len(probs) else np.zeros(0, np.int64)
        prob = probs[np.arange(len(probs)), code]
        named = code < len(CARD_CODES)
        found = Detections(
            xyxy[named] / scale,
            boxes.confidence[named] * prob[named],
            code[named],
            {"down": down[named], "det_score": boxes.confidence[named], "class_prob": prob[named], "probs": probs[named]},
        )
        return found, tensor[named]

    @staticmethod
    def _shows_four_corner_deck(found: Detections, config: DetectorConfig) -> bool:
        """Whether the indices ``found`` at the operating point, grouped into cards, show a
        deck with an index in all four corners (never with ``four_corners`` off)."""
        if not config.four_corners:
            return False
        operating = split_at_operating_point(found, config)[0].without_nested(config.nested_overlap)
        return pair_grouping(operating, config).four_corner_deck_seen

    def gains_for_light(self, image_bgr: np.ndarray) -> np.ndarray | None:
        """The channel gains that even out the photo's light, or None when it needs none
        (``balance_from``)."""
        if self.config.balance_from <= 0:
            return None
        gains = light_gains(image_bgr, self.config.balance_max_gain)
        return gains if gains.max() >= self.config.balance_from else None

    def _look(self, loaded: LoadedImage, floor: float, clock: _Stopwatch,
              gains: np.ndarray | None = None, mirrored: bool = False,
              memo: LookMemo | None = None) -> tuple[np.ndarray, float, Detections]:
        """Locate the indices: (the image to cut them from, its pixels per full-photo pixel,
        their boxes in its pixels, scoring ``floor`` and up).

        When they are small (``zoom_below``), the detector looks a second time at the part
        of the photo they lie in, enlarged and decoded finer (:func:`plan_closer_look`);
        its boxes replace those of the first look there. When it finds none at all, it
        first looks at the whole photo more closely (:func:`plan_blind_look`). A photo
        decoded finer gets the same light ``gains`` as the first. Every look is also
        taken ``mirrored`` where asked (``mirrored_look``); ``memo`` keeps the plain look at
        the whole photo (a closer look cuts new tiles each time, so there is none to reuse).
        """
        config = self.config
        image, scale = loaded.image, loaded.scale
        zooms = config.zoom_below > 0
        placing = min(floor, config.zoom_floor) if zooms else floor
        boxes = self.locate_indices(image, placing, clock, mirrored, memo)
        if not zooms:
            return image, scale, boxes
        height, width = image.shape[:2]
        input_h, input_w = self.input_size
        photo, side = (loaded.width, loaded.height), min(self.input_size)
        look_scale = scale * min(input_h / height, input_w / width)
        if not (boxes.confidence >= config.zoom_floor).any():
            blind = plan_blind_look(photo, look_scale, side, config)
            if blind is not None:
                image, scale, boxes = self._look_closer(loaded, blind, Detections.empty(), placing, clock, gains,
                                                        mirrored)
                look_scale = blind.input_scale
        look = plan_closer_look(boxes.xyxy / scale, boxes.confidence, photo, look_scale, side,
                                config) if len(boxes) else None
        boxes = boxes[boxes.confidence >= floor]
        if look is None:
            return image, scale, boxes
        return self._look_closer(loaded, look, Detections(boxes.xyxy / scale, boxes.confidence, boxes.class_id),
                                 floor, clock, gains, mirrored)

    def _look_closer(self, loaded: LoadedImage, look: CloserLook, earlier: Detections, floor: float,
                     clock: _Stopwatch, gains: np.ndarray | None = None,
                     mirrored: bool = False) -> tuple[np.ndarray, float, Detections]:
        """Locate the indices in the tiles of ``look``, decoded finer: (that image, its pixels
        per full-photo pixel, the boxes found there scoring ``floor`` and up, with those of
        ``earlier`` (full-photo pixels) outside every tile); each tile ``mirrored`` too
        where asked."""
        config = self.config
        # At the detector's scale a target-sized index makes a crop as large as the
        # classifier's input: more pixels were slower and no better (models/HISTORY.md).
        fine = decode_finer(loaded, look.input_scale)
        if gains is not None and fine is not loaded:
            fine = replace(fine, image=apply_gains(fine.image, gains))
        clock.lap("decode")
        fine_h, fine_w = fine.image.shape[:2]
        seen, covered = [], np.zeros(len(earlier), bool)
        earlier = Detections(earlier.xyxy * fine.scale, earlier.confidence, earlier.class_id)
        centre = earlier.center
        tiles = np.array(look.tiles)
        grid_low, grid_high = tiles[:, :2].min(axis=0), tiles[:, 2:].max(axis=0)
        for tile in tiles:
            x1, y1, x2, y2 = (tile * fine.scale).tolist()
            x1, y1 = max(0, math.floor(x1)), max(0, math.floor(y1))
            x2, y2 = min(fine_w, math.ceil(x2)), min(fine_h, math.ceil(y2))
            found = self.locate_indices(fine.image[y1:y2, x1:x2], floor, clock, mirrored)
            # An index cut by an edge the tile shares with a neighbour lies whole in that
            # neighbour (TILE_OVERLAP): only its whole box is kept.
            inner = np.concatenate([tile[:2] > grid_low, tile[2:] < grid_high])
            cut = ((found.xyxy[:, :2] <= 1) & inner[:2]).any(axis=1) | (
                (found.xyxy[:, 2:] >= [x2 - x1 - 1, y2 - y1 - 1]) & inner[2:]).any(axis=1)
            found = found[~cut]
            seen.append(Detections(found.xyxy + np.array([x1, y1, x1, y1], np.float32), found.confidence,
                                   found.class_id))
            covered |= (centre[:, 0] >= x1) & (centre[:, 0] < x2) & (centre[:, 1] >= y1) & (centre[:, 1] < y2)
        closer = Detections.merge(seen)
        if len(look.tiles) > 1:  # an index in the overlap of two tiles is found twice
            closer = closer[non_max_suppression(closer.xyxy, closer.confidence, config.iou_threshold)]
        # Earlier boxes outside the tiles stay (the region holds every sure one, so rarely any).
        return fine.image, fine.scale, Detections.merge([earlier[~covered], closer])

    def locate_indices(self, image_bgr: np.ndarray, conf_threshold: float | None = None,
                       clock: _Stopwatch | None = None, mirrored: bool = False,
                       memo: LookMemo | None = None) -> Detections:
        """The detector alone (see :meth:`IndexDetector.locate`), at the config's thresholds by default."""
        conf = self.config.conf_threshold if conf_threshold is None else conf_threshold
        return self._indices.locate(image_bgr, conf, self.config.iou_threshold, clock, mirrored, memo)

    def _read_again(self, image_bgr: np.ndarray, xyxy: np.ndarray, rows: np.ndarray,
                    probs: np.ndarray, down: np.ndarray) -> None:
        """Average ``probs[rows]`` and ``down[rows]`` (the centred readings of the boxes
        ``xyxy[rows]``) with those boxes' readings from the other views, in place."""
        views = self._extra_views
        crops = crops_to_tensor([crop_view(image_bgr, xyxy[i], view) for i in rows for view in views])
        more_probs, more_down = self._classify(crops)
        shape = (len(rows), len(views))
        probs[rows] = (probs[rows] + more_probs.reshape(*shape, -1).sum(axis=1)) / (1 + len(views))
        # A turned crop's down is turned with it; the sum of unit vectors, renormalised, as the ensemble does.
        turns = np.array([view.turns for view in views])
        down[rows] = _unit(down[rows] + turn_back(more_down.reshape(*shape, 2), turns).sum(axis=1))

    def _weighed(self, probs: np.ndarray) -> np.ndarray:
        """``probs`` with the codes weighed by ``code_weights``, between the codes only: whether
        a crop is an index at all stays the classifier's own call ("none" keeps its
        probability). Applied once to a card's joint reading, not to each corner: the joint
        reading multiplies its corners' readings, and would multiply their weights too."""
        if not self.config.code_weights or not len(probs):
            return probs
        probs = probs.copy()
        codes = probs[:, : len(CARD_CODES)]
        mass = codes.sum(axis=1, keepdims=True)
        weighted = codes * self._code_weights
        probs[:, : len(CARD_CODES)] = weighted * (mass / np.maximum(weighted.sum(axis=1, keepdims=True), 1e-12))
        return probs

    def _classify(self, tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Run the classifier (in chunks when the export has a fixed batch size)."""
        if len(tensor) == 0:
            return np.zeros((0, len(CLASS_NAMES)), np.float32), np.zeros((0, 2), np.float32)
        chunk = self._classifier_batch or len(tensor)
        probs_parts, down_parts = [], []
        for start in range(0, len(tensor), chunk):
            part = tensor[start:start + chunk]
            real = len(part)
            if len(part) < chunk:  # fixed batch: pad with copies
                part = np.concatenate([part, np.repeat(part[-1:], chunk - real, axis=0)])
            probs, down = self._classifier.run(self._classifier_outputs, {self._crops_input: part})
            probs_parts.append(probs[:real])
            down_parts.append(down[:real])
        probs = np.concatenate(probs_parts).astype(np.float32)
        if probs.shape[1] != len(CLASS_NAMES):
            raise InvalidModelError(f"classifier gives {probs.shape[1]} classes; expected {len(CLASS_NAMES)}")
        if probs.min() < 0 or not np.allclose(probs.sum(axis=1), 1.0, atol=1e-3):
            probs = _softmax(probs)  # an export that left the softmax out
        return probs, np.concatenate(down_parts).astype(np.float32)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


class _Stopwatch:
    """Adds the milliseconds since the last lap to ``timings[name]`` (no-op without a dict)."""

    def __init__(self, timings: dict[str, float] | None) -> None:
        self.timings = timings
        self.last = time.perf_counter()
        if timings is not None:
            for key in TIMING_KEYS:
                timings.setdefault(key, 0.0)

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        if self.timings is not None:
            self.timings[name] = self.timings.get(name, 0.0) + (now - self.last) * 1000
        self.last = now


_default_detector: CardDetector | None = None
_default_lock = threading.Lock()


def get_detector() -> CardDetector:
    """Return the shared default detector, loading the models on first use (thread-safe)."""
    global _default_detector
    if _default_detector is None:
        with _default_lock:
            if _default_detector is None:
                _default_detector = CardDetector()
    return _default_detector


def detect_cards(src: ImageSource | LoadedImage, *, corners: str = "auto") -> PhotoReading:
    """Read the cards in one photo with the shared default detector (see
    :meth:`CardDetector.detect_cards`)."""
    return get_detector().detect_cards(src, corners=corners)


__all__: Sequence[str] = (
    "CARD_CODES", "DECK_CORNERS", "CardDetector", "DetectedCard", "DetectorConfig", "IndexDetector",
    "CornerGrouping", "InvalidModelError", "ModelNotFoundError", "PhotoReading", "UnknownDeckCornersError",
    "detect_cards", "get_detector", "index_size", "letterbox", "pair_grouping", "pair_groups", "pair_indices",
)
