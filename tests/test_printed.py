"""Print on the table: drawn under the cards, never labelled, the same scenes with and without it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from onze_vision.synth.backgrounds import BackgroundBank
from onze_vision.synth.dataset import make_dataset, scene_meta
from onze_vision.synth.printed import PRINT_FONTS, WORDS, draw_print
from onze_vision.synth.scenes import render_scene
from support import needs_art

pytestmark = needs_art



def _scene(anglo, printed_share: float, seed: int = 3, print_seed: int | None = 9):
    print_rng = np.random.default_rng(print_seed) if print_seed is not None else None
    return render_scene(np.random.default_rng(seed), [anglo], BackgroundBank([]), (320, 320),
                        printed_share=printed_share, print_rng=print_rng)


@pytest.mark.parametrize("split", sorted(PRINT_FONTS))
def test_every_typeface_of_the_print_is_installed(split: str) -> None:
    missing = [path for path in PRINT_FONTS[split] if not Path(path).exists()]
    assert not missing, f"apt-get install the packages of {missing} (datasets/README.md)"


def test_the_held_out_scenes_print_in_typefaces_the_training_scenes_never_use() -> None:
    assert not set(PRINT_FONTS["train"]) & set(PRINT_FONTS["val"])


def test_no_word_of_print_is_a_lone_rank_or_a_joker_corner() -> None:
    # A bare "K" is a half-covered index; "JOKER" runs down some decks' Joker corners.
    ranks = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
    assert not {word.upper() for word in WORDS} & (ranks | {"JOKER", "JOKERS"})


def test_print_lands_in_the_canvas_and_every_word_box_is_on_ink() -> None:
    canvas = np.full((240, 320, 3), 128.0, np.float32)
    boxes = draw_print(np.random.default_rng(1), canvas, (10.0, 20.0))
    assert boxes and canvas.dtype == np.float32
    for x1, y1, x2, y2 in boxes:
        assert 0 <= x1 < x2 <= 320 and 0 <= y1 < y2 <= 240
        patch = canvas[int(y1):int(np.ceil(y2)), int(x1):int(np.ceil(x2))]
        assert np.abs(patch - 128).max() > 40  # ink or paper was drawn where the word is


def test_print_for_a_split_with_no_typefaces_is_refused() -> None:
    with pytest.raises(ValueError, match="'test'"):
        draw_print(np.random.default_rng(0), np.zeros((50, 50, 3), np.float32), (5.0, 9.0), split="test")


def test_at_share_0_a_scene_is_drawn_as_it_was_before_print_existed(anglo) -> None:
    before = render_scene(np.random.default_rng(3), [anglo], BackgroundBank([]), (320, 320))
    now = _scene(anglo, printed_share=0.0)
    assert np.array_equal(before.image, now.image) and now.printed == []
    assert "printed" not in scene_meta("a.jpg", now)


def test_print_drawn_from_its_own_generator_changes_only_the_pixels(anglo) -> None:
    plain = _scene(anglo, printed_share=0.0)
    printed = _scene(anglo, printed_share=1.0)
    assert printed.labels == plain.labels and printed.cards == plain.cards  # never labelled
    assert printed.printed and not np.array_equal(printed.image, plain.image)
    assert scene_meta("a.jpg", printed)["printed"] == [[round(v, 2) for v in box] for box in printed.printed]


def test_print_is_as_tall_as_the_scene_indices(anglo) -> None:
    scene = _scene(anglo, printed_share=1.0, seed=11)
    index_h = np.median([label.box[3] - label.box[1] for label in scene.labels])
    word_h = np.median([min(x2 - x1, y2 - y1) for x1, y1, x2, y2 in scene.printed])
    assert 0.2 * index_h < word_h < 2.5 * index_h


def test_a_printed_share_outside_0_to_1_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="1.5"):
        make_dataset(tmp_path, train_images=1, val_images=0, printed_share=1.5, progress=False)


def test_the_command_line_refuses_a_printed_share_over_1(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "onze_vision", "make-dataset", "--out", str(tmp_path / "d"),
                             "--train", "1", "--val", "0", "--printed", "2"], capture_output=True, text=True)
    assert result.returncode == 2 and "--printed" in result.stderr and "not 2" in result.stderr
    assert not (tmp_path / "d").exists()


def test_crops_of_a_printed_dataset_add_negatives_on_its_words(tmp_path: Path, art_cache: Path) -> None:
    from onze_vision.training.crops import NONE_RANK, build_crops

    common = dict(train_images=6, val_images=0, seed=4, workers=1, art_cache=art_cache,
                  train_decks=["anglo"], val_decks=["paris"], progress=False)
    make_dataset(tmp_path / "plain", **common)
    make_dataset(tmp_path / "printed", printed_share=1.0, **common)
    metas = [json.loads(line) for line in (tmp_path / "printed" / "meta" / "train.jsonl").read_text().splitlines()]
    assert all(meta["printed"] for meta in metas)
    plain = build_crops(tmp_path / "plain", "train", seed=0)
    printed = build_crops(tmp_path / "printed", "train", seed=0)
    # The same scenes and labels: the extra crops are all "none", cut on the print.
    assert (printed.rank != NONE_RANK).sum() == (plain.rank != NONE_RANK).sum()
    assert (printed.rank == NONE_RANK).sum() > (plain.rank == NONE_RANK).sum()
