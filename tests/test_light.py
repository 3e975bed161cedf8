"""Evening out a photo's light: the cards' white made white again."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from onze_vision.detector import DetectorConfig
from onze_vision.light import TARGET_WHITE, apply_gains, light_gains


def table_with_a_card(white_bgr: tuple[int, int, int], table_bgr: tuple[int, int, int] = (40, 90, 30)) -> np.ndarray:
    """A green table with a card on it whose white the light has made ``white_bgr``."""
    image = np.full((300, 400, 3), table_bgr, np.uint8)
    image[80:220, 150:250] = white_bgr
    return image


@pytest.mark.parametrize(("light", "white"), [
    ("daylight", (235, 236, 238)),
    ("bright, a little warm", (228, 240, 250)),
])
def test_a_photo_in_good_light_needs_no_gain(light: str, white: tuple[int, int, int]) -> None:
    assert light_gains(table_with_a_card(white), max_gain=3.0).max() < 1.1


def test_a_warm_lamp_is_evened_out_to_white() -> None:
    warm = table_with_a_card((110, 175, 240))        # blue lost most, red least
    gains = light_gains(warm, max_gain=3.0)
    assert gains[0] > gains[1] > gains[2] >= 1.0
    card = apply_gains(warm, gains)[150, 200].astype(float)
    assert card.max() - card.min() <= 2              # white again


def test_a_dim_photo_is_lifted_to_the_white_of_a_well_lit_one() -> None:
    dim = (table_with_a_card((230, 230, 230)) * 0.35).astype(np.uint8)   # the whole scene, in a dim room
    card = apply_gains(dim, light_gains(dim, max_gain=4.0))[150, 200]
    assert card.tolist() == [round(TARGET_WHITE)] * 3


def test_no_channel_is_given_more_than_the_largest_gain_or_darkened() -> None:
    night = np.full((100, 100, 3), (5, 20, 60), np.uint8)
    gains = light_gains(night, max_gain=2.5)
    assert gains.tolist() == [2.5, 2.5, 2.5]
    bright = np.full((100, 100, 3), 255, np.uint8)
    assert light_gains(bright, max_gain=2.5).tolist() == [1.0, 1.0, 1.0]


def test_gains_saturate_instead_of_wrapping_round() -> None:
    image = np.full((4, 4, 3), 200, np.uint8)
    assert apply_gains(image, np.array([2.0, 1.0, 1.5]))[0, 0].tolist() == [255, 200, 255]


@pytest.mark.parametrize(("field", "value"), [("balance_from", 0.5), ("balance_from", -1.0),
                                              ("balance_max_gain", 0.9)])
def test_balance_settings_that_would_darken_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        replace(DetectorConfig(), **{field: value})
