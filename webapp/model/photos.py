"""Photos: read by the card detector (a few at once), kept with their reading, read again,
added to an earlier photo of the same hand.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from flask import abort, current_app
from werkzeug.exceptions import NotFound

from onze_vision.cards import parse_cards
from onze_vision.metadata import private_copy, sniff_mime
from onze_vision.scoring import check_hand_size, check_possible
from onze_vision.variants import VARIANTS, get_variant

from .. import db as book
from ..db import PHOTO_LEFT_AS_TAKEN, get_db
from .engine import parse_card_list
from .games import _game_row, _inserted_id, _row_by_id, _touch, load_game, unknown_rules_text
from .housekeeping import DELETED_GAME_DAYS, PHOTOS_FORGOTTEN_AT_ONCE, clear_old, forget_unused_photos
from .inputs import InputError, _deck_corners


class DetectorUnavailableError(RuntimeError):
    """The card detector cannot run here (its model files are missing)."""


def _detector() -> Callable[..., Any]:
    """``DETECT`` (called with the photo's bytes and ``corners=``), or the shipped detector."""
    detect = current_app.config.get("DETECT")
    if detect is None:
        from onze_vision.detector import detect_cards  # heavy (ONNX Runtime): only when used
        detect = detect_cards
    return detect


#: Photos read at once. A 50 MP JPEG takes about 250 MB while it is read (a PNG, WebP or
#: HEIC of as many pixels up to 600 MB: decoded whole, then kept at 4096 px) and the
#: networks use every core anyway: more at once only queue inside ONNX Runtime, and sixteen
#: at once took a small server to 4.5 GB. Others wait their turn, for a while.
PHOTOS_READ_AT_ONCE = 2
_reading_slots = threading.BoundedSemaphore(PHOTOS_READ_AT_ONCE)
#: Seconds a photo waits for its turn before the phone is told the sheet is busy (a reading
#: takes a tenth of a second to a few seconds: a queue longer than this is a flood).
READING_WAIT_SECONDS = 30.0


class ReadingBusyError(RuntimeError):
    """Every reading slot stayed taken for :data:`READING_WAIT_SECONDS`: nothing was read or kept."""


@contextmanager
def reading_slot(*, patient: bool = False) -> Iterator[None]:
    """Hold one of the :data:`PHOTOS_READ_AT_ONCE` slots for work as heavy as reading a photo;
    wait at most :data:`READING_WAIT_SECONDS` for it, then raise :class:`ReadingBusyError`
    (``patient``: as long as it takes, for work no phone waits on)."""
    if not _reading_slots.acquire(timeout=None if patient else READING_WAIT_SECONDS):
        raise ReadingBusyError("The score sheet is busy reading other photos: nothing was read. "
                               "Send this photo again in a moment.")
    try:
        yield
    finally:
        _reading_slots.release()


def _sent_photo(data: bytes | None) -> bytes:
    if not data:
        raise InputError("The photo is empty: choose or take a photo of the cards.")
    return data


def read_photo(data: bytes | None, corners: Any = "auto", *, patient: bool = False,
               joker: str | None = None) -> dict[str, Any]:
    """Run the card detector on uploaded bytes, in a reading slot of its own (``patient``:
    see :func:`reading_slot`); JSON-ready reading. ``corners``: which corners of the deck's
    cards carry an index (:data:`DECK_CORNERS`); ``joker``: how the deck's Joker looks, as
    the game keeps it (:func:`set_game_joker`)."""
    with reading_slot(patient=patient):
        return _read_in_slot(data, corners, joker)


def _read_in_slot(data: bytes | None, corners: Any, joker: str | None = None) -> dict[str, Any]:
    """:func:`read_photo` for a caller that holds a reading slot already. A Joker's look
    taken with other models than these (the models were replaced since) is left out of the
    reading, which says so (``"joker_outdated": true``): the players show the Joker again."""
    corners = _deck_corners(corners)
    data = _sent_photo(data)
    outdated = False
    try:
        if joker is None:   # not passed at all: a stand-in detector need not know the word
            reading = _detector()(data, corners=corners)
        else:
            from onze_vision.jokers import InvalidJokerLookError, JokerLook

            try:
                reading = _detector()(data, corners=corners, joker=JokerLook.from_text(joker))
            except InvalidJokerLookError:   # another classifier's look (JokerLookMismatchError), or none
                reading, outdated = _detector()(data, corners=corners), True
    except FileNotFoundError:  # the detector's ModelNotFoundError: models/ not installed
        from onze_vision.detector import DEFAULT_MODEL_DIR  # where they were looked for (ONZE_VISION_MODELS)

        raise DetectorUnavailableError(
            f"The card detector's model files are not installed ({DEFAULT_MODEL_DIR}): type the cards instead."
        ) from None
    # The reading as detect --json spells it: cards ("alternative", "check" when they apply),
    # "colourless" (each card offers the other colour) and "light_gains" (the page shows the
    # photo so), "blurred" with its "smear" (the page asks for a sharper photo); "maybe"
    # (possibly missed, never scored unasked) and "colourless" always here.
    read = reading.to_dict()
    if outdated:
        read["joker_outdated"] = True
    return {**read, "width": int(reading.width), "height": int(reading.height),
            "maybe": read.get("maybe", []), "colourless": read.get("colourless", False)}


def _joker_learner() -> Callable[[bytes], Any]:
    """``LEARN_JOKER`` (called with a photo's bytes, gives a look with ``to_text()``), or the
    shipped detector's :meth:`~onze_vision.detector.CardDetector.learn_joker`."""
    learn = current_app.config.get("LEARN_JOKER")
    if learn is None:
        from onze_vision.detector import get_detector  # heavy (ONNX Runtime): only when used

        learn = get_detector().learn_joker
    return learn


def set_game_joker(game_id: int, data: bytes | None) -> dict[str, Any]:
    """Learn how the game's Joker looks from a photo of one (``learn_joker``) and keep it:
    photos read from then on read an index that looks like it as a Joker (those saved stay as
    they are; a photo can be read again).

    Raises:
        InputError: No photo, a file no photo, or no Joker found in it (nothing is changed).
    """
    _game_row(game_id)   # 404 before anything is read
    data = _sent_photo(data)
    try:
        with reading_slot():
            look = _joker_learner()(data)
    except FileNotFoundError:  # the detector's ModelNotFoundError
        raise DetectorUnavailableError("The card detector's model files are not installed: the Joker cannot "
                                       "be learned here.") from None
    except ValueError as error:   # not a photo (InvalidImageError), no Joker in it (NoJokerFoundError)
        raise InputError(f"The Joker was not learned: {error}") from None
    with book.transaction() as db:
        db.execute("UPDATE game SET joker_look = ? WHERE id = ?", (look.to_text(), game_id))
        _touch(db, game_id)
    return load_game(game_id)


def copy_game_joker(from_game: Any, game_id: int) -> None:
    """Give game ``game_id`` the Joker shown in game ``from_game`` (a game played again with the
    same deck); nothing where that game is gone, deleted or had none shown."""
    try:
        source = _row_by_id("SELECT joker_look, deleted FROM game WHERE id = ?", int(from_game))
    except (TypeError, ValueError):
        return   # not a game's number: a form tampered with; the new game simply has none
    if source is None or source["deleted"] is not None or source["joker_look"] is None:
        return
    with book.transaction() as db:
        db.execute("UPDATE game SET joker_look = ? WHERE id = ?", (source["joker_look"], game_id))


def forget_game_joker(game_id: int) -> dict[str, Any]:
    """Forget how the game's Joker looks: photos read from then on are read as any deck's."""
    row = _game_row(game_id)
    if row["joker_look"] is not None:
        with book.transaction() as db:
            db.execute("UPDATE game SET joker_look = NULL WHERE id = ?", (game_id,))
            _touch(db, game_id)
    return load_game(game_id)


def store_photo(data: bytes | None, game_id: int | None = None, *,
                adds_to: tuple[int | None, Sequence[str]] | None = None) -> dict[str, Any]:
    """Read the cards in a photo (as the game's deck says its corners are) and keep the photo
    (so the page can draw the boxes on it), without its location, time and device
    (:func:`~onze_vision.metadata.private_copy`): the book is shared whole.

    ``adds_to``: (the photo shown with the list, or None; the cards the list held) where
    this photo's cards are added to a hand's list rather than replace it."""
    game = None if game_id is None else _game_row(game_id)
    corners = "auto" if game is None else game["corners"]
    joker = None if game is None else game["joker_look"]
    data = _sent_photo(data)
    # What the photo's cards are added to is checked first: nothing is read for a refusal.
    added_to = None
    if adds_to is not None and adds_to[1]:   # added to no card at all, it is a first photo
        earlier_id, before = adds_to
        if earlier_id is not None:
            if game_id is None:
                raise InputError("A photo added to a hand's cards belongs to a game: name the game.")
            game_photo(earlier_id, game_id)   # 404 before anything is kept
        added_to = {"earlier_id": earlier_id, "cards_before": _list_before(before, game)}
    # One slot for both steps (a HEIC is decoded to be kept as a JPEG: as heavy as a reading),
    # so that a photo waits for its turn once, and never loses it between them.
    with reading_slot():
        kept = private_copy(data)
        # The kept copy is what is read, now and when read again: the same pixels (a HEIC's
        # JPEG copy also decodes reduced, several times faster than the HEIC).
        reading = _read_in_slot(kept, corners, joker)
    with book.transaction() as db:
        cur = db.execute("INSERT INTO photo (game_id, mime, data, reading) VALUES (?, ?, ?, ?)",
                         (game_id, sniff_mime(kept), kept, json.dumps(reading)))
        photo_id = _inserted_id(cur)
        if added_to is not None:
            db.execute("INSERT INTO photo_addition (photo_id, earlier_id, cards_before) VALUES (?, ?, ?)",
                       (photo_id, added_to["earlier_id"], json.dumps(added_to["cards_before"])))
    clear_old(forget_unused_photos, PHOTOS_FORGOTTEN_AT_ONCE)
    return {"id": photo_id, "game_id": game_id, **reading, "added_to": added_to}


def _list_before(cards: str | Sequence[str], game: sqlite3.Row | None) -> list[str]:
    """The cards a photo's are added to, as codes; refused now, not when the score is saved,
    where no hand can hold them (more than 26; with ``game``, more copies than its decks)."""
    parsed = parse_cards(parse_card_list(cards))
    check_hand_size(parsed)
    if game is not None:
        check_possible(parsed, get_variant(game["variant"]), decks=game["decks"])
    return [str(card) for card in parsed]


def keep_list_with_photo(photo_id: int, cards: str | Sequence[str]) -> None:
    """Keep ``cards`` as the list a photo that read no card adds to (the cards typed before
    it), as if they had been sent with it: the photo's page shows them whenever it is opened.

    Raises:
        InputError, InvalidCardError, TooManyCardsError: ``cards`` are no hand's cards.
    """
    codes = _list_before(cards, None)
    with book.transaction() as db:
        db.execute("INSERT OR IGNORE INTO photo_addition (photo_id, earlier_id, cards_before) VALUES (?, NULL, ?)",
                   (photo_id, json.dumps(codes)))


def game_photo(photo_id: int, game_id: int, *, with_data: bool = False) -> dict[str, Any]:
    """A stored photo of a game (:func:`get_photo`); 404 if the game has no such photo."""
    photo = get_photo(photo_id, with_data=with_data)
    if photo["game_id"] != game_id:
        abort(404, f"Photo {photo_id} doesn't belong to game {game_id}.")
    return photo


#: The most earlier photos shown with one (a hand photographed in this many parts).
EARLIER_PHOTOS_SHOWN = 8


def earlier_photos(photo: dict[str, Any]) -> list[dict[str, Any]]:
    """The photos whose cards ``photo``'s were added to, the latest first (those still kept,
    of the same game)."""
    found: list[dict[str, Any]] = []
    addition = photo.get("added_to")
    while addition and addition["earlier_id"] is not None and len(found) < EARLIER_PHOTOS_SHOWN:
        try:
            earlier = get_photo(addition["earlier_id"])
        except NotFound:   # forgotten (it was never used), or its game deleted
            break
        if earlier["game_id"] != photo["game_id"] or any(p["id"] == earlier["id"] for p in found):
            break
        found.append(earlier)
        addition = earlier.get("added_to")
    return found


def read_photo_again(photo_id: int, game_id: int) -> dict[str, Any]:
    """Read a game's stored photo again, as the game's deck now says its corners are (after
    the players said which); the photo keeps its id. 404 if the game has no such photo.

    A photo whose cards were added to a list read from earlier photos (a hand in two photos)
    has those read again too, and the list it was added to follows their new reading where
    it was theirs as read (changed by hand, it is the player's and stays). Every photo is
    read before any is written: one that cannot be read leaves them all as they were, to
    be read again together."""
    game = _game_row(game_id)
    photo = game_photo(photo_id, game_id, with_data=True)
    # earlier_photos keeps to the photo's own game; the first photo first.
    chain = [*reversed([game_photo(earlier["id"], game_id, with_data=True) for earlier in earlier_photos(photo)]),
             photo]
    # Patient: the deck is said already, and a photo not read again now would keep the
    # reading of the corners it was read with.
    readings = [read_photo(shown["data"], game["corners"], patient=True, joker=game["joker_look"])
                for shown in chain]
    listed_before: list[str] | None = None   # the older photo's list: as read then
    listed_now: list[str] = []                # and as read now
    lists_now: list[list[str]] = []           # each photo's list before it, as it is to be
    for shown, reading in zip(chain, readings):
        addition = shown["added_to"]
        cards_before = addition["cards_before"] if addition else []
        follows = addition is not None and listed_before is not None and Counter(cards_before) == Counter(listed_before)
        lists_now.append(listed_now if follows else cards_before)
        listed_before = cards_before + [card["card"] for card in shown["cards"]]
        listed_now = lists_now[-1] + [card["card"] for card in reading["cards"]]
    with book.transaction() as db:
        for shown, reading, list_now in zip(chain, readings, lists_now):
            db.execute("UPDATE photo SET reading = ? WHERE id = ?", (json.dumps(reading), shown["id"]))
            if shown["added_to"] is not None and list_now != shown["added_to"]["cards_before"]:
                db.execute("UPDATE photo_addition SET cards_before = ? WHERE photo_id = ?",
                           (json.dumps(list_now), shown["id"]))
    addition = photo["added_to"]
    added_to = None if addition is None else {**addition, "cards_before": lists_now[-1]}
    return {"id": photo_id, "game_id": game_id, **readings[-1], "added_to": added_to}


def get_photo(photo_id: int, *, with_data: bool = False) -> dict[str, Any]:
    """A stored photo's reading (and bytes); 404 if there is none, or its game is deleted; 409
    if its game is played by rules this version does not know."""
    row = _row_by_id("SELECT photo.*, game.deleted AS game_deleted, game.variant AS game_variant FROM photo"
                     " LEFT JOIN game ON game.id = photo.game_id WHERE photo.id = ?", photo_id)
    if row is None:
        abort(404, f"Photo {photo_id} doesn't exist.")
    if row["game_variant"] is not None and row["game_variant"] not in VARIANTS:   # as its game's pages
        abort(409, unknown_rules_text(row["game_id"], row["game_variant"]))
    if row["game_deleted"] is not None:   # not shown, but not said to be gone either: it can come back
        abort(404, f"Photo {photo_id} is of game {row['game_id']}, which was deleted: History keeps it "
                   f"{DELETED_GAME_DAYS} days from then, to bring back.")
    addition = get_db().execute("SELECT earlier_id, cards_before FROM photo_addition WHERE photo_id = ?",
                                (photo_id,)).fetchone()
    photo = {"id": row["id"], "game_id": row["game_id"], "mime": row["mime"], **json.loads(row["reading"]),
             "keepsake": None if row["keepsake"] == PHOTO_LEFT_AS_TAKEN else row["keepsake"],
             "added_to": None if addition is None else
             {"earlier_id": addition["earlier_id"], "cards_before": json.loads(addition["cards_before"])}}
    if with_data:
        photo["data"] = row["data"]
    return photo
