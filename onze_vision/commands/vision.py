"""``onze-vision detect`` and ``onze-vision evaluate``: the card detector on the command line.

Heavy modules (OpenCV, onnxruntime, matplotlib) are imported inside the handlers, so
other subcommands never pay for them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from onze_vision.cards import RED_SUITS
from onze_vision.commands.checks import file_name
from onze_vision.detector_config import DECK_CORNERS  # light: no model is loaded

from onze_vision.places import in_checkout, project_dir
from onze_vision.shared import real_photos_dir

if TYPE_CHECKING:
    from onze_vision.pairing import DetectedCard, Doubt

DEFAULT_REALPHOTOS = real_photos_dir()   # $ONZE_SHARED, else ../shared beside the checkout
# The checkout's datasets/; an installed package's, in the current folder (not site-packages).
DATASETS = project_dir() / "datasets"
#: How the help texts say where that is.
WHERE = "in the checkout" if in_checkout() else "in the current folder"
DEFAULT_SYNTHETIC_VAL = DATASETS / "onze-val"
# The training dataset keeps its held-out decks in images/val/: the fallback.
FALLBACK_SYNTHETIC_VAL = DATASETS / "onze"
# The held-out scenes' layouts at the resolution the product reads a photo (datasets/README.md).
DEFAULT_SYNTHETIC_PRODUCT = DATASETS / "onze-val960"
# Far shots: held-out decks in large photos with small indices (datasets/README.md).
DEFAULT_SYNTHETIC_FAR = DATASETS / "far-val"
# Held-out decks with an index in all four corners, at the product's resolution (datasets/README.md).
DEFAULT_SYNTHETIC_FOUR = DATASETS / "four-val960"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``detect`` and ``evaluate`` to the ``onze-vision`` parser."""
    detect = subparsers.add_parser(
        "detect",
        help="read the cards in one or more photos",
        description="Read the cards in photos (JPEG, PNG, WebP or HEIC). One line per card, or JSON.\n"
                    "A card read unsure also names its next most likely code (JSON: \"alternative\"),\n"
                    "and a card read faintly is marked to check (JSON: \"check\": true): check it\n"
                    "against the photo. In a photo without colour (JSON: \"colourless\": true) red and\n"
                    "black suits look alike, and every card names its other-colour alternative.\n"
                    "Cards possibly missed (read under the operating point) are listed apart\n"
                    "(JSON: \"maybe\") and never counted. A photo too blurred to trust (shaken or out\n"
                    "of focus) is said so (JSON: \"blurred\": true, with the \"smear\" read, in index sizes).",
        epilog="examples:\n"
               "  onze-vision detect hand.jpg\n"
               "  onze-vision detect hand.jpg --json --annotate seen.png\n"
               "  onze-vision detect hand.jpg --joker our-joker.jpg     # this deck's Joker, shown once\n\n"
               "With several photos, --annotate OUT.png writes OUT-<photo name>.png for each\n"
               "(OUT-<photo name>-2.png when two photos share a name).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    detect.add_argument("photos", nargs="+", metavar="PHOTO", help="photo file(s)")
    detect.add_argument("--json", action="store_true",
                        help='print [{"image", "width", "height", "cards": [{"card", "confidence", "box"}]}], one entry '
                             'per photo, in order; a photo that could not be read gets {"image", "error"}')
    detect.add_argument("--annotate", metavar="OUT.png", type=file_name,
                        help="write the photo with the card boxes and codes drawn on it")
    detect.add_argument("--corners", choices=DECK_CORNERS, default="auto", help=CORNERS_HELP)
    detect.add_argument("--joker", metavar="JOKER_PHOTO", help=JOKER_HELP)
    detect.add_argument("--models", metavar="DIR", type=Path, default=None,
                        help="folder with the ONNX models (default: the shipped models/)")
    detect.set_defaults(handler=run_detect)

    evaluate = subparsers.add_parser(
        "evaluate",
        help="measure the detector on real photos, synthetic held-out decks and speed",
        description="Write a report (Markdown, JSON, PNG plots) and print a summary against the bars.",
        epilog="examples:\n"
               "  onze-vision evaluate                                # everything, about 15 minutes\n"
               "  onze-vision evaluate --speed-photos 0 --limit 50    # a quick look at accuracy",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluate.add_argument("--report-dir", type=Path, default=Path("reports"), metavar="DIR",
                          help="where to write the report (default: reports/ in the current folder)")
    evaluate.add_argument("--realphotos", type=Path, default=DEFAULT_REALPHOTOS, metavar="DIR",
                          help="real photos with manifest.json (default: realphotos/edje in $ONZE_SHARED, else in "
                               "the shared/ folder beside the checkout)")
    evaluate.add_argument("--synthetic-val", type=Path, default=DEFAULT_SYNTHETIC_VAL, metavar="DIR",
                          help="Ultralytics-format held-out-deck dataset; its images/val/ when it has "
                               f"one (default: datasets/onze-val, else datasets/onze, {WHERE})")
    evaluate.add_argument("--synthetic-product", type=Path, default=DEFAULT_SYNTHETIC_PRODUCT, metavar="DIR",
                          help="the held-out scenes drawn at the resolution the product reads a photo, "
                               f"reported beside the bar's figure (default: datasets/onze-val960 {WHERE})")
    evaluate.add_argument("--synthetic-far", type=Path, default=DEFAULT_SYNTHETIC_FAR, metavar="DIR",
                          help="far shots: held-out decks in 4000-px photos with small indices, read "
                               f"with a closer look and timed (default: datasets/far-val {WHERE})")
    evaluate.add_argument("--synthetic-four", type=Path, default=DEFAULT_SYNTHETIC_FOUR, metavar="DIR",
                          help="held-out decks with an index in all four corners, at the product's "
                               f"resolution: each card must be counted once (default: datasets/four-val960 {WHERE})")
    evaluate.add_argument("--speed-photos", type=int, default=20, metavar="N",
                          help="4000x3000 JPEGs to time, and far shots and full hands (0 skips the speed tests; "
                               "default 20)")
    evaluate.add_argument("--limit", type=int, default=None, metavar="N",
                          help="use at most N photos of each set (quick runs)")
    evaluate.add_argument("--no-ultralytics", action="store_true",
                          help="skip the PyTorch comparison in the speed test")
    evaluate.add_argument("--models", metavar="DIR", type=Path, default=None,
                          help="folder with the ONNX models (default: the shipped models/)")
    evaluate.add_argument("--strict", action="store_true",
                          help="exit 1 when a figure misses its bar or could not be measured")
    evaluate.set_defaults(handler=run_evaluate)


def _error(command: str, message: str, as_json: bool = False) -> None:
    """Say what went wrong on stderr; ``as_json`` (``--json``): also as ``{"error": ...}`` on
    stdout, so a script reading the JSON gets JSON."""
    print(f"onze-vision {command}: error: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps({"error": message}, indent=2))


def _load_detector(command: str, model_dir: Path | None, as_json: bool = False) -> Any:
    from onze_vision.detector import CardDetector, InvalidModelError, ModelNotFoundError, get_detector

    try:
        return get_detector() if model_dir is None else CardDetector(model_dir)
    except (ModelNotFoundError, InvalidModelError) as error:
        _error(command, str(error), as_json)
        return None


def annotation_paths(out: Path, photos: list[str]) -> list[Path]:
    """Where ``--annotate OUT`` writes each photo's drawing (see the ``detect`` epilog)."""
    if len(photos) == 1:
        return [out]
    suffix = out.suffix or ".png"
    paths: list[Path] = []
    for photo in photos:
        candidate = out.with_name(f"{out.stem}-{Path(photo).stem}{suffix}")
        number = 2
        while candidate in paths:
            candidate = out.with_name(f"{out.stem}-{Path(photo).stem}-{number}{suffix}")
            number += 1
        paths.append(candidate)
    return paths


# What OpenCV writes on every install (its writers for other formats are optional).
ANNOTATION_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")


def _shown_name(path: str) -> str:
    """``path`` as valid Unicode for JSON: a name that is not UTF-8 gets U+FFFD for its bad bytes."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


#: The longest file name (in bytes) most disks take.
LONGEST_FILE_NAME = 255


def annotation_problem(out_paths: list[Path], photos: list[str]) -> str | None:
    """Why ``--annotate`` cannot write ``out_paths``, checked before any photo is read; else None."""
    inputs = {Path(photo).resolve() for photo in photos}
    for out in out_paths:
        # Checked first: asking the disk about a longer one raises "File name too long".
        if (length := len(os.fsencode(out.name))) > LONGEST_FILE_NAME:
            return (f"--annotate: the drawing's file name '{out.name[:40]}...' is {length} "
                    f"bytes long; a disk takes at most {LONGEST_FILE_NAME}: give a shorter name")
        if out.suffix.lower() not in ANNOTATION_SUFFIXES:
            return (f"--annotate '{out}': the drawing is written as an image, so the name must end in "
                    f"{', '.join(ANNOTATION_SUFFIXES)}")
        if out.is_dir():
            return f"--annotate '{out}' is a folder: give a file name such as '{out / 'annotated.png'}'"
        if not out.parent.is_dir():
            return f"--annotate '{out}': folder '{out.parent}' does not exist"
        if out.resolve() in inputs:
            return f"--annotate '{out}' would overwrite a photo being read: write the drawing elsewhere"
    return None


def draw_cards(image_bgr: Any, cards: Sequence[DetectedCard], maybe: Sequence[DetectedCard] = ()) -> Any:
    """Return a copy of the photo with each card's box and code drawn on it (grey with a
    question mark for the cards possibly missed)."""
    import cv2

    canvas = image_bgr.copy()
    # Lines and labels sized to the cards, not to the photo: in a far shot of a 4000-px
    # photo, labels sized to the photo would cover the cards they name.
    boxes = [card.box for card in [*cards, *maybe]]
    sides = sorted(min(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes)
    reference = min(max(canvas.shape[:2]), 30 * sides[len(sides) // 2]) if sides else max(canvas.shape[:2])
    thickness = max(2, round(reference / 400))
    font_scale = max(0.5, reference / 1400)
    for card, is_maybe in [*((c, False) for c in cards), *((c, True) for c in maybe)]:
        x1, y1, x2, y2 = (round(v) for v in card.box)
        colour = (40, 40, 230) if card.card[-1] in RED_SUITS or card.card == "JK" else (40, 160, 40)
        if is_maybe:
            colour = (150, 150, 150)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, thickness)
        label = f"{card.card}? (maybe)" if is_maybe else f"{card.card} {card.confidence:.2f}{doubt_said(card, 'label')}"
        (w, h), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        top = max(0, y1 - h - base - thickness)
        cv2.rectangle(canvas, (x1, top), (x1 + w + 2 * thickness, top + h + base + thickness), colour, -1)
        cv2.putText(canvas, label, (x1 + thickness, top + h + thickness // 2), cv2.FONT_HERSHEY_SIMPLEX,
                    font_scale, (255, 255, 255), thickness, cv2.LINE_AA)
    return canvas


#: How --corners says which corners of the deck's cards carry an index (DECK_CORNERS).
CORNERS_HELP = ("which corners of the deck's cards carry an index: two (most decks), four (Copag-style "
                "decks: a card whose top strip alone shows is then one card), or auto (default: four "
                "where the photo shows a four-corner card)")

#: How --joker shows the app the deck's own Joker.
JOKER_HELP = ("a photo of this deck's Joker, alone with its corners in view: an index that looks like "
              "its corner is read as a Joker (the networks know few decks' Jokers)")


def learn_joker(detector: Any, photo: str | None) -> Any:
    """The look of the Joker in ``photo`` (--joker), or None without one.

    Raises:
        ValueError: The photo cannot be read, or shows no Joker to learn.
    """
    if photo is None:
        return None
    from onze_vision.detector import InvalidModelError

    try:
        return detector.learn_joker(photo)
    except InvalidModelError as error:
        raise ValueError(f"--joker: {error}") from None
    except ValueError as error:   # a bad photo (InvalidImageError) or no Joker in it (NoJokerFoundError)
        raise ValueError(f"--joker {photo!r}: {error}") from None


#: Said of a photo that shows a deck with an index in all four corners, read as "auto".
FOUR_CORNER_NOTE = ("these cards have an index in all four corners: with --corners four, a card whose top "
                    "strip alone shows in a photo counts once, not twice")

#: Said of a photo without colour, where each card's alternative is its other-colour suit.
COLOURLESS_NOTE = ("no colour in this photo: red and black suits look alike, so check each card's suit "
                   "(each card names its other-colour alternative)")
BLURRED_NOTE = ("this photo looks blurred (shaken, or out of focus): cards in it may be missed or misread; "
                "check them against the hand, or take it again with the phone held still")
#: Said beside a Joker whose count is unsure (DetectedCard.count_unsure).
JOKER_COUNT_NOTE = ("unsure: one Joker or two? Its mark reads the same every way up and no card in the photo "
                    "shows both its corners, so one Joker's two corners look like two Jokers; check how many "
                    "the photo shows (--joker JOKER_PHOTO, a photo of the deck's Joker, tells them apart)")


class DoubtWords(NamedTuple):
    """What a card to check is called, by where it is said; "{alternative}" stands for the
    card's next most likely code."""

    line: str    # on its line of ``detect``'s listing, after its box
    note: str    # after its code in ``score``'s and ``check-down``'s note on stderr
    label: str   # after its code and confidence on the ``--annotate`` photo


#: Each reason a card is to be checked (DetectedCard.doubt), in the words of each place it is said.
DOUBT_WORDS: dict[Doubt, DoubtWords] = {
    "alternative": DoubtWords("unsure: or {alternative}?", "(or {alternative}?)", " or {alternative}?"),
    "faint": DoubtWords("unsure: read faintly, check it", "(read faintly)", "?"),
    "joker_count": DoubtWords(JOKER_COUNT_NOTE, "(one Joker or two?)", "?"),
}


def doubt_said(card: DetectedCard, where: Literal["line", "note", "label"]) -> str:
    """What ``card``'s doubt is called ``where`` (:class:`DoubtWords`), "" for a sure reading."""
    if card.doubt is None:
        return ""
    return getattr(DOUBT_WORDS[card.doubt], where).format(alternative=card.alternative)


#: Said of a photo read flipped back (PhotoReading.mirrored).
MIRRORED_NOTE = ("this photo was saved mirrored (as a selfie camera or a webcam may save it): "
                 "its cards were read flipped back, their boxes on the photo as it is")
#: Added where its cards were read with the shake undone (PhotoReading.unshaken).
UNSHAKEN_NOTE = "(the cards were read with the shake taken out of the photo)"


def blurred_note(reading: Any) -> str:
    """What is said of a blurred photo (a PhotoReading), and whether its shake was undone to read it."""
    return f"{BLURRED_NOTE} {UNSHAKEN_NOTE}" if getattr(reading, "unshaken", False) else BLURRED_NOTE


def run_detect(args: argparse.Namespace) -> int:
    """Read each photo; 2 when any photo was bad input, 1 when the models are missing."""
    import cv2

    from onze_vision.imageio import InvalidImageError, load_image

    detector = _load_detector("detect", args.models, args.json)
    if detector is None:
        return 1
    out_paths: list[Path | None] = [None] * len(args.photos)
    if args.annotate:
        annotated = annotation_paths(Path(args.annotate), args.photos)
        problem = annotation_problem(annotated, args.photos)
        if problem:
            _error("detect", problem, args.json)
            return 2
        out_paths = list(annotated)
    try:
        joker = learn_joker(detector, args.joker)
    except ValueError as error:
        _error("detect", str(error), args.json)
        return 2
    results: list[dict[str, Any]] = []
    status = 0
    for photo, out_path in zip(args.photos, out_paths):
        try:
            # Annotating needs the full photo anyway: decode it once and read from it.
            loaded = load_image(photo) if out_path else None
            reading = detector.detect_cards(loaded if loaded is not None else photo, corners=args.corners,
                                            joker=joker)
        except InvalidImageError as error:
            _error("detect", str(error))
            status = 2
            # Keep one entry per photo, in order, so a script reading the JSON sees which failed.
            results.append({"image": _shown_name(photo), "error": str(error)})
            continue
        # The reading's own JSON ("width" and "height", the photo as read, upright, which the
        # boxes are in; "cards", and "maybe", "colourless", "light_gains", "blurred" when they
        # apply), named by its photo.
        results.append({"image": _shown_name(photo), **reading.to_dict()})
        if not args.json:
            print(f"{photo} ({reading.width}x{reading.height}): {len(reading.cards)} card"
                  f"{'' if len(reading.cards) == 1 else 's'}")
            if reading.colourless:
                print(f"  {COLOURLESS_NOTE}")
            if reading.blurred:
                print(f"  {blurred_note(reading)}")
            if reading.mirrored:
                print(f"  {MIRRORED_NOTE}")
            if reading.four_corner_deck and args.corners == "auto":
                print(f"  {FOUR_CORNER_NOTE}")
            if reading.light_gains is not None:
                red, green, blue = reading.light_gains
                print(f"  read with its light evened out (a dark or tinted photo): "
                      f"red x{red:.2f}, green x{green:.2f}, blue x{blue:.2f}")
            for card in reading.cards:
                box = ", ".join(f"{v:.0f}" for v in card.box)
                unsure = doubt_said(card, "line")
                print(f"  {card.card:<3} {card.confidence:.2f}  [{box}]{'  ' + unsure if unsure else ''}")
            for card in reading.maybe:
                box = ", ".join(f"{v:.0f}" for v in card.box)
                print(f"  maybe missed: {card.card} {card.confidence:.2f}  [{box}] (not counted; add it if it is there)")
        if out_path is not None and loaded is not None:
            # Encoded here and written by Python: cv2.imwrite crashes the process (OpenCV 5)
            # on a file name that is not valid UTF-8, and cannot say why a write failed.
            encoded, data = cv2.imencode(out_path.suffix, draw_cards(loaded.image, reading.cards, reading.maybe))
            why = "" if encoded else "the image could not be encoded"
            if encoded:
                try:
                    out_path.write_bytes(data.tobytes())
                except OSError as error:
                    why = error.strerror or "is the folder writable?"
            if why:
                _error("detect", f"cannot write '{out_path}' ({why})")
                status = 2
            elif not args.json:
                print(f"  annotated: {out_path}")
    if args.json:
        print(json.dumps(results, indent=2))
    return status


def _measured_set(option: str, path: Path, needs: str) -> Path | None:
    """``path`` when it holds ``needs`` (what run_evaluation reads there); else None, with a note
    on stderr: a set that is not there skips its part of the report, never the whole run."""
    if not path.exists():
        why = "does not exist"
    elif not (path / needs).exists():
        why = f"holds no {needs}"
    else:
        return path
    print(f"onze-vision evaluate: note: {option} {path} {why}; that part is skipped", file=sys.stderr)
    return None


def run_evaluate(args: argparse.Namespace) -> int:
    """Run the evaluation and print the summary; 1 when models are missing (or, with --strict, a bar is missed)."""
    from onze_vision.commands.checks import at_least, first, refuse, writable_folder

    # Refused before the models load: nothing is measured and no report is written.
    problem = first(
        writable_folder("--report-dir", args.report_dir),
        at_least("--speed-photos", args.speed_photos, 0, "0 skips the speed tests"),
        at_least("--limit", args.limit, 1, "photos of each set; leave it out for every photo"),
    )
    if problem:
        return refuse("evaluate", problem)
    from onze_vision import evaluate

    detector = _load_detector("evaluate", args.models)
    if detector is None:
        return 1
    if args.synthetic_val == DEFAULT_SYNTHETIC_VAL and not DEFAULT_SYNTHETIC_VAL.exists():
        args.synthetic_val = FALLBACK_SYNTHETIC_VAL
    sets = {
        "realphotos": _measured_set("--realphotos", args.realphotos, "manifest.json"),
        "synthetic_val": _measured_set("--synthetic-val", args.synthetic_val, "images"),
        "synthetic_product": _measured_set("--synthetic-product", args.synthetic_product, "images"),
        "synthetic_far": _measured_set("--synthetic-far", args.synthetic_far, "images"),
        "synthetic_four": _measured_set("--synthetic-four", args.synthetic_four, "images"),
    }
    if all(found is None for found in sets.values()):
        # A report of nothing measured, with exit 0, reads like a pass (a second checkout has no ../shared).
        return refuse("evaluate", "nothing to measure: no real photos and no held-out set was found (the notes "
                                  "above say where each was looked for); set ONZE_SHARED to the shared folder "
                                  "or give --realphotos, and make the held-out sets as datasets/README.md says")
    results = evaluate.run_evaluation(
        detector,
        report_dir=args.report_dir,
        realphotos=sets["realphotos"],
        synthetic_val=sets["synthetic_val"],
        synthetic_product=sets["synthetic_product"],
        synthetic_far=sets["synthetic_far"],
        synthetic_four=sets["synthetic_four"],
        speed_photos=args.speed_photos,
        limit=args.limit,
        ultralytics=not args.no_ultralytics,
    )
    print(evaluate.format_summary(results))
    print(f"report: {args.report_dir / 'report.md'}")
    judged = [row for row in results["summary"] if row["bar"] != "(reported)"]
    unmeasured = [row["name"] for row in judged if row["value"] is None]
    if unmeasured:
        print(f"onze-vision evaluate: note: not measured, so not judged: {'; '.join(unmeasured)}. The "
              "held-out sets are made by the commands in datasets/README.md; the real photos are "
              "../shared/realphotos/edje (--realphotos, or ONZE_SHARED for the shared folder)", file=sys.stderr)
    # --strict judges every bar: one not measured is not one met.
    if args.strict and (unmeasured or not all(row["ok"] for row in judged if row["ok"] is not None)):
        return 1
    return 0
