"""Detector output as plain numpy arrays, in the style of ``supervision.Detections``.

The runtime never imports a training framework: :meth:`Detections.from_ultralytics`
is duck-typed (it reads ``result.boxes.xyxy/.conf/.cls``), and
:meth:`Detections.from_yolo_output` decodes the raw ``[1, 4 + C, N]`` tensor of an
Ultralytics ONNX export with a numpy NMS.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from onze_vision.messages import quoted

__all__ = ["Detections", "box_iou", "box_ioa", "box_ios", "non_max_suppression", "reading_order"]

Index = Union[int, slice, list[int], np.ndarray]


# eq=False: the generated == would compare arrays element-wise and fail on their truth value.
@dataclass(eq=False)
class Detections:
    """N boxes with scores and classes, plus optional per-box arrays in ``data``.

    Attributes:
        xyxy: float32 [N, 4] boxes (x1, y1, x2, y2).
        confidence: float32 [N] scores.
        class_id: int64 [N] class indices.
        data: Extra per-box arrays whose first dimension is N (e.g. ``down`` [N, 2]).
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    data: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        n = len(self.xyxy)
        self.confidence = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        self.class_id = np.asarray(self.class_id, dtype=np.int64).reshape(-1)
        self.data = {key: np.asarray(value) for key, value in self.data.items()}
        columns: list[tuple[str, np.ndarray]] = [("confidence", self.confidence), ("class_id", self.class_id),
                                                 *((f"data[{k!r}]", v) for k, v in self.data.items())]
        for name, array in columns:
            if array.ndim == 0:   # a lone number has no rows at all (len() would raise TypeError)
                raise ValueError(f"{name} must hold one row per box, not the single value {quoted(array.item())}")
            if len(array) != n:
                raise ValueError(f"{name} has {len(array)} rows but xyxy has {n}")

    @classmethod
    def empty(cls) -> Detections:
        """Return zero detections."""
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    def is_empty(self) -> bool:
        """True when there are no detections."""
        return len(self) == 0

    def __len__(self) -> int:
        return len(self.xyxy)

    def __eq__(self, other: object) -> bool:
        """Equal boxes, scores, classes and ``data`` arrays (as ``supervision.Detections`` compares)."""
        if not isinstance(other, Detections):
            return NotImplemented
        return (np.array_equal(self.xyxy, other.xyxy) and np.array_equal(self.confidence, other.confidence)
                and np.array_equal(self.class_id, other.class_id) and self.data.keys() == other.data.keys()
                and all(np.array_equal(value, other.data[key]) for key, value in self.data.items()))

    __hash__ = None  # type: ignore[assignment]   # mutable arrays: not a dict key

    def __getitem__(self, index: Index) -> Detections:
        """Select detections by int, slice, index list or boolean mask; always a Detections."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(
            self.xyxy[index], self.confidence[index], self.class_id[index],
            {key: value[index] for key, value in self.data.items()},
        )

    def __iter__(self) -> Iterator[tuple[np.ndarray, float, int, dict[str, Any]]]:
        """Yield (xyxy, confidence, class_id, data row) per detection."""
        for i in range(len(self)):
            yield (self.xyxy[i], float(self.confidence[i]), int(self.class_id[i]),
                   {key: value[i] for key, value in self.data.items()})

    @classmethod
    def merge(cls, parts: list[Detections]) -> Detections:
        """Concatenate detections; ``data`` keys must be the same in every part."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        keys = set(parts[0].data)
        if any(set(p.data) != keys for p in parts):
            raise ValueError("cannot merge Detections with different data keys")
        return cls(
            np.concatenate([p.xyxy for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([p.class_id for p in parts]),
            {key: np.concatenate([p.data[key] for p in parts]) for key in keys},
        )

    def without_nested(self, threshold: float) -> Detections:
        """Keep the best of boxes that overlap by more than ``threshold`` of the smaller one.

        A detector may box one corner index twice, once whole and once just its rank
        glyph: nested boxes whose IoU is too low for NMS, which would read as two cards.
        Returns the kept rows, best confidence first.
        """
        if len(self) < 2:
            return self
        return self[non_max_suppression(self.xyxy, self.confidence, threshold, overlap=box_ios)]

    @property
    def center(self) -> np.ndarray:
        """float32 [N, 2] box centres."""
        return (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2.0

    @property
    def wh(self) -> np.ndarray:
        """float32 [N, 2] box widths and heights."""
        return self.xyxy[:, 2:] - self.xyxy[:, :2]

    @property
    def area(self) -> np.ndarray:
        """float32 [N] box areas."""
        wh = self.wh
        return wh[:, 0] * wh[:, 1]

    @classmethod
    def from_ultralytics(cls, result: Any) -> Detections:
        """Convert one Ultralytics ``Results`` (duck-typed: no framework import).

        Args:
            result: An object with ``boxes.xyxy``, ``boxes.conf`` and ``boxes.cls``
                (torch tensors or numpy arrays).
        """
        boxes = result.boxes
        return cls(_numpy(boxes.xyxy), _numpy(boxes.conf), _numpy(boxes.cls).astype(np.int64))

    @classmethod
    def from_yolo_output(
        cls,
        output: np.ndarray,
        confidence_threshold: float = 0.25,
        iou_threshold: float = 0.5,
        max_detections: int = 300,
        class_agnostic: bool = True,
    ) -> Detections:
        """Decode an Ultralytics ONNX output ``[1, 4 + C, N]`` (cx, cy, w, h, C scores).

        Boxes stay in the network's input pixels; NMS runs in numpy.

        Args:
            output: The raw output tensor (a leading batch dimension of 1 is optional).
            confidence_threshold: Boxes scoring below this are dropped before NMS.
            iou_threshold: Overlap above which the lower-scoring box is suppressed.
            max_detections: At most this many boxes are kept, best first.
            class_agnostic: Suppress across classes (True) or within each class.
        """
        array = np.asarray(output, dtype=np.float32)
        if array.ndim == 3:
            if array.shape[0] != 1:
                raise ValueError(f"expected a batch of one, got output shape {array.shape}")
            array = array[0]
        if array.ndim != 2 or array.shape[0] < 5:
            raise ValueError(f"expected output [1, 4 + classes, N], got shape {np.shape(output)}")
        scores_all = array[4:]
        class_id = scores_all.argmax(axis=0)
        scores = scores_all[class_id, np.arange(array.shape[1])]
        keep = scores >= confidence_threshold
        if not keep.any():
            return cls.empty()
        cx, cy, w, h = array[:4, keep]
        xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
        scores, class_id = scores[keep], class_id[keep]
        selected = non_max_suppression(xyxy, scores, iou_threshold,
                                       None if class_agnostic else class_id)[:max_detections]
        return cls(xyxy[selected], scores[selected], class_id[selected])


def _numpy(value: Any) -> np.ndarray:
    if hasattr(value, "cpu"):
        value = value.cpu()
    if hasattr(value, "numpy"):
        value = value.numpy()
    return np.asarray(value)


def _overlaps(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The [N, M] intersection areas of xyxy boxes ``a`` [N, 4] and ``b`` [M, 4], and their areas."""
    a = np.asarray(a, dtype=np.float32).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float32).reshape(-1, 4)
    top_left = np.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(bottom_right - top_left, 0, None).prod(axis=2)
    return inter, (a[:, 2:] - a[:, :2]).clip(0).prod(axis=1), (b[:, 2:] - b[:, :2]).clip(0).prod(axis=1)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the [N, M] IoU matrix of xyxy boxes ``a`` [N, 4] and ``b`` [M, 4]."""
    inter, area_a, area_b = _overlaps(a, b)
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0).astype(np.float32)


def box_ioa(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the [N, M] share of each box of ``b`` that lies inside each box of ``a``."""
    inter, _, area_b = _overlaps(a, b)
    return np.where(area_b[None, :] > 0, inter / np.maximum(area_b[None, :], 1e-12), 0.0).astype(np.float32)


def box_ios(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the [N, M] intersection over the smaller box's area: 1.0 when one box holds the other."""
    inter, area_a, area_b = _overlaps(a, b)
    smaller = np.minimum(area_a[:, None], area_b[None, :])
    return np.where(smaller > 0, inter / np.maximum(smaller, 1e-12), 0.0).astype(np.float32)


def non_max_suppression(
    xyxy: np.ndarray,
    scores: np.ndarray,
    iou_threshold: float,
    class_id: np.ndarray | None = None,
    overlap: Callable[[np.ndarray, np.ndarray], np.ndarray] = box_iou,
) -> np.ndarray:
    """Greedy NMS; returns the kept indices, best score first.

    Args:
        xyxy: [N, 4] boxes.
        scores: [N] scores.
        iou_threshold: A box overlapping a kept box by more than this is dropped. Named
            for IoU, but it is a threshold on whatever ``overlap`` measures: with
            :func:`box_ios`, on the intersection over the smaller box
            (:meth:`Detections.without_nested` passes its ``threshold``, the
            detector config's ``nested_overlap``, here).
        class_id: When given, boxes only suppress boxes of their own class.
        overlap: How overlap is measured: :func:`box_iou`, or :func:`box_ios` to also
            drop a box that lies inside a better one (IoU stays low for nested boxes).
    """
    xyxy = np.asarray(xyxy, dtype=np.float32).reshape(-1, 4)
    if class_id is not None and len(xyxy):
        # Shift each class to its own region so boxes of different classes never overlap.
        offset = (np.asarray(class_id, dtype=np.float32) * (float(xyxy.max()) + 1.0))[:, None]
        xyxy = xyxy + offset
    order = np.argsort(-np.asarray(scores), kind="stable")
    # Each kept box against the boxes still left, not an [N, N] matrix up front: a detector
    # gives many near-duplicates, so few boxes are kept and the rows shrink fast (at a score
    # floor of 0.001, hundreds of boxes: the matrix was slower, and its memory grows as N^2).
    keep: list[int] = []
    while order.size:
        best = int(order[0])
        keep.append(best)
        if order.size == 1:
            break
        overlaps = overlap(xyxy[best:best + 1], xyxy[order[1:]])[0]
        order = order[1:][overlaps <= iou_threshold]
    return np.asarray(keep, dtype=np.int64)


def reading_order(xyxy: np.ndarray | Sequence[Sequence[float]]) -> list[int]:
    """The boxes' indices as a page is read: rows from the top, each left to right.

    Melds laid on the table in rows, read left to right only, interleave the rows' cards; in
    reading order each row's cards come together, so a go-down photographed meld under meld
    is checked as laid (:func:`onze_vision.melds.check_down`).

    A card's box is the union of the indices read on it: its top-left index alone, or the
    whole card where its other corner shows too; both start at the top-left index, so rows
    are found from the boxes' top edges, split where two tops (in order) lie more than half
    an index apart (half the lower quartile of the heights: the indices, unless most cards
    show two corners, whose rows lie a card apart), and read by their left edges. A row that
    slopes (a fan, a tilted photo) stays one row: its tops climb in small steps.
    """
    boxes = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    if not len(boxes):
        return []
    tops, lefts = boxes[:, 1], boxes[:, 0]
    gap = float(np.percentile(boxes[:, 3] - boxes[:, 1], 25)) / 2
    rows: list[list[int]] = []
    for i in np.argsort(tops, kind="stable").tolist():
        if rows and tops[i] - tops[rows[-1][-1]] <= gap:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda j: (lefts[j], tops[j]))]
