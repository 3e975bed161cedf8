"""make-dataset's worker processes: results come back in order, and a worker that dies is
said at once, where ``multiprocessing.Pool`` waited for it for ever."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from onze_vision.cli import main
from onze_vision.synth import dataset
from onze_vision.synth.dataset import WorkerDiedError, in_workers
from support import needs_art


@pytest.mark.parametrize("workers", [1, 2])
def test_results_come_back_in_the_order_of_the_jobs(workers: int) -> None:
    jobs = [-5, 3, -1, 0, 7, -2] * 4
    assert list(in_workers(abs, jobs, workers)) == [abs(job) for job in jobs]


def touch(path: str) -> str:
    """A job that leaves a file where it ran (a module-level function, for spawned workers)."""
    Path(path).touch()
    time.sleep(0.01)
    return path


def test_a_caller_that_stops_early_does_not_wait_for_every_job(tmp_path: Path) -> None:
    jobs = [str(tmp_path / f"{i}.done") for i in range(400)]
    results = in_workers(touch, jobs, 2)
    assert next(results) == jobs[0]
    results.close()  # as make-dataset's loop does when a scene cannot be written
    assert len(list(tmp_path.iterdir())) < 100


def test_a_worker_that_dies_is_an_error_not_a_hang() -> None:
    # os._exit ends the worker process itself, as the system's out-of-memory killer does.
    with pytest.raises(WorkerDiedError, match="a worker process died"):
        list(in_workers(os._exit, [3, 3, 3], 2))


@needs_art
def test_make_dataset_says_how_far_it_got_when_a_worker_dies(tmp_path: Path, art_cache: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def one_scene_then_death(job: Callable[[Any], Any], jobs: Sequence[Any], workers: int,
                             initializer: Callable[..., object], initargs: tuple[Any, ...]) -> Iterator[Any]:
        initializer(*initargs)
        yield job(jobs[0])
        raise WorkerDiedError("a worker process died (killed by the system)")

    monkeypatch.setattr(dataset, "in_workers", one_scene_then_death)
    out = tmp_path / "d"
    with pytest.raises(WorkerDiedError) as raised:
        dataset.make_dataset(out, train_images=3, val_images=1, seed=5, workers=2, art_cache=art_cache,
                             train_decks=["anglo"], val_decks=["paris"], progress=False)
    assert f"at least 1 of 4 scenes were written to '{out}'" in str(raised.value)
    assert len(list((out / "images" / "train").iterdir())) == 1  # the scene written is kept


def test_the_command_line_says_a_dead_worker_in_a_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def dies(*args: object, **kwargs: object) -> None:
        raise WorkerDiedError("a worker process died (killed by the system); 1 of 2 scenes were written")

    monkeypatch.setattr(dataset, "make_dataset", dies)
    assert main(["make-dataset", "--out", str(tmp_path / "d"), "--train", "2", "--val", "0", "--workers", "2"]) == 2
    assert capsys.readouterr().err == ("onze-vision make-dataset: a worker process died (killed by the system); "
                                       "1 of 2 scenes were written\n")
