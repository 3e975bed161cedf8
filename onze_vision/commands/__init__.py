"""Subcommands of ``onze-vision``, one module per area (rules, vision, web, training);
``checks.py`` holds the checks of option values they share.

Each module exposes ``register(subparsers)`` which adds its parsers and sets
``handler`` on each, a function ``(argparse.Namespace) -> int`` (exit status).
"""
