"""The ``onze-vision`` command line.

Each area of the product registers its own subcommands from a module in
``onze_vision.commands`` (rules, vision, training, web), so this file only assembles them.
Handlers import their heavy dependencies lazily: ``onze-vision score`` must not
pay for OpenCV or ONNX Runtime.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from contextvars import ContextVar
from typing import NoReturn

COMMAND_MODULES: tuple[str, ...] = (
    "onze_vision.commands.rules",
    "onze_vision.commands.vision",
    "onze_vision.commands.training",
    "onze_vision.commands.web",
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("onze-vision")
    except PackageNotFoundError:   # run from a checkout that was never installed
        return "(not installed)"


#: Whether this run's arguments ask for JSON (``--json``, or an abbreviation argparse takes):
#: per thread and per context, so two runs of :func:`main` at once do not share it.
_JSON_ERRORS: ContextVar[bool] = ContextVar("json_errors", default=False)


def _asks_for_json(argv: Sequence[str]) -> bool:
    """``--json`` among the arguments, whole or shortened as argparse reads it (``--js``)."""
    return any(len(arg) >= 3 and "--json".startswith(arg) for arg in argv)


class Parser(argparse.ArgumentParser):
    """argparse's parser (its subcommands' too), which for a command with ``--json`` asked
    for JSON also says an option it cannot read as ``{"error": ...}`` on stdout: a script
    reading the JSON gets JSON for every error, not only those found after the options were read."""

    _intermixing = False

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        # A subcommand reads its cards or photos wherever they stand among its options
        # (score --variant once QH --json 7S): plain argparse took those after an option for
        # unknown arguments. The top level, which holds the subcommands, reads as argparse does.
        if self._intermixing or self._subparsers is not None:
            return super().parse_known_args(args, namespace)
        words = list(sys.argv[1:] if args is None else args)
        self._intermixing = True   # parse_known_intermixed_args calls back here
        try:
            # After "--" every word is a card or a file ("-hand.jpg"): Python 3.11's intermixed
            # parsing reads on past it as options, so such a command line is read as argparse reads it.
            found, unknown = (super().parse_known_args(words, namespace) if "--" in words
                              else self.parse_known_intermixed_args(words, namespace))
        finally:
            self._intermixing = False
        if unknown:   # said by this command, with its usage (and as JSON when asked), not by the top level
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        return found, unknown

    def error(self, message: str) -> NoReturn:
        if _JSON_ERRORS.get() and any("--json" in action.option_strings for action in self._actions):
            print(json.dumps({"error": message}, indent=2))
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    """Return the parser with every area's subcommands registered."""
    parser = Parser(
        prog="onze-vision",
        description="Score Onze rummy hands from a photo of the cards.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            # An area still under construction must not break the others.
            if error.name == module_name:
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    parser = build_parser()
    asked = _JSON_ERRORS.set(_asks_for_json(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    finally:
        _JSON_ERRORS.reset(asked)
    try:
        return int(args.handler(args) or 0)
    except ModuleNotFoundError as error:
        # The train extra left out (the runtime install): the command that installs it, not a
        # traceback. A runtime module missing is a broken install, and its traceback says so.
        from onze_vision.commands.checks import TRAIN_EXTRA_MODULES, missing_train_extra

        if (error.name or "").partition(".")[0] not in TRAIN_EXTRA_MODULES:
            raise
        print(f"onze-vision {args.command}: error: "
              f"{missing_train_extra('this command', error.name or '')}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``onze-vision detect x.jpg --json | head``): not an error of ours.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
