"""The classifier's training augmentation: what it may change in a crop and what it may not."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="training needs the train extra: pip install -e '.[train]'")

from onze_vision.training.classifier import _augment, _stroke_and_resolution  # noqa: E402


def _stroke_crops(n: int = 64) -> "torch.Tensor":
    """White 48 px crops, each with a dark vertical stroke 4 px wide at columns 20-23."""
    crops = torch.ones(n, 3, 48, 48)
    crops[:, :, 8:40, 20:24] = 0.0
    return crops


def test_with_no_share_the_crops_are_untouched():
    crops = _stroke_crops()
    assert torch.equal(_stroke_and_resolution(crops, torch.Generator().manual_seed(0), share=0.0), crops)


@pytest.mark.parametrize("seed", range(4))
def test_stroke_weight_and_blur_change_the_ink_but_never_move_it(seed: int):
    crops = _stroke_crops()
    out = _stroke_and_resolution(crops, torch.Generator().manual_seed(seed), share=1.0)
    assert out.shape == crops.shape
    assert 0.0 <= float(out.min()) and float(out.max()) <= 1.0
    ink = 1.0 - out.mean(dim=(1, 2))  # [n, 48] darkness per column
    centre = (ink * torch.arange(48.0)).sum(dim=1) / ink.sum(dim=1)
    assert torch.allclose(centre, torch.full_like(centre, 21.5), atol=0.75)
    assert not torch.allclose(out, crops)


def test_quarter_turns_turn_the_down_vector_with_the_crop():
    crops = _stroke_crops(8)
    down = torch.tensor([[0.0, 1.0]]).repeat(8, 1)
    for seed in range(8):
        turned, new_down = _augment(crops, down, torch.Generator().manual_seed(seed))
        vertical = float((1 - turned[0].mean(dim=(0, 2))).std()) < float((1 - turned[0].mean(dim=(0, 1))).std())
        # A vertical stroke read "down" stays vertical only under half turns (down = +-y).
        assert vertical == bool(abs(float(new_down[0, 1])) > 0.5)
