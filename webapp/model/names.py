"""Players' names: cleaned as typed, compared as a player would (letter case, a keyboard's
full-width letters and invisible marks aside), refused where blank or taken.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from onze_vision.messages import quoted

from .inputs import MAX_NAME_LENGTH, InputError, _clean_text, _one_line

#: Invisible format characters a name may keep: the joiners within emoji and some scripts' words.
_NAME_JOINERS = frozenset("\u200c\u200d")
#: A flag of a country's part (England's, Scotland's): a black flag, tag letters, a cancel tag.
#: Tag characters anywhere else draw nothing, and would make two names of one look.
_TAG_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
#: Letters and signs that draw nothing (Hangul fillers, the blank Braille pattern).
_BLANK_SIGNS = frozenset("\u115f\u1160\u2800\u3164\uffa0")


def _without_hidden_format(text: str) -> str:
    """``text`` without invisible format characters (a zero-width space, a right-to-left
    override, a stray tag) but the joiners and the tags of a flag."""
    def strip(part: str) -> str:
        return "".join(char for char in part if unicodedata.category(char) != "Cf" or char in _NAME_JOINERS)

    kept, start = [], 0
    for flag in _TAG_FLAG.finditer(text):
        kept += [strip(text[start:flag.start()]), flag.group()]
        start = flag.end()
    return "".join([*kept, strip(text[start:])])


def _clean_name(value: Any) -> str:
    """A player's name as typed, on one line, without invisible format characters: they
    would make "Ann" two players, or show one name as another."""
    typed = _clean_text(value, "player name", MAX_NAME_LENGTH, lines=False)
    name = _without_hidden_format(typed).strip()
    if typed and not name:
        _check_visible([typed])
    return name


# Cached: the standings compare every player of every game (13,000 names in a book of 3,000
# games took 36 ms to normalise on each request).
@functools.lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """What two names are compared by: letter case, the width or form a keyboard gave a
    letter ("Ａnn", full width), invisible format characters and line breaks or tabs (a
    space each run, as a name is kept) aside."""
    return unicodedata.normalize("NFKC", _one_line(_without_hidden_format(name)).strip()).casefold()


def _is_visible(char: str) -> bool:
    """False for spaces, controls, zero-width marks and signs that draw nothing (a name of
    only those shows as blank)."""
    return unicodedata.category(char)[0] not in "ZC" and char not in _BLANK_SIGNS


def _check_visible(names: Sequence[str]) -> None:
    """Refuse a name that would show as blank on the sheet."""
    for name in names:
        if not any(_is_visible(char) for char in name):
            raise InputError(f"Player name {quoted(name)} shows nothing on the sheet: type a visible name.")


def _check_different(names: Sequence[str]) -> None:
    """Refuse two players of one name (letter case aside): the sheet could not tell them apart."""
    seen: set[str] = set()
    for name in names:
        if name_key(name) in seen:
            raise InputError(f"Two players are called {quoted(name)}: give each a different name.")
        seen.add(name_key(name))


def refused_names(names: Sequence[Any]) -> list[bool]:
    """Which of a game's name boxes a refusal is about: each blank, too long or showing
    nothing, and each sharing its name with another (so a screen reader is told which boxes
    to put right, not only what is wrong)."""
    keys: list[str] = []   # "" for a name refused on its own
    for name in names:
        try:
            cleaned = _clean_name(name)
        except ValueError:
            cleaned = ""
        keys.append(name_key(cleaned) if cleaned else "")
    return [not key or keys.count(key) > 1 for key in keys]


def names_to_save(names: Sequence[Any], shown: Sequence[str | None], now: Sequence[str]) -> list[Any]:
    """The names a form sends, each left as its page showed it (``shown``) replaced by the
    name saved ``now``: another device may have corrected it since."""
    return [current if was is not None and name == was else name for name, was, current in zip(names, shown, now)]
