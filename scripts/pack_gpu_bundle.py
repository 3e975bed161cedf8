"""Pack what ``onze-vision make-dataset`` and ``train`` need onto a lent GPU machine.

That machine has PyTorch but no Debian card art, no wallpapers, no Ultralytics and no
network, and it receives at most 64 MiB per call. So the rendered deck cache
(``datasets/art/decks/*.npz``, re-saved compressed: 18 MB -> 1.2 MB a deck) and the
background photos (shrunk as the generator shrinks them, as JPEG) go in ``.gpu/``, the
Ultralytics wheels in ``.whl/``, and ``scripts/gpu_train.sh`` unpacks them there.
polars (a 54 MB wheel that Ultralytics only uses to read its results.csv back) is
replaced by a stand-in that fails inside the try Ultralytics wraps it in.

    python scripts/pack_gpu_bundle.py          # then carry .gpu and .whl
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from onze_vision.synth.art import DECKS, default_cache_dir, load_deck  # noqa: E402
from onze_vision.synth.backgrounds import _read, find_background_files  # noqa: E402

WHEELS = ("ultralytics==8.4.190", "ultralytics-thop==2.2.3", "onnxslim==0.1.98")
POLARS_STAND_IN = '''"""Stand-in for polars on the GPU machine: Ultralytics reads results.csv back with it
inside a try that falls back to {}."""


def read_csv(*args, **kwargs):
    raise NotImplementedError("polars is not installed on this machine")


class DataFrame:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("polars is not installed on this machine")
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / ".gpu")
    parser.add_argument("--wheels", type=Path, default=REPO / ".whl")
    args = parser.parse_args()
    decks = args.out / "decks"
    backgrounds = args.out / "bg"
    shim = args.out / "shim" / "polars"
    for folder in (decks, backgrounds, shim):
        folder.mkdir(parents=True, exist_ok=True)
    cache = default_cache_dir()
    for source in DECKS:
        cached = cache / "decks" / f"{source.name}.npz"
        if not cached.exists():
            load_deck(source, cache)  # renders the deck and writes its cache
        with np.load(cached) as data:
            np.savez_compressed(decks / f"{source.name}.npz", **dict(data))
    for number, path in enumerate(find_background_files()):
        image = _read(path)
        if image is not None:
            cv2.imwrite(str(backgrounds / f"bg_{number:03d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (shim / "__init__.py").write_text(POLARS_STAND_IN)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
         "--python-version", "3.12", "--implementation", "cp",
         "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_17_x86_64",
         "--platform", "manylinux2014_x86_64", "-d", str(args.wheels), *WHEELS],
        check=True,
    )
    size = sum(f.stat().st_size for root in (args.out, args.wheels) for f in root.rglob("*") if f.is_file())
    print(f"{args.out} and {args.wheels}: {size / 2**20:.1f} MiB to carry")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
