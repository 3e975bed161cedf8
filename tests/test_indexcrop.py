"""The crops the index classifier reads: one centred crop, or five views of one index."""

from __future__ import annotations

import numpy as np
import pytest

from onze_vision.indexcrop import CROP_SIZE, crop_index, crop_views, view_boxes

BOX = (10.0, 20.0, 20.0, 40.0)  # 10 x 20: the longer side is 20 px


def test_no_shift_reads_the_box_alone() -> None:
    assert view_boxes(BOX, 0.0) == [BOX]


@pytest.mark.parametrize(("view", "moved_by"), [
    (0, (0, 0)),   # centred
    (1, (-2, 0)),  # left by 0.1 x 20 px
    (2, (2, 0)),   # right
    (3, (0, -2)),  # up
    (4, (0, 2)),   # down
])
def test_views_move_by_the_shift_times_the_longer_side(view: int, moved_by: tuple[int, int]) -> None:
    dx, dy = moved_by
    assert view_boxes(BOX, 0.1)[view] == pytest.approx((BOX[0] + dx, BOX[1] + dy, BOX[2] + dx, BOX[3] + dy))


def test_a_negative_shift_is_refused() -> None:
    with pytest.raises(ValueError, match="crop shift must be >= 0, got -0.1"):
        view_boxes(BOX, -0.1)


def test_views_are_crops_of_the_moved_boxes() -> None:
    # A white square on black: moving the crop right moves the square left in it.
    image = np.zeros((100, 100, 3), np.uint8)
    image[40:60, 40:60] = 255
    centred, left, right, up, down = crop_views(image, (40, 40, 60, 60), 0.25)
    assert centred.shape == (CROP_SIZE, CROP_SIZE, 3)
    np.testing.assert_array_equal(centred, crop_index(image, (40, 40, 60, 60)))

    def centre_of_white(crop: np.ndarray) -> np.ndarray:
        ys, xs = np.nonzero(crop[..., 0] > 127)
        return np.array([xs.mean(), ys.mean()])

    middle = centre_of_white(centred)
    assert centre_of_white(left)[0] > middle[0] + 5 and centre_of_white(right)[0] < middle[0] - 5
    assert centre_of_white(up)[1] > middle[1] + 5 and centre_of_white(down)[1] < middle[1] - 5
