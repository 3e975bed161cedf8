"""The crops the index classifier reads: one centred crop, or several views of one index."""

from __future__ import annotations

import numpy as np
import pytest

from onze_vision.indexcrop import CROP_SIZE, View, crop_index, crop_view, reading_views, turn_back

BOX = (40.0, 40.0, 60.0, 60.0)


def white_dot_image() -> np.ndarray:
    """A 4-px white dot on black at the centre of BOX."""
    image = np.zeros((100, 100, 3), np.uint8)
    image[48:52, 48:52] = 255
    return image


def centre_of_white(crop: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(crop[..., 0] > 127)
    return np.array([xs.mean(), ys.mean()])


@pytest.mark.parametrize(("shift", "turned", "views"), [
    (0.0, False, [View()]),
    (0.1, False, [View(), View(-0.1, 0), View(0.1, 0), View(0, -0.1), View(0, 0.1)]),
    (0.0, True, [View(), View(turns=1), View(turns=2), View(turns=3)]),
    (0.1, True, [View(), View(-0.1, 0), View(0.1, 0), View(0, -0.1), View(0, 0.1),
                 View(turns=1), View(turns=2), View(turns=3)]),
])
def test_the_centred_upright_view_comes_first_then_moved_then_turned(
        shift: float, turned: bool, views: list[View]) -> None:
    assert reading_views(shift, turned) == views


def test_a_negative_shift_is_refused() -> None:
    with pytest.raises(ValueError, match="crop shift must be >= 0, got -0.1"):
        reading_views(-0.1, False)


def test_the_centred_upright_view_is_the_plain_crop() -> None:
    image = white_dot_image()
    crop = crop_view(image, BOX, View())
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    np.testing.assert_array_equal(crop, crop_index(image, BOX))


@pytest.mark.parametrize(("view", "dot_moves"), [
    (View(-0.25, 0), (1, 0)),   # box moved left: the dot lies further right in the crop
    (View(0.25, 0), (-1, 0)),
    (View(0, -0.25), (0, 1)),   # box moved up: the dot lies lower
    (View(0, 0.25), (0, -1)),
])
def test_moving_the_box_moves_what_it_shows_the_other_way(view: View, dot_moves: tuple[int, int]) -> None:
    image = white_dot_image()
    moved = centre_of_white(crop_view(image, BOX, view)) - centre_of_white(crop_view(image, BOX, View()))
    # 0.25 x 20 px = 5 px in the photo; the crop is 48 px for 26 px (20 x 1.3): about 9 px.
    np.testing.assert_allclose(moved, np.array(dot_moves) * 5 * CROP_SIZE / 26, atol=1.0)


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_turned_views_turn_down_as_training_does_and_turn_back_undoes_it(turns: int) -> None:
    # A mark below the centre: the index's "down" is (0, 1) in the upright crop.
    image = np.zeros((100, 100, 3), np.uint8)
    image[55:60, 48:52] = 255
    turned = crop_view(image, BOX, View(turns=turns))
    seen = centre_of_white(turned) - (CROP_SIZE - 1) / 2
    seen /= np.linalg.norm(seen)
    # The training's quarter turn (onze_vision.training.classifier._augment): (x, y) -> (y, -x).
    expected = np.array([0.0, 1.0])
    for _ in range(turns):
        expected = np.array([expected[1], -expected[0]])
    np.testing.assert_allclose(seen, expected, atol=0.05)
    np.testing.assert_allclose(turn_back(expected[None], turns)[0], [0.0, 1.0], atol=1e-6)


def test_turn_back_takes_one_number_of_turns_per_view() -> None:
    read = np.array([[[1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]]], np.float32)  # down (0, 1) turned 1, 2, 3 times
    np.testing.assert_allclose(turn_back(read, np.array([1, 2, 3])), [[[0, 1], [0, 1], [0, 1]]], atol=1e-6)


def checkerboard_image(side: int = 400) -> np.ndarray:
    """Black and white squares of one pixel: the finest print a photo can hold."""
    board = ((np.add.outer(np.arange(side), np.arange(side)) % 2) * 255).astype(np.uint8)
    return np.repeat(board[..., None], 3, axis=2)


@pytest.mark.parametrize("index_px", [80, 120, 200])  # crops shrunk 2.2, 3.3 and 5.4 times
def test_an_index_shrunk_into_the_crop_is_smoothed_not_aliased(index_px: int) -> None:
    # Sampled one point per crop pixel, a 1-px checkerboard keeps its full contrast (or turns
    # into stripes): strokes kept or dropped by where they fall. Shrunk, it is grey.
    crop = crop_index(checkerboard_image(), (100, 100, 100 + index_px, 100 + index_px)).astype(float)
    assert abs(crop.mean() - 127.5) < 10
    assert crop.std() < 20


@pytest.mark.parametrize("index_px", [12, 20, 40, 80, 160, 400])  # 400: averaged over 5 x 5 blocks first
def test_a_dot_at_the_box_centre_lands_at_the_crop_centre_however_much_the_crop_is_scaled(index_px: int) -> None:
    image = np.zeros((400, 400, 3), np.uint8)
    image[196:204, 196:204] = 255  # an 8-px dot whose centre is the point (200, 200)
    half = index_px / 2
    crop = crop_index(image, (200 - half, 200 - half, 200 + half, 200 + half))[..., 0].astype(float)
    ys, xs = np.mgrid[:CROP_SIZE, :CROP_SIZE]
    centre = np.array([(crop * xs).sum(), (crop * ys).sum()]) / crop.sum()
    # Shrunk (smoothed first) or enlarged, the same matrix places it; sampled one point per
    # crop pixel, a shrunk dot's centre moved with where its pixels fell (0.28 px at 160 px).
    np.testing.assert_allclose(centre, crop_index_centre(index_px), atol=0.1)


def crop_index_centre(index_px: int) -> np.ndarray:
    """Where crop_index puts the dot's centre: OpenCV maps pixel centres, so the dot's centre
    is photo pixel 199.5, half a photo pixel (half the scale in crop pixels) before the
    photo point the crop's pixel 24 is centred on (the box's edges taken as pixel centres)."""
    scale = CROP_SIZE / (index_px * 1.3)
    return np.full(2, CROP_SIZE / 2 - 0.5 * scale)


@pytest.mark.parametrize("box", [(-60, -60, 40, 40), (340, 350, 460, 470), (-500, 100, -400, 200)])
def test_a_box_off_the_photo_repeats_its_edge_pixels(box: tuple[int, int, int, int]) -> None:
    image = np.full((400, 400, 3), 90, np.uint8)
    np.testing.assert_array_equal(crop_index(image, box), np.full((CROP_SIZE, CROP_SIZE, 3), 90, np.uint8))
