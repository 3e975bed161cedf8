"""What the card reader is tuned by: :class:`DetectorConfig`, read from ``models/detector.json``,
and the errors of the model files it comes with.

Kept apart from :mod:`onze_vision.detector` (which loads ONNX Runtime sessions) so that
the command line and the web app can name a deck's corners (:data:`DECK_CORNERS`) and
check a config without loading a model.
"""

from __future__ import annotations

import difflib
import json
import math
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from onze_vision.cards import CARD_CODES
from onze_vision.jokers import JokerLook
from onze_vision.messages import quoted

__all__ = ["ModelNotFoundError", "InvalidModelError", "UnknownDeckCornersError", "UnknownConfigKeyError",
           "DECK_CORNERS", "CONFIG_KEYS", "NOTE_KEYS", "DETECTOR_FILE", "CLASSIFIER_FILE", "CONFIG_FILE",
           "DetectorConfig"]


class ModelNotFoundError(FileNotFoundError):
    """A model file the detector needs is missing."""


class InvalidModelError(ValueError):
    """A model file does not have the inputs and outputs of the contract."""


class UnknownDeckCornersError(ValueError):
    """A deck was said to have its indices in corners other than "auto", "two" or "four"."""


class UnknownConfigKeyError(ValueError):
    """A config (``detector.json``) names a key the runtime has no setting for: a misspelt
    key would otherwise change nothing, silently."""


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

#: Keys ``detector.json`` carries as notes for a reader, which set nothing: written by the
#: training recipe (``center_spread_p90``: how far the fitted ``center_offset`` misses, at
#: the 90th percentile; ``classes``: the classifier's outputs) and by
#: ``scripts/sweep_thresholds.py --write`` (``operating_point``: how it was chosen); and
#: ``pair_tolerance``, a setting retired on 23 Nov 2026 that models trained before still carry.
NOTE_KEYS = ("center_spread_p90", "classes", "operating_point", "pair_tolerance")


#: The models folder's files (here, where no model is loaded, for the tools that only name them).
DETECTOR_FILE = "index_detector.onnx"
CLASSIFIER_FILE = "index_classifier.onnx"
CONFIG_FILE = "detector.json"


@dataclass(frozen=True)
class DetectorConfig:
    """Runtime constants, read from ``models/detector.json`` (missing keys keep defaults).

    Attributes:
        imgsz: Detector input size; the ONNX metadata ``imgsz`` wins when present.
        conf_threshold: Minimum detector score of a corner index.
        iou_threshold: NMS overlap threshold (IoU).
        min_class_prob: Minimum classifier probability of the index's code.
        center_offset: (a, b): the card centre is ``a`` index sizes down and ``b`` right
            of the index centre, as the index reads; its direction is the card's diagonal.
        pair_max_angle: Degrees by which the line to a partner may miss that diagonal.
        pair_distance: (min, max) distance of two paired indices, in index sizes.
        pair_max_dot: Paired ``down`` vectors must have a dot product below this.
        four_corners: Also join the corners of decks with an index in all four corners:
            top right with bottom left (the other diagonal), and the two indices of one
            side of the card (:func:`~onze_vision.pairing.corner_grouping`); without it such a card is counted
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
            (:func:`~onze_vision.pairing.read_corners_together`); above 1 turns the joint reading off.
        index_aspect: Height / width of an upright index box; undoes the growth of the
            axis-aligned box of a turned index (0, the default, turns the correction off:
            ``center_offset`` must be fitted with the same ``s`` the runtime uses). The
            shipped ``detector.json`` does not set it, so the product runs with 0 and
            :func:`~onze_vision.pairing.index_size` never corrects a box.
        decode_factor: Decode the photo with its long side >= this x ``imgsz``.
        nested_overlap: Of two named indices whose intersection covers more than this
            share of the smaller box, only the more confident is kept (one index boxed
            twice, whole and rank alone: nearly all of the smaller box lies inside). Two
            real neighbours in a tight fan overlap less (of the labels of generated scenes
            that overlap another by more than 0.3, 99 % overlap it by at most 0.76), and
            both must stay. 1 or more keeps every box (no box covers more than all of
            another).
        crop_shift: An index the centred crop reads unsure of (see ``reread_below``) is
            read again from four crops moved by this share of the box's longer side left,
            right, up and down (0: none), and its readings are averaged
            (:func:`~onze_vision.indexcrop.reading_views`): a detector's box is off the
            true one by a few pixels, and the average is less often sure of a wrong code
            than one view. The shipped classifier reads as well without them (0 since the
            run "fewer views" in ``models/HISTORY.md``), in about half the classifier's time.
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
            player to add with one tap (0: never; see :func:`~onze_vision.pairing.possibly_missed`).
        maybe_prob: The classifier probability of their code such a card needs.
        zoom_below: When the indices found measure under this many pixels at the
            detector's input (their median), the detector looks again at the part of the
            photo they lie in, enlarged and decoded finer, and every index is cut from
            that finer image (0: never; see :func:`~onze_vision.looks.plan_closer_look`). A far shot of a
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
            :func:`~onze_vision.looks.plan_blind_look`). Cards far enough away leave the first look nothing.
        step_back: When the first look finds no index scoring ``conf_threshold``, the
            detector also looks at the photo this many times smaller (padded to this many
            times its size, so it fills that share of the detector's input): a close-up of
            one card has indices larger than the detector was taught to find. Where that
            finds one scoring ``conf_threshold``, its boxes are read with the first look's
            (the surer of two overlapping), and the closer or blind look follows as it would
            (0: never).
        balance_from: When the photo's white is off enough that one of its colour
            channels needs a gain of at least this to make it white (a warm lamp, a dim
            room), every channel is scaled by its gain before anything is read
            (:func:`~onze_vision.light.light_gains`; 0: never). Photos in good light
            stay exactly as decoded.
        balance_max_gain: The largest gain a channel is given.
        blur_warn_from: A photo whose indices the blur gauge reads smeared by at least this
            share of an index (their median; :mod:`~onze_vision.sharpness`) is reported
            blurred, for the player to retake (0: never; also never without the gauge).
        undo_shake: A photo reported blurred is read a second time with the straight shake
            its cepstrum shows undone (:mod:`~onze_vision.deblur`), and that reading is kept
            where its cards' confidences sum higher (false: never).
        mirror_below: When no card is read, or the reading's cards are read below this
            confidence on average (or it shows a four-corner deck no one said), the photo
            is read a second time mirrored left to right
            (a selfie camera or a webcam may save what it shows as a mirror does, and every
            index then reads backwards), and that reading is kept, its boxes put back,
            where its cards' confidences sum higher (0: never).
        code_weights: (code, weight) pairs: the classifier's probability of that card code
            is multiplied by its weight, and the codes' probabilities are scaled back to
            the share they had (JSON: an object, ``{"JK": 3.0}``). The weights choose
            between codes only; the probability that the crop is no index ("none") is
            left as read, so no weight makes an index of what the classifier calls none.
            A card's corners read together are weighed once, not once per corner.
            A Joker's mark differs from deck to deck far more than a rank does: on a
            design it was not taught, the Joker's probability is low even where it is the
            best reading, and red codes with a little each outvote it.
        check_floors: (code, confidence) pairs: a card read as that code below its own
            floor is flagged to check as under ``check_below`` (JSON: an object,
            ``{"JK": 0.6}``). A Joker counts the most points and is the code least surely
            read; an index cut short (a Jack's J without its suit) can read as one.
        maybe_floors: (code, detector score, code probability) triples: indices read as
            that code are also offered as possibly missed down to the first number, where
            their code probability is at least the second (JSON: an object,
            ``{"JK": [0.05, 0.6]}``). The detector, taught mostly rank glyphs, scores the
            Joker marks of designs it was not taught low (a ringed star: 0.01-0.5) where the
            classifier still names them surely. Offered, not counted: the print and patterns
            of a table, which the detector also scores low, are sometimes named Jokers too.
        joker_like_min: A located index whose look (the classifier's features) is at least
            this alike (the members' mean cosine) to the game's own Joker (``joker_look``)
            is read as a Joker, however its classifier reads it and however low its
            detector score (down to the floor of what the look locates).
        joker_look: The deck's own Joker, as the players showed it
            (:class:`~onze_vision.jokers.JokerLook`, :meth:`for_deck`); None: not shown.
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
    step_back: float = 0.0
    balance_from: float = 0.0
    balance_max_gain: float = 3.0
    blur_warn_from: float = 0.0
    undo_shake: bool = False
    mirror_below: float = 0.0
    code_weights: tuple[tuple[str, float], ...] = ()
    maybe_floors: tuple[tuple[str, float, float], ...] = ()
    check_floors: tuple[tuple[str, float], ...] = ()
    joker_like_min: float = 0.85
    joker_look: JokerLook | None = None

    def __post_init__(self) -> None:
        # "not (low <= value <= high)" rather than "value < low": NaN is refused too.
        for name in ("conf_threshold", "iou_threshold", "min_class_prob"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {getattr(self, name)}")
        for name in ("nested_overlap", "pair_min_agreement", "reread_below", "index_aspect"):
            # Above 1 means "never" for the first three (see their attributes).
            if not getattr(self, name) >= 0.0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not self.imgsz >= 1:
            raise ValueError(f"imgsz must be >= 1, got {self.imgsz}")
        if not self.decode_factor > 0:
            raise ValueError(f"decode_factor must be > 0, got {self.decode_factor}")
        for name in ("pair_max_angle", "side_max_angle"):
            if not 0.0 <= getattr(self, name) <= 180.0:
                raise ValueError(f"{name} must be between 0 and 180 degrees, got {getattr(self, name)}")
        if not -1.0 <= self.pair_max_dot <= 1.0:
            raise ValueError(f"pair_max_dot must be between -1 and 1, got {self.pair_max_dot}")
        if not 0.0 <= self.pair_distance[0] <= self.pair_distance[1]:
            raise ValueError(f"pair_distance must be (min, max) with 0 <= min <= max, got {self.pair_distance}")
        for code, weight in self.code_weights:
            if code not in CARD_CODES:
                raise ValueError(f"code_weights: {code!r} is not a card code")
            if not weight > 0 or not math.isfinite(weight):
                raise ValueError(f"code_weights: the weight of {code!r} must be a positive number, got {weight}")
        for code, floor in self.check_floors:
            if code not in CARD_CODES:
                raise ValueError(f"check_floors: {code!r} is not a card code")
            if not 0.0 <= floor <= 1.0:
                raise ValueError(f"check_floors: the floor of {code!r} must be between 0 and 1, got {floor}")
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
        if self.step_back != 0 and not self.step_back > 1:
            raise ValueError(f"step_back must be 0 (never) or above 1, got {self.step_back}")
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
        for name in ("unsure_below", "alternative_min", "check_below", "maybe_conf", "maybe_prob", "zoom_floor",
                     "mirror_below", "joker_like_min"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {getattr(self, name)}")

    def for_deck(self, corners: str, joker: JokerLook | None = None) -> DetectorConfig:
        """This config for a deck whose cards carry an index in ``corners`` corners (see
        :data:`DECK_CORNERS`): "two" joins a card's corners on its diagonal only, "four" along
        every link in every photo (``four_corner_deck``), "auto" leaves it as it is; and
        whose Joker looks as ``joker`` (``joker_look``), where the players showed it.

        Raises:
            UnknownDeckCornersError: ``corners`` is none of those.
        """
        said = corners.strip().lower() if isinstance(corners, str) else corners   # "Four" as get_variant reads "Once"
        if said not in DECK_CORNERS:
            raise UnknownDeckCornersError(
                f"a deck's indices are in 'two' or 'four' corners (or 'auto': tell from the photo), "
                f"not {quoted(corners)}")
        config = self if joker is None else replace(self, joker_look=joker)
        if said == "two":
            return replace(config, four_corners=False, four_corner_deck=False)
        if said == "four":
            return replace(config, four_corners=True, four_corner_deck=True)
        return config

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> DetectorConfig:
        """Build a config from a mapping: keys as ``detector.json`` writes them (a field's
        name, or its alias in :data:`CONFIG_KEYS`); a key whose value is null keeps the
        default, and the notes of :data:`NOTE_KEYS` are skipped.

        Raises:
            UnknownConfigKeyError: A key is none of those (it names the closest ones).
        """
        known = {f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in values.items():
            if key in NOTE_KEYS:
                continue
            if CONFIG_KEYS.get(key, key) not in known:
                raise UnknownConfigKeyError(_unknown_key_message(key, known | set(CONFIG_KEYS)))
            key = CONFIG_KEYS.get(key, key)
            if value is None:
                continue
            if key == "imgsz":
                value = int(value[0] if isinstance(value, (list, tuple)) else value)
            elif key in ("zoom_tiles", "zoom_blind_tiles"):
                value = int(value)
            elif key in ("crop_turns", "four_corners", "four_corner_deck", "mirrored_look", "undo_shake"):
                if not isinstance(value, bool):
                    raise TypeError(f"{key} must be true or false, got {value!r}")
            elif key in ("center_offset", "pair_distance"):
                value = (float(value[0]), float(value[1]))
            elif key == "joker_look":
                value = JokerLook.from_text(value)
            elif key == "code_weights":
                if not isinstance(value, (dict, list, tuple)):
                    raise TypeError(f'code_weights must be an object of code: weight (e.g. {{"JK": 3.0}}), got {value!r}')
                pairs = value.items() if isinstance(value, dict) else value
                value = tuple((str(code), float(weight)) for code, weight in pairs)
            elif key == "check_floors":
                if not isinstance(value, dict):
                    raise TypeError(f'check_floors must be an object of code: confidence (e.g. {{"JK": 0.6}}), '
                                    f'got {value!r}')
                value = tuple((str(code), float(floor)) for code, floor in value.items())
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


def _unknown_key_message(key: str, known: set[str]) -> str:
    """What to say of a config key that sets nothing: the key, and the keys it is closest to."""
    close = difflib.get_close_matches(str(key), sorted(known), n=3)
    hint = f"; did you mean {' or '.join(repr(name) for name in close)}?" if close else ""
    return f"unknown key {key!r}: it sets nothing{hint}"
