"""Tiny stand-in ONNX models for the detector's pipeline tests, and whether the shipped ones are there.

A helper module (like ``synthetic_indices.py``), not a test module: test modules import it
rather than each other, so they stay independent (and work under ``--import-mode=importlib``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from onze_vision.detector import CLASS_NAMES, DEFAULT_MODEL_DIR

#: The trained detector and classifier are in ``models/``.
SHIPPED = (DEFAULT_MODEL_DIR / "index_detector.onnx").exists() and (
    DEFAULT_MODEL_DIR / "index_classifier.onnx").exists()


def make_fake_models(folder: Path, boxes: list[list[float]], imgsz: int, code: str,
                     runner_up: str | None = None) -> None:
    """A 'detector' that always outputs ``boxes`` (cx, cy, w, h, score in letterbox pixels)
    and a 'classifier' that calls every crop ``code`` (or "none") with down = (0, 1); with
    ``runner_up``, at 0.731, that code taking 0.269 (logits 10 and 9)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    columns = np.array(boxes, np.float32).T[None]
    det = helper.make_graph(
        [helper.make_node("ReduceMean", ["images"], ["m"], keepdims=0),
         helper.make_node("Mul", ["m", "zero"], ["z"]),
         helper.make_node("Add", ["boxes", "z"], ["output0"])],
        "fake_detector",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(columns.shape))],
        [numpy_helper.from_array(columns, "boxes"), numpy_helper.from_array(np.zeros((), np.float32), "zero")],
    )
    model = helper.make_model(det, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    helper.set_model_props(model, {"imgsz": f"[{imgsz}, {imgsz}]"})
    onnx.save(model, folder / "index_detector.onnx")

    logits = np.full((1, 54), -10.0, np.float32)
    logits[0, CLASS_NAMES.index(code)] = 10.0
    if runner_up is not None:
        logits[0, CLASS_NAMES.index(runner_up)] = 9.0
    cls = helper.make_graph(
        [helper.make_node("ReduceMean", ["crops"], ["m"], axes=[1, 2, 3], keepdims=0),  # [N]
         helper.make_node("Unsqueeze", ["m", "ax"], ["m1"]),  # [N, 1]
         helper.make_node("Mul", ["m1", "zero"], ["z"]),
         helper.make_node("Add", ["z", "logits"], ["l"]),
         helper.make_node("Softmax", ["l"], ["probs"], axis=1),
         helper.make_node("Add", ["z", "downv"], ["down"])],
        "fake_classifier",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["N", 3, 48, 48])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 54]),
         helper.make_tensor_value_info("down", TensorProto.FLOAT, ["N", 2])],
        [numpy_helper.from_array(logits, "logits"), numpy_helper.from_array(np.zeros((1, 1), np.float32), "zero"),
         numpy_helper.from_array(np.array([[0.0, 1.0]], np.float32), "downv"),
         numpy_helper.from_array(np.array([1], np.int64), "ax")],
    )
    model = helper.make_model(cls, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, folder / "index_classifier.onnx")
