"""Pack what ``onze-vision make-dataset`` and ``train`` need onto a lent GPU machine.

That machine has PyTorch but no Debian card art, no wallpapers, no Ultralytics and no
network, and it receives at most 64 MiB per call, the repository's own ~27 MiB included
(its networks' weights stored as float16: ``onze_vision.training.halfweights``).
So the rendered deck cache (``datasets/art/decks/*.npz``, 18 MB a deck) goes in
``.gpu/decks.tar.xz``: one xz stream over every deck of the splits asked for (--splits),
whose long window finds what similar decks share (55 decks take 22 MiB; 46 of them, each
zipped alone, took 42), the background
photos (shrunk as the generator shrinks them, as JPEG) in ``.gpu/bg/``, the Ultralytics
wheels in ``.whl/``, and ``scripts/gpu_setup.sh`` unpacks them there.
polars (a 54 MB wheel that Ultralytics only uses to read its results.csv back) is
replaced by a stand-in that fails inside the try Ultralytics wraps it in.

    python scripts/pack_gpu_bundle.py          # every training and validation deck; then carry .gpu and .whl
    python scripts/pack_gpu_bundle.py --splits train val   # the number-card and glyph decks left out

It ends by adding what would travel (the repository's tracked files and the bundle) and fails,
saying so, where that is over a call's 64 MiB: the device would refuse the call.
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
#: What one device call carries: the working tree and the carried folders together.
CALL_LIMIT_MIB = 64
SPLITS = tuple(dict.fromkeys(deck.split for deck in DECKS))  # as art.py lists them, in order
POLARS_STAND_IN = '''"""Stand-in for polars on the GPU machine: Ultralytics reads results.csv back with it
inside a try that falls back to {}."""


def read_csv(*args, **kwargs):
    raise NotImplementedError("polars is not installed on this machine")


class DataFrame:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("polars is not installed on this machine")
'''


def tracked_bytes(repo: Path = REPO) -> int:
    """The size of the repository's tracked files: what a device call carries besides the bundle."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True).stdout
    return sum((repo / name).stat().st_size for name in listed.decode().split("\0") if (repo / name).is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / ".gpu")
    parser.add_argument("--wheels", type=Path, default=REPO / ".whl")
    parser.add_argument("--splits", nargs="+", choices=SPLITS, default=["train", "numbers", "glyphs", "val"],
                        help="deck splits to pack (default every one but the held-out four-corner designs; "
                             "make-dataset's --number-decks needs 'numbers', --glyph-decks 'glyphs')")
    parser.add_argument("--bg-quality", type=int, default=80, metavar="Q",
                        help="JPEG quality of the table photos (default 80: 3.5 MiB for the 102 of Debian's "
                             "packages, 6 MiB at 92; a table is warped, lit and shrunk in every scene anyway)")
    args = parser.parse_args()
    backgrounds = args.out / "bg"
    shim = args.out / "shim" / "polars"
    for folder in (backgrounds, shim):
        folder.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(args.out / "decks", ignore_errors=True)  # the per-deck files of earlier bundles
    cache = default_cache_dir()
    with tarfile.open(args.out / "decks.tar.xz", "w:xz", preset=9) as archive:
        for source in (deck for deck in DECKS if deck.split in args.splits):
            cached = cache / "decks" / f"{source.name}.npz"
            if not cached.exists():
                load_deck(source, cache)  # renders the deck and writes its cache
            archive.add(cached, arcname=cached.name)
    for number, path in enumerate(find_background_files()):
        image = _read(path)
        if image is not None:
            cv2.imwrite(str(backgrounds / f"bg_{number:03d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, args.bg_quality])
    (shim / "__init__.py").write_text(POLARS_STAND_IN)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
         "--python-version", "3.12", "--implementation", "cp",
         "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_17_x86_64",
         "--platform", "manylinux2014_x86_64", "-d", str(args.wheels), *WHEELS],
        check=True,
    )
    size = sum(f.stat().st_size for root in (args.out, args.wheels) for f in root.rglob("*") if f.is_file())
    tree = tracked_bytes()
    total = (size + tree) / 2**20
    print(f"{args.out} and {args.wheels}: {size / 2**20:.1f} MiB to carry; with the repository's "
          f"{tree / 2**20:.1f} MiB, {total:.1f} MiB travel in a call")
    if total > CALL_LIMIT_MIB:
        print(f"pack_gpu_bundle: {total:.1f} MiB is over the {CALL_LIMIT_MIB} MiB a device call carries: pack "
              f"fewer deck splits (--splits train val: the number-card and glyph decks left out)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
