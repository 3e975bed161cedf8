"""Detections: construction, selection, converters and NMS."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pytest

from onze_vision.detections import Detections, box_ioa, box_ios, box_iou, non_max_suppression, reading_order
from onze_vision.detector import DEFAULT_MODEL_DIR, DetectorConfig


def three() -> Detections:
    return Detections(
        xyxy=[[0, 0, 10, 10], [20, 20, 30, 40], [5, 5, 15, 15]],
        confidence=[0.9, 0.5, 0.7],
        class_id=[1, 2, 1],
        data={"down": np.array([[0, 1], [0, -1], [1, 0]], np.float32)},
    )


def test_dtypes_and_length() -> None:
    d = three()
    assert len(d) == 3 and not d.is_empty()
    assert d.xyxy.dtype == np.float32 and d.xyxy.shape == (3, 4)
    assert d.confidence.dtype == np.float32 and d.class_id.dtype == np.int64
    assert Detections.empty().is_empty() and Detections.empty().xyxy.shape == (0, 4)


def test_mismatched_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="confidence has 1 rows but xyxy has 2"):
        Detections([[0, 0, 1, 1], [0, 0, 2, 2]], [0.5], [0, 0])
    with pytest.raises(ValueError, match="data\\['down'\\]"):
        Detections([[0, 0, 1, 1]], [0.5], [0], {"down": np.zeros((2, 2))})


def test_mask_int_slice_indexing_keeps_data() -> None:
    d = three()
    high = d[d.confidence > 0.6]
    assert len(high) == 2
    np.testing.assert_array_equal(high.class_id, [1, 1])
    np.testing.assert_array_equal(high.data["down"], [[0, 1], [1, 0]])
    single = d[1]
    assert isinstance(single, Detections) and len(single) == 1
    assert single.data["down"].shape == (1, 2)
    assert len(d[1:]) == 2 and len(d[[2, 0]]) == 2


def test_geometry_and_iteration() -> None:
    d = three()
    np.testing.assert_allclose(d.center[1], [25, 30])
    np.testing.assert_allclose(d.wh[1], [10, 20])
    np.testing.assert_allclose(d.area, [100, 200, 100])
    rows = list(d)
    assert rows[0][1] == pytest.approx(0.9) and rows[0][2] == 1 and "down" in rows[0][3]


def test_merge() -> None:
    other = Detections([[1, 1, 2, 2]], [0.3], [4], {"down": np.array([[0, 1]], np.float32)})
    merged = Detections.merge([three(), other])
    assert len(merged) == 4 and merged.data["down"].shape == (4, 2)
    assert Detections.merge([]).is_empty()


def test_box_iou() -> None:
    iou = box_iou(np.array([[0, 0, 10, 10]]), np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]]))
    np.testing.assert_allclose(iou, [[1.0, 50 / 150, 0.0]], rtol=1e-6)
    assert box_iou(np.zeros((0, 4)), np.zeros((3, 4))).shape == (0, 3)


def test_box_ioa_is_the_share_of_each_second_box_inside_the_first() -> None:
    whole = [0, 0, 20, 40]
    assert box_ioa(whole, [[5, 5, 15, 20], [10, 0, 30, 40], [50, 50, 60, 60], [0, 0, 0, 0]])[0].tolist() == [
        1.0, 0.5, 0.0, 0.0]
    assert box_ioa([[5, 5, 15, 20]], [whole])[0, 0] == pytest.approx(150 / 800)  # not symmetric


def test_box_ios_is_one_when_a_box_holds_another() -> None:
    whole = [0, 0, 20, 40]
    assert box_ios(whole, [[5, 5, 15, 20], [10, 0, 30, 40], [50, 50, 60, 60]])[0].tolist() == [1.0, 0.5, 0.0]


@pytest.mark.parametrize(
    ("inner", "kept"),
    [
        ([2, 2, 18, 25], [0]),  # the rank glyph alone, inside the whole index: one index
        ([2, 2, 21, 25], [0]),  # the rank glyph boxed a little wide (0.95 of it inside): one index
        ([10, 0, 30, 40], [0, 1]),  # half overlapping: the next card's index in a tight fan
        ([6, 0, 26, 40], [0, 1]),  # 0.7 overlapping: a tighter fan, still two indices
        ([50, 50, 70, 90], [0, 1]),  # elsewhere
    ],
)
def test_a_box_inside_a_surer_one_is_the_same_index(inner: list[int], kept: list[int]) -> None:
    shipped = DetectorConfig.from_json(DEFAULT_MODEL_DIR / "detector.json").nested_overlap
    rows = Detections([[0, 0, 20, 40], inner], [0.9, 0.6], [3, 3], {"down": np.zeros((2, 2))})
    assert rows.without_nested(shipped).confidence.tolist() == pytest.approx([0.9, 0.6][: len(kept)])


def test_nms_keeps_best_of_overlapping() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]], np.float32)
    keep = non_max_suppression(boxes, np.array([0.6, 0.9, 0.5]), 0.5)
    np.testing.assert_array_equal(keep, [1, 2])
    # Per class, overlapping boxes of different classes both survive.
    keep = non_max_suppression(boxes, np.array([0.6, 0.9, 0.5]), 0.5, class_id=np.array([0, 1, 0]))
    assert sorted(keep.tolist()) == [0, 1, 2]


def _greedy_nms_by_pairs(xyxy: np.ndarray, scores: np.ndarray, threshold: float,
                             class_id: np.ndarray | None, overlap: Callable) -> list[int]:
    """Greedy NMS by its definition, one pair of boxes at a time: best score first (the
    earlier of equals first), a box is kept unless a kept box overlaps it by more than
    ``threshold`` (each class shifted apart as the runtime does). Every pair's overlap is
    read off one [N, N] matrix (``[kept, other]``, as the runtime measures it)."""
    xyxy = np.asarray(xyxy, dtype=np.float32).reshape(-1, 4)
    if class_id is not None and len(xyxy):
        xyxy = xyxy + (np.asarray(class_id, dtype=np.float32) * (float(xyxy.max()) + 1.0))[:, None]
    overlaps = overlap(xyxy, xyxy)
    keep: list[int] = []
    for row in sorted(range(len(xyxy)), key=lambda i: -float(scores[i])):
        if all(overlaps[kept, row] <= threshold for kept in keep):
            keep.append(row)
    return keep


@pytest.mark.parametrize("overlap", [box_iou, box_ios, box_ioa], ids=["iou", "ios", "ioa"])
@pytest.mark.parametrize("seed", range(40))
def test_nms_keeps_what_the_greedy_definition_keeps(overlap: Callable, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 120))
    corner = rng.uniform(0, 200, (n, 2))
    # Clusters of near-duplicates and nested boxes, as a detector gives them, some of no area.
    xyxy = np.concatenate([corner, corner + rng.uniform(0, 40, (n, 2))], axis=1).astype(np.float32)
    xyxy[rng.random(n) < 0.3] = xyxy[0] if n else 0
    # Ties: scores drawn from a few values, so the order among equals decides.
    scores = rng.choice(np.array([0.9, 0.7, 0.7, 0.5, 0.3], np.float32), n)
    class_id = rng.integers(0, 3, n) if seed % 2 else None
    for threshold in (0.0, 0.3, 0.5, 0.85, 1.0):
        kept = non_max_suppression(xyxy, scores, threshold, class_id, overlap=overlap)
        assert kept.dtype == np.int64
        assert kept.tolist() == _greedy_nms_by_pairs(xyxy, scores, threshold, class_id, overlap)


def test_from_yolo_output_decodes_and_suppresses() -> None:
    # [1, 5, N]: cx, cy, w, h, score.
    columns = np.array([
        [50, 50, 20, 10, 0.9],
        [51, 50, 20, 10, 0.8],   # duplicate of the first: suppressed
        [200, 100, 10, 30, 0.4],
        [300, 300, 10, 10, 0.1],  # below the threshold
    ], np.float32)
    d = Detections.from_yolo_output(columns.T[None], confidence_threshold=0.25, iou_threshold=0.5)
    assert len(d) == 2
    np.testing.assert_allclose(d.xyxy[0], [40, 45, 60, 55])
    np.testing.assert_allclose(d.confidence, [0.9, 0.4])
    np.testing.assert_array_equal(d.class_id, [0, 0])
    assert Detections.from_yolo_output(columns.T[None], confidence_threshold=0.95).is_empty()
    with pytest.raises(ValueError, match="shape"):
        Detections.from_yolo_output(np.zeros((1, 3, 10)))


def test_from_yolo_output_multi_class() -> None:
    columns = np.array([[50, 50, 20, 10, 0.1, 0.7], [90, 50, 20, 10, 0.6, 0.2]], np.float32)
    d = Detections.from_yolo_output(columns.T[None], confidence_threshold=0.25)
    np.testing.assert_array_equal(d.class_id, [1, 0])


class FakeTensor:
    """Quacks like a torch tensor on a device: .cpu().numpy()."""

    def __init__(self, values: list) -> None:
        self.values = np.array(values)
        self.moved = False

    def cpu(self) -> FakeTensor:
        self.moved = True
        return self

    def numpy(self) -> np.ndarray:
        assert self.moved, "cpu() must come before numpy()"
        return self.values


def test_from_ultralytics_is_duck_typed() -> None:
    boxes = SimpleNamespace(xyxy=FakeTensor([[1, 2, 3, 4]]), conf=FakeTensor([0.8]), cls=FakeTensor([0.0]))
    d = Detections.from_ultralytics(SimpleNamespace(boxes=boxes))
    assert len(d) == 1 and d.class_id.dtype == np.int64
    np.testing.assert_allclose(d.xyxy, [[1, 2, 3, 4]])
    plain = SimpleNamespace(boxes=SimpleNamespace(xyxy=np.zeros((0, 4)), conf=np.zeros(0), cls=np.zeros(0)))
    assert Detections.from_ultralytics(plain).is_empty()


@pytest.mark.parametrize(("boxes", "order"), [
    pytest.param([], [], id="no box"),
    pytest.param([[50, 0, 60, 20], [0, 2, 10, 22], [25, 1, 35, 21]], [1, 2, 0], id="one row, left to right"),
    pytest.param([[0, 0, 10, 20], [50, 2, 60, 22], [25, 1, 35, 21], [5, 40, 15, 60], [30, 42, 40, 62]],
                 [0, 2, 1, 3, 4], id="two rows: the top row first, each left to right"),
    pytest.param([[0, 24, 10, 44], [20, 16, 30, 36], [40, 8, 50, 28], [60, 0, 70, 20]], [0, 1, 2, 3],
                 id="a row that slopes up less than half a card each step stays one row"),
    pytest.param([[0, 24, 10, 44], [20, 16, 30, 36], [40, 8, 50, 28], [60, 0, 70, 20], [5, 70, 15, 90]],
                 [0, 1, 2, 3, 4], id="and a row below it is the next"),
    pytest.param([[30, 50, 40, 70], [0, 0, 10, 20]], [1, 0], id="a lower card left of none above"),
    # A meld's last card shows both corners: its box is the whole card, lower centre, same top.
    pytest.param([[0, 0, 10, 20], [12, 1, 22, 21], [24, 0, 34, 20], [36, 2, 90, 110], [100, 0, 110, 20],
                  [112, 1, 122, 21], [124, 0, 178, 108]], [0, 1, 2, 3, 4, 5, 6],
                 id="one row whose melds end in a card read from two corners"),
    pytest.param([[36, 2, 90, 110], [0, 0, 10, 20], [0, 130, 10, 150], [50, 131, 104, 240], [12, 1, 22, 21]],
                 [1, 4, 0, 2, 3], id="two rows, each with a card read from two corners"),
])
def test_reading_order_reads_rows_top_down_and_each_left_to_right(boxes: list[list[float]], order: list[int]) -> None:
    assert reading_order(boxes) == order


def test_detections_are_equal_when_their_arrays_are() -> None:
    one = Detections([[0, 0, 1, 1]], [0.9], [1], {"down": np.array([[0.1, 0.9]])})
    assert one == Detections([[0, 0, 1, 1]], [0.9], [1], {"down": np.array([[0.1, 0.9]])})
    assert one != Detections([[0, 0, 1, 1]], [0.8], [1], {"down": np.array([[0.1, 0.9]])})
    assert one != Detections([[0, 0, 1, 1]], [0.9], [1])
    assert Detections.empty() == Detections.empty() and one != "boxes"


def test_a_single_value_given_for_a_per_box_array_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"^data\['x'\] must hold one row per box, not the single value 3$"):
        Detections([[0, 0, 1, 1]], [0.9], [1], {"x": 3})
