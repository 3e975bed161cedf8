"""Onze Vision: score Onze rummy hands from a photo of the cards."""

__version__ = "0.1.0"
