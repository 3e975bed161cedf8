"""Table surfaces for synthetic scenes: real photos and textures from Debian packages,
plus generated felt, wood and tablecloth.

Sources (installed, never committed): ``plasma-workspace-wallpapers`` and
``mate-backgrounds`` (photos), ``pokerth-data`` (poker-table felt), ``gimp-data``
(wood, stone, fabric and paper patterns in GIMP's ``.pat`` format). Each file is read
once, shrunk, and kept in memory; scenes take random crops with colour jitter.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

BACKGROUND_GLOBS: tuple[tuple[str, str], ...] = (
    ("/usr/share/wallpapers", "*/contents/images/1920x1080.*"),
    ("/usr/share/backgrounds/mate", "**/*.jpg"),
    ("/usr/share/backgrounds/mate", "**/*.png"),
    ("/usr/share/games/pokerth/gfx/gui/table", "*/table*.png"),
    ("/usr/share/gimp/2.0/patterns", "**/*.pat"),
)
MAX_SIDE = 900  # photos are shrunk to this once; crops are small anyway
GENERATED_SHARE = 0.35


def read_gimp_pattern(path: Path) -> np.ndarray:
    """Decode a GIMP ``.pat`` pattern (header, name, raw pixels) to BGR."""
    data = path.read_bytes()
    header_size, _version, width, height, depth = struct.unpack(">5I", data[:20])
    if data[20:24] != b"GPAT" or depth not in (1, 2, 3, 4):
        raise ValueError(f"{path} is not a GIMP pattern")
    pixels = np.frombuffer(data[header_size : header_size + width * height * depth], np.uint8)
    image = pixels.reshape(height, width, depth)
    if depth in (1, 2):
        return cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(image[:, :, :3], cv2.COLOR_RGB2BGR)


def _read(path: Path) -> np.ndarray | None:
    image = read_gimp_pattern(path) if path.suffix == ".pat" else cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None or min(image.shape[:2]) < 32:
        return None
    if image.shape[0] < 256 or image.shape[1] < 256:  # small tiles are repeated
        reps = (max(1, 256 // image.shape[0] + 1), max(1, 256 // image.shape[1] + 1), 1)
        image = np.tile(image, reps)
    scale = MAX_SIDE / max(image.shape[:2])
    if scale < 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return image


def find_background_files() -> list[Path]:
    """Every installed background file, sorted so the recipe is deterministic."""
    files: set[Path] = set()
    for root, pattern in BACKGROUND_GLOBS:
        if Path(root).exists():
            files.update(Path(root).glob(pattern))
    return sorted(files)


def _smooth_noise(rng: np.random.Generator, size: tuple[int, int], cells: int) -> np.ndarray:
    w, h = size
    small = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def generated_surface(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A felt, wood or tablecloth texture made from noise."""
    w, h = size
    kind = rng.integers(3)
    if kind == 0:  # felt: a flat colour with fine fibre noise
        colour = rng.uniform(20, 200, 3)
        image = colour + rng.normal(0, rng.uniform(3, 12), (h, w, 1)) + 20 * (_smooth_noise(rng, size, 6)[..., None] - 0.5)
    elif kind == 1:  # wood: stretched noise bent into grain
        grain = _smooth_noise(rng, (w, h), 40)
        yy = np.linspace(0, 1, h, dtype=np.float32)[:, None]
        rings = np.sin((yy * rng.uniform(20, 80) + grain * rng.uniform(2, 6)) * np.pi)
        base = np.array([rng.uniform(30, 90), rng.uniform(60, 130), rng.uniform(110, 200)])
        image = base * (0.8 + 0.2 * rings[..., None]) + rng.normal(0, 4, (h, w, 1))
        if rng.random() < 0.5:
            image = np.ascontiguousarray(np.transpose(image, (1, 0, 2)))[:h, :w] if h == w else image
    else:  # tablecloth: checks or stripes
        period = rng.uniform(8, 60)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, np.pi)
        u = xx * np.cos(a) + yy * np.sin(a)
        v = -xx * np.sin(a) + yy * np.cos(a)
        pattern = ((u // period) % 2 + ((v // period) % 2 if rng.random() < 0.6 else 0)) / 2
        c1, c2 = rng.uniform(20, 240, 3), rng.uniform(20, 240, 3)
        image = c1 + (c2 - c1) * pattern[..., None] + rng.normal(0, 5, (h, w, 1))
    return np.clip(image, 0, 255).astype(np.uint8)


class BackgroundBank:
    """Random table surfaces: crops of installed photos and textures, or generated ones."""

    def __init__(self, files: list[Path] | None = None) -> None:
        self.images: list[np.ndarray] = []
        for path in find_background_files() if files is None else files:
            image = _read(path)
            if image is not None:
                self.images.append(image)

    def __len__(self) -> int:
        return len(self.images)

    def sample(self, rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
        """A ``size`` (w, h) BGR surface."""
        w, h = size
        if not self.images or rng.random() < GENERATED_SHARE:
            return generated_surface(rng, size)
        source = self.images[int(rng.integers(len(self.images)))]
        sh, sw = source.shape[:2]
        crop = int(min(sh, sw) * rng.uniform(0.3, 1.0))
        y = int(rng.integers(0, sh - crop + 1))
        x = int(rng.integers(0, sw - crop + 1))
        image = cv2.resize(source[y : y + crop, x : x + crop], (w, h), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.5:
            image = cv2.flip(image, int(rng.integers(-1, 2)))
        jitter = rng.uniform(0.6, 1.2) * rng.uniform(0.85, 1.15, 3)
        return np.clip(image * jitter, 0, 255).astype(np.uint8)
