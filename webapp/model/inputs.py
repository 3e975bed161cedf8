"""What the score sheet accepts: its limits, its refusals (:class:`InputError` and kin), and the
parsing of typed text, numbers and flags shared by the pages and the JSON API.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from onze_vision.messages import quoted

HANDS: tuple[int, ...] = tuple(range(1, 8))
MAX_NAME_LENGTH = 40
MAX_NOTE_LENGTH = 5000
#: Which corners of the deck's cards carry an index (onze_vision.detector_config.DECK_CORNERS),
#: as the new-game form and the sheet offer them: how a photo's card corners are joined.
DECK_CORNERS = {
    "auto": "not said (each photo tells)",
    "two": "two corners (most decks)",
    "four": "all four corners (Copag-style decks)",
}
_UNSET: Any = object()


class InputError(ValueError):
    """Input the score sheet refuses; the message quotes it and says why."""


class TypedScoresError(InputError):
    """The rules cannot change as asked: scores were typed, and a typed number was counted
    under the old rules. ``count``: how many."""

    def __init__(self, message: str, count: int) -> None:
        super().__init__(message)
        self.count = count


class GameEndedError(InputError):
    """A change to a hand after the one a game was ended at (play on first)."""


class ScoreChangedError(InputError):
    """A score changed on another device since the page that would replace it was drawn.
    ``version``: the score's :func:`score_version` now ("" where not said)."""

    def __init__(self, message: str, version: str = "") -> None:
        super().__init__(message)
        self.version = version


class SeatingChangedError(ScoreChangedError):
    """The players were moved or renamed since the page that names a seat was drawn."""


class HandChangedError(InputError):
    """A hand's field (who went out, the splash, the note) was changed on another device
    since the page changing it was drawn: nothing saved. ``messages``: one per field."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__(" ".join(messages))
        self.messages = messages


class NoteChangedError(InputError):
    """The game note was changed on another device since the page sending one was drawn."""

    def __init__(self, message: str, note: str) -> None:
        super().__init__(message)
        self.note = note   # the note saved now


class NamesChangedError(InputError):
    """A player's name was changed on another device, and on the page sending others, since
    it was drawn. ``clashes``: one phrase per seat ("player 2 is now “Bo”")."""

    def __init__(self, clashes: list[str]) -> None:
        super().__init__("Names were changed on another device since this page was opened ("
                         + "; ".join(clashes) + ").")
        self.clashes = clashes


def parse_hand_number(value: Any) -> int:
    """A hand number 1-7 from a form or JSON value."""
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        raise InputError(f"Hand {quoted(value)} is not a number: hands are 1-7.") from None
    if number not in HANDS:
        raise InputError(f"There is no hand {quoted(number)}: hands are 1-7.")
    return number


def _clean_text(value: Any, what: str, limit: int, *, lines: bool = True) -> str:
    """Text as typed, trimmed, its line breaks as "\n" (or, where not ``lines``, its line
    breaks and tabs as one space each run); refused where it holds another control
    character (a NUL) or is longer than ``limit``."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"The {what} must be text, not {quoted(value)}.")
    value = (value.replace("\r\n", "\n").replace("\r", "\n") if lines else _one_line(value)).strip()
    if control := next((char for char in value if unicodedata.category(char) == "Cc" and char not in "\n\t"),
                       None):
        raise InputError(f"The {what} {quoted(value)} holds a control character ({control!r}): type it as "
                         "letters, digits and signs.")
    if len(value) > limit:
        raise InputError(f"The {what} is {len(value)} characters long; the limit is {limit}.")
    return value


def _as_stored(text: str | None) -> str | None:
    """A value a page showed (its ``*_was``) as the book stores text: browsers send a form's
    line breaks as CRLF, and a note kept with LF would otherwise never match what it showed."""
    return None if text is None else text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _one_line(text: str) -> str:
    """``text`` with each run of line breaks and tabs a space (a name is kept on one line)."""
    return re.sub(r"[\t\r\n]+", " ", text)


def _deck_corners(value: Any) -> str:
    """A :data:`DECK_CORNERS` key (letter case and spaces aside, as a variant's name), or a
    clear refusal."""
    corners = value.strip().lower() if isinstance(value, str) else value
    corners = "auto" if corners is None or corners == "" else corners
    if not isinstance(corners, str) or corners not in DECK_CORNERS:
        raise InputError(f"The deck's indices are in 'two' or 'four' corners (or 'auto': tell from "
                         f"each photo), not {quoted(value)}.")
    return corners


# A whole number as typed: ASCII digits only (int() also takes "٣" and "²"-like digits of
# other scripts, which no keyboard at the table means as points), at most 18 of them.
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,18}")


def _whole_number(value: Any) -> int | None:
    """``value`` as a whole number (an int, an integral float, or ASCII digits); else None.
    Never a bool: JSON's true is not seat 1."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
        return int(value.strip())
    return None


def parse_points(value: Any) -> int:
    """A typed score: a whole number of points, not negative."""
    points = _whole_number(value)
    if points is None:
        raise InputError(f"Score {quoted(value)} is not a whole number of points.")
    if points < 0:
        raise InputError(f"Score {quoted(points)} is negative: a hand scores 0 or more points.")
    return points


def parse_flag(value: Any, what: str) -> bool:
    """A yes-or-no field, from JSON's true/false or a form's words ("on", "no", "1"...);
    ``what`` names it in the refusal ("Splash must be true or false, not 'maybe'.")."""
    if isinstance(value, bool):
        return value
    if value in (None, "", 0, "0", "false", "off", "no"):
        return False
    if value in (1, "1", "true", "on", "yes"):
        return True
    raise InputError(f"{what} must be true or false, not {quoted(value)}.")


def parse_splash(value: Any) -> bool:
    """Whether a hand was a splash (:func:`parse_flag`)."""
    return parse_flag(value, "Splash")
