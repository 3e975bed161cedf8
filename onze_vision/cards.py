"""Playing cards as small immutable values that round-trip through their codes.

A card is written as a rank (``A 2 3 4 5 6 7 8 9 10 J Q K``) followed by a suit
(``S H D C``), or ``JK`` for a Joker::

    >>> card = Card.from_code("q♥")
    >>> str(card)
    'QH'
    >>> parse_cards("10s, ah JK")
    [Card.from_code('10S'), Card.from_code('AH'), Card.from_code('JK')]

Parsing is forgiving (lower case, ``T`` for ten, suit symbols, ``joker``); printing
is always the canonical code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import total_ordering

from onze_vision.messages import quoted

__all__ = [
    "CARD_CODES",
    "JOKER",
    "RANKS",
    "SUITS",
    "Card",
    "InvalidCardError",
    "format_cards",
    "parse_cards",
]

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RED_SUITS: frozenset[str] = frozenset({"H", "D"})
JOKER_CODE = "JK"
CARD_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS) + (JOKER_CODE,)

SUIT_NAMES: dict[str, str] = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES: dict[str, str] = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}

# Spellings accepted on input besides the canonical letters.
_SUIT_ALIASES: dict[str, str] = {
    "♠": "S", "♤": "S",
    "♥": "H", "♡": "H",
    "♦": "D", "♢": "D",
    "♣": "C", "♧": "C",
}
_RANK_ALIASES: dict[str, str] = {"T": "10"}
_JOKER_ALIASES: frozenset[str] = frozenset({"JK", "JOKER", "JKR", "🃏"})
# Variation selectors and spaces that come with pasted suit symbols.
_NOISE = re.compile(r"[\s\ufe0e\ufe0f]+")
_CODE = re.compile(r"^(10|[2-9AJQK])([SHDC])$")


class InvalidCardError(ValueError):
    """A code that is not a card; the message quotes the code."""

    def __init__(self, code: object) -> None:
        self.code = code
        super().__init__(
            f"{quoted(code)} is not a card: write a rank (A, 2-10, J, Q, K) then a suit "
            f"(S, H, D, C), e.g. QH, 10S, AC, or JK for a Joker"
        )


@total_ordering
@dataclass(frozen=True, slots=True)
class Card:
    """One playing card.

    Attributes:
        rank: 1 (Ace) to 13 (King); 0 for a Joker.
        suit: one of ``S H D C``; ``None`` for a Joker.
    """

    rank: int
    suit: str | None

    def __post_init__(self) -> None:
        # A rank that is not a whole number (True, 12.0, "Q") would index the rank table
        # wrongly or fail deep inside it: refused here, quoting what was given.
        if type(self.rank) is not int or not (self.suit is None or isinstance(self.suit, str)):
            raise InvalidCardError(f"rank {self.rank!r} suit {self.suit!r}")
        if self.rank == 0:
            if self.suit is not None:
                raise InvalidCardError(f"rank {self.rank!r} suit {self.suit!r}")   # a Joker has no suit
        elif not (1 <= self.rank <= 13) or self.suit not in SUITS:
            raise InvalidCardError(f"rank {self.rank} suit {self.suit}")

    @classmethod
    def from_code(cls, code: str | Card) -> Card:
        """Parse a card code, forgivingly (``qh``, ``TH``, ``10♥``, ``Q♥``, ``joker``); a
        :class:`Card` passes through.

        Raises:
            InvalidCardError: ``code`` is not a card; the message quotes it.
        """
        if isinstance(code, Card):
            return code
        if not isinstance(code, str):
            raise InvalidCardError(code)
        text = _NOISE.sub("", code).upper()
        if text in _JOKER_ALIASES:
            return JOKER
        if text and text[-1] in _SUIT_ALIASES:
            text = text[:-1] + _SUIT_ALIASES[text[-1]]
        rank, suit = text[:-1], text[-1:]
        rank = _RANK_ALIASES.get(rank, rank)
        match = _CODE.match(rank + suit)
        if match is None:
            raise InvalidCardError(code)
        return cls(RANKS.index(match.group(1)) + 1, match.group(2))

    @property
    def code(self) -> str:
        """The canonical code, e.g. ``"QH"``, ``"10S"``, ``"JK"``."""
        if self.suit is None:
            return JOKER_CODE
        return RANKS[self.rank - 1] + self.suit

    @property
    def is_joker(self) -> bool:
        """True for a Joker."""
        return self.rank == 0

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds (a Joker is neither red nor black here)."""
        return self.suit in RED_SUITS

    @property
    def is_ace(self) -> bool:
        """True for an Ace of any suit."""
        return self.rank == 1

    @property
    def is_red_ace(self) -> bool:
        """True for the Ace of hearts or diamonds (wild in most variants)."""
        return self.rank == 1 and self.is_red

    @property
    def rank_symbol(self) -> str:
        """``A``, ``2`` … ``10``, ``J``, ``Q``, ``K``; ``JK`` for a Joker."""
        return JOKER_CODE if self.rank == 0 else RANKS[self.rank - 1]

    @property
    def name(self) -> str:
        """Words for the card, e.g. ``"Queen of hearts"``."""
        if self.suit is None:
            return "Joker"
        symbol = self.rank_symbol
        return f"{RANK_NAMES.get(symbol, symbol)} of {SUIT_NAMES[self.suit]}"

    @property
    def index(self) -> int:
        """Position in :data:`CARD_CODES` (suit-major, Joker last)."""
        if self.suit is None:
            return 52
        return SUITS.index(self.suit) * 13 + self.rank - 1

    @property
    def sort_key(self) -> tuple[int, int]:
        """Rank-major order for display: A, 2 … K, each rank by suit S H D C, Jokers last."""
        if self.suit is None:
            return (14, 0)
        return (self.rank, SUITS.index(self.suit))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.sort_key < other.sort_key

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        # As python-chess writes Move.from_uci('e2e4'): what is shown evaluates to the card.
        return f"Card.from_code({self.code!r})"


JOKER: Card = Card(0, None)


def parse_cards(codes: str | Iterable[str | Card]) -> list[Card]:
    """Parse many card codes; a single string may separate them by spaces or commas.

    Raises:
        InvalidCardError: for the first code that is not a card, quoting it.
    """
    if isinstance(codes, str):
        codes = [part for part in re.split(r"[\s,;]+", codes) if part]
    elif isinstance(codes, (bytes, bytearray)) or not isinstance(codes, Iterable):
        # Iterating bytes would name their numbers ("81 is not a card"), not what was sent.
        raise InvalidCardError(codes)
    return [Card.from_code(code) for code in codes]


def format_cards(cards: str | Iterable[str | Card]) -> str:
    """Cards (or codes, read as :func:`parse_cards` reads them) as space-separated
    canonical codes, e.g. ``"7H JK AH"``.

    Raises:
        InvalidCardError: for the first code that is not a card, quoting it.
    """
    return " ".join(card.code for card in parse_cards(cards))
