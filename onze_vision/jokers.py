"""A deck's own Joker, learned from one photo of it: how its corner looks to the classifier.

A Joker's corner differs from deck to deck far more than a rank does (a ringed star, JOKER
spelt down the corner, a jester), so a deck whose Joker the networks were never taught is
read worst of all, and a Joker is the card that costs most left in a hand. A game is
played with one deck, though: once the players have shown the app that deck's Joker, an
index that looks like it is read as a Joker. How a crop looks is what the classifier's
heads read: the ``features`` output of its ONNX export, each ensemble member's features
scaled to length 1, side by side. A :class:`JokerLook` keeps their mean over the photo's
Joker corners; a located index whose features are, on average over the members,
``joker_like_min`` (cosine) or more alike is read as that Joker
(:meth:`~onze_vision.detector.CardDetector.detect_cards`, ``joker``).

A look round-trips through its text, which the score sheet keeps with a game::

    >>> look = JokerLook.from_features(np.array([[0.6, 0.8, 0.0, 1.0]]), corner_distance=7.5, classifier="c0ffee")
    >>> look.members, look.size, look.corner_distance, look.classifier
    (2, 4, 7.5, 'c0ffee')
    >>> JokerLook.from_text(look.to_text()) == look
    True
    >>> look.similarity(np.array([[0.6, 0.8, 1.0, 0.0]])).round(2).tolist()
    [0.5]
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import numpy as np

from onze_vision.messages import quoted

__all__ = ["JokerLook", "InvalidJokerLookError", "JokerLookMismatchError", "NoJokerFoundError", "LOOK_PREFIX",
           "likeness_between"]

#: The text form's first word and version: ``joker-look/1 CLASSIFIER MEMBERS DISTANCE BASE64``.
LOOK_PREFIX = "joker-look/1"


class InvalidJokerLookError(ValueError):
    """A Joker's look (its text, or the features it is made of) is not one."""


class JokerLookMismatchError(InvalidJokerLookError):
    """A Joker's look was taken with another classifier than the one reading the photo."""


class NoJokerFoundError(ValueError):
    """A photo meant to show a deck's Joker shows no corner to learn it from."""


@dataclass(frozen=True)
class JokerLook:
    """The mean look of one deck's Joker corners, as the classifier's members see them.

    Attributes:
        data: The look's values as little-endian float16 (its text form's payload).
        members: How many ensemble members' features it holds (each of length 1 in a crop's
            features, so a crop's whole vector has length sqrt(members)).
        corner_distance: How far apart the Joker's two corner marks lie, in mark sizes
            (``sqrt(w * h)`` of their boxes), where the photo it was learned from showed
            both; None where it did not. A mark that reads the same every way up (a star)
            tells no way down, so its two corners are paired by how far apart the photo's
            other cards' corners lie, or where no other card shows both, by this distance.
        classifier: Which classifier saw it (a digest of its file; "" unsaid): another
            network's features of the same width mean something else.
    """

    data: bytes
    members: int
    corner_distance: float | None = None
    classifier: str = ""

    def __post_init__(self) -> None:
        if self.members < 1 or not self.data or len(self.data) % 2:
            raise InvalidJokerLookError(f"a Joker's look needs values and at least one member, got "
                                        f"{len(self.data)} bytes and {self.members} members")
        if self.corner_distance is not None and not 0 < self.corner_distance < 1000:
            raise InvalidJokerLookError(f"a Joker's corners lie a positive number of mark sizes apart, "
                                        f"not {self.corner_distance}")
        if not all(c.isalnum() for c in self.classifier):
            raise InvalidJokerLookError(f"a classifier is named by letters and digits, not {quoted(self.classifier)}")

    @property
    def size(self) -> int:
        """How many feature values it holds (the classifier's ``features`` width)."""
        return len(self.data) // 2

    @property
    def vector(self) -> np.ndarray:
        """The look as float32 [size], of length sqrt(members)."""
        return np.frombuffer(self.data, dtype="<f2").astype(np.float32)

    @classmethod
    def from_features(cls, features: np.ndarray, corner_distance: float | None = None,
                      classifier: str = "") -> JokerLook:
        """The mean look of one or more Joker crops' ``features`` [K, size] (rows as the
        classifier gives them: each member's part of length 1), where both corners were seen
        how far apart they lie (``corner_distance``), and which ``classifier`` saw them.

        Raises:
            InvalidJokerLookError: No row, rows not of the classifier's making, or not finite.
        """
        rows = np.asarray(features, dtype=np.float64)
        if rows.ndim == 1:
            rows = rows[None, :]
        if rows.ndim != 2 or not len(rows) or not rows.shape[1] or not np.isfinite(rows).all():
            raise InvalidJokerLookError(f"a Joker's look is made of crops' features [K, size], got shape {rows.shape}")
        squared = (rows ** 2).sum(axis=1)
        members = _member_count(rows)
        if not 1 <= members <= rows.shape[1] or np.abs(squared - members).max() > 0.05 * members:
            raise InvalidJokerLookError("these features are not the classifier's (each member's part of length 1): "
                                        f"squared lengths {squared.min():.3f}-{squared.max():.3f}")
        mean = rows.mean(axis=0)
        mean *= np.sqrt(members) / max(float(np.linalg.norm(mean)), 1e-12)
        return cls(mean.astype("<f2").tobytes(), members,
                   None if corner_distance is None else round(float(corner_distance), 3), classifier)

    def similarity(self, features: np.ndarray) -> np.ndarray:
        """How alike each crop's ``features`` [N, size] looks: the members' mean cosine, at most 1.

        Raises:
            JokerLookMismatchError: The features are not as wide as the look (another classifier).
        """
        features = np.asarray(features, dtype=np.float32)
        if features.ndim != 2 or features.shape[1] != self.size:
            width = features.shape[1] if features.ndim == 2 else "no"
            raise JokerLookMismatchError(
                f"this Joker's look was taken with another classifier ({self.size} values, the photo's crops "
                f"have {width}): show the app the deck's Joker again")
        return features @ self.vector / self.members

    def to_text(self) -> str:
        """``joker-look/1 CLASSIFIER MEMBERS DISTANCE BASE64`` (CLASSIFIER and DISTANCE ``-``
        where unknown): what :meth:`from_text` reads back."""
        distance = "-" if self.corner_distance is None else f"{self.corner_distance:g}"
        return (f"{LOOK_PREFIX} {self.classifier or '-'} {self.members} {distance} "
                f"{base64.b64encode(self.data).decode('ascii')}")

    @classmethod
    def from_text(cls, text: str) -> JokerLook:
        """Read a look's text (:meth:`to_text`).

        Raises:
            InvalidJokerLookError: The text is not a Joker's look.
        """
        words = text.split() if isinstance(text, str) else []
        try:
            if len(words) != 5 or words[0] != LOOK_PREFIX:
                raise ValueError
            distance = None if words[3] == "-" else float(words[3])
            return cls(base64.b64decode(words[4], validate=True), int(words[2]), distance,
                       "" if words[1] == "-" else words[1])
        except (ValueError, binascii.Error):
            raise InvalidJokerLookError(f"{quoted(text)} is not a Joker's look "
                                        f"(written '{LOOK_PREFIX} CLASSIFIER MEMBERS DISTANCE BASE64')") from None


def _member_count(features: np.ndarray) -> int:
    """How many ensemble members' features each row of ``features`` [K, size] holds: each
    member's part has length 1, so a row's squared length is their count."""
    return int(round(float((np.asarray(features, dtype=np.float64) ** 2).sum(axis=1).mean())))


def likeness_between(features: np.ndarray) -> np.ndarray:
    """How alike every two crops' ``features`` [K, size] look [K, K]: the members' mean cosine,
    as :meth:`JokerLook.similarity` weighs a crop against a look."""
    rows = np.asarray(features, dtype=np.float64)
    return rows @ rows.T / max(_member_count(rows), 1)
