"""How far a held-out mAP50 would move on other scenes: the scenes resampled (a bootstrap).

A few hundred generated scenes give one mAP50; another draw of as many scenes gives another.
Resampling the scenes with replacement, many times, and scoring each resample says how wide
that spread is, and, with the same resamples for two detectors read on the same scenes,
whether one of them reads better or only read these scenes better (a paired comparison: the
difference of two detectors moves much less from draw to draw than either figure does).

A resample is scored without copying anything: each scene's readings are weighted by how
often the resample drew it, and AP is computed from the weighted counts (the same figure as
the resample's copies would give, but for the order of exactly equal scores).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from onze_vision.evaluate.common import interpolated_ap
from onze_vision.messages import quoted

#: How many resamples: the ends of a 95 % interval move by about 0.0005 from one seed to another
#: at this count (simulated readings of 600 scenes; `models/HISTORY.md`).
RESAMPLES = 1000

#: The resamples are drawn from this seed unless told, so two detectors read on the same
#: scenes are resampled alike (:meth:`SceneScores.resampled_map50`) and their difference is paired.
RESAMPLE_SEED = 0


@dataclass
class SceneScores:
    """Every scene's index readings as mAP50 needs them, scene by scene.

    Attributes:
        codes: How many codes (classes) there are.
        class_id: Per scene, each reading's code.
        score: Per scene, each reading's score.
        hit: Per scene, whether each reading is a true positive at IoU 0.5.
        labels: Per scene, how many labels of each code it has ([codes]).
    """

    codes: int
    class_id: list[np.ndarray] = field(default_factory=list)
    score: list[np.ndarray] = field(default_factory=list)
    hit: list[np.ndarray] = field(default_factory=list)
    labels: list[np.ndarray] = field(default_factory=list)

    def add(self, class_id: np.ndarray, score: np.ndarray, hit: np.ndarray, label_class: np.ndarray) -> None:
        """File one scene: its readings (code, score, true positive at IoU 0.5) and its labels' codes."""
        self.class_id.append(np.asarray(class_id, np.int64).reshape(-1))
        self.score.append(np.asarray(score, np.float64).reshape(-1))
        self.hit.append(np.asarray(hit, bool).reshape(-1))
        self.labels.append(np.bincount(np.asarray(label_class, np.int64).reshape(-1), minlength=self.codes))

    def __len__(self) -> int:
        return len(self.labels)

    def map50(self, times: Sequence[float] | None = None) -> float:
        """mAP50 of the scenes, each once (the figure resampled), or scene ``s`` counted
        ``times[s]`` times: what its copies would score (but for the order of equal scores)."""
        counted = np.ones(len(self)) if times is None else np.asarray(times, np.float64)
        if counted.shape != (len(self),) or (counted < 0).any():
            raise ValueError(f"times: one count of 0 or more per scene ({len(self)}), not {quoted(times)}")
        return float(self._weighted_map50(counted[None, :])[0])

    def resampled_map50(self, resamples: int = RESAMPLES, seed: int = RESAMPLE_SEED) -> np.ndarray:
        """mAP50 of ``resamples`` resamples of the scenes ([resamples]); the same ``seed`` and
        scene count draw the same resamples, so two detectors' figures are paired."""
        if not len(self):
            raise ValueError("no scenes to resample: SceneScores holds none")
        drawn = np.random.default_rng(seed).integers(0, len(self), size=(resamples, len(self)))
        times = np.zeros((resamples, len(self)), np.float64)
        np.add.at(times, (np.arange(resamples)[:, None], drawn), 1.0)
        return self._weighted_map50(times)

    def _weighted_map50(self, times: np.ndarray) -> np.ndarray:
        """mAP50 with scene ``s`` counted ``times[r, s]`` times, for each row ``r`` ([R])."""
        scene_of = np.concatenate([np.full(len(c), s) for s, c in enumerate(self.class_id)]).astype(np.int64)
        class_id, score, hit = (np.concatenate(parts) for parts in (self.class_id, self.score, self.hit))
        labels = times @ np.stack(self.labels).astype(np.float64)   # [R, codes]: labels per code, as drawn
        ap = np.full(labels.shape, np.nan)
        for code in range(self.codes):
            mine = np.flatnonzero(class_id == code)
            order = mine[np.argsort(-score[mine], kind="stable")]
            weight = times[:, scene_of[order]]                          # [R, readings of this code]
            tp = np.cumsum(weight * hit[order], axis=1)
            fp = np.cumsum(weight * ~hit[order], axis=1)
            for r in np.flatnonzero(labels[:, code] > 0):
                ap[r, code] = interpolated_ap(tp[r], fp[r], labels[r, code])
        counted = labels > 0
        return np.array([ap[r, counted[r]].mean() if counted[r].any() else np.nan for r in range(len(times))])


def interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The central ``level`` of ``samples`` (percentile interval), e.g. (0.915, 0.931)."""
    if not 0 < level < 1:
        raise ValueError(f"an interval's level is between 0 and 1, not {level!r}")
    tail = (1 - level) / 2 * 100
    low, high = np.nanpercentile(np.asarray(samples, np.float64), [tail, 100 - tail])
    return float(low), float(high)
