"""``scripts/compare_models.py``: model folders side by side on what a new network must not lose."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from onze_vision.shared import real_photos_dir
from onze_vision.detector import DEFAULT_MODEL_DIR, DETECTOR_FILE
from support import needs_art

EDJE = real_photos_dir()   # $ONZE_SHARED, else ../shared beside the checkout


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / DETECTOR_FILE).exists() or not EDJE.is_dir(),
                    reason="needs the shipped models and ../shared/realphotos/edje")
def test_one_column_per_folder_and_the_same_folder_measures_the_same(
        load_script: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = load_script("compare_models")
    whole = script.evaluate_real_photos
    monkeypatch.setattr(script, "evaluate_real_photos",   # 10 photos, not 363
                        lambda detector, root, progress: whole(detector, root, limit=10, progress=progress))
    copy = tmp_path / "copy"  # the shipped files again, under another name
    copy.mkdir()
    for file in DEFAULT_MODEL_DIR.iterdir():
        if file.is_file():
            (copy / file.name).symlink_to(file)
    table = script.main([str(DEFAULT_MODEL_DIR), str(copy), "--every", "90", "--tuning",
                         "--json", str(tmp_path / "figures.json")])
    assert list(table) == [str(DEFAULT_MODEL_DIR), str(copy)]
    assert table[str(copy)] == table[str(DEFAULT_MODEL_DIR)]
    rows = table[str(copy)]
    assert list(rows)[:3] == ["real photos: rank recall / invented",
                              "real photos: offered as possibly missed / of them on no card, per photo",
                              "grey: read or offered right"]
    offered, offered_off_cards = rows["real photos: offered as possibly missed / of them on no card, per photo"]
    assert 0 <= offered_off_cards <= offered
    assert {"shaken: found / read right", "dark: found / read right"} <= set(rows)
    recall, invented = rows["real photos: rank recall / invented"]
    assert 0.9 <= recall <= 1.0 and invented <= 0.2
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("| figure | ") and any(line.startswith("| shaken: found") for line in printed)
    # The file holds the table printed: each folder's figures, row by row (a pair as a list).
    written = json.loads((tmp_path / "figures.json").read_text())
    assert list(written) == list(table) and list(written[str(copy)]) == list(rows)
    assert written == json.loads(json.dumps(table))
    assert written[str(copy)]["real photos: rank recall / invented"] == [recall, invented]


def test_real_photos_without_their_manifest_are_refused(load_script: Callable[[str], ModuleType], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        load_script("compare_models").main([str(DEFAULT_MODEL_DIR), "--realphotos", str(tmp_path)])
    assert f"no manifest.json in '{tmp_path}'" in capsys.readouterr().err


def test_a_folder_without_a_detector_is_refused(load_script: Callable[[str], ModuleType], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "manifest.json").write_text("[]")
    with pytest.raises(SystemExit):
        load_script("compare_models").main([str(tmp_path / "empty"), "--realphotos", str(tmp_path)])
    assert "no index_detector.onnx in" in capsys.readouterr().err


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / DETECTOR_FILE).exists() or not EDJE.is_dir(),
                    reason="needs the shipped models and ../shared/realphotos/edje")
def test_with_a_setting_adds_a_column_of_the_first_folder_so_changed(
        load_script: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch) -> None:
    script = load_script("compare_models")
    whole = script.evaluate_real_photos
    monkeypatch.setattr(script, "evaluate_real_photos",   # 10 photos, not 363
                        lambda detector, root, progress: whole(detector, root, limit=10, progress=progress))
    seen: list[tuple] = []
    measure = script.measure
    monkeypatch.setattr(script, "measure", lambda detector, *rest: seen.append(detector.config.code_weights)
                        or measure(detector, *rest))
    table = script.main([str(DEFAULT_MODEL_DIR), "--with", "code_weights={}", "--with", 'code_weights={"JK": 2}',
                         "--every", "90", "--tuning"])
    assert list(table) == [str(DEFAULT_MODEL_DIR), f"{DEFAULT_MODEL_DIR} with code_weights={{}}",
                           f'{DEFAULT_MODEL_DIR} with code_weights={{"JK": 2}}']
    assert seen == [(("JK", 3.0),), (), (("JK", 2.0),)]  # the shipped weight, none, and 2


@pytest.mark.parametrize(("setting", "says"), [
    ("code_weights", "expected KEY=JSON"),
    ("colour_weights={}", "'colour_weights' is not a detector.json key"),
    ("code_weights={JK: 2}", "'{JK: 2}' is not JSON"),
    ('code_weights={"ZZ": 2}', "'ZZ' is not a card code"),
    ("zoom_tiles=0", "zoom_tiles must be >= 1, got 0"),
])
def test_a_bad_setting_is_refused_with_what_was_wrong(
        load_script: Callable[[str], ModuleType], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        setting: str, says: str) -> None:
    (tmp_path / "manifest.json").write_text("[]")
    with pytest.raises(SystemExit):
        load_script("compare_models").main([str(DEFAULT_MODEL_DIR), "--realphotos", str(tmp_path),
                                            "--with", setting, "--tuning"])
    assert says in capsys.readouterr().err


def test_a_folder_whose_config_is_broken_is_refused_with_its_path(
        load_script: Callable[[str], ModuleType], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "manifest.json").write_text("[]")
    folder = tmp_path / "broken"
    folder.mkdir()
    for file in DEFAULT_MODEL_DIR.glob("*.onnx"):
        (folder / file.name).symlink_to(file)
    (folder / "detector.json").write_text("{not json")
    with pytest.raises(SystemExit):
        load_script("compare_models").main([str(folder), "--realphotos", str(tmp_path), "--tuning"])
    assert f"'{folder / 'detector.json'}' is not a valid detector config" in capsys.readouterr().err


@needs_art
@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / DETECTOR_FILE).exists(), reason="needs the shipped models")
def test_each_folders_map50_is_told_less_the_firsts_on_the_same_resampled_scenes(
        load_script: Callable[[str], ModuleType], art_cache: Path, tmp_path: Path) -> None:
    from onze_vision.synth.dataset import make_dataset

    tuning = tmp_path / "tune"
    make_dataset(tuning, train_images=0, val_images=4, seed=3, workers=1, art_cache=art_cache,
                 train_decks=["anglo"], val_decks=["anglo"], progress=False)
    copy = tmp_path / "copy"
    copy.mkdir()
    for file in DEFAULT_MODEL_DIR.iterdir():
        if file.is_file():
            (copy / file.name).symlink_to(file)
    # The real photos are measured by the tests above: here the tuning scenes alone (and none needed).
    table = load_script("compare_models").main([str(DEFAULT_MODEL_DIR), str(copy), "--tuning", str(tuning),
                                                "--scenes-only", "--realphotos", str(tmp_path / "nowhere")])
    row = f"{tuning.name}: mAP50 less the first's, 95 % of resampled scenes"
    assert list(table[str(copy)])[0] == f"{tuning.name}: mAP50 / card recall / precision"   # no real-photo rows
    # The same networks on the same resamples: no difference on any of them, the first's own too.
    assert table[str(DEFAULT_MODEL_DIR)][row] == table[str(copy)][row] == (0.0, 0.0)
    map50, _, _ = table[str(copy)][f"{tuning.name}: mAP50 / card recall / precision"]
    assert 0.0 <= map50 <= 1.0


def test_scenes_only_without_a_tuning_set_is_refused_saying_where_it_looked(
        load_script: Callable[[str], ModuleType], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        load_script("compare_models").main([str(DEFAULT_MODEL_DIR), "--scenes-only", "--tuning", str(tmp_path / "x")])
    assert f"nothing to measure (looked for images/ in {tmp_path / 'x'})" in capsys.readouterr().err
