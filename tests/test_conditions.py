"""``onze_vision.conditions``: the real photos read grey, in bad light, blurred, tilted and
with a corner covered, against as taken."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from onze_vision.conditions import (
    BLURS,
    COVER_SIZE,
    COVERS,
    LIGHTS,
    TILTS,
    blurred,
    carry_boxes,
    compare_readings,
    covered,
    evaluate_conditions,
    grey_jpeg,
    in_light,
    tilt_homography,
    tilted,
)
from onze_vision.detector import DEFAULT_MODEL_DIR, DETECTOR_FILE, CardDetector, DetectedCard

DATA = Path(__file__).parent / "data"


def card(code: str, x: float, alternative: str | None = None) -> DetectedCard:
    return DetectedCard(code, 0.9, (x, 10.0, x + 50.0, 90.0), alternative=alternative)


def test_each_card_as_taken_is_followed_to_its_changed_reading() -> None:
    as_taken = [card("9H", 0), card("QS", 100), card("JK", 200), card("AD", 300)]
    changed = [card("9S", 2, "9H"), card("QS", 101, "QD"), card("JK", 200), card("AS", 600)]   # the AD not found
    counts = compare_readings(as_taken, changed)
    assert (counts["cards"], counts["found"], counts["same rank"]) == (3, 2, 2)   # a Joker has no suit to lose
    assert (counts["red: colour kept"], counts["red: read right"], counts["red: read or offered right"]) == (0, 0, 1)
    assert (counts["black: colour kept"], counts["black: read right"]) == (1, 1)
    assert compare_readings(as_taken, [])["found"] == 0


def test_a_tilt_keeps_the_near_edge_and_shrinks_the_far_one() -> None:
    homography = tilt_homography(400, 300, 0.5)
    corners = carry_boxes(np.array([[0, 0, 400, 300]]), homography)
    assert corners[0] == pytest.approx([0, 0, 400, 300], abs=1e-6)   # the photo's outline stays the frame
    far, near = carry_boxes(np.array([[0, 0, 40, 10], [0, 290, 40, 300]]), homography)
    assert far[0] == pytest.approx(100, abs=2) and far[2] - far[0] < 0.6 * 40   # the far edge inset a quarter each side
    assert near[2] - near[0] == pytest.approx(40, rel=0.15)   # the near edge about as it was


@pytest.mark.parametrize("far_share", [0.0, -0.5, 1.5])
def test_a_tilt_outside_0_to_1_is_refused(far_share: float) -> None:
    with pytest.raises(ValueError, match=f"far edge share {far_share!r}"):
        tilt_homography(400, 300, far_share)


def test_a_card_read_as_two_in_a_tilted_copy_is_found_and_counted_twice() -> None:
    as_taken = [card("9H", 0), card("QS", 200)]
    identity = np.eye(3)
    # The 9H's corners were not paired: two 9H, each on half of its box; the QS read once.
    halves = [DetectedCard("9H", 0.9, (0.0, 10.0, 20.0, 40.0)), DetectedCard("9H", 0.9, (30.0, 60.0, 50.0, 90.0)),
              card("QS", 201)]
    counts = compare_readings(as_taken, halves, identity)
    assert (counts["cards"], counts["found"], counts["read twice"]) == (2, 2, 1)
    assert counts["red: read right"] == counts["black: read right"] == 1
    # Without the homography a card is matched by overlap, and half a box is not the card.
    assert compare_readings(as_taken, halves)["found"] == 1


def test_a_card_read_from_its_other_corner_alone_is_found_by_its_centre() -> None:
    as_taken = [DetectedCard("9H", 0.9, (0.0, 0.0, 100.0, 140.0), corners=2),
                DetectedCard("QS", 0.9, (200.0, 0.0, 300.0, 140.0), corners=1)]
    # The 9H's top-left index is under a thumb: it is read from its bottom-right one, whose
    # box is that corner's; the QS showed one corner, now covered, and is not read at all.
    changed = [DetectedCard("9H", 0.8, (80.0, 110.0, 100.0, 140.0))]
    counts = compare_readings(as_taken, changed, by_centre=True)
    assert (counts["cards"], counts["found"], counts["red: read right"]) == (2, 1, 1)
    assert (counts["one corner"], counts["one corner: found"]) == (1, 0)
    assert compare_readings(as_taken, changed)["found"] == 0   # by overlap, a corner is not the card


@pytest.mark.parametrize("name", sorted(COVERS))
def test_a_cover_lies_on_one_index_and_leaves_the_rest_of_the_photo(name: str) -> None:
    photo = DATA / "web_edje_IMG_2560.jpg"
    original = cv2.imread(str(photo)).astype(int)
    index = (100.0, 100.0, 120.0, 130.0)
    copy = cv2.imdecode(np.frombuffer(covered(photo, np.array([index]), COVERS[name]), np.uint8), cv2.IMREAD_COLOR)
    assert copy.shape == original.shape
    target = [255, 255, 255] if COVERS[name] is None else list(COVERS[name])
    assert np.abs(copy[105:126, 102:119].reshape(-1, 3).mean(axis=0) - target).max() < 12   # the index is gone
    size = COVER_SIZE * np.sqrt(20 * 30)
    far = np.ones(original.shape[:2], bool)
    far[round(115 - size):round(115 + size), round(110 - size):round(110 + size)] = False
    assert np.abs(copy[far] - original[far]).mean() < 4   # elsewhere the same picture, JPEG apart
    # Which index is covered, and how the cover is turned, is the photo's own draw: the same every run.
    boxes = np.array([index, (200.0, 300.0, 220.0, 330.0), (300.0, 50.0, 320.0, 80.0)])
    assert covered(photo, boxes, COVERS[name]) == covered(photo, boxes, COVERS[name])


def test_a_photo_with_no_index_has_none_to_cover() -> None:
    photo = DATA / "web_edje_IMG_2560.jpg"
    with pytest.raises(ValueError, match=f"no index to cover in '{photo}'"):
        covered(photo, np.zeros((0, 4)), None)


@pytest.mark.parametrize("name", sorted(TILTS))
def test_the_tilted_copies_are_the_photo_seen_from_lower_down(name: str) -> None:
    photo = DATA / "web_edje_IMG_2560.jpg"
    data, homography = tilted(photo, TILTS[name])
    copy = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    original = cv2.imread(str(photo))
    assert copy.shape == original.shape
    expected = cv2.warpPerspective(original, homography, original.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    assert np.abs(copy.astype(int) - expected.astype(int)).mean() < 4   # the same picture, JPEG apart


def test_the_changed_copies_are_grey_and_darker() -> None:
    photo = DATA / "web_edje_IMG_2560.jpg"
    grey = cv2.imdecode(np.frombuffer(grey_jpeg(photo), np.uint8), cv2.IMREAD_UNCHANGED)
    assert grey.ndim == 2
    original = cv2.imread(str(photo)).astype(float)
    for name, (factors, noise) in LIGHTS.items():
        lit = cv2.imdecode(np.frombuffer(in_light(photo, factors, noise), np.uint8), cv2.IMREAD_COLOR).astype(float)
        means = lit.reshape(-1, 3).mean(axis=0) / original.reshape(-1, 3).mean(axis=0)
        assert means == pytest.approx(factors, abs=0.08), name


@pytest.mark.parametrize("name", sorted(BLURS))
def test_the_blurred_copies_are_blurred(name: str) -> None:
    photo = DATA / "web_edje_IMG_2560.jpg"
    sharpness = lambda image: cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()  # noqa: E731
    copy = cv2.imdecode(np.frombuffer(blurred(photo, *BLURS[name]), np.uint8), cv2.IMREAD_COLOR)
    assert copy.shape == cv2.imread(str(photo)).shape
    assert sharpness(copy) < 0.5 * sharpness(cv2.imread(str(photo)))


def test_an_unknown_blur_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown blur 'zoom'"):
        blurred(DATA / "web_edje_IMG_2560.jpg", "zoom", 0.01)


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / DETECTOR_FILE).exists(), reason="needs the shipped models")
def test_the_test_photos_made_grey_keep_their_ranks_and_in_bad_light_or_tilted_are_all_found(tmp_path: Path) -> None:
    photos = sorted(p.name for p in DATA.glob("*.jpg"))
    (tmp_path / "manifest.json").write_text(json.dumps([{"image": str(DATA / name), "cards": []} for name in photos]))
    result = evaluate_conditions(CardDetector(), tmp_path, every=1)
    grey = result["grey"]
    assert result["photos"] == grey["judged colourless"] == 4
    assert grey["cards"] == grey["found"] == grey["same rank"] == grey["red"] + grey["black"] == 10
    assert grey["read_or_offered_right_share"] >= grey["read_right_share"]
    assert all(shares["found_share"] == 1.0 for shares in result["light"].values())
    assert all(shares["found_share"] == 1.0 and shares["read twice"] == 0 for shares in result["tilt"].values())
    # Sharp as taken: none reported blurred; shaken (a 1.8 % smear): most of them.
    assert result["as taken"]["photos"] == 4 and result["as taken"]["warned_share"] == 0.0
    assert result["blur"]["shaken"]["warned_share"] >= 0.5
    # One index a photo under glare or a thumb: every card showing its other corner is still read.
    for name in COVERS:
        assert result["covered"][name]["photos"] == 4
        assert result["covered"][name]["two_corners_found_share"] == 1.0, name


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / DETECTOR_FILE).exists(), reason="needs the shipped models")
def test_models_without_a_blur_gauge_report_no_blur_figure_rather_than_none_blurred(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    for part in DEFAULT_MODEL_DIR.iterdir():
        if part.name != "blur_gauge.onnx":
            (models / part.name).symlink_to(part)
    (tmp_path / "manifest.json").write_text(json.dumps([{"image": str(next(DATA.glob("*.jpg"))), "cards": []}]))
    result = evaluate_conditions(CardDetector(models), tmp_path, every=1)
    assert result["blur"]["shaken"]["photos"] == 1 and result["blur"]["shaken"]["warned blurred"] == 0
    assert result["as taken"]["warned_share"] is None
    assert all(shares["warned_share"] is None for shares in result["blur"].values())


@pytest.mark.parametrize("change", [
    lambda path: grey_jpeg(path),
    lambda path: in_light(path, (1.0, 0.9, 0.7), 4.0),
    lambda path: blurred(path, "gaussian", 0.01),
    lambda path: tilted(path, 0.6),
    lambda path: covered(path, np.array([[10.0, 10.0, 30.0, 40.0]]), None),
])
def test_a_photo_that_cannot_be_read_is_named(tmp_path: Path, change: Any) -> None:
    # OpenCV returns None for it: the copy says which photo, not a NoneType error later.
    missing = tmp_path / "IMG_0000.JPG"
    with pytest.raises(ValueError, match=f"cannot read the photo '{missing}': no such file"):
        change(missing)
