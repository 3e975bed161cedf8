"""The detector's class list: the 53 card codes in a fixed order.

Kept apart from the rules engine so the dataset recipe never changes when the rules do;
a test checks it equals ``onze_vision.cards.CARD_CODES``.
"""

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
CARD_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS) + ("JK",)
CLASS_ID: dict[str, int] = {code: i for i, code in enumerate(CARD_CODES)}
