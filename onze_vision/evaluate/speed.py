"""Speed: 4000x3000 phone-size JPEGs, bytes to card list, split by stage, next to
Ultralytics' own PyTorch ``predict`` of the same detector (imported only here)."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from onze_vision.detector import TIMING_KEYS, CardDetector, PhotoReading
from onze_vision.evaluate.common import SPEED_JPEG_QUALITY, SPEED_SIZE, Progress, print_progress
from onze_vision.evaluate.synthetic import load_scene_meta, synthetic_images, visible_cards


def make_speed_photos(sources: Sequence[Path], folder: Path, keep_aspect: bool = False) -> list[Path]:
    """Upscale photos to 4000x3000 (3000x4000 for portrait) JPEG quality 90 in ``folder``;
    with ``keep_aspect``, to the largest size of their own shape within that (a square scene:
    3000x3000, as a phone's square photo), not stretched to it."""
    paths = []
    for number, source in enumerate(sources):
        image = cv2.imread(str(source), cv2.IMREAD_COLOR)
        if image is None:
            continue
        size = SPEED_SIZE if image.shape[1] >= image.shape[0] else SPEED_SIZE[::-1]
        if keep_aspect:
            scale = min(size[0] / image.shape[1], size[1] / image.shape[0])
            size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
        big = cv2.resize(image, size, interpolation=cv2.INTER_CUBIC)
        path = folder / f"speed_{number:03d}.jpg"
        cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, SPEED_JPEG_QUALITY])
        paths.append(path)
    return paths


def _timed_reads(detector: CardDetector, payloads: Sequence[bytes],
                 warmup: int) -> tuple[list[float], list[PhotoReading]]:
    """Milliseconds from each file's bytes to its card list, and the readings, after
    reading the first ``warmup`` files once untimed (first runs allocate)."""
    for data in payloads[:warmup]:
        detector.detect_cards(data)
    totals, readings = [], []
    for data in payloads:
        start = time.perf_counter()
        readings.append(detector.detect_cards(data))
        totals.append((time.perf_counter() - start) * 1000)
    return totals, readings


def _stage_times(readings: Sequence[PhotoReading]) -> dict[str, list[float]]:
    """Each stage's milliseconds (:data:`TIMING_KEYS`), one per reading."""
    return {key: [reading.timings.get(key, 0.0) for reading in readings] for key in TIMING_KEYS}


def time_photos(detector: CardDetector, paths: Sequence[Path]) -> dict[str, Any]:
    """Median and p95 milliseconds from the file's bytes to the card list (after one warm-up
    read), the mean of each stage, and the mean count of cards read."""
    payloads = [path.read_bytes() for path in paths]
    if not payloads:
        return {"photos": 0}
    totals, readings = _timed_reads(detector, payloads, warmup=1)
    return {"photos": len(totals), "median_ms": statistics.median(totals),
            "p95_ms": float(np.percentile(totals, 95)),
            "stage_mean_ms": {key: statistics.fmean(values) for key, values in _stage_times(readings).items()},
            "cards_read_mean": statistics.fmean(len(reading.cards) for reading in readings)}


def fullest_scenes(root: Path, count: int) -> list[Path]:
    """The ``count`` scenes of a generated set that show the most cards (ties by name).

    A leftover hand of Onze holds up to 13 cards, and every card is one more index to name
    (and an unsure one is read again from more views of it), where the real photos timed
    for the bar show 1-4 cards.
    """
    return [path for _, path in _scenes_by_cards_shown(root)[:count]]


def _scenes_by_cards_shown(root: Path) -> list[tuple[int, Path]]:
    """Each scene of ``root`` with a record, and how many cards it shows: most first, ties by name."""
    metas = load_scene_meta(root)
    shown = [(len(visible_cards(meta)), path) for path in synthetic_images(root)
             if (meta := metas.get(path.relative_to(root).as_posix())) is not None]
    return sorted(shown, key=lambda pair: (-pair[0], pair[1].name))


def time_full_hands(detector: CardDetector, root: Path, count: int) -> dict[str, Any]:
    """:func:`time_photos` of the ``count`` fullest scenes of ``root`` (:func:`fullest_scenes`)
    enlarged as the bar's photos are, to fit 4000x3000 (keeping their shape: a square scene is
    not stretched, which would bend its cards' corners); with the mean count of cards they show."""
    fullest = _scenes_by_cards_shown(root)[:count]
    if not fullest:
        return {"photos": 0}
    with tempfile.TemporaryDirectory(prefix="onze-hands-") as tmp:
        timed = time_photos(detector, make_speed_photos([path for _, path in fullest], Path(tmp), keep_aspect=True))
    timed["cards_shown_mean"] = statistics.fmean(shown for shown, _ in fullest)
    return timed


def measure_speed(
    detector: CardDetector,
    sources: Sequence[Path],
    ultralytics_weights: Path | None = None,
    progress: Progress = print_progress,
) -> dict[str, Any]:
    """Time bytes -> card list on 4000x3000 JPEGs, and Ultralytics' PyTorch predict on the same files.

    Args:
        detector: The ONNX pipeline to time.
        sources: Photos to upscale (one 4000x3000 JPEG each).
        ultralytics_weights: ``index_detector.pt`` for the PyTorch comparison, or None.
        progress: Receives status lines.
    """
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory(prefix="onze-speed-") as tmp:
        paths = make_speed_photos(sources, Path(tmp))
        if not paths:
            return {"photos": 0}
        totals, readings = _timed_reads(detector, [p.read_bytes() for p in paths], warmup=2)
        stages = _stage_times(readings)
        stage_median = {key: statistics.median(values) for key, values in stages.items()}
        stage_mean = {key: statistics.fmean(values) for key, values in stages.items()}
        networks = stage_mean["detector"] + stage_mean["classifier"]
        result: dict[str, Any] = {
            "photos": len(paths),
            "size": list(SPEED_SIZE),
            "jpeg_quality": SPEED_JPEG_QUALITY,
            "median_ms": statistics.median(totals),
            "p95_ms": float(np.percentile(totals, 95)),
            "all_ms": totals,
            "stage_median_ms": stage_median,
            "stage_mean_ms": stage_mean,
            "outside_networks_share": 1.0 - networks / max(sum(stage_mean.values()), 1e-9),
            "detector_input": list(detector.input_size),
            "cpu_count": os.cpu_count(),
            # Other work on the machine (training) slows every figure here.
            "load_average_1min": load_before,
        }
        progress(f"speed: ONNX median {result['median_ms']:.1f} ms over {len(paths)} photos")
        if ultralytics_weights is not None:
            try:
                result["ultralytics"] = _time_ultralytics(detector, ultralytics_weights, paths)
                result["ultralytics_over_onnx"] = result["ultralytics"]["median_ms"] / result["median_ms"]
            except Exception as error:  # noqa: BLE001 - the comparison is optional
                result["ultralytics"] = {"error": f"{type(error).__name__}: {error}"}
        return result


def _time_ultralytics(detector: CardDetector, weights: Path, paths: Sequence[Path]) -> dict[str, Any]:
    """Ultralytics' PyTorch predict (detector only, from the file) with two threads."""
    os.environ["YOLO_OFFLINE"] = "true"  # must be set before the import
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    import torch
    import ultralytics.utils.torch_utils as torch_utils
    from ultralytics import YOLO

    torch_utils.NUM_THREADS = 2
    torch.set_num_threads(2)
    model = YOLO(str(weights))
    # Settings of mixed types, as predict's **kwargs take them.
    options: dict[str, Any] = {"imgsz": max(detector.input_size), "conf": detector.config.conf_threshold,
                               "iou": detector.config.iou_threshold, "verbose": False, "device": "cpu"}
    for path in paths[:2]:
        model.predict(str(path), **options)
    times = []
    for path in paths:
        start = time.perf_counter()
        model.predict(str(path), **options)
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": statistics.median(times), "p95_ms": float(np.percentile(times, 95)),
            "what": "YOLO(index_detector.pt).predict(path): detector only, from the JPEG file, torch 2 threads"}
