"""Onze Vision: score Onze rummy hands from a photo of the cards.

The rules engine is pure Python and imported with the package:

    >>> from onze_vision import Card, check_down, get_variant, score_hand
    >>> str(Card.from_code("q♥"))
    'QH'
    >>> score_hand(["QH", "JK", "7S"], "once").points
    47
    >>> check_down(get_variant("onze"), 2, ["7H", "7S", "JK", "3C", "4C", "5C", "6C"]).valid
    True

Reading a photo needs OpenCV, ONNX Runtime and the shipped models (``models/``); they
load the first time the detector is asked for, so the rules alone never pay for them:

    reading = onze_vision.detect_cards("hand.jpg")      # a PhotoReading
    score_hand([seen.card for seen in reading.cards], "once")

``docs/contracts.md`` lists every name the modules offer.
"""

from __future__ import annotations

import importlib
from typing import Any

from onze_vision.cards import CARD_CODES, Card, InvalidCardError, format_cards, parse_cards
from onze_vision.detector_config import InvalidModelError, ModelNotFoundError, UnknownDeckCornersError
from onze_vision.melds import GoDown, Meld, TooManyCardsError, check_down, find_contract
from onze_vision.scoring import HandScore, ImpossibleHandError, score_hand
from onze_vision.variants import (
    VARIANTS,
    Contract,
    InvalidPlayerCountError,
    InvalidRoundError,
    NoSplashError,
    UnknownVariantError,
    Variant,
    get_variant,
)

__version__ = "0.1.0"

#: Names loaded on first use, from the module that holds them (OpenCV and ONNX Runtime).
_LAZY = {
    "CardDetector": "onze_vision.detector",
    "DetectedCard": "onze_vision.detector",
    "PhotoReading": "onze_vision.detector",
    "detect_cards": "onze_vision.detector",
    "Detections": "onze_vision.detections",
    "InvalidImageError": "onze_vision.imageio",   # every bad photo's error derives from it
}

__all__ = [
    "CARD_CODES", "VARIANTS", "Card", "CardDetector", "Contract", "DetectedCard", "Detections", "GoDown",
    "HandScore", "ImpossibleHandError", "InvalidCardError", "InvalidImageError", "InvalidModelError",
    "InvalidPlayerCountError", "InvalidRoundError", "Meld", "ModelNotFoundError", "NoSplashError",
    "PhotoReading", "TooManyCardsError", "UnknownDeckCornersError", "UnknownVariantError", "Variant",
    "check_down", "detect_cards", "find_contract", "format_cards", "get_variant", "parse_cards", "score_hand",
]


def __getattr__(name: str) -> Any:
    """The vision names of :data:`_LAZY`, imported when first asked for (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'onze_vision' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # asked once: later lookups find it without this hook
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
