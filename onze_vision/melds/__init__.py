"""Go-down validation: do these cards make a hand's contract, and how?

Two questions, both answered by one exact search:

* :func:`check_down` — the cards a player lays down must form exactly the hand's
  contract, every card used;
* :func:`find_contract` — find the contract inside a whole hand, leaving the cards
  worth the fewest points.

One module each: :mod:`.meld` (a meld as laid, its rules, the answer's types),
:mod:`.search` (the exact search), :mod:`.explain` (why not), :mod:`.laid` (a go-down shown
as laid) and :mod:`.godown` (the two questions).
"""

from __future__ import annotations

from onze_vision.scoring import MAX_HAND_CARDS, TooManyCardsError

from .explain import explain
from .godown import check_down, find_contract
from .meld import GoDown, Meld, is_valid_meld, meld_problem, meld_problems
from .search import arrange, is_valid_run, is_valid_set

__all__ = [
    "MAX_HAND_CARDS",
    "GoDown",
    "TooManyCardsError",
    "Meld",
    "arrange",
    "check_down",
    "explain",
    "find_contract",
    "is_valid_meld",
    "is_valid_run",
    "is_valid_set",
    "meld_problem",
    "meld_problems",
]
