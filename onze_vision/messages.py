"""Words of error messages: bad input quoted (whole when short, its middle cut when long),
and lists said as a sentence says them.

A message says what was wrong by quoting what was sent; a 200,000-character card code or a
5,000-digit number sent to the web API must not come back whole (Python cannot even write
an int of more than 4,300 digits: ``repr`` raises).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Longest quotation kept whole, in characters.
LONGEST_QUOTED = 60


def quoted(value: object, longest: int = LONGEST_QUOTED) -> str:
    """``repr(value)``, its middle cut with the length said when over ``longest`` characters.

    >>> quoted("QX")
    "'QX'"
    >>> quoted("Q" * 10, longest=6)
    "'QQ...QQ' (12 characters)"
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * longest:
        # ~0.30103 digits per bit; repr() would raise past 4,300 digits.
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except ValueError:   # a list or a dict holding such a number
        return f"a {type(value).__name__} too long to quote"
    if len(text) <= longest:
        return text
    half = longest // 2
    return f"{text[:half]}...{text[-half:]} ({len(text)} characters)"


def listed(words: Sequence[str]) -> str:
    """Words as a sentence lists them: "a", "a and b", "a, b and c" ("" for none).

    >>> listed(["Ann", "Bo", "Cy"])
    'Ann, Bo and Cy'
    """
    words = list(words)
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)
