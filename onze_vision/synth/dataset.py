"""Write a synthetic Ultralytics-format dataset of Onze scenes.

Layout under ``out_dir``::

    data.yaml                      Ultralytics dataset file (53 card classes)
    images/{train,val}/*.jpg       scenes
    labels/{train,val}/*.txt       one line per visible corner index: class cx cy w h
    meta/{train,val}.jsonl         per scene: layout, cards (id, code, deck, centre) and
                                   labels (code, card_id, corner, box, visible, down,
                                   rank_visible)
    contact_sheet_{train,val}.png  sample scenes with their labels drawn
    summary.json                   counts, decks, seed, table photos and measured speed

The training split uses only the training deck designs and the validation split only
the held-out ones. Each scene's random state is derived from (seed, split, index), so
the bytes do not depend on the number of worker processes.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np

from onze_vision.imageio import read_image_file
from onze_vision.synth.art import DECKS, DeckArt, four_cornered, load_decks
from onze_vision.synth.backgrounds import BackgroundBank, find_background_files
from onze_vision.synth.blur import camera_blur
from onze_vision.synth.codes import CARD_CODES, CLASS_ID
from onze_vision.synth.scenes import INDEX_PX, Scene, render_scene

SPLIT_IDS = {"train": 0, "val": 1}
JPEG_QUALITY = 95

_worker_state: dict[str, object] = {}
_Job = TypeVar("_Job")
_Result = TypeVar("_Result")


@dataclass
class DatasetSummary:
    """What was written and how fast."""

    out_dir: str
    seed: int
    image_size: int
    counts: dict[str, int]
    labels: dict[str, int]
    decks: dict[str, list[str]]
    seconds: float
    images_per_second: float
    workers: int
    index_px: tuple[float, float] = INDEX_PX
    printed_share: float = 0.0
    blurred_share: float = 0.0
    four_corner_share: float = 0.0
    joker_share: float = 0.0
    #: Table photo files found (backgrounds.py), and a digest of their names and sizes: the
    #: scenes a seed draws differ with them, so a dataset says what it was drawn with (0:
    #: every surface generated).
    backgrounds: int = 0
    backgrounds_digest: str = ""


def scene_rng(seed: int, split: str, index: int) -> np.random.Generator:
    """The random state of one scene."""
    return np.random.default_rng([seed, SPLIT_IDS[split], index])


def print_rng(seed: int, split: str, index: int) -> np.random.Generator:
    """The random state of one scene's print, apart from the scene's own: the same seed
    with and without ``--printed`` gives the same scenes, with and without print."""
    return np.random.default_rng([seed, SPLIT_IDS[split], index, 1])


def blur_rng(seed: int, split: str, index: int) -> np.random.Generator:
    """The random state of one scene's camera blur, apart from the scene's own (as
    :func:`print_rng`): the same seed with and without ``--blurred`` gives the same scenes."""
    return np.random.default_rng([seed, SPLIT_IDS[split], index, 2])


def four_rng(seed: int, split: str, index: int) -> np.random.Generator:
    """The random state of whether one scene's decks have four corners, apart from the
    scene's own (as :func:`print_rng`): the same seed with and without ``--four-corners``
    gives the same layouts, cards and camera."""
    return np.random.default_rng([seed, SPLIT_IDS[split], index, 3])


def joker_rng(seed: int, split: str, index: int) -> np.random.Generator:
    """The random state of the Jokers dealt into one scene, apart from the scene's own (as
    :func:`print_rng`): the same seed with and without ``--jokers`` draws the same layouts,
    card counts and camera."""
    return np.random.default_rng([seed, SPLIT_IDS[split], index, 4])


def index_height(scene: Scene) -> float | None:
    """The median long side of the scene's index labels (None: no label)."""
    sides = [max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in (label.box for label in scene.labels)]
    return float(np.median(sides)) if sides else None


def yolo_lines(scene: Scene) -> list[str]:
    """The scene's labels as Ultralytics lines (class, normalised centre and size)."""
    h, w = scene.image.shape[:2]
    lines = []
    for label in scene.labels:
        x1, y1, x2, y2 = label.box
        lines.append(
            f"{CLASS_ID[label.code]} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} "
            f"{(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"
        )
    return lines


def scene_meta(name: str, scene: Scene) -> dict[str, object]:
    """The JSON record of one scene (``printed``: word boxes of print, only where there is print)."""
    meta: dict[str, object] = {
        "image": name,
        "layout": scene.layout,
        "cards": [asdict(card) for card in scene.cards],
        "labels": [
            {**asdict(label), "box": [round(v, 2) for v in label.box], "down": [round(v, 4) for v in label.down]}
            for label in scene.labels
        ],
    }
    if scene.printed:
        meta["printed"] = [[round(v, 2) for v in box] for box in scene.printed]
    return meta


def _init_worker(split_decks: dict[str, list[str]], art_cache: str | None) -> None:
    cache = Path(art_cache) if art_cache else None
    cv2.setNumThreads(1)  # one process per core already
    _worker_state["decks"] = {split: load_decks(names=names, cache=cache) for split, names in split_decks.items()}
    _worker_state["four"] = {}  # four-corner copies of a split's decks, made when a scene first needs them
    _worker_state["bank"] = BackgroundBank()


class WorkerDiedError(RuntimeError):
    """A process rendering scenes died (the system kills one that takes too much memory)."""


def in_workers(job: Callable[[_Job], _Result], jobs: Sequence[_Job], workers: int,
               initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = ()
               ) -> Generator[_Result, None, None]:
    """``job`` over ``jobs``, results in order, on ``workers`` spawned processes (1: in this
    one), each first running ``initializer(*initargs)``.

    Raises :class:`WorkerDiedError` when a process dies, where ``multiprocessing.Pool``
    waited for it for ever (a worker killed for memory left make-dataset hanging). Closed
    early, it cancels the jobs not started.
    """
    if workers == 1:
        if initializer is not None:
            initializer(*initargs)
        yield from map(job, jobs)
        return
    # Spawn, not fork: the art rendered before started OpenCV's thread pool in this
    # process, and a forked child that touches it deadlocks (seen on a fresh machine).
    # Closing pool.map's iterator (a caller that stops early) cancels the jobs not started.
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"), initializer=initializer,
                             initargs=initargs) as pool:
        try:
            yield from pool.map(job, jobs, chunksize=8)
        except BrokenProcessPool:  # the with's shutdown follows: a broken pool's futures have all failed
            raise WorkerDiedError("a worker process died (killed by the system, most often for want of "
                                  "memory: see dmesg)") from None


def _render_job(
    job: tuple[str, int, int, int, str, tuple[float, float], float, float, float, float],
) -> tuple[str, int, str, list[str], dict[str, object]]:
    split, index, seed, size, out_dir, index_px, printed_share, blurred_share, four_share, joker_share = job
    decks: list[DeckArt] = _worker_state["decks"][split]  # type: ignore[index]
    if four_share > 0 and four_rng(seed, split, index).random() < four_share:
        four: dict[str, list[DeckArt]] = _worker_state["four"]  # type: ignore[assignment]
        if split not in four:
            four[split] = [four_cornered(deck) for deck in decks]
        decks = four[split]
    bank: BackgroundBank = _worker_state["bank"]  # type: ignore[assignment]
    scene = render_scene(scene_rng(seed, split, index), decks, bank, (size, size), index_px=index_px,
                         printed_share=printed_share, print_split=split, print_rng=print_rng(seed, split, index),
                         joker_share=joker_share, joker_rng=joker_rng(seed, split, index))
    blurred = False
    if blurred_share > 0:
        rng = blur_rng(seed, split, index)
        height = index_height(scene)
        if rng.random() < blurred_share and height is not None:
            scene.image = camera_blur(rng, scene.image, height)
            blurred = True
    name = f"{split}_{index:06d}"
    ok, encoded = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    assert ok
    (Path(out_dir) / "images" / split / f"{name}.jpg").write_bytes(encoded.tobytes())
    lines = yolo_lines(scene)
    (Path(out_dir) / "labels" / split / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
    meta = scene_meta(f"images/{split}/{name}.jpg", scene)
    if blurred:
        meta["blurred"] = True
    return split, index, name, lines, meta


def draw_labels(image: np.ndarray, meta: dict[str, object]) -> np.ndarray:
    """Draw a scene's label boxes: green for top-left corners, magenta for bottom-right."""
    out = image.copy()
    labels = meta["labels"]
    assert isinstance(labels, list)  # as scene_meta records them
    for label in labels:
        x1, y1, x2, y2 = (int(round(v)) for v in label["box"])
        colour = (60, 220, 60) if label["corner"] == "tl" else (220, 60, 220)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 1)
        cv2.putText(out, label["code"], (x1, max(9, y1 - 2)), cv2.FONT_HERSHEY_SIMPLEX, 0.32, (0, 255, 255), 1)
    return out


def write_contact_sheet(out_dir: Path, split: str, metas: list[dict[str, object]], count: int = 24) -> Path:
    """A grid of scenes with their labels drawn, for a person to look at."""
    tiles = []
    for meta in metas[:count]:
        tile = draw_labels(read_image_file(out_dir / str(meta["image"]), what="scene"), meta)
        cv2.putText(tile, str(meta["layout"]), (3, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1)
        tiles.append(tile)
    cols = 6
    while len(tiles) % cols:
        tiles.append(np.zeros_like(tiles[0]))
    sheet = np.vstack([np.hstack(tiles[i : i + cols]) for i in range(0, len(tiles), cols)])
    path = out_dir / f"contact_sheet_{split}.png"
    cv2.imwrite(str(path), sheet)
    return path


def _progress(done: int, total: int, started: float) -> None:
    rate = done / max(time.perf_counter() - started, 1e-6)
    bar = "#" * int(30 * done / total)
    sys.stderr.write(f"\r  [{bar:<30}] {done}/{total} scenes, {rate:.1f} images/s")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


# The deck designs' splits by the names callers use (deck_names; make-dataset's --val-designs
# offers three of them, its --number-decks and --glyph-decks add two to the training designs).
DESIGN_SPLITS = {"training": "train", "number-cards": "numbers", "glyph-cards": "glyphs", "held-out": "val",
                 "four-corner": "four"}


def deck_names(split: str) -> list[str]:
    """The deck designs of one split: ``"training"``, ``"number-cards"`` (training decks
    whose courts are lettered in another language: number cards, Aces and Jokers only),
    ``"glyph-cards"`` (training decks drawn from typefaces' playing-card glyphs),
    ``"held-out"`` (validation only) or ``"four-corner"`` (held-out decks with an index in
    every corner)."""
    if split not in DESIGN_SPLITS:
        raise ValueError(f"no split of the deck designs is called {split!r}; use "
                         + ", ".join(repr(name) for name in DESIGN_SPLITS))
    return [deck.name for deck in DECKS if deck.split == DESIGN_SPLITS[split]]


def make_dataset(
    out_dir: Path,
    train_images: int = 12000,
    val_images: int = 600,
    seed: int = 0,
    image_size: int = 320,
    workers: int | None = None,
    art_cache: Path | None = None,
    train_decks: list[str] | None = None,
    val_decks: list[str] | None = None,
    progress: bool = True,
    index_px: tuple[float, float] = INDEX_PX,
    printed_share: float = 0.0,
    blurred_share: float = 0.0,
    four_corner_share: float = 0.0,
    joker_share: float = 0.0,
    number_decks: bool = False,
    glyph_decks: bool = False,
) -> DatasetSummary:
    """Render the dataset into ``out_dir`` and return what was written.

    ``printed_share``: the share of scenes with print on the table (0: none, and the
    scenes are those drawn before print existed). ``blurred_share``: the share of scenes
    shaken or out of focus (``synth.blur``; 0: none, the scenes drawn before it).
    ``four_corner_share``: the share of scenes whose decks have an index in all four
    corners (:func:`four_cornered`; 0: none, the scenes drawn before it). ``joker_share``:
    the share of scenes with one to three Jokers dealt in (:func:`deal_jokers`; 0: none,
    the scenes drawn before it). ``number_decks``: training scenes draw on the
    ``"number-cards"`` designs too, after ``train_decks`` (False: the scenes drawn before
    they were listed). ``glyph_decks``: the same for the ``"glyph-cards"`` designs, after those.
    """
    for name, share in (("printed_share", printed_share), ("blurred_share", blurred_share),
                        ("four_corner_share", four_corner_share), ("joker_share", joker_share)):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1], not {share!r}")
    out_dir = Path(out_dir)
    split_decks = {
        "train": ((train_decks or deck_names("training")) + (deck_names("number-cards") if number_decks else [])
                  + (deck_names("glyph-cards") if glyph_decks else [])),
        "val": val_decks or deck_names("held-out"),
    }
    counts = {"train": train_images, "val": val_images}
    for split in counts:
        (out_dir / "images" / split).mkdir(parents=True, exist_ok=True)
        (out_dir / "labels" / split).mkdir(parents=True, exist_ok=True)
    (out_dir / "meta").mkdir(parents=True, exist_ok=True)
    tables = find_background_files()
    if not tables:
        # Allowed (every surface is generated then), but a seed draws other scenes than on a
        # machine that has them: say so where it is made, and in summary.json.
        print("make-dataset: no table photos installed (datasets/README.md: apt-get install "
              "plasma-workspace-wallpapers mate-backgrounds pokerth-data gimp-data): every table surface is "
              "generated, and this seed's scenes differ from those of a machine that has them", file=sys.stderr)
    # Render the art once in this process so workers only read the cache.
    for names in split_decks.values():
        load_decks(names=names, cache=art_cache)

    jobs = [(split, i, seed, image_size, str(out_dir), index_px, printed_share, blurred_share, four_corner_share,
             joker_share)
            for split, n in counts.items() for i in range(n)]
    workers = max(1, workers or os.cpu_count() or 1)
    # Each split's records by job index, each slot filled as its job comes back.
    metas: dict[str, list[dict[str, object] | None]] = {split: [None] * n for split, n in counts.items()}
    label_counts = {split: 0 for split in counts}
    started = time.perf_counter()
    args = (split_decks, str(art_cache) if art_cache else None)
    done = 0
    results = in_workers(_render_job, jobs, workers, _init_worker, args)  # as _render_job returns, in job order
    try:
        for done, (split, index, _name, lines, meta) in enumerate(results, 1):
            metas[split][index] = meta
            label_counts[split] += len(lines)
            if progress and (done % 50 == 0 or done == len(jobs)):
                _progress(done, len(jobs), started)
    except WorkerDiedError as error:
        raise WorkerDiedError(f"{error}; at least {done} of {len(jobs)} scenes were written to '{out_dir}' before "
                              "it, and no meta/ or data.yaml: run it again with --overwrite (and fewer --workers "
                              "if memory is short)") from None
    seconds = time.perf_counter() - started

    for split, slots in metas.items():
        records = [record for record in slots if record is not None]  # all of them: every job filled its slot
        with open(out_dir / "meta" / f"{split}.jsonl", "w") as handle:
            for record in records:
                handle.write(json.dumps(record, sort_keys=True) + "\n")
        if records:
            write_contact_sheet(out_dir, split, records)
    names_yaml = "\n".join(f"  {i}: {code}" for i, code in enumerate(CARD_CODES))
    (out_dir / "data.yaml").write_text(
        f"# Onze Vision synthetic scenes: onze-vision make-dataset --seed {seed} "
        f"--index-px {index_px[0]:g} {index_px[1]:g}"
        + (f" --printed {printed_share:g}" if printed_share else "")
        + (f" --blurred {blurred_share:g}" if blurred_share else "")
        + (f" --four-corners {four_corner_share:g}" if four_corner_share else "")
        + (f" --jokers {joker_share:g}" if joker_share else "")
        + (" --number-decks" if number_decks else "")
        + (" --glyph-decks" if glyph_decks else "") + "\n"
        f"path: {out_dir.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names_yaml}\n"
    )
    summary = DatasetSummary(
        out_dir=str(out_dir),
        seed=seed,
        image_size=image_size,
        counts=counts,
        labels=label_counts,
        decks=split_decks,
        seconds=round(seconds, 1),
        images_per_second=round(len(jobs) / max(seconds, 1e-6), 1),
        workers=workers,
        index_px=index_px,
        printed_share=printed_share,
        blurred_share=blurred_share,
        four_corner_share=four_corner_share,
        joker_share=joker_share,
        backgrounds=len(tables),
        backgrounds_digest=hashlib.sha256("\n".join(f"{path.name} {path.stat().st_size}" for path in tables)
                                          .encode()).hexdigest()[:16] if tables else "",
    )
    (out_dir / "summary.json").write_text(json.dumps(asdict(summary), indent=2) + "\n")
    return summary
