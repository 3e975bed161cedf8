"""The held-out mAP50 with its scenes resampled: the same figure as the evaluation's, what
copies of scenes would score, and paired comparisons of two detectors."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from onze_vision.evaluate.resample import SceneScores, interval
from onze_vision.evaluate.synthetic import _add_by_class, _ap_table, average_precision

CODES = 5


def random_scenes(seed: int, count: int = 12) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Scenes of readings (code, score, hit) and labels, surer readings hitting more often."""
    rng = np.random.default_rng(seed)
    scenes = []
    for _ in range(count):
        n = int(rng.integers(0, 9))
        score = rng.random(n)
        scenes.append((rng.integers(0, CODES, n), score, rng.random(n) < score, rng.integers(0, CODES, 4)))
    return scenes


def filled(scenes: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]) -> SceneScores:
    readings = SceneScores(CODES)
    for scene in scenes:
        readings.add(*scene)
    return readings


@pytest.mark.parametrize("seed", range(5))
def test_the_scenes_each_once_score_the_evaluations_map50(seed: int) -> None:
    scores, hits = defaultdict(list), defaultdict(list)
    labels = np.zeros(CODES, np.int64)
    for class_id, score, hit, label_class in random_scenes(seed):
        _add_by_class(scores, hits, class_id, score, hit[:, None])
        labels += np.bincount(label_class, minlength=CODES)
    ap = _ap_table(scores, hits, labels, thresholds=1)
    assert filled(random_scenes(seed)).map50() == pytest.approx(float(np.nanmean(ap[labels > 0, 0])))


def test_one_code_read_right_in_one_scene_and_wrong_in_the_other_is_half_found() -> None:
    readings = SceneScores(1)
    readings.add([0], [0.9], [True], [0])
    readings.add([0], [0.8], [False], [0])
    assert readings.map50() == pytest.approx(average_precision(np.array([0.9, 0.8]), np.array([True, False]), 2))


@pytest.mark.parametrize("times", [[2, 0, 1, 1, 3, 0, 1, 1, 0, 2, 1, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5]])
@pytest.mark.parametrize("seed", range(3))
def test_a_scene_counted_twice_scores_as_its_two_copies(times: list[int], seed: int) -> None:
    scenes = random_scenes(seed)
    copies = [scene for scene, n in zip(scenes, times) for _ in range(n)]
    assert filled(scenes).map50(times) == pytest.approx(filled(copies).map50())


def test_one_scene_resampled_is_always_that_scene() -> None:
    readings = SceneScores(1)
    readings.add([0, 0], [0.9, 0.8], [True, False], [0])
    assert interval(readings.resampled_map50(200)) == pytest.approx((1.0, 1.0))


def test_two_detectors_are_resampled_alike_so_their_difference_is_paired() -> None:
    scenes = random_scenes(7, count=40)
    same = filled(scenes).resampled_map50(300) - filled(scenes).resampled_map50(300)
    assert not same.any()   # a detector against itself: no difference on any resample
    # A second detector whose readings all rank its hits first reads better on every resample.
    sharper = [(c, np.where(h, 0.5 + s / 2, s / 2), h, labels) for c, s, h, labels in scenes]
    better = filled(sharper).resampled_map50(300) - filled(scenes).resampled_map50(300)
    low, high = interval(better)
    assert 0 < low <= high


def test_more_scenes_narrow_the_interval() -> None:
    few, many = filled(random_scenes(3, count=20)), filled(random_scenes(3, count=320))
    assert np.ptp(interval(many.resampled_map50(300))) < np.ptp(interval(few.resampled_map50(300)))


@pytest.mark.parametrize(("call", "quoted"), [
    (lambda r: r.map50([1, 2]), "not [1, 2]"),
    (lambda r: r.map50([1, -1, 1]), "not [1, -1, 1]"),
    (lambda r: interval(r.resampled_map50(10), level=95), "not 95"),
])
def test_bad_counts_and_levels_are_refused_quoting_them(call: object, quoted: str) -> None:
    readings = filled(random_scenes(0, count=3))
    with pytest.raises(ValueError, match=quoted.replace("[", r"\[").replace("]", r"\]")):
        call(readings)  # type: ignore[operator]


def test_no_scenes_cannot_be_resampled() -> None:
    with pytest.raises(ValueError, match="no scenes"):
        SceneScores(CODES).resampled_map50()
