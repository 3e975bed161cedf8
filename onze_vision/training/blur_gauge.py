"""The blur gauge: a tiny CNN that says how far an index crop is smeared.

A shaken or out-of-focus photo loses cards (``onze_vision.conditions`` measures how many),
and the player should hear so and retake it. Measures of the whole photo (the Laplacian's
variance, the structure tensor, edge widths) failed to tell a blurred photo from a sharp
one: they change with what the photo shows as much as with its blur. The index crops the
classifier reads are all cut at the scale of their index, so a smear a fifth of an index
long looks the same in every crop; this network reads it there.

Training: index crops of generated scenes, each scene drawn sharp, shaken (a straight
smear of any direction) or out of focus, as :mod:`onze_vision.synth.blur` draws them but
over a wider range, starting at none. The target is the smear as a share of the index
box's longer side; a Gaussian counts as the straight smear with the same spread
(:data:`SMEAR_PER_SIGMA`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from onze_vision.imageio import read_image_file
from onze_vision.indexcrop import CROP_SIZE, crop_index
from onze_vision.synth.blur import motion_kernel
from onze_vision.training.classifier import _to_tensor  # the crops as the runtime feeds them
from onze_vision.training.crops import jitter_box

#: A straight smear L long has the spread (standard deviation) of L / sqrt(12): a Gaussian
#: blur of sigma s spreads a point as far as a smear sqrt(12) s long.
SMEAR_PER_SIGMA = math.sqrt(12)

#: Shares of the scenes drawn sharp, shaken and out of focus; the rest.
SHARP_SHARE, SHAKEN_SHARE = 0.3, 0.45
#: The longest smear drawn, and the widest Gaussian (as its equivalent smear), in index sizes.
MAX_SMEAR = 0.6
#: Targets are clipped here: past it every photo is to be retaken, and the loss should not
#: chase how far past.
TARGET_CAP = 1.0


def draw_blur(rng: np.random.Generator, image: np.ndarray, index_side: float) -> tuple[np.ndarray, float]:
    """The scene sharp, shaken or out of focus (shares above); with its smear in pixels."""
    draw = rng.random()
    if draw < SHARP_SHARE:
        return image, 0.0
    if draw < SHARP_SHARE + SHAKEN_SHARE:
        length = round(rng.uniform(1.0, MAX_SMEAR * index_side))
        if length < 2:
            return image, 0.0
        return cv2.filter2D(image, -1, motion_kernel(length, rng.uniform(0, 180))), float(length)
    sigma = rng.uniform(0.2, MAX_SMEAR * index_side / SMEAR_PER_SIGMA)
    return cv2.GaussianBlur(image, (0, 0), sigma), SMEAR_PER_SIGMA * sigma


def gauge_crops(dataset: Path, split: str, draws: int = 3, seed: int = 0,
                limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Index crops of a generated dataset's scenes, each scene blurred ``draws`` times.

    Returns:
        (crops [N, 48, 48, 3] BGR uint8, smear [N] float32 in index sizes): each crop cut
        around its label box jittered as a detector's box wanders, after the blurred scene
        went through a phone's JPEG (quality 75-95).

    Raises:
        FileNotFoundError: ``dataset`` has no ``meta/{split}.jsonl``.
        InvalidImageError: A scene it lists cannot be read.
    """
    meta_file = dataset / "meta" / f"{split}.jsonl"
    if not meta_file.exists():
        raise FileNotFoundError(f"no scene list at {meta_file} (run onze-vision make-dataset first)")
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    smears: list[float] = []
    for line in meta_file.read_text().splitlines()[:limit]:
        meta = json.loads(line)
        boxes = np.array([label["box"] for label in meta["labels"]], np.float64).reshape(-1, 4)
        if not len(boxes):
            continue
        scene = read_image_file(dataset / meta["image"], what="scene")
        sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        for _ in range(draws):
            image, smear = draw_blur(rng, scene, float(np.median(sides)))
            ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 96))])
            if ok:
                decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
                assert decoded is not None  # the JPEG OpenCV encoded just above
                image = decoded
            for box, side in zip(boxes, sides):
                crops.append(crop_index(image, jitter_box(rng, box)))
                smears.append(smear / side)
    if not crops:
        return np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8), np.zeros(0, np.float32)
    return np.stack(crops), np.array(smears, np.float32)


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class BlurGaugeNet(nn.Module):
    """48x48 RGB crops in [0, 1] (the classifier's input) -> smear in index sizes [N].

    The crop is turned grey and its contrast evened out first: blur is in the edges, not
    in the ink's colour or the light. About 5 M multiply-adds a crop, a fifth of one
    classifier member.
    """

    grey: torch.Tensor  # a buffer: RGB -> luma weights [1, 3, 1, 1]

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.register_buffer("grey", torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1))
        self.features = nn.Sequential(
            _conv(1, width // 2), _conv(width // 2, width, 2),  # 24
            _conv(width, width), _conv(width, 2 * width, 2),  # 12
            _conv(2 * width, 2 * width), _conv(2 * width, 4 * width, 2),  # 6
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.smear = nn.Linear(4 * width, 1)

    def forward(self, crops: torch.Tensor) -> torch.Tensor:
        grey = (crops * self.grey).sum(dim=1, keepdim=True)
        grey = grey - grey.mean(dim=(2, 3), keepdim=True)
        grey = grey / (grey.std(dim=(2, 3), keepdim=True) + 0.02)
        return self.smear(self.features(grey)).squeeze(1)


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Quarter turns, light and a little sensor noise: what changes without changing the blur."""
    n = len(x)
    k = int(torch.randint(0, 4, (1,), generator=gen))
    x = torch.rot90(x, k, dims=(2, 3)) if k else x
    gain = 1 + 0.3 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    offset = 0.1 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    noise = torch.randn(x.shape, generator=gen) * 0.02 * torch.rand(n, 1, 1, 1, generator=gen)
    return (x * gain + offset + noise).clamp(0, 1)


def evaluate_gauge(model: BlurGaugeNet, crops: np.ndarray, smear: np.ndarray, batch: int = 1024) -> dict[str, float]:
    """Mean error on the crops, and how far apart sharp and smeared crops are read.

    ``sharp_p95`` is the 95th percentile of what sharp crops read; ``smeared_p05`` the 5th
    percentile of crops smeared by a quarter of an index or more.
    """
    model.eval()
    with torch.no_grad():
        read = torch.cat([model(_to_tensor(crops[i:i + batch])) for i in range(0, len(crops), batch)]).numpy()
    target = np.minimum(smear, TARGET_CAP)
    sharp, smeared = read[target == 0], read[target >= 0.25]
    return {"crops": int(len(read)), "mean_error": float(np.abs(read - target).mean()) if len(read) else math.nan,
            "sharp_p95": float(np.percentile(sharp, 95)) if len(sharp) else math.nan,
            "smeared_p05": float(np.percentile(smeared, 5)) if len(smeared) else math.nan}


def train_blur_gauge(crops: np.ndarray, smear: np.ndarray, minutes: float, seed: int = 0, batch: int = 128,
                     lr: float = 2e-3, log: Callable[[str], None] = lambda _: None) -> BlurGaugeNet:
    """Train a :class:`BlurGaugeNet` for ``minutes`` on the CPU (a cosine schedule fitted to the time).

    Raises:
        ValueError: No crops, or a time budget that is not positive.
    """
    if not len(crops):
        raise ValueError("no crops to train the blur gauge on")
    if minutes <= 0:
        raise ValueError(f"the blur gauge's training time must be positive, not {minutes} minutes")
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = BlurGaugeNet()
    optimiser = torch.optim.AdamW(model.parameters(), lr, weight_decay=1e-4)
    images = _to_tensor(crops)
    target = torch.from_numpy(np.minimum(smear, TARGET_CAP))
    budget, start, step = minutes * 60, time.perf_counter(), 0
    while (elapsed := time.perf_counter() - start) < budget:
        for group in optimiser.param_groups:  # cosine over the time budget: the last steps settle
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * min(elapsed / budget, 1.0)))
        model.train()
        pick = torch.randint(0, len(images), (batch,), generator=gen)
        loss = F.smooth_l1_loss(model(_augment(images[pick], gen)), target[pick], beta=0.05)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        step += 1
        if step % 500 == 0:
            log(f"blur gauge: step {step}, {elapsed / 60:.1f} min, loss {loss.item():.4f}")
    return model.eval()


def save_blur_gauge(model: BlurGaugeNet, path: Path) -> None:
    """The state dict, to export again or continue from."""
    torch.save({"blur_gauge": model.state_dict()}, path)


def load_blur_gauge(path: Path) -> BlurGaugeNet:
    """A gauge saved by :func:`save_blur_gauge`."""
    model = BlurGaugeNet()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True)["blur_gauge"])
    return model.eval()


def export_blur_gauge(model: BlurGaugeNet, path: Path) -> None:
    """ONNX with the runtime's contract: input ``crops`` [N, 3, 48, 48], output ``smear`` [N]."""
    model.eval()
    torch.onnx.export(model, (torch.zeros(2, 3, CROP_SIZE, CROP_SIZE),), str(path), input_names=["crops"],
                      output_names=["smear"], dynamic_axes={"crops": {0: "n"}, "smear": {0: "n"}},
                      opset_version=17, dynamo=False)
