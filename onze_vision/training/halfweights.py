"""Network weights stored at half precision, computed at full precision.

The shipped classifier and detector files are most of the repository's size, and every call
to a lent GPU machine carries the whole working tree beside the training bundle in one 64 MiB
allowance. Their weights need no more than float16's 11 bits of mantissa (Ultralytics saves
its own ``.pt`` files that way), so they are stored as float16 and nothing else changes:

- an ONNX file keeps every large float initializer as float16 behind a ``Cast`` to float32,
  so the graph still computes in float32; ONNX Runtime folds the casts once, when the session
  is made, and runs as fast as before;
- a ``.pt`` state dict keeps its floating tensors as float16; ``load_state_dict`` copies
  them into the float32 parameters of the network it fills.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # for the type hints only: the module loads without either
    import onnx
    import torch

#: Initializers smaller than this stay float32: constants such as a resize's scales, where
#: nothing is saved and a shape computation may want them as they were.
MIN_HALF_ELEMENTS = 64
_HALF_SUFFIX = "__float16"


def store_half_weights(path: Path, min_elements: int = MIN_HALF_ELEMENTS) -> int:
    """Rewrite the ONNX file at ``path`` with its float32 weights stored as float16.

    Each float32 initializer of at least ``min_elements`` values that float16 can hold is
    replaced by its float16 copy and a ``Cast`` back to float32 under the original name, so
    every node reads what it read before, rounded to float16. Returns how many were stored so.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    half_max = float(np.finfo(np.float16).max)
    casts = []
    for initializer in graph.initializer:
        if initializer.data_type != TensorProto.FLOAT or int(np.prod(initializer.dims)) < min_elements:
            continue
        values = numpy_helper.to_array(initializer)
        if not np.isfinite(values).all() or np.abs(values).max() > half_max:
            continue  # float16 would turn it to inf: keep it whole
        name = initializer.name
        initializer.CopyFrom(numpy_helper.from_array(values.astype(np.float16), name + _HALF_SUFFIX))
        casts.append(helper.make_node("Cast", [name + _HALF_SUFFIX], [name], name=f"{name}_to_float",
                                      to=TensorProto.FLOAT))
    # The casts first: ONNX wants every node after the nodes it reads from.
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return len(casts)


def stores_half_weights(path: Path, min_elements: int = MIN_HALF_ELEMENTS) -> bool:
    """Whether the ONNX file at ``path`` has large weights, every one stored as float16."""
    import onnx

    large = [t for t in onnx.load(str(path)).graph.initializer if int(np.prod(t.dims)) >= min_elements]
    return bool(large) and all(t.data_type == onnx.TensorProto.FLOAT16 for t in large)


def float_initializers(graph: onnx.GraphProto) -> dict[str, np.ndarray]:
    """Every float initializer of an ONNX graph as float32, by the name the nodes read it by:
    a weight stored as float16 behind a cast (:func:`store_half_weights`) under the cast's
    output, as the network computes with it."""
    from onnx import TensorProto, numpy_helper

    arrays = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    floats = {name: values for name, values in arrays.items() if values.dtype == np.float32}
    for node in graph.node:
        to = next((a.i for a in node.attribute if a.name == "to"), None)
        if node.op_type == "Cast" and to == TensorProto.FLOAT and node.input[0] in arrays:
            floats[node.output[0]] = arrays[node.input[0]].astype(np.float32)
    return floats


def half_state_dict(state: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A state dict with its floating tensors as float16 (counters as they are)."""
    return {key: value.half() if value.is_floating_point() else value for key, value in state.items()}
