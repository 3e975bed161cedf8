"""The card detector: pipeline geometry (tiny fake ONNX models), the shipped models on real
photos, thread safety and the no-torch import. Pairing, looks and the config have their own
test modules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
import subprocess
import sys
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from onze_vision.detections import Detections, box_iou
from onze_vision.detector import (
    CARD_CODES,
    DEFAULT_MODEL_DIR,
    SEEN_MIRRORED,
    CardDetector,
    DetectorConfig,
    ModelNotFoundError,
    PhotoReading,
    ReadingMemo,
    UnknownDeckCornersError,
    _Stopwatch,
    letterbox,
)
from onze_vision.joker_corners import one_box_per_spelt_joker
from onze_vision.looks import plan_closer_look

from fake_models import SHIPPED, make_fake_models
from phone_photos import iphone_heic
from PIL import Image
from synthetic_indices import CONFIG, FOUR_CORNERS, card_indices, index_boxes

DATA = Path(__file__).parent / "data"


needs_models = pytest.mark.skipif(not SHIPPED, reason="models/ has no trained ONNX models yet")


@pytest.mark.parametrize("corners", ["three", "", "fours", None])
def test_a_deck_with_other_corners_is_refused(tmp_path: Path, corners: object) -> None:
    said = f"'two' or 'four' corners .*not {corners!r}"
    with pytest.raises(UnknownDeckCornersError, match=said):
        FOUR_CORNERS.for_deck(corners)  # type: ignore[arg-type]
    make_fake_models(tmp_path, [[100, 100, 20, 30, 0.9]], 320, "QH")
    with pytest.raises(UnknownDeckCornersError, match=said):
        CardDetector(tmp_path).detect_cards(b"not a photo: the deck is refused first", corners=corners)  # type: ignore[arg-type]


@pytest.mark.parametrize(("corners", "cards", "four_seen"), [("auto", 2, False), ("two", 2, False), ("four", 1, True),
                                                           (" Four ", 1, True)])
def test_the_detector_reads_a_photo_as_the_deck_is_said_to_be(tmp_path: Path, corners: str, cards: int,
                                                              four_seen: bool) -> None:
    # Two upright QH indices side by side: one four-corner card's top strip, or two cards.
    make_fake_models(tmp_path, [[100, 100, 20, 30, 0.9], [160, 100, 20, 30, 0.9]], 320, "QH")
    reading = CardDetector(tmp_path).detect_cards(np.full((320, 320, 3), 200, np.uint8), corners=corners)
    assert len(reading.cards) == cards and {c.card for c in reading.cards} == {"QH"}
    assert reading.four_corner_deck is four_seen
    assert reading.to_dict().get("four_corner_deck", False) is four_seen


@pytest.mark.parametrize(("maybe_conf", "offered"), [(0.0, []), (0.3, ["QH"]), (0.6, [])])
def test_the_detector_offers_indices_under_its_operating_point(tmp_path: Path, maybe_conf: float,
                                                              offered: list[str]) -> None:
    # A sure index and one at 0.4, far apart, under a detector confidence threshold of 0.5.
    make_fake_models(tmp_path, [[60, 60, 20, 30, 0.9], [260, 260, 20, 30, 0.4]], 320, "QH")
    config = replace(DetectorConfig(), conf_threshold=0.5, maybe_conf=maybe_conf, maybe_prob=0.2)
    reading = CardDetector(tmp_path, config=config).detect_cards(np.full((320, 320, 3), 200, np.uint8))
    assert [c.card for c in reading.cards] == ["QH"]                 # the operating point is unchanged
    assert [c.card for c in reading.maybe] == offered
    assert ("maybe" in reading.to_dict()) == bool(offered)


@pytest.mark.parametrize(("code", "score", "maybe_floors", "offered"), [
    ("JK", 0.1, (), []),                           # under maybe_conf: not offered
    ("JK", 0.1, (("JK", 0.05, 0.6),), ["JK"]),     # a Joker has a floor of its own
    ("JK", 0.04, (("JK", 0.05, 0.6),), []),        # ... and not under it
    ("QH", 0.1, (("JK", 0.05, 0.6),), []),         # the other codes keep maybe_conf
    ("JK", 0.1, (("JK", 0.05, 0.99),), []),        # read 0.731 a Joker: not sure enough
    ("JK", 0.4, (("JK", 0.05, 0.99),), ["JK"]),    # maybe_conf still offers it
])
def test_a_code_with_a_floor_of_its_own_is_offered_down_to_it(
        tmp_path: Path, code: str, score: float, maybe_floors: tuple, offered: list[str]) -> None:
    # A sure index and one at ``score``, far apart; the classifier reads 0.731 ``code``.
    make_fake_models(tmp_path, [[60, 60, 20, 30, 0.9], [260, 260, 20, 30, score]], 320, code, runner_up="none")
    config = replace(DetectorConfig(), conf_threshold=0.5, min_class_prob=0.35, maybe_conf=0.3, maybe_prob=0.2,
                     maybe_floors=maybe_floors)
    reading = CardDetector(tmp_path, config=config).detect_cards(np.full((320, 320, 3), 200, np.uint8))
    assert [c.card for c in reading.cards] == [code]                # never counted unasked
    assert [c.card for c in reading.maybe] == offered


@needs_models
@pytest.mark.parametrize("photo", ["vision_edje_IMG_2383.jpg", "web_edje_IMG_2560.jpg"])
def test_a_look_with_its_mirror_sees_a_mirrored_photo_as_the_photo_mirrored(photo: str) -> None:
    # The detector and its mirrored look are one pair whichever way round the photo is:
    # the boxes of the mirrored photo, mirrored back, are the photo's, each seen from the
    # other side (a top-left index of one is a top-right index of the other).
    detector = CardDetector()
    image = cv2.imread(str(DATA / photo))
    # 960 x 720, as the runtime decodes it: its letterbox pads left and right alike, so a
    # mirrored photo makes exactly the mirrored network input.
    image = cv2.resize(image, (720, 960) if image.shape[0] > image.shape[1] else (960, 720),
                       interpolation=cv2.INTER_AREA)
    boxes = detector.locate_indices(image, mirrored=True)
    seen_mirrored = detector.locate_indices(np.ascontiguousarray(image[:, ::-1]), mirrored=True)
    width = image.shape[1]
    back = np.stack([width - seen_mirrored.xyxy[:, 2], seen_mirrored.xyxy[:, 1],
                     width - seen_mirrored.xyxy[:, 0], seen_mirrored.xyxy[:, 3]], axis=1)
    assert len(boxes) == len(back) > 0
    overlap = box_iou(boxes.xyxy, back)
    partner = overlap.argmax(axis=1)
    assert overlap.max(axis=1).min() > 0.99
    np.testing.assert_allclose(boxes.confidence, seen_mirrored.confidence[partner], atol=1e-4)
    assert (boxes.class_id + seen_mirrored.class_id[partner] == SEEN_MIRRORED).all()
    # A two-corner deck's indices are all seen best the way the detector was taught them.
    assert (boxes.class_id == 0).all()


def test_letterbox_like_ultralytics() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    padded, ratio, (left, top) = letterbox(image, (640, 640))
    assert padded.shape == (640, 640, 3) and ratio == pytest.approx(1.6)
    assert (left, top) == (0, 80) and padded[0, 0].tolist() == [114, 114, 114]


@needs_models
@pytest.mark.parametrize("shape", [(16, 20000), (20000, 16), (40, 12000), (3000, 17)],
                         ids=["wide strip", "tall strip", "far-shot strip", "thin column"])
def test_the_shipped_models_read_a_long_thin_strip_without_a_crash(shape: tuple[int, int]) -> None:
    # The smallest side the loader lets through, and the longest: nothing rounds to nothing.
    reading = CardDetector(DEFAULT_MODEL_DIR).detect_cards(np.full((*shape, 3), 200, np.uint8))
    assert reading.cards == [] and (reading.height, reading.width) == shape


@pytest.mark.parametrize("shape", [(10, 20000), (20000, 10)])
def test_the_letterbox_keeps_a_pixel_of_a_strip_thinner_than_its_scale(shape: tuple[int, int]) -> None:
    padded, ratio, _ = letterbox(np.full((*shape, 3), 200, np.uint8), (320, 320))
    assert padded.shape == (320, 320, 3) and (padded == 200).any()


def test_missing_models_error(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="index_detector.onnx"):
        CardDetector(tmp_path)


def test_boxes_map_back_to_full_photo_pixels(tmp_path: Path) -> None:
    # 4000x3000 photo, detector input 320: the letterbox is 320x240 at top 40.
    make_fake_models(tmp_path, [[160, 160, 32, 16, 0.9], [16, 56, 8, 8, 0.8], [100, 100, 10, 10, 0.01]], 320, "QH")
    photo = np.full((3000, 4000, 3), 200, np.uint8)
    ok, jpeg = cv2.imencode(".jpg", photo)
    detector = CardDetector(tmp_path)
    timings: dict[str, float] = {}
    indices = detector.read_indices(jpeg.tobytes(), timings=timings)
    assert len(indices) == 2
    np.testing.assert_allclose(indices.xyxy[0], [1800, 1400, 2200, 1600], atol=2)
    np.testing.assert_allclose(indices.xyxy[1], [150, 150, 250, 250], atol=2)
    assert [CARD_CODES[i] for i in indices.class_id] == ["QH", "QH"]
    np.testing.assert_allclose(indices.data["down"], [[0, 1], [0, 1]])
    np.testing.assert_allclose(indices.confidence, [0.9, 0.8], atol=1e-3)
    assert set(timings) == {"decode", "preprocess", "detector", "classifier", "postprocess"}
    reading = detector.detect_cards(jpeg.tobytes())
    assert (reading.width, reading.height) == (4000, 3000)
    assert [c.card for c in reading.cards] == ["QH", "QH"]  # same orientation: two cards


def test_a_blind_look_places_the_closer_look_when_the_first_finds_nothing(tmp_path: Path) -> None:
    # 4000x3000 JPEG, detector input 320: the first look (500x375, 0.08 input px per photo
    # px) finds nothing. The blind look sees the whole photo in 2x2 tiles at 640 / 4250 (the
    # JPEG decoded again at a quarter; tiles of 2125 photo px, 531 decoded px). Each tile
    # has an 8-px index at its centre: 53 photo px, small enough for a closer look at each.
    make_fake_models(tmp_path, [[160, 160, 8, 8, 0.9]], 320, "QH")
    ok, jpeg = cv2.imencode(".jpg", np.full((3000, 4000, 3), 200, np.uint8))
    config = replace(DetectorConfig.from_json(tmp_path / "detector.json"), zoom_below=20.0, zoom_tiles=4,
                     zoom_blind_tiles=4)
    detector = CardDetector(tmp_path, config=config)
    seen: list[tuple[int, ...]] = []
    locate = detector._indices.locate

    def nothing_at_first(image: np.ndarray, *args, **kwargs) -> Detections:
        seen.append(image.shape[:2])
        return Detections.empty() if len(seen) == 1 else locate(image, *args, **kwargs)

    detector._indices.locate = nothing_at_first  # type: ignore[method-assign]
    indices = detector.read_indices(jpeg.tobytes())
    assert seen[:5] == [(375, 500)] + [(532, 532)] * 4
    assert len(seen) > 5  # the closer look, placed by what the blind look found
    assert len(indices) >= 4

    seen.clear()
    not_blind = CardDetector(tmp_path, config=replace(config, zoom_blind_tiles=0))
    locate = not_blind._indices.locate
    not_blind._indices.locate = nothing_at_first  # type: ignore[method-assign]
    assert len(not_blind.read_indices(jpeg.tobytes())) == 0
    assert seen == [(375, 500)]


def test_a_box_in_the_letterbox_padding_is_no_index(tmp_path: Path) -> None:
    # A 4000x3000 photo at 320 px is letterboxed with 40 grey rows above it: a box there
    # is clipped to nothing on the photo and dropped, not passed on as a zero-size index.
    make_fake_models(tmp_path, [[160, 160, 32, 16, 0.9], [100, 20, 8, 8, 0.8]], 320, "QH")
    ok, jpeg = cv2.imencode(".jpg", np.full((3000, 4000, 3), 200, np.uint8))
    located = CardDetector(tmp_path).locate_indices(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), 0.5)
    np.testing.assert_allclose(located.xyxy, [[1800, 1400, 2200, 1600]], atol=2)


def test_the_closer_look_is_cut_from_a_finer_decode(tmp_path: Path) -> None:
    # 4000x3000 JPEG, detector input 320: the first look decodes it at 1/8 (500x375,
    # letterboxed 0.64: 0.08 input px per photo px) and finds an 8-px index, 100 photo px.
    # The closer look sees it at 0.4 input px per photo px (40 / 100) in one 800-px tile
    # centred on it, so the JPEG is decoded again at a half and the tile (400 px) cut from it.
    make_fake_models(tmp_path, [[160, 160, 8, 8, 0.9]], 320, "QH")
    ok, jpeg = cv2.imencode(".jpg", np.full((3000, 4000, 3), 200, np.uint8))
    config = replace(DetectorConfig.from_json(tmp_path / "detector.json"), zoom_below=20.0)
    detector = CardDetector(tmp_path, config=config)
    seen: list[tuple[int, ...]] = []
    locate = detector._indices.locate

    def recording_locate(image: np.ndarray, *args, **kwargs) -> Detections:
        seen.append(image.shape)
        return locate(image, *args, **kwargs)

    detector._indices.locate = recording_locate  # type: ignore[method-assign]
    indices = detector.read_indices(jpeg.tobytes())
    assert seen == [(375, 500, 3), (400, 400, 3)]
    # The fake detector finds its box again at the centre of the tile: 20 photo px now.
    np.testing.assert_allclose(indices.xyxy, [[1990, 1490, 2010, 1510]], atol=0.5)

    seen.clear()
    unzoomed = CardDetector(tmp_path, config=replace(config, zoom_below=0.0))
    unzoomed._indices.locate = recording_locate  # type: ignore[method-assign]
    np.testing.assert_allclose(unzoomed.read_indices(jpeg.tobytes()).xyxy, [[1950, 1450, 2050, 1550]], atol=0.5)
    assert seen == [(375, 500, 3)]


def test_an_index_cut_by_the_edge_between_two_tiles_is_left_to_the_tile_that_sees_it_whole(tmp_path: Path) -> None:
    # Two small indices 1200 px apart: two tiles. The fake detector finds, in every tile,
    # one box at the tile's centre and one cut by its left edge.
    make_fake_models(tmp_path, [[160, 160, 8, 8, 0.9], [2, 160, 8, 8, 0.8]], 320, "QH")
    ok, jpeg = cv2.imencode(".jpg", np.full((3000, 4000, 3), 200, np.uint8))
    config = replace(DetectorConfig.from_json(tmp_path / "detector.json"), zoom_below=20.0, zoom_tiles=2)
    detector = CardDetector(tmp_path, config=config)
    first = detector._indices.locate
    boxes_of_first_look = Detections(index_boxes((1400, 1500), (2600, 1500)), np.array([0.9, 0.9]), np.zeros(2))
    calls: list[np.ndarray] = []

    def locate(image: np.ndarray, *args, **kwargs) -> Detections:
        calls.append(image.shape)
        if len(calls) == 1:  # the first look: two 100-px indices 1200 px apart
            return Detections(boxes_of_first_look.xyxy / 8, boxes_of_first_look.confidence,
                              boxes_of_first_look.class_id)
        return first(image, *args, **kwargs)

    detector._indices.locate = locate  # type: ignore[method-assign]
    look = plan_closer_look(boxes_of_first_look.xyxy, boxes_of_first_look.confidence, (4000, 3000),
                            0.08, 320, config)
    assert look is not None and len(look.tiles) == 2
    indices = detector.read_indices(jpeg.tobytes())
    assert len(calls) == 3
    # Each tile's centred box stays; the second tile's edge box is cut by the edge it
    # shares with the first and is dropped; the first tile's edge box lies on the grid's
    # outer edge, where no tile lies beyond it, and stays.
    centres = sorted(tuple(np.round(c).tolist()) for c in (indices.xyxy[:, :2] + indices.xyxy[:, 2:]) / 2)
    tile_x = [tile[0] for tile in look.tiles]
    assert len(centres) == 3 and centres[0][0] < tile_x[0] + 20


Readings = tuple[np.ndarray, np.ndarray]


def recording_classifier(detector: CardDetector, batches: list[int],
                         adjust: Callable[[int, Readings], Readings] | None = None) -> None:
    """Wrap the detector's classifier: record each batch size in ``batches``; ``adjust``
    gets the call's number (0: the centred crops, 1: the other views) and its readings
    (probabilities, ways down; the crops' looks are kept as read)."""
    classify = detector._classify

    def wrapped(tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        probs, down, looks = classify(tensor)
        if adjust is not None:
            probs, down = adjust(len(batches), (probs, down))
        batches.append(len(tensor))
        return probs, down, looks

    detector._classify = wrapped  # type: ignore[method-assign]


@pytest.mark.parametrize(("crop_shift", "crop_turns", "reread_below", "batches"), [
    (0.0, False, 1.01, [2]),     # no other views: one crop per index
    (0.05, False, 0.9, [2, 8]),  # read at 0.731, unsure: four moved crops of each index
    (0.05, True, 0.9, [2, 14]),  # and three turned ones
    (0.0, True, 0.9, [2, 6]),    # turned ones alone
    (0.05, True, 0.7, [2]),      # 0.731 is sure enough: read once
])
def test_unsure_indices_are_read_again_from_other_views(
        tmp_path: Path, crop_shift: float, crop_turns: bool, reread_below: float, batches: list[int]) -> None:
    make_fake_models(tmp_path, [[160, 160, 32, 16, 0.9], [16, 56, 8, 8, 0.8]], 320, "QH", runner_up="KH")
    config = replace(DetectorConfig(), crop_shift=crop_shift, crop_turns=crop_turns, reread_below=reread_below,
                     min_class_prob=0.3)
    detector = CardDetector(tmp_path, config=config)
    seen: list[int] = []
    recording_classifier(detector, seen)
    indices = detector.read_indices(np.full((300, 400, 3), 200, np.uint8))
    assert seen == batches
    assert [CARD_CODES[i] for i in indices.class_id] == ["QH", "QH"]
    np.testing.assert_allclose(indices.data["class_prob"], [0.731, 0.731], atol=1e-3)
    if not crop_turns:  # this fake reads (0, 1) from a turned crop too; see the test below
        np.testing.assert_allclose(indices.data["down"], [[0, 1], [0, 1]], atol=1e-6)


def _same(a: Detections, b: Detections) -> bool:
    return (np.array_equal(a.xyxy, b.xyxy) and np.array_equal(a.confidence, b.confidence)
            and np.array_equal(a.class_id, b.class_id)
            and all(np.array_equal(a.data[key], b.data[key]) for key in a.data))


def test_a_photo_named_again_has_only_the_boxes_a_second_look_added_read(tmp_path: Path) -> None:
    # A four-corner deck's photo is looked at again mirrored, and its boxes named again:
    # those the first naming read are not cut and read a second time.
    make_fake_models(tmp_path, [[160, 160, 32, 16, 0.9], [16, 56, 8, 8, 0.8]], 320, "QH", runner_up="KH")
    config = replace(DetectorConfig(), crop_shift=0.05, crop_turns=True, reread_below=0.9, min_class_prob=0.3)
    detector = CardDetector(tmp_path, config=config)
    image = np.full((300, 400, 3), 200, np.uint8)
    boxes = detector.locate_indices(image, 0.25)
    added = Detections.merge([boxes, Detections(np.array([[300, 200, 340, 220]], np.float32),
                                                np.array([0.7], np.float32), np.array([SEEN_MIRRORED]))])
    seen: list[int] = []
    recording_classifier(detector, seen)
    memo, clock = ReadingMemo(), _Stopwatch(None)
    first = detector._name(image, 1.0, boxes, config, clock, memo)
    assert seen == [2, 14]                          # two centred crops; both unsure: seven views each
    assert _same(detector._name(image, 1.0, boxes, config, clock, memo)[0], first[0])
    assert seen == [2, 14]                          # named again, read again never
    second = detector._name(image, 1.0, added, config, clock, memo)
    assert seen == [2, 14, 1, 1, 7]                 # the added box alone: centred, mirrored, its views
    seen.clear()
    assert _same(second[0], detector._name(image, 1.0, added, config, clock, ReadingMemo())[0])
    assert seen == [3, 1, 21]                       # what a naming from nothing reads: the same result
    seen.clear()
    detector._name(image.copy(), 1.0, boxes, config, clock, memo)
    assert seen == [2, 14]                          # another image: nothing of the first carries over


@pytest.mark.parametrize(("code_weights", "read", "prob"), [
    ((), "4D", 0.731),                         # the classifier as it is: 4D 0.731, JK 0.269
    ((("JK", 2.0),), "4D", 0.576),             # 0.538 against 0.731: still a 4D
    ((("JK", 3.0),), "JK", 0.525),             # 0.807 against 0.731: a Joker
    ((("4D", 0.25),), "JK", 0.595),            # a weight under 1 holds a code back
    ((("JK", 3.0), ("4D", 2.0)), "4D", 0.644),
])
def test_a_code_weight_scales_that_codes_probability_before_the_reading(
        tmp_path: Path, code_weights: tuple, read: str, prob: float) -> None:
    make_fake_models(tmp_path, [[160, 160, 32, 16, 0.9]], 320, "4D", runner_up="JK")
    config = replace(DetectorConfig(), code_weights=code_weights, min_class_prob=0.3)
    indices = CardDetector(tmp_path, config=config).read_indices(np.full((300, 400, 3), 200, np.uint8))
    assert [CARD_CODES[i] for i in indices.class_id] == [read]
    np.testing.assert_allclose(indices.data["class_prob"], [prob], atol=1e-3)
    np.testing.assert_allclose(indices.data["probs"].sum(axis=1), [1.0], atol=1e-5)


@pytest.mark.parametrize(("weight", "read"), [
    (3.0, ["4D", "4D"]),  # joint 4D 0.881 / JK 0.119, weighed once: JK 0.357 against 0.881
    (9.0, ["JK", "JK"]),  # 1.07 against 0.881 (weighed per corner, 3 would act as 9)
])
def test_a_cards_two_corners_are_weighed_once(tmp_path: Path, weight: float, read: list[str]) -> None:
    rows = card_indices((160, 160), "4D")
    boxes = [[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0], b[3] - b[1], 0.9] for b, _, _, _ in rows]
    make_fake_models(tmp_path, boxes, 320, "4D", runner_up="JK")
    config = replace(CONFIG, conf_threshold=0.25, min_class_prob=0.3, code_weights=(("JK", weight),))
    detector = CardDetector(tmp_path, config=config)

    def with_corner_downs(call: int, readings: Readings) -> Readings:
        probs, down = readings
        if call == 0:  # the centred crops: each corner reads its own way (a Joker's are read again turned)
            down = np.array([row[3] for row in rows], np.float32)
        return probs, down

    recording_classifier(detector, [], with_corner_downs)
    indices = detector.read_indices(np.full((320, 320, 3), 200, np.uint8))
    assert [CARD_CODES[i] for i in indices.class_id] == read


def test_a_code_weight_never_makes_an_index_of_what_the_classifier_calls_none(tmp_path: Path) -> None:
    make_fake_models(tmp_path, [[160, 160, 32, 16, 0.9]], 320, "none", runner_up="JK")
    config = replace(DetectorConfig(), code_weights=(("JK", 50.0),), min_class_prob=0.2)
    assert len(CardDetector(tmp_path, config=config).read_indices(np.full((300, 400, 3), 200, np.uint8))) == 0


@pytest.mark.parametrize(("corners", "batches"), [
    (("tl", "br"), [2]),  # each corner 0.731 alone, 0.88 read together: sure enough
    (("tl",), [1, 3]),    # one corner at 0.731: read again from its three turns
])
def test_a_corner_its_partner_settles_is_not_read_again(
        tmp_path: Path, corners: tuple[str, ...], batches: list[int]) -> None:
    rows = card_indices((160, 160), "QH", corners=corners)
    boxes = [[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0], b[3] - b[1], score]
             for (b, _, _, _), score in zip(rows, (0.9, 0.8))]
    make_fake_models(tmp_path, boxes, 320, "QH", runner_up="KH")
    config = replace(CONFIG, conf_threshold=0.25, crop_turns=True, reread_below=0.85, min_class_prob=0.3)
    detector = CardDetector(tmp_path, config=config)
    seen: list[int] = []

    def with_corner_downs(call: int, readings: Readings) -> Readings:
        probs, down = readings
        if call == 0:  # the centred crops: each corner reads its own way
            down = np.array([row[3] for row in rows], np.float32)
        return probs, down

    recording_classifier(detector, seen, with_corner_downs)
    detector.read_indices(np.full((320, 320, 3), 200, np.uint8))
    assert seen == batches


def test_four_moved_views_outvote_an_unsure_centred_crop(tmp_path: Path) -> None:
    # Centred: QH 0.731, KH 0.269; each moved view: KH 0.731, QH 0.269. Averaged: KH 0.639.
    make_fake_models(tmp_path, [[160, 160, 32, 16, 0.9]], 320, "QH", runner_up="KH")
    detector = CardDetector(tmp_path, config=replace(DetectorConfig(), crop_shift=0.05, reread_below=0.9))
    qh, kh = CARD_CODES.index("QH"), CARD_CODES.index("KH")

    def swapped_in_other_views(call: int, readings: Readings) -> Readings:
        probs, down = readings
        if call == 1:
            probs[:, [qh, kh]] = probs[:, [kh, qh]]
        return probs, down

    recording_classifier(detector, [], swapped_in_other_views)
    indices = detector.read_indices(np.full((300, 400, 3), 200, np.uint8))
    assert [CARD_CODES[i] for i in indices.class_id] == ["KH"]
    np.testing.assert_allclose(indices.data["class_prob"], [(0.269 + 4 * 0.731) / 5], atol=1e-3)


def test_down_read_from_turned_crops_is_turned_back(tmp_path: Path) -> None:
    # A faithful classifier reads the turned crops' down turned as the crops are: the
    # average must come back to the upright crop's (0, 1).
    make_fake_models(tmp_path, [[160, 160, 32, 16, 0.9]], 320, "QH", runner_up="KH")
    detector = CardDetector(tmp_path, config=replace(DetectorConfig(), crop_turns=True, reread_below=0.9))

    def turning(call: int, readings: Readings) -> Readings:
        probs, down = readings
        if call == 1:  # the turned views, 1, 2 and 3 quarter turns: (x, y) -> (y, -x) each
            down = np.array([[1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]], np.float32)
        return probs, down

    seen: list[int] = []
    recording_classifier(detector, seen, turning)
    indices = detector.read_indices(np.full((300, 400, 3), 200, np.uint8))
    assert seen == [1, 3]
    np.testing.assert_allclose(indices.data["down"], [[0, 1]], atol=1e-6)


@needs_models
def test_shipped_models_read_a_real_photo() -> None:
    detector = CardDetector()
    photo = DATA / "vision_edje_IMG_2383.jpg"  # one Ace, whole card labelled at (97, 136, 275, 368)
    reading = detector.detect_cards(photo)
    assert isinstance(reading, PhotoReading)
    assert (reading.width, reading.height) == (378, 504)
    # The Ace of hearts, and nothing else (an empty reading must not pass).
    assert [card.card for card in reading.cards] == ["AH"] and reading.maybe == []
    ace = reading.cards[0]
    assert 0 < ace.confidence <= 1
    # Its box is on the labelled card: more of it inside the label than outside.
    x1, y1, x2, y2 = ace.box
    assert 0 <= x1 < x2 <= 378 and 0 <= y1 < y2 <= 504
    labelled = np.array([[97, 136, 275, 368]], np.float32)
    assert box_iou(np.array([ace.box], np.float32), labelled)[0, 0] > 0.5


@needs_models
@pytest.mark.parametrize("photo", ["vision_edje_IMG_2383.jpg", "web_edje_IMG_2560.jpg"])
def test_shipped_models_read_a_heic_as_they_read_its_jpeg(photo: str) -> None:
    as_jpeg = CardDetector().detect_cards(DATA / photo)
    as_heic = CardDetector().detect_cards(iphone_heic(Image.open(DATA / photo)))   # stored turned, irot
    assert (as_heic.width, as_heic.height) == (as_jpeg.width, as_jpeg.height) == (378, 504)
    assert [card.card for card in as_heic.cards] == [card.card for card in as_jpeg.cards] != []
    for heic_card, jpeg_card in zip(as_heic.cards, as_jpeg.cards):
        np.testing.assert_allclose(heic_card.box, jpeg_card.box, atol=3)


@needs_models
def test_shipped_detector_is_thread_safe() -> None:
    detector = CardDetector()
    photo = (DATA / "vision_edje_IMG_2383.jpg").read_bytes()
    expected = detector.detect_cards(photo).to_dict()
    results: list[dict] = []

    def work() -> None:
        for _ in range(3):
            results.append(detector.detect_cards(photo).to_dict())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 12 and all(r == expected for r in results)


def test_runtime_never_imports_torch() -> None:
    code = (
        "import sys\n"
        "import onze_vision.detector, onze_vision.imageio, onze_vision.detections\n"
        "from onze_vision.detector import CardDetector, DEFAULT_MODEL_DIR\n"
        "if (DEFAULT_MODEL_DIR / 'index_detector.onnx').exists():\n"
        "    import numpy as np\n"
        "    CardDetector().detect_cards(np.zeros((100, 100, 3), np.uint8))\n"
        "bad = [m for m in ('torch', 'ultralytics', 'torchvision', 'matplotlib') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@needs_models
def test_shipped_detector_offers_alternatives_for_unsure_cards() -> None:
    config = CardDetector().config
    # Chosen on held-out scenes (models/HISTORY.md): under 0.9 with a runner-up of 0.1 or more.
    assert (config.unsure_below, config.alternative_min) == (0.9, 0.1)
    assert (config.maybe_conf, config.maybe_prob) == (0.3, 0.2)


@pytest.mark.parametrize(("in_checkout", "installed", "found"), [
    (True, True, "checkout"),     # a clone or an editable install reads its own models/
    (False, True, "installed"),   # pip install . put them under <prefix>/share/onze-vision/models
    (False, False, "checkout"),   # neither: the error will name the checkout's folder
])
def test_the_models_are_found_in_a_checkout_or_where_pip_installed_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_checkout: bool, installed: bool, found: str) -> None:
    from onze_vision.detector import DETECTOR_FILE, default_model_dir

    monkeypatch.delenv("ONZE_VISION_MODELS", raising=False)
    checkout = tmp_path / "repo" / "models"
    share = tmp_path / "prefix" / "share" / "onze-vision" / "models"
    for folder, present in ((checkout, in_checkout), (share, installed)):
        folder.mkdir(parents=True)
        if present:
            (folder / DETECTOR_FILE).write_bytes(b"onnx")
    nothing_recorded = lambda: None   # noqa: E731  (this test's distribution lists no models)
    assert default_model_dir(checkout, str(tmp_path / "prefix"), nothing_recorded) == {
        "checkout": checkout, "installed": share}[found]
    monkeypatch.setenv("ONZE_VISION_MODELS", str(tmp_path / "mine"))
    assert default_model_dir(checkout, str(tmp_path / "prefix"), nothing_recorded) == tmp_path / "mine"


def test_the_models_are_found_where_the_distributions_record_says_under_another_prefix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pip install --prefix P (or --user): the data files are under P, not sys.prefix, and
    # the package is found through PYTHONPATH=P/lib/pythonX.Y/site-packages.
    from onze_vision.detector import DETECTOR_FILE, default_model_dir, recorded_model_dir

    monkeypatch.delenv("ONZE_VISION_MODELS", raising=False)
    site = tmp_path / "pfx" / "lib" / "python3" / "site-packages"
    info = site / "onze_vision-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: onze-vision\nVersion: 0.1.0\n")
    share = tmp_path / "pfx" / "share" / "onze-vision" / "models"
    share.mkdir(parents=True)
    (share / DETECTOR_FILE).write_bytes(b"onnx")
    (info / "RECORD").write_text(
        "onze_vision/__init__.py,,\n"
        f"../../../share/onze-vision/models/{DETECTOR_FILE},,\n"
        "onze_vision-0.1.0.dist-info/RECORD,,\n")
    monkeypatch.syspath_prepend(str(site))
    assert recorded_model_dir() == share
    checkout = tmp_path / "site-packages" / "models"   # an installed package has no models/ beside it
    assert default_model_dir(checkout, str(tmp_path / "sys-prefix")) == share
    # A checkout's own models still come first.
    checkout.mkdir(parents=True)
    (checkout / DETECTOR_FILE).write_bytes(b"onnx")
    assert default_model_dir(checkout, str(tmp_path / "sys-prefix")) == checkout


def test_a_distribution_without_the_models_in_its_record_finds_none(monkeypatch: pytest.MonkeyPatch) -> None:
    from onze_vision.detector import recorded_model_dir

    assert recorded_model_dir("onze-vision-never-installed") is None


@needs_models
@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "blur_gauge.onnx").exists(), reason="models/ has no blur gauge")
@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.jpg")))
def test_a_real_photo_as_taken_is_not_reported_blurred_and_shaken_it_is(name: str) -> None:
    from onze_vision.synth.blur import motion_kernel

    detector = CardDetector()
    sharp = detector.detect_cards(DATA / name)
    assert not sharp.blurred and sharp.smear is not None and sharp.smear < detector.config.blur_warn_from / 2
    assert "blurred" not in sharp.to_dict()
    image = cv2.imread(str(DATA / name))
    # A smear 3 % of the photo's long side, at a slant: a hand that moved while the shutter was open.
    ok, data = cv2.imencode(".jpg", cv2.filter2D(image, -1, motion_kernel(round(0.03 * max(image.shape[:2])), 30.0)))
    shaken = detector.detect_cards(data.tobytes())
    assert shaken.blurred and shaken.smear >= 2 * detector.config.blur_warn_from
    assert shaken.to_dict()["blurred"] is True


@needs_models
def test_without_a_blur_gauge_no_photo_is_reported_blurred(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(DEFAULT_MODEL_DIR, tmp_path / "models", ignore=shutil.ignore_patterns("*.pt", "evaluation*",
                                                                                         "blur_gauge.onnx"))
    detector = CardDetector(tmp_path / "models")
    assert detector.blur_gauge is None
    reading = detector.detect_cards(DATA / "web_edje_IMG_2560.jpg")
    assert reading.smear is None and not reading.blurred and len(reading.cards) == 4


@needs_models
@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "blur_gauge.onnx").exists(), reason="models/ has no blur gauge")
def test_a_sharp_photo_of_the_table_alone_is_not_reported_blurred() -> None:
    # The gauge reads index crops only: the table's texture, which it never learned, could
    # read as blur. The part of a real photo below its cards, and a plain texture, have none.
    detector = CardDetector()
    image = cv2.imread(str(DATA / "web_edje_IMG_2560.jpg"))
    lowest = max(card.box[3] for card in detector.detect_cards(DATA / "web_edje_IMG_2560.jpg").cards)
    table = image[int(lowest) + 10:]   # wood grain: nothing located there
    noise = cv2.GaussianBlur(np.random.default_rng(0).integers(0, 255, (300, 400, 3)).astype(np.uint8), (0, 0), 1.5)
    for photo in (table, noise):
        reading = detector.detect_cards(photo)
        assert reading.cards == [] and reading.smear is None and not reading.blurred


def test_a_codes_own_floor_leaves_the_blur_gauge_as_it_was(tmp_path: Path) -> None:
    # The warning's threshold was chosen on the boxes every code is located down to; the
    # fainter ones a Joker's floor adds are offered, not gauged.
    make_fake_models(tmp_path, [[60, 60, 20, 30, 0.9], [260, 260, 20, 30, 0.1]], 320, "JK")
    config = replace(DetectorConfig(), conf_threshold=0.5, maybe_conf=0.3, maybe_prob=0.2,
                     maybe_floors=(("JK", 0.05, 0.6),))
    detector = CardDetector(tmp_path, config=config)
    gauged: list[np.ndarray] = []

    class RecordingGauge:
        def photo_smear(self, crops: np.ndarray, confidence: np.ndarray) -> float:
            gauged.append(np.asarray(confidence))
            return 0.0

    detector._gauge = RecordingGauge()
    reading = detector.detect_cards(np.full((320, 320, 3), 200, np.uint8))
    assert [c.card for c in reading.cards] == ["JK"] and [c.card for c in reading.maybe] == ["JK"]
    np.testing.assert_allclose(np.concatenate(gauged), [0.9], atol=1e-6)


@needs_models
@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "blur_gauge.onnx").exists(), reason="models/ has no blur gauge")
def test_boxes_the_classifier_calls_none_are_not_gauged(monkeypatch: pytest.MonkeyPatch) -> None:
    detector = CardDetector()
    def nothing_named(tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        probs = np.zeros((len(tensor), len(CARD_CODES) + 1), np.float32)
        probs[:, -1] = 1.0   # every crop "none": pips, art, the table
        return probs, np.tile(np.array([[0.0, 1.0]], np.float32), (len(tensor), 1)), np.zeros((len(tensor), 0))

    monkeypatch.setattr(detector, "_classify", nothing_named)
    assert len(detector.locate_indices(cv2.imread(str(DATA / "web_edje_IMG_2560.jpg")))) > 0
    reading = detector.detect_cards(DATA / "web_edje_IMG_2560.jpg")
    assert reading.cards == [] and reading.smear is None and not reading.blurred


# A JOKER spelt down a corner, its way down pointing right (the word runs left to right):
# the detector boxed it whole, and again its last letters (joker-look960, scene 105).
WHOLE_WORD = [655, 568, 824, 652]


@pytest.mark.parametrize(("second", "code", "downs", "kept"), [
    ([704, 562, 836, 633], "JK", [(1, 0), (1, 0)], 1),       # its last letters: the word boxed twice
    ([655, 528, 824, 612], "JK", [(1, 0), (1, 0)], 2),       # the next Joker of a fan, beside it
    ([704, 562, 836, 633], "JK", [(1, 0), (-1, 0)], 2),      # lying the other way: another card
    ([704, 562, 836, 633], "QH", [(1, 0), (1, 0)], 2),       # no Joker: the nested-box filter's to judge
    ([790, 568, 959, 652], "JK", [(1, 0), (1, 0)], 2),       # beyond it along the way down, apart
], ids=["word boxed twice", "fan neighbour", "other way", "not a Joker", "apart"])
def test_a_joker_spelt_down_a_corner_and_boxed_twice_is_one_index(second: list[int], code: str,
                                                                  downs: list[tuple[int, int]], kept: int) -> None:
    codes = [CARD_CODES.index(code)] * 2
    indices = Detections(np.array([WHOLE_WORD, second], np.float32), np.array([0.56, 0.58], np.float32),
                         np.array(codes), {"down": np.array(downs, np.float32)})
    left = one_box_per_spelt_joker(indices)
    assert len(left) == kept
    if kept == 1:
        assert left.confidence[0] == pytest.approx(0.58)   # the surer box stays
