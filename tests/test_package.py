"""The package's front door: its examples run, the rules import light, vision loads on first use."""

from __future__ import annotations

import doctest
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import onze_vision

PACKAGE = Path(onze_vision.__file__).parent

#: Every module whose docstrings hold an example (found, so a new example is run too).
EXAMPLE_MODULES = sorted(
    ".".join(("onze_vision", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
    for path in PACKAGE.rglob("*.py") if ">>> " in path.read_text(encoding="utf-8")
)


def test_the_examples_are_found() -> None:
    assert {"onze_vision", "onze_vision.cards", "onze_vision.scoring", "onze_vision.variants"} <= set(EXAMPLE_MODULES)


@pytest.mark.parametrize("name", EXAMPLE_MODULES)
def test_the_docstring_examples_give_what_they_show(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def _modules_after(code: str) -> dict[str, bool]:
    heavy = ["cv2", "onnxruntime", "torch", "ultralytics", "flask"]
    probe = f"import sys\n{code}\nimport json\nprint(json.dumps({{m: m in sys.modules for m in {heavy!r}}}))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


def test_the_rules_import_without_the_vision_or_web_libraries() -> None:
    loaded = _modules_after("import onze_vision\nonze_vision.score_hand(['QH'], 'once')")
    assert not any(loaded.values()), loaded


def test_the_detector_loads_when_first_asked_for_and_never_pulls_in_torch() -> None:
    photo = Path(__file__).parent / "data" / "web_edje_IMG_2560.jpg"
    loaded = _modules_after(f"import onze_vision\nassert onze_vision.detect_cards({str(photo)!r}).cards")
    assert loaded["cv2"] and loaded["onnxruntime"]   # the shipped ONNX models read the photo
    assert not loaded["torch"] and not loaded["ultralytics"]


def test_every_public_name_is_there() -> None:
    for name in onze_vision.__all__:
        assert getattr(onze_vision, name) is not None
    assert set(onze_vision.__all__) <= set(dir(onze_vision))


def test_a_name_that_is_not_there_says_so() -> None:
    with pytest.raises(AttributeError, match="module 'onze_vision' has no attribute 'detect'"):
        onze_vision.detect  # noqa: B018


@pytest.mark.parametrize(("call", "error"), [
    pytest.param("onze_vision.score_hand(['7S'], 'once', splash=True)", "NoSplashError", id="a splash without the rule"),
    pytest.param("onze_vision.detect_cards(b'not a photo')", "InvalidImageError", id="bytes that are no photo"),
    pytest.param("onze_vision.detect_cards('hand.jpg', corners='three')", "UnknownDeckCornersError", id="a deck's corners"),
])
def test_each_error_a_library_user_meets_is_caught_by_its_front_door_name(call: str, error: str) -> None:
    with pytest.raises(getattr(onze_vision, error)):
        eval(call)


_DEFAULTS_PROBE = """
import json, sys
from onze_vision import places
if sys.argv[1] == "installed":
    places.in_checkout = lambda root=places.REPO_ROOT: False   # before the commands read it
from onze_vision.cli import build_parser
from onze_vision.synth.art import default_cache_dir
parser = build_parser()
make = parser.parse_args(["make-dataset"])
train = parser.parse_args(["train"])
evaluate = parser.parse_args(["evaluate"])
helps = {name: " ".join(sub.format_help().split())
         for name, sub in parser._subparsers._group_actions[0].choices.items()
         if name in ("make-dataset", "train", "evaluate")}
print(json.dumps({"make": make.out, "data": train.data, "out": train.out, "runs": train.runs,
                  "val": str(evaluate.synthetic_val), "far": str(evaluate.synthetic_far),
                  "report": str(evaluate.report_dir), "art": str(default_cache_dir()), "helps": helps}))
"""


@pytest.mark.parametrize("where", ["checkout", "installed"])
def test_the_development_commands_write_into_the_checkout_or_the_current_folder_never_site_packages(
        tmp_path: Path, where: str) -> None:
    # An installed package's "checkout" is site-packages: make-dataset once wrote 888 MB of card art there.
    import os

    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", _DEFAULTS_PROBE, where], capture_output=True, text=True,
                         check=True, env=environment).stdout
    found = json.loads(out.splitlines()[-1])
    root = PACKAGE.parent
    if where == "checkout":
        assert found["make"] == found["data"] == str(root / "datasets" / "onze")
        assert (found["out"], found["runs"]) == (str(root / "runs" / "ship"), str(root / "runs"))
        assert found["val"] == str(root / "datasets" / "onze-val")
        assert found["art"] == str(root / "datasets" / "art")
        assert all("in the checkout" in text for text in found["helps"].values())
    else:
        assert found["make"] == found["data"] == os.path.join("datasets", "onze")
        assert (found["out"], found["runs"]) == (os.path.join("runs", "ship"), "runs")
        assert (found["val"], found["far"]) == (os.path.join("datasets", "onze-val"), os.path.join("datasets", "far-val"))
        assert found["art"] == str(tmp_path / "cache" / "onze-vision" / "art")
        assert all("in the current folder" in text for text in found["helps"].values())
    assert found["report"] == "reports"
