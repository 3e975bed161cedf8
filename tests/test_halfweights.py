"""Weights stored at half precision and computed at full: the shipped files stay small, and
every network reads as it did to float16's digits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from onze_vision.detector import DEFAULT_MODEL_DIR

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")


def _classifier(seed: int = 0):
    from onze_vision.training.classifier import IndexClassifier

    torch.manual_seed(seed)
    model = IndexClassifier()
    with torch.no_grad():  # batch norms and heads as after training, not as initialised
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
        for head in (model.rank, model.suit, model.down):
            head.weight.normal_(0, 0.5)
    return model.eval()


def _initializer_types(path: Path) -> dict[str, int]:
    return {t.name: t.data_type for t in onnx.load(str(path)).graph.initializer}


def test_an_exported_classifier_stores_its_weights_as_float16_and_reads_as_at_float32(tmp_path: Path):
    import onnxruntime as ort

    from onze_vision.training.classifier import export_classifier

    model = _classifier()
    export_classifier(model, tmp_path / "full.onnx", half_weights=False)
    export_classifier(model, tmp_path / "half.onnx")
    assert (tmp_path / "half.onnx").stat().st_size < 0.55 * (tmp_path / "full.onnx").stat().st_size
    x = np.random.default_rng(0).random((16, 3, 48, 48), dtype=np.float32)
    full, half = (ort.InferenceSession(str(tmp_path / name), providers=["CPUExecutionProvider"])
                  .run(["probs"], {"crops": x})[0] for name in ("full.onnx", "half.onnx"))
    assert np.abs(full - half).max() < 2e-3
    assert (full.argmax(axis=1) == half.argmax(axis=1)).all()
    inputs = [i.name for i in onnx.load(str(tmp_path / "half.onnx")).graph.input]
    assert inputs == ["crops"]  # the runtime feeds the same input, in float32


def test_only_large_float_weights_are_stored_as_float16(tmp_path: Path):
    from onnx import TensorProto, helper, numpy_helper

    from onze_vision.training.halfweights import store_half_weights

    big = numpy_helper.from_array(np.full((8, 8), 0.1, np.float32), "big")
    small = numpy_helper.from_array(np.array([2.0, 2.0], np.float32), "small")
    huge = numpy_helper.from_array(np.full((8, 8), 1e6, np.float32), "huge")  # past float16's 65504
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "big"], ["a"]), helper.make_node("Add", ["a", "huge"], ["b"]),
         helper.make_node("Mul", ["b", "small"], ["y"])],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, 8])], [big, small, huge])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "g.onnx"))

    assert store_half_weights(tmp_path / "g.onnx") == 1
    assert _initializer_types(tmp_path / "g.onnx") == {
        "big__float16": TensorProto.FLOAT16, "small": TensorProto.FLOAT, "huge": TensorProto.FLOAT}


def test_a_classifier_is_recovered_from_float16_weights_under_the_names_its_nodes_read(tmp_path: Path):
    from onze_vision.training.classifier import export_classifier
    from onze_vision.training.halfweights import float_initializers

    export_classifier(_classifier(), tmp_path / "half.onnx")
    graph = onnx.load(str(tmp_path / "half.onnx")).graph
    weights = float_initializers(graph)
    convs = [node for node in graph.node if node.op_type == "Conv"]
    assert convs and all(node.input[1] in weights and node.input[2] in weights for node in convs)
    assert {"model.rank.weight", "model.suit.weight"} <= set(weights)
    assert all(values.dtype == np.float32 for values in weights.values())
    rank = weights["model.rank.weight"]
    assert np.array_equal(rank, rank.astype(np.float16).astype(np.float32))  # exactly the stored float16


def test_a_saved_classifier_keeps_its_counters_and_stores_the_rest_as_float16(tmp_path: Path):
    from onze_vision.training.classifier import load_classifier_members, save_classifier

    model = _classifier()
    save_classifier(model, tmp_path / "one.pt")
    state = torch.load(tmp_path / "one.pt", map_location="cpu")
    assert {v.dtype for k, v in state.items() if not k.endswith("num_batches_tracked")} == {torch.float16}
    assert {v.dtype for k, v in state.items() if k.endswith("num_batches_tracked")} == {torch.int64}
    loaded = load_classifier_members(tmp_path / "one.pt")[0]
    assert loaded.rank.weight.dtype == torch.float32
    assert torch.equal(loaded.rank.weight, model.rank.weight.half().float())


@pytest.mark.parametrize("name", ["index_classifier.onnx", "index_detector.onnx"])
def test_the_shipped_networks_store_their_large_weights_as_float16(name: str):
    from onze_vision.training.halfweights import stores_half_weights

    path = DEFAULT_MODEL_DIR / name
    if not path.exists():
        pytest.skip(f"needs the shipped {path}")
    assert stores_half_weights(path)


def test_the_shipped_classifier_pt_stores_its_weights_as_float16():
    path = DEFAULT_MODEL_DIR / "index_classifier.pt"
    if not path.exists():
        pytest.skip(f"needs the shipped {path}")
    saved = torch.load(path, map_location="cpu")
    states = saved["members"] if "members" in saved else [saved]
    assert {v.dtype for state in states for v in state.values() if v.is_floating_point()} == {torch.float16}
