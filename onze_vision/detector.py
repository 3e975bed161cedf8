"""Read the cards in a photo: corner-index detector + index classifier, then pairing.

Pipeline (all numpy / OpenCV / onnxruntime; no torch):

1. :func:`~onze_vision.imageio.load_image` decodes the photo reduced, keeping its long
   side >= ``decode_factor`` x the detector's input size. A photo in bad light (a warm
   lamp, a dim room) has its channels scaled so the cards' white is white
   (:mod:`onze_vision.light`, ``balance_from``).
2. The image is letterboxed (grey 114) to the detector's square input, as Ultralytics does.
3. The one-class detector finds corner indices; confidence threshold + numpy NMS. Where
   they are small at its input (a far shot of a large photo), it looks again at their part
   of the photo, decoded finer and in tiles (:func:`~onze_vision.looks.plan_closer_look`).
4. Each box is cut with :func:`~onze_vision.indexcrop.crop_index` from the decoded image
   (more pixels than the letterboxed one) and the crops are classified together: 53
   codes + "none", and the card's ``down`` direction as the index reads. Up to two more
   calls of the classifier follow: the crops of the boxes a mirrored look found (a
   four-corner deck, ``mirrored_look``), mirrored, for their ``down``; and, after step 5,
   the turned crops (and moved ones, where ``crop_shift`` says;
   :func:`~onze_vision.indexcrop.reading_views`) of every index still read unsure, whose
   readings are averaged with the first. A photo that
   shows a four-corner deck is looked at again mirrored and its boxes named again; a
   box the first naming read is not read twice (:class:`ReadingMemo`).
5. :func:`~onze_vision.pairing.read_corners_together`: two indices that sit on one
   card's diagonal and whose readings can agree are read as one card, each with the
   product of their probabilities (a sharp corner outvotes its blurred partner). Where
   the players showed the deck's own Joker (``joker``, :mod:`onze_vision.jokers`), an
   index whose crop looks like it to the classifier is read as a Joker.
6. Of nested boxes (one index boxed whole and again as its rank glyph alone, an overlap
   NMS by IoU lets through) only the most confident stays.
7. :func:`~onze_vision.pairing.pair_indices` joins the corner indices of one physical
   card. In a photo without colour (:func:`~onze_vision.imageio.is_colourless`) each
   card offers its rank in the other colour (:func:`~onze_vision.pairing.other_colour`):
   there red and black suits look alike.
8. Two second readings, each kept only where it reads surer: a photo reported blurred is
   read with its straight shake undone (:mod:`onze_vision.deblur`, ``undo_shake``); a
   photo that reads weakly, or shows a four-corner deck no one said, is read flipped left
   to right, for a selfie camera or a webcam that saved it mirrored (``mirror_below``).

How index detections become cards (which corners are one card's, two identical cards
from two decks, decks with an index in all four corners) is :mod:`onze_vision.pairing`;
which Joker corners are one Joker, :mod:`onze_vision.joker_corners`; where a far shot is
looked at again, :mod:`onze_vision.looks`; the tuning constants,
:mod:`onze_vision.detector_config`.
"""

from __future__ import annotations

import ast
import hashlib
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from onze_vision.cards import CARD_CODES, JOKER_CODE
from onze_vision.detections import Detections, non_max_suppression
from onze_vision.detector_config import (
    CLASSIFIER_FILE,
    CONFIG_FILE,
    DECK_CORNERS,
    DETECTOR_FILE,
    DetectorConfig,
    InvalidModelError,
    ModelNotFoundError,
    UnknownDeckCornersError,
)
from onze_vision.deblur import estimate_shake, undo_shake
from onze_vision.imageio import ImageSource, InvalidImageError, LoadedImage, decode_finer, is_colourless, load_image
from onze_vision.indexcrop import (
    CROP_SIZE,
    NONE_CLASS,
    crop_index,
    crop_view,
    crops_to_tensor,
    reading_views,
    turn_back,
)
from onze_vision.joker_corners import (
    TELLS_DOWN_MIN,
    corner_distance,
    jokers_turned_as_pairs,
    one_box_per_spelt_joker,
    read_as_the_decks_joker,
)
from onze_vision.jokers import JokerLook, JokerLookMismatchError, NoJokerFoundError, likeness_between
from onze_vision.light import apply_gains, light_gains
from onze_vision.looks import CloserLook, plan_blind_look, plan_closer_look
from onze_vision.messages import listed
from onze_vision.pairing import (
    CornerGrouping,
    DetectedCard,
    card_corner_distance,
    index_size,
    pair_grouping,
    pair_groups,
    pair_indices,
    possibly_missed,
    read_corners_together,
    split_at_operating_point,
    unit_vectors,
)
from onze_vision.sharpness import GAUGE_FILE, BlurGauge

#: The long side, in pixels, at most, that a blurred photo's shake is undone and read again at.
UNSHAKE_SIDE = 1024



#: The models folder of a checkout (a clone, or an editable install).
CHECKOUT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
#: Where pyproject.toml's data-files put the models, relative to the install prefix.
INSTALLED_MODELS = ("share", "onze-vision", "models")


def recorded_model_dir(name: str = "onze-vision") -> Path | None:
    """The models folder this distribution's RECORD lists, or None (not installed, or without them).

    ``pip install --user`` and ``pip install --prefix P`` (used through PYTHONPATH) put the
    data files under a prefix that is not ``sys.prefix``; the installer's RECORD says where.
    """
    from importlib.metadata import PackageNotFoundError, distribution   # only when the checkout has none

    try:
        files = distribution(name).files or []
    except PackageNotFoundError:
        return None
    wanted = "/".join((*INSTALLED_MODELS, DETECTOR_FILE))
    for file in files:
        if file.as_posix().endswith(wanted):
            return Path(os.path.normpath(file.locate())).parent
    return None


def default_model_dir(checkout: Path = CHECKOUT_MODEL_DIR, prefix: str = sys.prefix,
                      recorded: Callable[[], Path | None] = recorded_model_dir) -> Path:
    """Where the shipped models are: ``$ONZE_VISION_MODELS``, else the checkout's ``models/``,
    else where ``pip install .`` put them (the prefix this distribution's RECORD names, else
    ``<sys.prefix>/share/onze-vision/models``; see ``pyproject.toml``)."""
    if os.environ.get("ONZE_VISION_MODELS"):
        return Path(os.environ["ONZE_VISION_MODELS"])
    if (checkout / DETECTOR_FILE).exists():
        return checkout
    # The RECORD first: it belongs to the distribution found on sys.path, as the code does,
    # where <sys.prefix>/share may hold another install's models (a venv under a --user one).
    for installed in (recorded(), Path(prefix).joinpath(*INSTALLED_MODELS)):
        if installed is not None and (installed / DETECTOR_FILE).exists():
            return installed
    return checkout   # the error will name the checkout's folder


#: Where the shipped models live (see :func:`default_model_dir`).
DEFAULT_MODEL_DIR = default_model_dir()
#: The classifier's 54 outputs: the 53 card codes, then "none" (not an index).
CLASS_NAMES: tuple[str, ...] = (*CARD_CODES, NONE_CLASS)

#: Timing keys filled by :meth:`CardDetector.read_indices` / :meth:`CardDetector.detect_cards`.
#: "classifier" also holds the blur gauge's time (a third network, run on the classifier's
#: crops): it has no key of its own.
TIMING_KEYS = ("decode", "preprocess", "detector", "classifier", "postprocess")


@dataclass(frozen=True)
class PhotoReading:
    """The cards read from one photo.

    Attributes:
        width: Full-photo width (after EXIF rotation).
        height: Full-photo height.
        cards: One entry per physical card, left to right.
        timings: Milliseconds per stage (see :data:`TIMING_KEYS`).
        maybe: Cards possibly missed: read below the operating point, on no card read
            (:func:`~onze_vision.pairing.possibly_missed`), for the player to confirm; never scored unasked.
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
        unshaken: The photo was blurred, and the cards are those read after a straight
            shake was undone (:mod:`~onze_vision.deblur`; ``undo_shake``), which read
            surer than the photo as taken; it is still ``blurred``.
        mirrored: The photo reads surer mirrored left to right (``mirror_below``): a selfie
            camera or a webcam saved it as a mirror shows it. The cards are those read on
            it mirrored back, their boxes on the photo as it is.
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
    unshaken: bool = False
    mirrored: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"width", "height", "cards": [...]}``, plus ``"maybe": [...]`` when
        there are any, ``"colourless": true`` for a photo without colour and
        ``"light_gains": {"red", "green", "blue"}`` for one whose light was evened out,
        ``"blurred": true`` with its ``"smear"`` for one too blurred to trust (and
        ``"unshaken": true`` where its cards were read with the shake undone),
        ``"four_corner_deck": true`` for one that shows a deck with an index in all four
        corners, and ``"mirrored": true`` for one read mirrored back."""
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
        if self.unshaken:
            out["unshaken"] = True
        if self.four_corner_deck:
            out["four_corner_deck"] = True
        if self.mirrored:
            out["mirrored"] = True
        return out


#: The grey a letterbox pads with (Ultralytics' own): what the detector learned as "no photo here".
LETTERBOX_GREY = (114, 114, 114)


def letterbox(image: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Resize keeping the aspect ratio and pad with grey 114 to ``size`` (h, w), like Ultralytics.

    Returns:
        The padded image, the resize ratio and the (left, top) padding.
    """
    height, width = image.shape[:2]
    ratio = min(size[0] / height, size[1] / width)
    # At least a pixel each way: a long thin strip must not vanish into a zero-sized resize.
    new_w, new_h = max(1, round(width * ratio)), max(1, round(height * ratio))
    if (new_w, new_h) != (width, height):
        interpolation = cv2.INTER_AREA if ratio < 1 else cv2.INTER_LINEAR
        image = cv2.resize(image, (new_w, new_h), interpolation=interpolation)
    pad_w, pad_h = (size[1] - new_w) / 2, (size[0] - new_h) / 2
    top, bottom = round(pad_h - 0.1), round(pad_h + 0.1)
    left, right = round(pad_w - 0.1), round(pad_w + 0.1)
    padded = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=LETTERBOX_GREY)
    return padded, ratio, (left, top)


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
        return boxes[np.asarray((boxes.wh >= 1.0).all(axis=1))]


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


#: A classifier reading: (probabilities [54], the way down [2], the look: its ``features``,
#: empty from an export without them) of one crop.
Reading = tuple[np.ndarray, np.ndarray, np.ndarray]
#: The readings of an index's extra views, summed: (probabilities [54], ways down [2]).
ViewSums = tuple[np.ndarray, np.ndarray]


class ReadingMemo:
    """The classifier's readings within one read of a photo, by the box read and the image
    it was cut from (this very object): a photo looked at again mirrored (a four-corner
    deck) has only the boxes that look added cut and named, not all of them again (a
    third of such a photo's time went to naming the same boxes twice)."""

    def __init__(self) -> None:
        self._image: np.ndarray | None = None  # kept alive, so an object's identity is never reused
        self.crops: dict[bytes, np.ndarray] = {}
        self.centred: dict[bytes, Reading] = {}
        self.mirrored: dict[bytes, Reading] = {}  # the crop read mirrored (for its way down)
        self.more_views: dict[bytes, ViewSums] = {}  # summed over the extra views (``_read_again``)
        self.ways_down_agree: dict[bytes, float] = {}  # how well a Joker corner tells its way down

    def keys(self, image: np.ndarray, xyxy: np.ndarray) -> list[bytes]:
        """Each box's key; readings of another image than the last are forgotten."""
        if image is not self._image:
            self._image = image
            for table in (self.crops, self.centred, self.mirrored, self.more_views, self.ways_down_agree):
                table.clear()
        return [box.tobytes() for box in np.ascontiguousarray(xyxy, np.float32)]


class CardDetector:
    """The ONNX models (the index detector, the index classifier and, where it is there, the
    blur gauge), loaded once; :meth:`detect_cards` is safe to call from many threads.

    Args:
        model_dir: Folder with ``index_detector.onnx``, ``index_classifier.onnx`` and
            (optional) ``blur_gauge.onnx`` and ``detector.json``.
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
                f"or name a folder that has them: --models, or ONZE_VISION_MODELS)"
            )
        base = config or DetectorConfig.from_json(self.model_dir / CONFIG_FILE)
        self._indices = IndexDetector(paths[0], base.imgsz, threads)
        self._classifier = _session(paths[1], threads)
        self._classifier_path = paths[1]
        self.input_size = self._indices.input_size
        # The input size the export records wins over the config's (see ``imgsz``).
        self.config = replace(base, imgsz=max(self.input_size))
        self._check_classifier()
        gauge = self.model_dir / GAUGE_FILE
        self._gauge = self._load_gauge(gauge) if gauge.exists() else None
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
    def _load_gauge(path: Path) -> BlurGauge:
        """The blur gauge's session, on one thread: a third session's pool of spinning
        threads cost 18 ms a photo on two cores (measured); the gauge's 32 crops take about
        2 ms on one."""
        try:
            return BlurGauge(_session(path, 1))
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
        # How a crop looks (a deck's own Joker is matched by it): exports since 29 Nov 2026.
        self.looks_width, self.looks_id = 0, ""
        if "features" in outputs:
            width = self._classifier.get_outputs()[outputs.index("features")].shape[-1]
            self.looks_width = width if isinstance(width, int) else 0
            self._classifier_outputs.append("features")
            # Which network's features they are: another one's, even as wide, mean something else.
            self.looks_id = hashlib.sha256(self._classifier_path.read_bytes()).hexdigest()[:16]
        batch = inputs[0].shape[0]
        self._classifier_batch = batch if isinstance(batch, int) and batch > 0 else None
        crop = inputs[0].shape[2:]
        if all(isinstance(v, int) for v in crop) and tuple(crop) != (CROP_SIZE, CROP_SIZE):
            raise InvalidModelError(
                f"classifier input must be [N, 3, {CROP_SIZE}, {CROP_SIZE}], got {inputs[0].shape}")

    def read_indices(
        self,
        src: ImageSource | LoadedImage,
        *,
        conf_threshold: float | None = None,
        min_class_prob: float | None = None,
        timings: dict[str, float] | None = None,
        joker: JokerLook | None = None,
    ) -> Detections:
        """Detect and name every corner index (before pairing).

        Args:
            src: Anything :func:`load_image` takes, or an already loaded image.
            conf_threshold: Override of the detector score threshold (e.g. 0.001 for mAP).
            min_class_prob: Override of the classifier probability threshold.
            timings: When given, filled with milliseconds per stage.
            joker: The deck's own Joker (:meth:`learn_joker`), where the players showed it.

        Returns:
            Boxes in full-photo pixels; ``class_id`` indexes :data:`CARD_CODES`;
            ``confidence`` = detector score x code probability; ``data`` holds ``down``
            [N, 2], ``det_score``, ``class_prob`` and ``probs`` [N, 54] (every code's
            probability, after the joint reading of a card's corners). Crops the
            classifier calls "none" are dropped.
        """
        deck = self.config.for_deck("auto", self._fitting(joker))
        return self._read(src, conf_threshold, min_class_prob, timings, gauge=False, deck=deck)[1]

    def detect_cards(self, src: ImageSource | LoadedImage, *, corners: str = "auto",
                     joker: JokerLook | None = None) -> PhotoReading:
        """Read one photo: one :class:`DetectedCard` per physical card.

        Args:
            src: Anything :func:`load_image` takes, or an already loaded image.
            corners: Which corners of the deck's cards carry an index, where the player
                knows (:data:`DECK_CORNERS`, :meth:`DetectorConfig.for_deck`): a four-corner
                card whose top strip alone shows is one card only when the deck is known
                to be, or the photo shows it.
            joker: The deck's own Joker (:meth:`learn_joker`), where the players showed it:
                an index that looks like it is read as a Joker (``joker_like_min``).

        Raises:
            InvalidImageError: The input is not a readable photo.
            UnknownDeckCornersError: ``corners`` is not one of :data:`DECK_CORNERS`.
            JokerLookMismatchError: ``joker`` was learned with another classifier.
        """
        # Before the photo is read: a bad value costs nothing.
        deck = self.config.for_deck(corners, self._fitting(joker))
        timings: dict[str, float] = {}
        loaded, indices, candidates, gains, smear = self._read(src, None, None, timings, deck=deck)
        blurred = smear is not None and 0 < self.config.blur_warn_from <= smear
        light = None if gains is None else (float(gains[2]), float(gains[1]), float(gains[0]))
        reading = self._reading(loaded, indices, candidates, deck, timings, light, smear, blurred)
        if blurred and self.config.undo_shake:
            # Read again with a straight shake undone; kept only where it reads surer (a curved
            # shake or a lens out of focus is no straight smear, and undoing one reads worse).
            again = self._read_unshaken(loaded, deck, timings)
            if again is not None:
                unshaken = self._reading(loaded, *again, deck, timings, light, smear, blurred, unshaken=True)
                if _sureness(unshaken.cards) > _sureness(reading.cards):
                    reading = unshaken
        if self.config.mirror_below and _may_be_mirrored(reading, deck):
            mirrored = self._read_mirrored(loaded, deck, timings, light, smear, blurred)
            if _reads_better_mirrored(reading, mirrored):
                reading = mirrored
        return reading

    def learn_joker(self, src: ImageSource | LoadedImage) -> JokerLook:
        """The look of the deck's Joker in a photo of it (one Joker, its corners in view).

        The corners are the indices read as a Joker; where none is (a Joker the networks
        were never taught), the two the detector is surest of, unless the photo shows
        another card surely read: then it is not a photo of the Joker. Boxes that look like
        those corners (``joker_like_min``) are its corners too (one corner may be read as
        a Joker, the other not), and the two surest say how far apart they lie (for a
        mark that reads the same every way up, :meth:`_stars_paired`).

        Raises:
            InvalidImageError: The input is not a readable photo.
            NoJokerFoundError: No corner is found, or the photo shows other cards and no Joker.
            InvalidModelError: The classifier gives no looks (an export before 29 Nov 2026).
        """
        if not self.looks_width:
            raise InvalidModelError("this classifier gives no looks of its crops ('features'): export it again "
                                    "with this version (onze-vision train) to learn a deck's Joker")
        config = self.config
        loaded, gains = self._evened(src, config)
        # Located as a photo is, down to the floor a Joker is offered at (``maybe_floors``).
        image, _, boxes = self._look(loaded, _look_floors(config, config.conf_threshold)[1], _Stopwatch(None), gains)
        probs, down, looks = self._classify(crops_to_tensor([crop_index(image, box) for box in boxes.xyxy]))
        code = probs.argmax(axis=1) if len(probs) else np.zeros(0, np.int64)
        jokers = np.flatnonzero(code == CARD_CODES.index(JOKER_CODE))
        if not len(jokers):
            other = (code < CARD_CODES.index(JOKER_CODE)) & (boxes.confidence >= config.conf_threshold) & (
                probs.max(axis=1) >= config.unsure_below)
            if other.any():
                seen = sorted({CARD_CODES[c] for c in code[other]})
                raise NoJokerFoundError(f"the photo shows {listed(seen)}, and no Joker: photograph one Joker "
                                        "alone, its corners in view")
            if not len(boxes):
                raise NoJokerFoundError("no card corner is found in the photo: photograph one Joker alone, its "
                                        "corners in view and sharp, filling a good part of the photo")
            jokers = np.argsort(-boxes.confidence)[:2]
        # Its other corner, where the classifier reads that one otherwise: the box that looks alike.
        alike = JokerLook.from_features(looks[jokers]).similarity(looks) >= config.joker_like_min
        corners = np.union1d(jokers, np.flatnonzero(alike))
        two = corners[np.argsort(-boxes.confidence[corners])[:2]]
        return JokerLook.from_features(looks[corners], corner_distance(boxes.xyxy[two]), self.looks_id)

    def _ways_down_agree(self, tensor: np.ndarray, keys: Sequence[bytes], memo: ReadingMemo) -> np.ndarray:
        """How well each mark tells its way down (rows of ``tensor``, the centred crops of
        ``keys``): read from its crop turned a quarter turn at a time and turned back, the
        length of its ways down's mean (1: all four agree). A star reads the same every way
        up, and its way down is anyone's guess; JOKER spelt down a corner tells it as a rank
        does. The upright way is the centred reading already in ``memo``; a box already
        asked in it is not asked again (a photo named twice)."""
        todo = [i for i, key in enumerate(keys) if key not in memo.ways_down_agree]
        if todo:
            # Turning the classifier's input turns the crop: the same pixels, no new cut.
            turned = np.concatenate([np.rot90(tensor[todo], turns, axes=(2, 3)) for turns in (1, 2, 3)])
            _, down, _ = self._classify(np.ascontiguousarray(turned))
            upright = np.stack([memo.centred[keys[i]][1] for i in todo])
            ways = np.concatenate([upright[None], down.reshape(3, len(todo), 2)]).transpose(1, 0, 2)
            back = turn_back(ways, np.arange(4))
            agree = np.linalg.norm(unit_vectors(back).mean(axis=1), axis=1)
            memo.ways_down_agree.update(zip([keys[i] for i in todo], agree.tolist()))
        return np.array([memo.ways_down_agree[key] for key in keys], np.float64)

    def _stars_paired(self, tensor: np.ndarray, keys: Sequence[bytes], memo: ReadingMemo, xyxy: np.ndarray,
                      down: np.ndarray, looks: np.ndarray, jokers: np.ndarray, joint: np.ndarray, score: np.ndarray,
                      config: DetectorConfig) -> tuple[np.ndarray, np.ndarray]:
        """``down`` with the ways down of the Joker corners ``jokers`` (a mask over ``xyxy``)
        set to pair them by how far apart they lie, where in this photo their marks tell no
        way down (:meth:`_ways_down_agree`, on the mean under :data:`TELLS_DOWN_MIN`): as far
        apart as the photo's other cards' two corners
        (:func:`~onze_vision.pairing.card_corner_distance`; one deck, one size), or where no
        other card shows both, as the game's Joker look says (``corner_distance``). A star
        read as two Jokers, one per corner, is one Joker. Two corners pair so only where they
        look alike (``joker_like_min``; two decks' Jokers differ) and not both tell their
        way down (two lettered Jokers side by side would pair at a card's distance too).

        The photo is asked, not the Joker's look alone: one photo may err (tigullio's star
        told its way down in one of four photos of it).

        Also returns which boxes are Joker corners that could have paired and were paired by
        chance, for want of any distance to pair them by (their count is unsure,
        :attr:`~onze_vision.pairing.DetectedCard.count_unsure`)."""
        guessed = np.zeros(len(xyxy), bool)
        if jokers.sum() < 2:
            return down, guessed
        agree = self._ways_down_agree(tensor[jokers], [key for key, joker in zip(keys, jokers) if joker], memo)
        if agree.mean() >= TELLS_DOWN_MIN:
            return down, guessed
        others = ~jokers
        pixels = card_corner_distance(xyxy[others], joint[others], down[others], score[others], config)
        mark_sizes = config.joker_look.corner_distance if config.joker_look is not None else None
        may_pair = agree[:, None] < TELLS_DOWN_MIN
        may_pair = may_pair | may_pair.T
        if looks.shape[1]:
            may_pair &= likeness_between(looks[jokers]) >= config.joker_like_min
        np.fill_diagonal(may_pair, False)
        if pixels is None and mark_sizes is None:
            guessed[np.flatnonzero(jokers)] = may_pair.any(axis=1)
        return jokers_turned_as_pairs(xyxy, down, jokers, mark_sizes, config, pixels, may_pair), guessed

    def _evened(self, src: ImageSource | LoadedImage,
                config: DetectorConfig) -> tuple[LoadedImage, np.ndarray | None]:
        """The photo decoded as it is read (``decode_factor``), its light evened out where it
        needs it, and the light gains (B, G, R) or None."""
        loaded = src if isinstance(src, LoadedImage) else load_image(
            src, max_side=math.ceil(config.decode_factor * max(self.input_size)))
        gains = self.gains_for_light(loaded.image)
        if gains is not None:
            loaded = replace(loaded, image=apply_gains(loaded.image, gains))
        return loaded, gains

    def _fitting(self, joker: JokerLook | None) -> JokerLook | None:
        """``joker``, refused where the classifier cannot match it."""
        if joker is not None and (joker.size, joker.classifier) != (self.looks_width, self.looks_id):
            raise JokerLookMismatchError(
                f"this Joker's look was taken with another classifier ({joker.classifier or 'unsaid'}, "
                f"{joker.size} values; this one is {self.looks_id or 'without looks'}, {self.looks_width}): "
                "show the app the deck's Joker again")
        return joker

    def _reading(self, loaded: LoadedImage, indices: Detections, candidates: Detections, deck: DetectorConfig,
                 timings: dict[str, float], light: tuple[float, float, float] | None, smear: float | None,
                 blurred: bool, unshaken: bool = False) -> PhotoReading:
        """The photo's reading from its named indices: paired into cards, with the cards possibly missed."""
        start = time.perf_counter()
        colourless = is_colourless(loaded.image)
        grouping = pair_grouping(indices, deck)
        cards = pair_indices(indices, deck, colourless, grouping)
        maybe = possibly_missed(indices, candidates, deck)
        timings["postprocess"] += (time.perf_counter() - start) * 1000
        return PhotoReading(loaded.width, loaded.height, cards, timings, maybe, colourless, light, smear, blurred,
                            grouping.four_corner_deck_seen, unshaken)

    def _read_mirrored(self, loaded: LoadedImage, deck: DetectorConfig, timings: dict[str, float],
                       light: tuple[float, float, float] | None, smear: float | None,
                       blurred: bool) -> PhotoReading:
        """The reading of ``loaded`` mirrored left to right, its boxes put back on the photo
        as it is (``mirrored`` set)."""
        start = time.perf_counter()
        # No encoded bytes: a closer look must look at these pixels, not decode the photo again.
        flipped = LoadedImage(np.ascontiguousarray(loaded.image[:, ::-1]), loaded.width, loaded.height,
                              loaded.scale, loaded.format, loaded.orientation)
        timings["preprocess"] += (time.perf_counter() - start) * 1000
        _, indices, candidates, _, _ = self._read(flipped, None, None, timings, gauge=False, deck=deck)
        reading = self._reading(flipped, indices, candidates, deck, timings, light, smear, blurred)

        def put_back(cards: list[DetectedCard]) -> list[DetectedCard]:
            return [replace(card, box=(loaded.width - card.box[2], card.box[1], loaded.width - card.box[0],
                                       card.box[3])) for card in cards]

        # Left to right on the photo as it is, as every reading lists its cards.
        cards = sorted(put_back(reading.cards), key=lambda card: (card.box[0], card.box[1]))
        return replace(reading, cards=cards, maybe=put_back(reading.maybe), mirrored=True)

    def _read_unshaken(self, loaded: LoadedImage, deck: DetectorConfig,
                       timings: dict[str, float]) -> tuple[Detections, Detections] | None:
        """The named indices and candidates of ``loaded`` (as read, its light evened out) with
        the straight shake its cepstrum shows undone, at most :data:`UNSHAKE_SIDE` pixels
        long; None where it shows none."""
        start = time.perf_counter()
        image, scale = loaded.image, loaded.scale
        factor = UNSHAKE_SIDE / max(image.shape[:2])
        if factor < 1:  # a HEIC or PNG decoded whole: the filter's FFTs grow with the pixels
            image = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
            scale *= image.shape[1] / loaded.image.shape[1]
        shake = estimate_shake(image)
        if shake is not None:
            image = undo_shake(image, shake)
        timings["preprocess"] += (time.perf_counter() - start) * 1000
        if shake is None:
            return None
        # No encoded bytes: a closer look must look at these pixels, not decode the shaken ones again.
        unshaken = LoadedImage(image, loaded.width, loaded.height, scale, loaded.format, loaded.orientation)
        _, indices, candidates, _, _ = self._read(unshaken, None, None, timings, gauge=False, deck=deck)
        return indices, candidates

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

        loaded, gains = self._evened(src, config)
        clock.lap("decode")

        common_floor, floor = _look_floors(config, conf)
        # A deck said to have four corners is looked at mirrored at once; one the photo shows
        # (with the indices the first look found) is looked at again, mirrored.
        mirrored = config.mirrored_look and config.four_corners and config.four_corner_deck
        memo, readings = LookMemo(), ReadingMemo()
        image, scale, boxes = self._look(loaded, floor, clock, gains, mirrored, memo)
        found, crops = self._name(image, scale, boxes, config, clock, readings)
        if config.mirrored_look and not mirrored and self._shows_four_corner_deck(found, config):
            image, scale, boxes = self._look(loaded, floor, clock, gains, True, memo)
            found, crops = self._name(image, scale, boxes, config, clock, readings)
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
        indices = one_box_per_spelt_joker(indices.without_nested(config.nested_overlap))
        candidates = candidates.without_nested(config.nested_overlap)
        clock.lap("postprocess")
        return loaded, indices, candidates, gains, smear

    def _name(self, image: np.ndarray, scale: float, boxes: Detections, config: DetectorConfig,
              clock: _Stopwatch, memo: ReadingMemo | None = None) -> tuple[Detections, np.ndarray]:
        """Name the located ``boxes`` (pixels of ``image``, ``scale`` of them per full-photo
        pixel): (the indices named a code, in full-photo pixels, at every score; their
        centred crops, for the blur gauge). Boxes read as "none" are dropped. ``memo``
        keeps each box's crop and readings for a second naming of the same photo."""
        memo = memo or ReadingMemo()
        xyxy = boxes.xyxy
        keys = memo.keys(image, xyxy)
        new = [i for i, key in enumerate(keys) if key not in memo.crops]
        memo.crops.update(zip([keys[i] for i in new], crops_to_tensor([crop_index(image, xyxy[i]) for i in new])))
        tensor = np.stack([memo.crops[key] for key in keys]) if keys else crops_to_tensor([])
        clock.lap("preprocess")

        probs, down, looks = self._classify_once(tensor, keys, memo.centred)
        # A top-right or bottom-left index's way down is read from its crop mirrored: the
        # classifier, taught the other two corners, bends it towards where their card edges
        # lie (four-tune960: 9 degrees off at the median, 2.8 mirrored); its code is read
        # as it is (mirrored glyphs read wrong).
        mirrored = np.flatnonzero(boxes.class_id == SEEN_MIRRORED)
        mirrored_down = None
        if len(mirrored):
            mirrored_down = self._classify_once(np.ascontiguousarray(tensor[mirrored][..., ::-1]),
                                                [keys[i] for i in mirrored], memo.mirrored)[1] * [-1.0, 1.0]
            down[mirrored] = mirrored_down
        # Unsure is judged after a card's two corners are read together: a corner its sure
        # partner settles needs no more views (most corners of a spread card).
        joint = self._weighed(read_corners_together(xyxy, probs, down, boxes.confidence, config))
        unsure = np.flatnonzero(joint.max(axis=1) < config.reread_below) if self._extra_views else np.zeros(0, np.intp)
        if len(unsure):
            self._read_again(image, xyxy, unsure, probs, down, [keys[i] for i in unsure], memo.more_views)
            if mirrored_down is not None:
                down[mirrored] = mirrored_down
            joint = self._weighed(read_corners_together(xyxy, probs, down, boxes.confidence, config))
        score = boxes.confidence
        jokers = joint.argmax(axis=1) == CARD_CODES.index(JOKER_CODE)
        if config.joker_look is not None and len(looks):
            likeness = config.joker_look.similarity(looks)
            jokers = likeness >= config.joker_like_min  # the game's Joker: these corners, however read
            joint, score = read_as_the_decks_joker(joint, score, likeness, jokers)
        down, guessed = self._stars_paired(tensor, keys, memo, xyxy, down, looks, jokers, joint, score, config)
        clock.lap("classifier")

        probs = joint
        code = probs.argmax(axis=1) if len(probs) else np.zeros(0, np.int64)
        prob = probs[np.arange(len(probs)), code]
        named = code < len(CARD_CODES)
        found = Detections(
            xyxy[named] / scale,
            score[named] * prob[named],
            code[named],
            {"down": down[named], "det_score": score[named], "class_prob": prob[named], "probs": probs[named],
             "count_unsure": guessed[named]},
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
        of the photo they lie in, enlarged and decoded finer (:func:`~onze_vision.looks.plan_closer_look`);
        its boxes replace those of the first look there. When it finds none at all, it
        first looks at the whole photo more closely (:func:`~onze_vision.looks.plan_blind_look`). A photo
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
        if config.step_back and not (boxes.confidence >= config.conf_threshold).any():
            # No sure index: perhaps a close-up, its indices larger than the detector was taught.
            # Seen smaller, they are found; the first look's boxes stay where these are not.
            # Only sure ones count: a far shot's indices, smaller still, must not stand in for
            # the closer and blind looks below.
            back = self._step_back(image, placing, clock, mirrored)
            if (back.confidence >= config.conf_threshold).any():
                boxes = Detections.merge([back, boxes])
                boxes = boxes[non_max_suppression(boxes.xyxy, boxes.confidence, config.iou_threshold)]
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

    def _step_back(self, image: np.ndarray, floor: float, clock: _Stopwatch, mirrored: bool) -> Detections:
        """The indices of ``image`` located with it seen ``step_back`` times smaller: padded on
        its right and bottom with the letterbox's grey, so its boxes keep its pixels."""
        height, width = image.shape[:2]
        grow = self.config.step_back - 1
        padded = cv2.copyMakeBorder(image, 0, round(height * grow), 0, round(width * grow), cv2.BORDER_CONSTANT,
                                    value=LETTERBOX_GREY)
        found = self.locate_indices(padded, floor, clock, mirrored)
        inside = (found.xyxy[:, 0] < width) & (found.xyxy[:, 1] < height)
        found = found[inside]
        return Detections(np.minimum(found.xyxy, [width, height, width, height]).astype(np.float32),
                          found.confidence, found.class_id)

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
            if x2 - x1 < 2 or y2 - y1 < 2:
                continue  # a tile of a long thin strip can round to nothing
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
                    probs: np.ndarray, down: np.ndarray, keys: Sequence[bytes],
                    summed: dict[bytes, ViewSums]) -> None:
        """Average ``probs[rows]`` and ``down[rows]`` (the centred readings of the boxes
        ``xyxy[rows]``) with those boxes' readings from the other views, in place. The
        views' sums are kept in ``summed`` by the rows' ``keys``, and taken from it."""
        views = self._extra_views
        todo = [(row, key) for row, key in zip(rows, keys) if key not in summed]
        if todo:
            crops = crops_to_tensor([crop_view(image_bgr, xyxy[row], view) for row, _ in todo for view in views])
            more_probs, more_down, _ = self._classify(crops)
            shape = (len(todo), len(views))
            # A turned crop's down is turned with it; the sum of unit vectors, renormalised, as the ensemble does.
            turns = np.array([view.turns for view in views])
            sums = zip(more_probs.reshape(*shape, -1).sum(axis=1), turn_back(more_down.reshape(*shape, 2), turns).sum(axis=1))
            summed.update(zip([key for _, key in todo], sums))
        probs[rows] = (probs[rows] + np.stack([summed[key][0] for key in keys])) / (1 + len(views))
        down[rows] = unit_vectors(down[rows] + np.stack([summed[key][1] for key in keys]))

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

    def _classify_once(self, tensor: np.ndarray, keys: Sequence[bytes],
                       readings: dict[bytes, Reading]) -> Reading:
        """:meth:`_classify` of ``tensor``, whose rows are the crops of ``keys``: a key
        already in ``readings`` is not read again, and a new one is kept there."""
        todo = [i for i, key in enumerate(keys) if key not in readings]
        if todo:
            readings.update(zip([keys[i] for i in todo], zip(*self._classify(tensor[todo]))))
        if not keys:
            return self._classify(tensor)
        return tuple(np.stack([readings[key][part] for key in keys]) for part in range(3))  # type: ignore[return-value]

    def _classify(self, tensor: np.ndarray) -> Reading:
        """Run the classifier (in chunks when the export has a fixed batch size): the crops'
        probabilities, ways down and looks (``features``; [N, 0] from an export without them)."""
        if len(tensor) == 0:
            return (np.zeros((0, len(CLASS_NAMES)), np.float32), np.zeros((0, 2), np.float32),
                    np.zeros((0, self.looks_width), np.float32))
        chunk = self._classifier_batch or len(tensor)
        probs_parts, down_parts, look_parts = [], [], []
        for start in range(0, len(tensor), chunk):
            part = tensor[start:start + chunk]
            real = len(part)
            if len(part) < chunk:  # fixed batch: pad with copies
                part = np.concatenate([part, np.repeat(part[-1:], chunk - real, axis=0)])
            probs, down, *look = self._classifier.run(self._classifier_outputs, {self._crops_input: part})
            probs_parts.append(probs[:real])
            down_parts.append(down[:real])
            look_parts.append(look[0][:real] if look else np.zeros((real, 0), np.float32))
        probs = np.concatenate(probs_parts).astype(np.float32)
        if probs.shape[1] != len(CLASS_NAMES):
            raise InvalidModelError(f"classifier gives {probs.shape[1]} classes; expected {len(CLASS_NAMES)}")
        if probs.min() < 0 or not np.allclose(probs.sum(axis=1), 1.0, atol=1e-3):
            probs = _softmax(probs)  # an export that left the softmax out
        return probs, np.concatenate(down_parts).astype(np.float32), np.concatenate(look_parts).astype(np.float32)


def _look_floors(config: DetectorConfig, conf: float) -> tuple[float, float]:
    """The detector scores a photo's indices are located down to: (every code's floor, the
    lowest of any code's). Candidates for "possibly missed" are located in the same pass, down
    to ``maybe_conf`` and the floors of ``maybe_floors``."""
    common = min(conf, config.maybe_conf) if config.maybe_conf > 0 else conf
    return common, min([common, *(score for _, score, _ in config.maybe_floors)])


def _may_be_mirrored(reading: PhotoReading, deck: DetectorConfig) -> bool:
    """Whether ``reading`` may be of a photo saved mirrored (``mirror_below``): no card read,
    its cards read unsure on the whole (their mean confidence; a mirror turns every index
    backwards, where a far shot reads only its smallest ones weakly), or a four-corner deck
    seen where none was said (a two-corner deck mirrored shows its indices in the other two
    corners)."""
    return (not reading.cards
            or sum(card.confidence for card in reading.cards) / len(reading.cards) < deck.mirror_below
            or (reading.four_corner_deck and not deck.four_corner_deck))


#: How sure a reading flipped back must be, as a share of the photo's own, to be taken
#: where the photo showed a four-corner deck and the flip shows a two-corner one.
_MIRROR_TIE = 0.95


def _reads_better_mirrored(reading: PhotoReading, mirrored: PhotoReading) -> bool:
    """Whether the photo read flipped back (``mirrored``) is to be kept: surer by
    :func:`_paired_sureness`, or nearly as sure and a two-corner deck where the photo as it
    is showed four corners (the common deck, seen in a mirror, is the likelier story). Never
    where the flip shows four corners and the photo as it is did not: that is the photo's own
    two-corner deck, mirrored by the flip (a grey or shaken photo's flip can read surer with
    a card's corners counted as two cards)."""
    if mirrored.four_corner_deck and not reading.four_corner_deck:
        return False
    flipped, as_it_is = _paired_sureness(mirrored.cards), _paired_sureness(reading.cards)
    if flipped > as_it_is:
        return True
    return reading.four_corner_deck and not mirrored.four_corner_deck and flipped >= _MIRROR_TIE * as_it_is


def _paired_sureness(cards: Sequence[DetectedCard]) -> float:
    """A reading's cards' confidences, each counted once per corner paired, up to two: a
    card's two corners join on its diagonal only the right way round, so the wrong way
    counts the same card's corners as two cards of one corner each."""
    return float(sum(card.confidence * min(card.corners, 2) for card in cards))


def _sureness(cards: Sequence[DetectedCard]) -> float:
    """How much a reading holds: the sum of its cards' confidences (a reading that finds
    more cards, or the same ones more surely, holds more)."""
    return float(sum(card.confidence for card in cards))


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


def detect_cards(src: ImageSource | LoadedImage, *, corners: str = "auto",
                 joker: JokerLook | None = None) -> PhotoReading:
    """Read the cards in one photo with the shared default detector (see
    :meth:`CardDetector.detect_cards`)."""
    return get_detector().detect_cards(src, corners=corners, joker=joker)


__all__: Sequence[str] = (
    "CARD_CODES", "DECK_CORNERS", "CardDetector", "DetectedCard", "DetectorConfig", "IndexDetector",
    "CornerGrouping", "InvalidImageError", "InvalidModelError", "JokerLook", "JokerLookMismatchError", "ModelNotFoundError",
    "NoJokerFoundError", "PhotoReading", "UnknownDeckCornersError",
    "default_model_dir", "detect_cards", "get_detector", "index_size", "letterbox", "pair_grouping", "pair_groups",
    "pair_indices", "recorded_model_dir",
)
