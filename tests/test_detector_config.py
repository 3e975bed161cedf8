"""``models/detector.json`` as the runtime reads it: aliases, types, and every bad value
refused with a message that names it.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import pytest

from onze_vision.detector import DEFAULT_MODEL_DIR
from onze_vision.detector_config import (
    CONFIG_KEYS,
    NOTE_KEYS,
    DetectorConfig,
    InvalidModelError,
    UnknownConfigKeyError,
)


@pytest.mark.parametrize("field", ["unsure_below", "alternative_min", "check_below"])
@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_unsure_thresholds_outside_0_to_1_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        replace(DetectorConfig(), **{field: value})


def test_config_reads_maybe_floors_as_an_object(tmp_path: Path) -> None:
    (tmp_path / "detector.json").write_text(json.dumps({"maybe_floors": {"JK": [0.05, 0.6]}}))
    assert DetectorConfig.from_json(tmp_path / "detector.json").maybe_floors == (("JK", 0.05, 0.6),)


@pytest.mark.parametrize(("maybe_floors", "says"), [
    ({"ZZ": [0.05, 0.6]}, "maybe_floors: 'ZZ' is not a card code"),
    ({"JK": [0, 0.6]}, r"'JK' needs a detector score in \(0, 1\] and a code probability in \[0, 1\], got \[0.0, 0.6\]"),
    ({"JK": [0.05, 1.5]}, r"got \[0.05, 1.5\]"),
    ({"JK": 0.05}, "maybe_floors must be an object of code: \\[detector score, code probability\\]"),
    ([["JK", 0.05, 0.6]], "maybe_floors must be an object of code"),
])
def test_bad_maybe_floors_are_refused(tmp_path: Path, maybe_floors: object, says: str) -> None:
    (tmp_path / "detector.json").write_text(json.dumps({"maybe_floors": maybe_floors}))
    with pytest.raises(InvalidModelError, match=f"not a valid detector config: .*{says}"):
        DetectorConfig.from_json(tmp_path / "detector.json")


def test_config_reads_json_with_aliases(tmp_path: Path) -> None:
    (tmp_path / "detector.json").write_text(json.dumps(
        {"imgsz": 960, "detector_conf": 0.3, "classifier_min_prob": 0.4, "nms_iou": 0.6,
         "center_offset": [2.0, 1.5], "pair_max_angle": 12, "pair_distance": [2, 9],
         "classes": "CARD_CODES + ['none']"}))
    config = DetectorConfig.from_json(tmp_path / "detector.json")
    assert (config.imgsz, config.conf_threshold, config.min_class_prob, config.iou_threshold) == (960, 0.3, 0.4, 0.6)
    assert (config.center_offset, config.pair_max_angle, config.pair_distance) == ((2.0, 1.5), 12.0, (2.0, 9.0))
    assert DetectorConfig.from_json(tmp_path / "missing.json") == DetectorConfig()
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(InvalidModelError, match="bad.json' is not a valid detector config"):
        DetectorConfig.from_json(tmp_path / "bad.json")


def test_config_reads_four_corners_as_a_true_or_false(tmp_path: Path) -> None:
    (tmp_path / "detector.json").write_text(json.dumps({"four_corners": True, "side_max_angle": 15}))
    config = DetectorConfig.from_json(tmp_path / "detector.json")
    assert (config.four_corners, config.side_max_angle) == (True, 15.0)
    (tmp_path / "detector.json").write_text(json.dumps({"link_distance_cost": -1}))
    with pytest.raises(InvalidModelError, match="link_distance_cost must be >= 0, got -1.0"):
        DetectorConfig.from_json(tmp_path / "detector.json")
    (tmp_path / "detector.json").write_text(json.dumps({"four_corners": "yes"}))
    with pytest.raises(InvalidModelError, match="four_corners must be true or false, got 'yes'"):
        DetectorConfig.from_json(tmp_path / "detector.json")
    (tmp_path / "detector.json").write_text(json.dumps({"mirrored_look": 1}))
    with pytest.raises(InvalidModelError, match="mirrored_look must be true or false, got 1"):
        DetectorConfig.from_json(tmp_path / "detector.json")


@pytest.mark.parametrize(("values", "says"), [
    ({"zoom_below": -1}, "zoom_below must be >= 0"),
    ({"zoom_min_gain": 0.5}, "zoom_min_gain must be >= 1"),
    ({"zoom_tiles": 0}, "zoom_tiles must be >= 1"),
    ({"zoom_floor": 1.5}, "zoom_floor must be between 0 and 1"),
    ({"zoom_blind_tiles": -1}, "zoom_blind_tiles must be >= 0"),
])
def test_bad_closer_look_settings_are_refused(values: dict, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        DetectorConfig(**values)


def test_config_reads_code_weights_as_an_object(tmp_path: Path) -> None:
    (tmp_path / "detector.json").write_text(json.dumps({"code_weights": {"JK": 3, "4D": 0.5}}))
    assert DetectorConfig.from_json(tmp_path / "detector.json").code_weights == (("JK", 3.0), ("4D", 0.5))


@pytest.mark.parametrize(("code_weights", "says"), [
    ({"ZZ": 2.0}, "code_weights: 'ZZ' is not a card code"),
    ({"none": 2.0}, "code_weights: 'none' is not a card code"),
    ({"JK": 0}, "the weight of 'JK' must be a positive number, got 0.0"),
    ({"JK": -3}, "the weight of 'JK' must be a positive number, got -3.0"),
    ({"JK": "high"}, "'high'"),
    (3, "code_weights must be an object of code: weight"),
])
def test_bad_code_weights_are_refused(tmp_path: Path, code_weights: object, says: str) -> None:
    (tmp_path / "detector.json").write_text(json.dumps({"code_weights": code_weights}))
    with pytest.raises(InvalidModelError, match=f"not a valid detector config: .*{says}"):
        DetectorConfig.from_json(tmp_path / "detector.json")


@pytest.mark.parametrize(("values", "says"), [
    ({"crop_shift": -0.05}, "crop_shift must be >= 0, got -0.05"),
    ({"crop_shift": "wide"}, "'wide'"),
    ({"crop_turns": "yes"}, "crop_turns must be true or false, got 'yes'"),
])
def test_bad_reading_views_in_the_config_are_refused(tmp_path: Path, values: dict, says: str) -> None:
    (tmp_path / "detector.json").write_text(json.dumps(values))
    with pytest.raises(InvalidModelError, match=f"not a valid detector config: .*{says}"):
        DetectorConfig.from_json(tmp_path / "detector.json")


SHIPPED = DEFAULT_MODEL_DIR / "detector.json"


@pytest.mark.parametrize(("key", "suggested"), [
    ("nms_iuo", "'nms_iou'"),
    ("detector_conff", "'detector_conf'"),
    ("unsure_bellow", "'unsure_below'"),
    ("zoom_tile", "'zoom_tiles'"),
    ("mirrored_looks", "'mirrored_look'"),
    ("pair_distanse", "'pair_distance'"),
])
def test_a_misspelt_key_is_refused_naming_it_and_the_key_meant(tmp_path: Path, key: str, suggested: str) -> None:
    with pytest.raises(UnknownConfigKeyError, match=f"unknown key '{key}': it sets nothing; did you mean .*{suggested}"):
        DetectorConfig.from_dict({key: 0.5})
    (tmp_path / "detector.json").write_text(json.dumps({**json.loads(SHIPPED.read_text()), key: 0.5}))
    with pytest.raises(InvalidModelError, match=f"not a valid detector config: unknown key '{key}'"):
        DetectorConfig.from_json(tmp_path / "detector.json")


def test_a_key_like_none_is_refused_without_a_guess() -> None:
    with pytest.raises(UnknownConfigKeyError, match=r"^unknown key 'qqq': it sets nothing$"):
        DetectorConfig.from_dict({"qqq": 1})


def test_the_shipped_detector_json_loads_and_sets_every_key_it_has() -> None:
    values = json.loads(SHIPPED.read_text())
    config = DetectorConfig.from_json(SHIPPED)
    assert config == DetectorConfig.from_dict(values) != DetectorConfig()
    # Its notes are the only keys that set nothing; each other key sets its field.
    notes = set(values) - {f.name for f in fields(DetectorConfig)} - set(CONFIG_KEYS)
    assert notes <= set(NOTE_KEYS)
    assert (config.conf_threshold, config.iou_threshold, config.min_class_prob) == (
        values["detector_conf"], values["nms_iou"], values["classifier_min_prob"])


@pytest.mark.parametrize("note", NOTE_KEYS)
def test_the_notes_a_config_carries_set_nothing(note: str) -> None:
    assert DetectorConfig.from_dict({note: "how it was chosen"}) == DetectorConfig()


@pytest.mark.parametrize(("values", "says"), [
    ({"conf_threshold": 1.5}, "conf_threshold must be between 0 and 1, got 1.5"),
    ({"conf_threshold": -0.1}, "conf_threshold must be between 0 and 1"),
    ({"conf_threshold": float("nan")}, "conf_threshold must be between 0 and 1, got nan"),
    ({"iou_threshold": 1.2}, "iou_threshold must be between 0 and 1"),
    ({"min_class_prob": -0.5}, "min_class_prob must be between 0 and 1"),
    ({"nested_overlap": -0.1}, "nested_overlap must be >= 0"),
    ({"pair_min_agreement": -1.0}, "pair_min_agreement must be >= 0"),
    ({"reread_below": -0.2}, "reread_below must be >= 0"),
    ({"index_aspect": -2.5}, "index_aspect must be >= 0"),
    ({"imgsz": 0}, "imgsz must be >= 1"),
    ({"decode_factor": 0.0}, "decode_factor must be > 0"),
    ({"pair_max_angle": -5.0}, "pair_max_angle must be between 0 and 180 degrees"),
    ({"side_max_angle": 200.0}, "side_max_angle must be between 0 and 180 degrees"),
    ({"pair_max_dot": -1.5}, "pair_max_dot must be between -1 and 1"),
    ({"pair_distance": (12.0, 1.0)}, r"pair_distance must be \(min, max\) with 0 <= min <= max"),
    ({"pair_distance": (-1.0, 12.0)}, "pair_distance must be"),
])
def test_thresholds_out_of_their_range_are_refused(values: dict, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        DetectorConfig(**values)


@pytest.mark.parametrize("values", [
    {"nested_overlap": 1.01},  # scripts/sweep_thresholds.py: keep every box, suppress later
    {"pair_min_agreement": 1.5},  # corners never read together
    {"reread_below": 1.01},  # every index read again
    {"conf_threshold": 0.001, "min_class_prob": 0.0},  # the synthetic evaluation's floor
    {"iou_threshold": 1.0, "pair_max_dot": 1.0},
])
def test_the_settings_that_mean_never_or_always_are_taken(values: dict) -> None:
    assert DetectorConfig(**values) == replace(DetectorConfig(), **values)
