"""The go-down rows script: its go-downs lie as rows, and their indices read row by row."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from support import needs_art

from onze_vision.detections import reading_order
from onze_vision.synth.backgrounds import BackgroundBank

pytestmark = needs_art


@pytest.fixture(scope="module")
def bench(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("bench_meld_rows")


@pytest.mark.parametrize(("rows", "in_order"), [
    ([0, 0, 0, 1, 1, 1, 1], True), ([0, 0, 1, 1, 0], False), ([1, 1, 0, 0], False), ([0], True),
])
def test_rows_in_order_means_each_rows_cards_together_and_the_rows_in_turn(bench: ModuleType, rows: list[int],
                                                                           in_order: bool) -> None:
    assert bench.rows_in_order(rows) is in_order


@pytest.mark.parametrize("seed", range(6))
def test_the_top_left_indices_of_a_go_down_read_row_after_row(bench: ModuleType, anglo: Any, seed: int) -> None:
    """The generator's go-downs (tilted, lit, rows overlapping) through the true index boxes:
    what the script measures of the detector's boxes holds for the indices themselves."""
    scene, row_of = bench.go_down(np.random.default_rng([seed, 0]), [anglo], BackgroundBank(files=[]))
    tops = [label for label in scene.labels if label.corner == "tl"]
    assert len({row_of[label.card_id] for label in tops}) >= 2   # rows, each with an index showing
    rows = [row_of[tops[i].card_id] for i in reading_order([label.box for label in tops])]
    assert bench.rows_in_order(rows)
    by_x = [row_of[label.card_id] for label in sorted(tops, key=lambda label: label.box[:2])]
    assert not bench.rows_in_order(by_x)   # left to right, the rows' cards interleave
