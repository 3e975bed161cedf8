"""Pack what ``onze-vision make-dataset`` and ``train`` need onto a lent GPU machine.

That machine has PyTorch but no Debian card art, no wallpapers, no Ultralytics and no
network, and it receives at most 64 MiB per call, the repository's own ~21 MiB included.
So the rendered deck cache (``datasets/art/decks/*.npz``, 18 MB a deck) goes in
``.gpu/decks.tar.xz``: one xz stream over every listed deck (the number-card decks too),
whose long window finds what similar decks share (46 decks took 20 MiB, where each deck
zipped alone took 42), the background
photos (shrunk as the generator shrinks them, as JPEG) in ``.gpu/bg/``, the Ultralytics
wheels in ``.whl/``, and ``scripts/gpu_setup.sh`` unpacks them there.
polars (a 54 MB wheel that Ultralytics only uses to read its results.csv back) is
replaced by a stand-in that fails inside the try Ultralytics wraps it in.

    python scripts/pack_gpu_bundle.py          # then carry .gpu and .whl
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import cv2

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
    backgrounds = args.out / "bg"
    shim = args.out / "shim" / "polars"
    for folder in (backgrounds, shim):
        folder.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(args.out / "decks", ignore_errors=True)  # the per-deck files of earlier bundles
    cache = default_cache_dir()
    with tarfile.open(args.out / "decks.tar.xz", "w:xz", preset=9) as archive:
        for source in DECKS:
            cached = cache / "decks" / f"{source.name}.npz"
            if not cached.exists():
                load_deck(source, cache)  # renders the deck and writes its cache
            archive.add(cached, arcname=cached.name)
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
