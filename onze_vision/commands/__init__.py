"""Subcommands of ``onze-vision``, one module per area (rules, vision, web).

Each module exposes ``register(subparsers)`` which adds its parsers and sets
``handler`` on each, a function ``(argparse.Namespace) -> int`` (exit status).
"""
