"""Where a far shot is looked at again (no model): the closer look at small indices and the
blind look at a photo whose first look finds nothing.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from onze_vision.detector_config import DetectorConfig
from onze_vision.looks import CloserLook, plan_blind_look, plan_closer_look
from synthetic_indices import index_boxes


ZOOM = DetectorConfig(zoom_below=20.0, zoom_target=40.0, zoom_min_gain=1.5, zoom_floor=0.25, zoom_margin=3.0)


@pytest.mark.parametrize(("name", "boxes", "scores", "config", "look"), [
    ("a far shot: small indices close together are looked at again, enlarged to the target",
     index_boxes((2000, 1500)), [0.9], ZOOM,
     CloserLook((1650, 1150, 2350, 1850), 0.4, ((1200, 700, 2800, 2300),))),
    ("the region is grown by the margin around all of them, within the photo",
     index_boxes((100, 1500), (600, 1500)), [0.9, 0.5], ZOOM,
     CloserLook((0, 1150, 950, 1850), 0.4, ((0, 700, 1600, 2300),))),
    ("a region too large for the target is seen as closely as one input allows",
     index_boxes((1000, 1500), (2000, 1500)), [0.9, 0.9], replace(ZOOM, zoom_target=60.0),
     CloserLook((650, 1150, 2350, 1850), 640 / 1700, ((650, 650, 2350, 2350),))),
    ("or in tiles, overlapping by 2.5 index sizes, when more are allowed",
     index_boxes((1000, 1500), (3000, 1500)), [0.9, 0.9], replace(ZOOM, zoom_tiles=4),
     CloserLook((650, 1150, 3350, 1850), 0.4, ((650, 700, 2250, 2300), (1750, 700, 3350, 2300)))),
    ("the same in one tile would not enlarge it enough",
     index_boxes((1000, 1500), (3000, 1500)), [0.9, 0.9], ZOOM, None),
    ("indices large enough at the input need no second look",
     index_boxes((2000, 1500), size=130.0), [0.9], ZOOM, None),
    ("cards over the whole photo leave too little to enlarge",
     index_boxes((300, 300), (3700, 2700)), [0.9, 0.9], ZOOM, None),
    ("only indices scoring zoom_floor and up place it",
     index_boxes((2000, 1500), (300, 300)), [0.9, 0.1], ZOOM,
     CloserLook((1650, 1150, 2350, 1850), 0.4, ((1200, 700, 2800, 2300),))),
    ("no index sure enough: no second look",
     index_boxes((2000, 1500)), [0.2], ZOOM, None),
    ("off by default", index_boxes((2000, 1500)), [0.9], DetectorConfig(), None),
    ("never past the photo's own pixels", index_boxes((2000, 1500), size=20.0), [0.9], ZOOM,
     CloserLook((1930, 1430, 2070, 1570), 1.0, ((1680, 1180, 2320, 1820),))),
])
def test_a_closer_look_is_planned_where_indices_are_small(name: str, boxes: np.ndarray, scores: list,
                                                          config: DetectorConfig, look: CloserLook | None) -> None:
    # A 4000x3000 photo seen whole by a 640-px detector: 0.16 input px per photo px.
    planned = plan_closer_look(boxes, np.array(scores), (4000, 3000), 0.16, 640, config)
    if look is None:
        assert planned is None, name
    else:
        assert planned is not None, name
        np.testing.assert_allclose(planned.region, look.region, err_msg=name)
        assert planned.input_scale == pytest.approx(look.input_scale), name
        np.testing.assert_allclose(planned.tiles, look.tiles, err_msg=name)


def test_a_small_photo_the_first_look_enlarged_gets_no_second_look() -> None:
    # A 320-px scene is enlarged 2x to the 640-px input: there are no finer pixels to look at.
    assert plan_closer_look(index_boxes((160, 160), size=11.0), np.array([0.9]), (320, 320), 2.0, 640, ZOOM) is None


BLIND = replace(ZOOM, zoom_blind_tiles=4)


@pytest.mark.parametrize(("name", "photo", "first_scale", "config", "look"), [
    ("a far shot the first look found nothing in is seen whole, in four tiles, about twice as closely",
     (4000, 3000), 0.16, BLIND,
     # 2x2 tiles overlapping by a 20-px index at the first look's scale (125 photo px)
     CloserLook((0, 0, 4000, 3000), 1280 / 4125,
                ((0, 0, 4125 / 2, 4125 / 2), (4000 - 4125 / 2, 0, 4000, 4125 / 2),
                 (0, 3000 - 4125 / 2, 4125 / 2, 3000), (4000 - 4125 / 2, 3000 - 4125 / 2, 4000, 3000)))),
    ("more tiles, more closely (a grid fitted exactly takes no extra tile)", (4000, 3000), 0.16,
     replace(BLIND, zoom_blind_tiles=9), "3x3"),
    ("a photo the first look saw at half its pixels is seen whole, at its own",
     (1200, 900), 0.5, BLIND, CloserLook((0, 0, 1200, 900), 1.0, ((0, 0, 640, 640), (560, 0, 1200, 640),
                                                                 (0, 260, 640, 900), (560, 260, 1200, 900)))),
    ("one the first look enlarged has nothing finer to show", (320, 320), 2.0, BLIND, None),
    ("nor one it saw at three quarters", (854, 640), 0.75, BLIND, None),
    ("off by default", (4000, 3000), 0.16, ZOOM, None),
    ("and without closer looks", (4000, 3000), 0.16, replace(BLIND, zoom_below=0.0), None),
])
def test_a_blind_look_sees_the_whole_photo_more_closely(name: str, photo: tuple[int, int], first_scale: float,
                                                       config: DetectorConfig, look: CloserLook | str | None) -> None:
    planned = plan_blind_look(photo, first_scale, 640, config)
    if look is None:
        assert planned is None, name
        return
    assert planned is not None, name
    if look == "3x3":
        assert len(planned.tiles) == 9 and planned.input_scale == pytest.approx(1920 / 4250), name
        return
    assert isinstance(look, CloserLook)
    np.testing.assert_allclose(planned.region, look.region, err_msg=name)
    assert planned.input_scale == pytest.approx(look.input_scale), name
    np.testing.assert_allclose(planned.tiles, look.tiles, err_msg=name)
