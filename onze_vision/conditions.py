"""The real photos as they were not taken: without colour, in bad light, blurred, tilted.

The real photos are well lit, sharp, in colour and mostly taken from above, with nothing
on the cards. Each (every ``every``-th of the set) is read as taken and again changed: as a
black-and-white JPEG of itself, darkened or tinted the way a kitchen lamp or a dim room
does it, blurred (out of focus, or shaken), seen from lower down (tilted: the far edge
shrunk), mirrored left to right (as a selfie camera or a webcam may save it), and with one
corner index covered (a lamp's glare on a glossy card, a thumb). The reading as
taken is the reference (the real photos are labelled with ranks only, and in colour their
suits are read right); for each suited card read there, the changed photo's card at the
same place (box IoU >= 0.5; in a tilted or mirrored copy, the card whose centre lies in the
reference box carried there; with a corner covered, the card whose centre lies in the
reference box) is compared with it. Reported by ``onze-vision evaluate``;
``scripts/sweep_light.py`` uses the same comparison to choose ``balance_from``.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from onze_vision.cards import RED_SUITS
from onze_vision.detections import box_iou
from onze_vision.detector import CardDetector, DetectedCard, PhotoReading
from onze_vision.imageio import read_image_file
from onze_vision.synth.blur import motion_kernel, shake_path_kernel

#: Bad light as channel factors (B, G, R) and sensor noise (grey levels): a warm lamp
#: takes most of the blue; a dim room takes the light, and the camera's noise stays.
LIGHTS: dict[str, tuple[tuple[float, float, float], float]] = {
    "very warm": ((0.45, 0.75, 1.35), 0.0),
    "dim": ((0.35, 0.35, 0.35), 4.0),
    "dark": ((0.2, 0.2, 0.2), 4.0),
}

#: Blur as a share of the photo's long side: out of focus (a Gaussian's sigma), a shaken
#: hand (a straight horizontal smear this long) and a hand shaken along a wandering path
#: (:func:`~onze_vision.synth.blur.shake_path_kernel`, this wide, drawn per photo). On the
#: 504-px real photos: 2 px and 9 px, about 8 and 36 px on a 2000-px phone photo as the
#: runtime decodes it. A straight smear is what the runtime can undo (:mod:`onze_vision.deblur`);
#: the curved one says what that is worth where the hand wandered.
BLURS: dict[str, tuple[str, float]] = {
    "out of focus": ("gaussian", 0.004),
    "shaken": ("motion", 0.018),
    "shaken on a curve": ("path", 0.018),
}

#: A phone held lower over the table, as the far edge of the photo's width over the near
#: edge's (a homography keeping the near edge and the height): the corners of one card
#: no longer sit on a rectangle's diagonal, and the far corner is drawn smaller.
TILTS: dict[str, float] = {
    "tilted": 0.6,
    "steeply tilted": 0.5,
}

#: One corner index of the photo covered: blown out to white by a lamp's reflection on a
#: glossy card (None: every pixel moved toward white, the print gone), or under the thumb
#: of the hand holding the cards (a skin tone, B, G, R). The cover is an ellipse
#: :data:`COVER_SIZE` index sizes long and two thirds as wide, turned at random, with a
#: soft rim, over one of the indices the photo as taken reads (drawn per photo, the same
#: for each cover). The card of that index can still be read from its other corner; a
#: card showing one corner cannot.
COVERS: dict[str, tuple[int, int, int] | None] = {
    "glare": None,
    "thumb": (120, 150, 200),
}
COVER_SIZE = 2.5

#: Every how-many-th real photo is changed (a third of the 363: 121 photos, 226 suited cards).
CONDITIONS_EVERY = 3

_JPEG_QUALITY = 92


def jpeg_bytes(image: np.ndarray, path: Path) -> bytes:
    """A changed copy of the photo at ``path`` as the phone JPEG it is read from."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, _JPEG_QUALITY])
    if not ok:
        raise ValueError(f"cannot encode a changed copy of '{path}'")
    return data.tobytes()


def grey_jpeg(path: Path) -> bytes:
    """The photo as a black-and-white phone photo would be: a one-channel JPEG."""
    return jpeg_bytes(read_image_file(path, cv2.IMREAD_GRAYSCALE, what="photo"), path)


def in_light(path: Path, factors: tuple[float, float, float], noise: float, seed: int = 0) -> bytes:
    """The photo as a JPEG taken in that light (see :data:`LIGHTS`)."""
    image = read_image_file(path, what="photo").astype(np.float32) * np.array(factors, np.float32)
    if noise:
        image += np.random.default_rng(seed).normal(0.0, noise, image.shape)
    return jpeg_bytes(np.clip(image, 0, 255).astype(np.uint8), path)


def blurred(path: Path, kind: str, share: float) -> bytes:
    """The photo as a JPEG blurred that way (see :data:`BLURS`)."""
    image = read_image_file(path, what="photo")
    size = share * max(image.shape[:2])
    if kind == "gaussian":
        image = cv2.GaussianBlur(image, (0, 0), size)
    elif kind == "motion":
        image = cv2.filter2D(image, -1, motion_kernel(max(1, round(size))))
    elif kind == "path":
        # Each photo its own path, the same every run.
        rng = np.random.default_rng(zlib.crc32(path.name.encode()))
        image = cv2.filter2D(image, -1, shake_path_kernel(rng, size))
    else:
        raise ValueError(f"unknown blur {kind!r}: expected 'gaussian', 'motion' or 'path'")
    return jpeg_bytes(image, path)


def tilt_homography(width: int, height: int, far_share: float) -> np.ndarray:
    """The 3x3 homography of a photo seen from lower down: its top edge shrunk to
    ``far_share`` of its width about the centre, its bottom edge and height kept."""
    if not 0 < far_share <= 1:
        raise ValueError(f"far edge share {far_share!r} must be in (0, 1]")
    inset = width * (1 - far_share) / 2
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    moved = np.array([[inset, 0], [width - inset, 0], [width, height], [0, height]], np.float32)
    return cv2.getPerspectiveTransform(corners, moved)


def tilted(path: Path, far_share: float) -> tuple[bytes, np.ndarray]:
    """The photo as a JPEG seen from lower down (see :data:`TILTS`), and the homography
    that carries its points there."""
    image = read_image_file(path, what="photo")
    height, width = image.shape[:2]
    homography = tilt_homography(width, height, far_share)
    warped = cv2.warpPerspective(image, homography, (width, height), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    return jpeg_bytes(warped, path), homography


def mirrored(path: Path) -> tuple[bytes, np.ndarray]:
    """The photo as a JPEG mirrored left to right (a selfie camera or a webcam that saves
    what it shows as a mirror does), and the homography that carries its points there."""
    image = read_image_file(path, what="photo")
    width = image.shape[1]
    homography = np.array([[-1.0, 0.0, width], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    return jpeg_bytes(np.ascontiguousarray(image[:, ::-1]), path), homography


def covered(path: Path, index_boxes: np.ndarray, colour: tuple[int, int, int] | None) -> bytes:
    """The photo as a JPEG with one of ``index_boxes`` [N, 4] (x1, y1, x2, y2) covered (see
    :data:`COVERS`): which one, and the cover's turn, drawn from the photo's name."""
    image = read_image_file(path, what="photo").astype(np.float32)
    boxes = np.asarray(index_boxes, np.float64).reshape(-1, 4)
    if not len(boxes):
        raise ValueError(f"no index to cover in '{path}'")
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    x1, y1, x2, y2 = boxes[rng.integers(len(boxes))]
    size = COVER_SIZE * float(np.sqrt((x2 - x1) * (y2 - y1)))
    mask = np.zeros(image.shape[:2], np.float32)
    cv2.ellipse(mask, (round((x1 + x2) / 2), round((y1 + y2) / 2)), (round(size / 2), round(size / 3)),
                float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    # A soft rim: a reflection fades out, and a thumb's edge is out of the focal plane.
    alpha = cv2.GaussianBlur(mask, (0, 0), max(1.0, size * 0.08))[..., None]
    target = np.float32(255) if colour is None else np.array(colour, np.float32)
    return jpeg_bytes(np.clip(image * (1 - alpha) + target * alpha, 0, 255).astype(np.uint8), path)


def carry_boxes(boxes: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """Boxes [N, 4] (x1, y1, x2, y2) carried through a homography: each the box around its moved corners."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    corners = boxes[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(corners, np.asarray(homography, np.float64)).reshape(-1, 4, 2)
    return np.concatenate([moved.min(axis=1), moved.max(axis=1)], axis=1)


def compare_readings(reference: Sequence[DetectedCard], changed: Sequence[DetectedCard],
                     homography: np.ndarray | None = None, *, by_centre: bool = False) -> Counter[str]:
    """Count, over the suited cards of ``reference``, what ``changed`` made of each.

    Keys: ``cards``; ``found`` (a card of ``changed`` on it, IoU >= 0.5); ``same rank``;
    and per colour of the reference card (``red``, ``black``): the count, ``colour kept``,
    ``read right`` and ``read or offered right`` (the card read or its alternative).

    With ``homography`` (the change moved the pixels, see :func:`tilted`) each reference box
    is carried through it, and a changed card is on it when its centre lies in the box:
    a card whose two corners were not paired is read as two cards, each on half of the
    box. ``read twice`` counts the reference cards with more than one changed card of
    their code on them. ``by_centre`` matches by centre without moving the boxes: where a
    corner was covered, its card read from the other corner alone has that corner's box.
    ``one corner`` counts the reference cards read from a single corner, and ``one corner:
    found`` those of them found.
    """
    counts: Counter[str] = Counter()
    suited = [card for card in reference if card.card != "JK"]
    counts["cards"] = len(suited)
    counts["one corner"] = sum(card.corners == 1 for card in suited)
    if not suited or not changed:
        return counts
    boxes = np.array([c.box for c in suited], np.float64)
    if homography is not None:
        boxes = carry_boxes(boxes, homography)
    changed_boxes = np.array([c.box for c in changed], np.float64)
    overlaps = box_iou(boxes.astype(np.float32), changed_boxes.astype(np.float32))
    on = overlaps >= 0.5
    if homography is not None or by_centre:
        centres = (changed_boxes[:, :2] + changed_boxes[:, 2:]) / 2
        on = ((centres[None, :, 0] >= boxes[:, None, 0]) & (centres[None, :, 0] <= boxes[:, None, 2])
              & (centres[None, :, 1] >= boxes[:, None, 1]) & (centres[None, :, 1] <= boxes[:, None, 3]))
    for card, row, hits in zip(suited, overlaps, on):
        if not hits.any():
            continue
        twin = changed[int(np.where(hits, row, -1.0).argmax())]
        counts["found"] += 1
        counts["one corner: found"] += card.corners == 1
        counts["read twice"] += sum(changed[int(j)].card == card.card for j in np.flatnonzero(hits)) > 1
        if twin.card[:-1] != card.card[:-1]:
            continue
        counts["same rank"] += 1
        colour = "red" if card.card[-1] in RED_SUITS else "black"
        counts[colour] += 1
        counts[f"{colour}: colour kept"] += twin.card != "JK" and (twin.card[-1] in RED_SUITS) == (colour == "red")
        counts[f"{colour}: read right"] += twin.card == card.card
        counts[f"{colour}: read or offered right"] += card.card in (twin.card, twin.alternative)
    return counts


def _shares(counts: Counter[str], gauged: bool = True) -> dict[str, Any]:
    """``counts`` with their shares (also of the cards read from two corners as taken and
    from one, apart: a corner covered loses only the second kind); ``gauged``: a blur gauge
    read the photos (without one, none is reported blurred, and that is no figure:
    ``warned_share`` is None)."""
    cards, photos = counts["cards"], counts["photos"]
    right = counts["red: read right"] + counts["black: read right"]
    offered = counts["red: read or offered right"] + counts["black: read or offered right"]
    one, one_found = counts["one corner"], counts["one corner: found"]
    return {**dict(counts),
            "found_share": counts["found"] / cards if cards else None,
            "two_corners_found_share": (counts["found"] - one_found) / (cards - one) if cards > one else None,
            "one_corner_found_share": one_found / one if one else None,
            "read_twice_share": counts["read twice"] / cards if cards else None,
            "read_right_share": right / cards if cards else None,
            "read_or_offered_right_share": offered / cards if cards else None,
            "warned_share": counts["warned blurred"] / photos if photos and gauged else None}


def evaluate_conditions(detector: CardDetector, root: Path, every: int = CONDITIONS_EVERY,
                        limit: int | None = None, progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Read every ``every``-th real photo of ``root`` (its ``manifest.json``) as taken,
    grey, in each of :data:`LIGHTS`, each of :data:`BLURS`, each of :data:`TILTS`,
    mirrored, and with a corner index under each of :data:`COVERS`; the
    counts of :func:`compare_readings` and shares, and per condition how many of its
    ``photos`` were reported blurred (``warned blurred``, ``warned_share``: None when the
    models have no blur gauge).
    """
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))[:limit]
    photos = [root / entry["image"] for entry in manifest[::every]]
    grey: Counter[str] = Counter()
    lights: dict[str, Counter[str]] = {name: Counter() for name in LIGHTS}
    blurs: dict[str, Counter[str]] = {name: Counter() for name in BLURS}
    tilts: dict[str, Counter[str]] = {name: Counter() for name in TILTS}
    mirror: Counter[str] = Counter()
    covers: dict[str, Counter[str]] = {name: Counter() for name in COVERS}
    as_taken: Counter[str] = Counter()

    def tally(counts: Counter[str], reference: PhotoReading, reading: PhotoReading,
              homography: np.ndarray | None = None, by_centre: bool = False) -> None:
        counts.update(compare_readings(reference.cards, reading.cards, homography, by_centre=by_centre))
        counts["photos"] += 1
        counts["warned blurred"] += reading.blurred

    for number, photo in enumerate(photos, 1):
        reference = detector.detect_cards(photo)
        as_taken.update({"photos": 1, "warned blurred": reference.blurred,
                         "read mirrored": getattr(reference, "mirrored", False)})
        grey_reading = detector.detect_cards(grey_jpeg(photo))
        grey["judged colourless"] += grey_reading.colourless
        tally(grey, reference, grey_reading)
        for name, (factors, noise) in LIGHTS.items():
            tally(lights[name], reference, detector.detect_cards(in_light(photo, factors, noise)))
        for name, (kind, share) in BLURS.items():
            tally(blurs[name], reference, detector.detect_cards(blurred(photo, kind, share)))
        for name, far_share in TILTS.items():
            data, homography = tilted(photo, far_share)
            tally(tilts[name], reference, detector.detect_cards(data), homography)
        data, homography = mirrored(photo)
        reading = detector.detect_cards(data)
        tally(mirror, reference, reading, homography)
        mirror["read mirrored"] += getattr(reading, "mirrored", False)
        # The indices themselves (a reading gives its cards' boxes, not their corners'):
        # one more look at the photo as taken.
        index_boxes = detector.read_indices(photo).xyxy
        if len(index_boxes):   # a photo with no index read has none to cover
            for name, colour in COVERS.items():
                tally(covers[name], reference, detector.detect_cards(covered(photo, index_boxes, colour)),
                      by_centre=True)
        if number % 50 == 0:
            progress(f"real photos changed: {number}/{len(photos)}")
    gauged = detector.blur_gauge is not None
    return {"photos": len(photos), "every": every, "as taken": _shares(as_taken, gauged),
            "grey": _shares(grey, gauged),
            "light": {name: _shares(counts, gauged) for name, counts in lights.items()},
            "blur": {name: _shares(counts, gauged) for name, counts in blurs.items()},
            "tilt": {name: _shares(counts, gauged) for name, counts in tilts.items()},
            "mirrored": _shares(mirror, gauged),
            "covered": {name: _shares(counts, gauged) for name, counts in covers.items()}}
