"""The rules commands: ``variants``, ``score`` and ``check-down``.

Exit status: 0 success (``check-down``: the go-down is valid), 1 ``check-down`` not
valid, 2 bad input (unknown card or variant, round outside 1-7, impossible hand,
unreadable photo), with the message on stderr (and, with ``--json``, as ``{"error": ...}`` on
stdout).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from onze_vision.cards import format_cards, parse_cards
from onze_vision.commands.vision import (CORNERS_HELP, DECK_CORNERS, FOUR_CORNER_NOTE, JOKER_HELP, doubt_said,
                                         learn_joker)
from onze_vision.melds import check_down, find_contract
from onze_vision.scoring import score_hand
from onze_vision.variants import VARIANTS, Variant, get_variant

__all__ = ["register"]

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_BAD_INPUT = 2

_VARIANT_NAMES = ", ".join(VARIANTS)
# The variants a rule applies to, for the help that explains it.
_SPLASH_VARIANTS = ", ".join(name for name, variant in VARIANTS.items() if variant.has_splash)
_ALWAYS_DOUBLED = "; ".join(f"{name}'s hand {', '.join(map(str, variant.splash_hands))} always doubles"
                            for name, variant in VARIANTS.items() if variant.splash_hands)


def _error(command: str, message: object) -> int:
    """Say what went wrong on stderr, named by the command as ``detect`` and ``serve`` name theirs."""
    print(f"onze-vision {command}: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _note_what_to_check(photo: str, reading: Any, corners: str = "auto") -> None:
    """Say on stderr which cards of the photo to check: the ones read unsure (scored as
    read) and the ones possibly missed (not scored); the result on stdout stays clean."""
    unsure = [f"{c.card} {doubt_said(c, 'note')}" for c in reading.cards if c.is_unsure]
    maybe = [c.card for c in getattr(reading, "maybe", [])]
    if getattr(reading, "colourless", False):
        from onze_vision.commands.vision import COLOURLESS_NOTE

        print(f"note: {photo}: {COLOURLESS_NOTE}", file=sys.stderr)
    if getattr(reading, "blurred", False):
        from onze_vision.commands.vision import blurred_note

        print(f"note: {photo}: {blurred_note(reading)}", file=sys.stderr)
    if getattr(reading, "mirrored", False):
        from onze_vision.commands.vision import MIRRORED_NOTE

        print(f"note: {photo}: {MIRRORED_NOTE}", file=sys.stderr)
    if getattr(reading, "four_corner_deck", False) and corners == "auto":
        print(f"note: {photo}: {FOUR_CORNER_NOTE}", file=sys.stderr)
    if unsure:
        print(f"note: {photo}: read unsure, scored as read: {', '.join(unsure)}", file=sys.stderr)
    if maybe:
        print(f"note: {photo}: possibly missed, not scored: {', '.join(maybe)} "
              "(list the cards instead of --photo to count them)", file=sys.stderr)


def _read_cards(args: argparse.Namespace) -> list[str]:
    """Card codes from the command line, or read from ``--photo``."""
    if args.photo is not None:
        if args.cards:
            raise ValueError("give either CARD... or --photo, not both")
        if not Path(args.photo).exists():
            raise ValueError(f"no such file: {args.photo!r}")   # as detect says it
        # Lazy: the detector pulls in OpenCV and ONNX Runtime, which scoring codes never needs.
        try:
            from onze_vision.detector import InvalidModelError, ModelNotFoundError, detect_cards
        except ImportError as error:
            raise ValueError(f"cannot read photos here: {error}") from error

        try:
            if args.models is None and args.joker is None:
                reading = detect_cards(args.photo, corners=args.corners)
            else:
                from onze_vision.detector import CardDetector, get_detector

                detector = get_detector() if args.models is None else CardDetector(args.models)
                reading = detector.detect_cards(args.photo, corners=args.corners,
                                                joker=learn_joker(detector, args.joker))
        except (ModelNotFoundError, InvalidModelError) as error:
            # The install is at fault, not the photo: say so before the file errors below.
            raise ValueError(f"cannot read photos here: {error}") from error
        except (FileNotFoundError, IsADirectoryError, PermissionError) as error:
            raise ValueError(f"cannot read photo {args.photo!r}: {error.strerror or error}") from error
        _note_what_to_check(args.photo, reading, args.corners)
        if not reading.cards:
            # Scoring an empty reading would give 0, the score of the player who went out.
            raise ValueError(f"no card was read in {args.photo!r}: take a closer, sharper photo, "
                             "or type the cards (CARD...)")
        # Row by row: melds photographed one under another are checked as laid.
        from onze_vision.detections import reading_order

        return [reading.cards[i].card for i in reading_order([detected.box for detected in reading.cards])]
    if args.corners != "auto":
        raise ValueError(f"--corners {args.corners} says how to read a photo: give --photo PHOTO too")
    if args.joker is not None:
        raise ValueError(f"--joker {args.joker!r} shows how the deck's Joker looks in a photo: give --photo PHOTO too")
    if args.models is not None:
        raise ValueError(f"--models '{args.models}' names the models a photo is read with: give --photo PHOTO too")
    # One argument may hold several codes: "QH,10S" or "QH 10S" (quoted).
    codes = [code for arg in args.cards for code in re.split(r"[\s,;]+", arg) if code]
    if not codes:
        # Scoring: an empty hand is the player who went out, whose score needs no command.
        note = " (the player who went out scores 0)" if args.command == "score" else ""
        raise ValueError(f"no cards given: list CARD codes (e.g. QH 10S JK) or use --photo PHOTO{note}")
    return codes


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn the engine's ValueErrors (bad card, variant, round, photo…) into exit status 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except BrokenPipeError:
            raise  # the reader of stdout left; the command line's main ends quietly
        except (ValueError, OSError) as error:
            if getattr(args, "json", False):
                # A script reading stdout gets JSON it can parse, as detect --json gives.
                _print_json({"error": str(error)})
            return _error(args.command, error)

    run.__doc__ = handler.__doc__
    return run


# -- variants -------------------------------------------------------------------
def _variant_text(v: Variant) -> str:
    lines = [f"{v.name}: {v.title} [seed {v.source}]"]
    # Short deals are listed, not refused: the table agrees how to play such a hand.
    lines += [f"  {topic:<13} {words}" for topic, words in v.rules_in_words()]
    # The table's own customs, as the rules page lists them under "Also in these rules".
    lines += [f"  {'also' if i == 0 else '':<13} {note}" for i, note in enumerate(v.notes)]
    return "\n".join(lines)


def _table_text(v: Variant, players: int) -> str:
    """Hand by hand at a table of ``players``: contract, cards dealt, fewest cards to go
    down, and the cards the deal leaves (the first discard and the stock)."""
    jokers = f" with {v.jokers_for(players)} Jokers" if v.uses_jokers else ", no Jokers"
    lines = [f"  for {players} players: {v.decks_for(players)} decks{jokers}",
             "  hand  contract              dealt  fewest  left after the deal"]
    for row in v.hand_facts(players):
        note = "  no stock" if row["short_deal"] else ("  the others' scores double" if row["always_doubles"] else "")
        lines.append(f"  {row['hand']:>4}  {row['contract']:<20}  {row['cards_dealt']:>5}  {row['min_cards']:>6}"
                     f"  {row['cards_left']:>4}{note}")
    return "\n".join(lines)


def _cmd_variants(args: argparse.Namespace) -> int:
    """List the variants and their rules (one, with NAME; at a table's size, with --players)."""
    if args.players is not None and args.name is None:
        raise ValueError("--players N gives one variant's table: name the variant too "
                         "(e.g. onze-vision variants ons --players 8)")
    chosen = [get_variant(args.name)] if args.name is not None else list(VARIANTS.values())
    if args.players is not None:
        chosen[0].check_players(args.players)
    if args.json:
        data = [v.to_dict() for v in chosen]
        if args.players is not None:
            v = chosen[0]
            # As GET /api/variants/NAME?players=N gives them.
            data[0]["table"] = v.table_facts(args.players)
            data[0]["hands"] = v.hand_facts(args.players)
        _print_json(data[0] if args.name is not None else data)
        return EXIT_OK
    texts = [_variant_text(v) for v in chosen]
    if args.players is not None:
        texts = [texts[0] + "\n" + _table_text(chosen[0], args.players)]
    print("\n\n".join(texts))
    return EXIT_OK


# -- score ----------------------------------------------------------------------
def _cmd_score(args: argparse.Namespace) -> int:
    """Score the cards left in a hand."""
    variant = get_variant(args.variant)
    cards = parse_cards(_read_cards(args))
    result = score_hand(
        cards, variant, players=args.players, splash=args.splash, hand=args.round
    )
    if args.json:
        _print_json(result.to_dict())
        return EXIT_OK
    width = max((len(card.code) for card in result.cards), default=2)
    for card, points in result.breakdown:
        print(f"{card.code:>{width}}  {points:3d}")
    base = sum(points for _, points in result.breakdown)
    why = "splash" if args.splash else f"hand {args.round} always doubles in {variant.name}"
    doubled = f" ({base} doubled: {why})" if result.doubled else ""
    print(f"{result.points} points in {variant.name}{doubled}")
    return EXIT_OK


# -- check-down -------------------------------------------------------------------
def _cmd_check_down(args: argparse.Namespace) -> int:
    """Check a go-down (or, with --whole-hand, find the contract in a whole hand)."""
    variant = get_variant(args.variant)
    cards = parse_cards(_read_cards(args))
    search = find_contract if args.hand else check_down
    result = search(variant, args.round, cards, players=args.players)
    # A splash-only hand found in a whole hand goes out: what is left is the discard, not points.
    going_out = result.goes_out(whole_hand=args.hand)
    if args.json:   # the object /api/godown answers with
        _print_json({**result.to_dict(), "variant": variant.name, "hand": args.round,
                     "contract": str(variant.contract(args.round)), "cards": [card.code for card in cards],
                     "mode": "hand" if args.hand else "down", "going_out": going_out})
    elif result.valid:
        print(f"Valid: hand {args.round} in {variant.name} is {variant.contract(args.round)}.")
        for meld in result.melds:
            stand_ins = ", ".join(f"{meld.cards[i]} = {card}" for i, card in meld.wilds.items())
            print(f"  {meld.kind:3}  {meld}" + (f"   ({stand_ins})" if stand_ins else ""))
        if going_out:
            discard = f", discarding {format_cards(result.leftover)}" if result.leftover else ""
            print(f"  going out{discard}: in hand {args.round} one goes down only by splashing (the others' scores double)")
        elif args.hand:
            print(
                f"  left   {format_cards(result.leftover) or '(nothing)'}"
                f"   {result.leftover_points} points"
            )
    else:
        reason = result.reason or ""
        # "Hand 1 needs ..." reads on after the colon as the valid line's "Valid: hand 1 in ..." does.
        print(f"Not valid: {reason[:1].lower() + reason[1:] if reason.startswith('Hand ') else reason}")
    return EXIT_OK if result.valid else EXIT_INVALID


# -- parsers -------------------------------------------------------------------
def _round(text: str) -> int:
    # Parsed here (not by argparse's int) so "9" reaches InvalidRoundError's message.
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the hand's number is 1 to 7, not {text!r}") from None


def _players(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"players must be a whole number, not {text!r}") from None


class _OnePhoto(argparse.Action):
    """--photo given once: a second would silently replace the first, so it is refused."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"--photo {getattr(namespace, self.dest)!r} and --photo {values!r}: one hand, one photo "
                         "(score each hand on its own)")
        setattr(namespace, self.dest, values)


def _add_card_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "cards",
        nargs="*",
        metavar="CARD",
        help="card codes: rank A 2-10 J Q K then suit S H D C, or JK (forgiving: qh, TH, 10♥)",
    )
    parser.add_argument("--photo", metavar="PHOTO", action=_OnePhoto, help="read the cards from a photo instead")
    parser.add_argument("--corners", choices=DECK_CORNERS, default="auto", help=f"with --photo, {CORNERS_HELP}")
    parser.add_argument("--joker", metavar="JOKER_PHOTO", help=f"with --photo, {JOKER_HELP}")
    parser.add_argument("--models", metavar="DIR", type=Path, default=None,
                        help="with --photo, the folder with the ONNX models (default: the shipped models/)")
    parser.add_argument(
        "--players",
        type=_players,
        metavar="N",
        help="players at the table: decides the decks for the impossible-hand check "
        "(default: the most decks the variant uses)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``variants``, ``score`` and ``check-down`` commands."""
    formatter = argparse.RawDescriptionHelpFormatter

    p = subparsers.add_parser(
        "variants",
        help="list the variants and their rules",
        description=f"List the variants ({_VARIANT_NAMES}) and their rules:\n"
        "players and decks, cards dealt, wild cards and their limits, runs, Aces,\n"
        "card values and each hand's contract.",
        epilog="examples:\n  onze-vision variants\n  onze-vision variants ons --players 8\n"
        "  onze-vision variants --json",
        formatter_class=formatter,
    )
    p.add_argument("name", nargs="?", metavar="NAME", help=f"one variant only: {_VARIANT_NAMES}")
    p.add_argument("--players", type=_players, metavar="N",
                   help="with NAME: the decks for N players and, hand by hand, the cards the deal leaves")
    p.add_argument("--json", action="store_true", help="print JSON (one object with NAME)")
    p.set_defaults(handler=_guarded(_cmd_variants))

    p = subparsers.add_parser(
        "score",
        help="score the cards left in a hand",
        description="Print the points of the cards left in a hand when someone goes out,\n"
        "card by card. An impossible hand (more copies of a card than the decks hold)\n"
        "is refused with exit status 2.",
        epilog="examples:\n"
        "  onze-vision score --variant once QH JK 7S 10D\n"
        "      -> 57 points\n"
        "  onze-vision score --variant llenroc --splash 9H KS --json\n"
        "  onze-vision score --variant onze --photo hand.jpg\n"
        f"\nvariants: {_VARIANT_NAMES}",
        formatter_class=formatter,
    )
    p.add_argument("--variant", required=True, metavar="V", help=f"one of {_VARIANT_NAMES}")
    _add_card_inputs(p)
    p.add_argument(
        "--splash",
        action="store_true",
        help=f"someone went down and out in one turn: double the score ({_SPLASH_VARIANTS})",
    )
    p.add_argument(
        "--round",
        type=_round,
        metavar="N",
        help=f"the hand (1-7); {_ALWAYS_DOUBLED}" if _ALWAYS_DOUBLED else "the hand (1-7)",
    )
    p.set_defaults(handler=_guarded(_cmd_score))

    p = subparsers.add_parser(
        "check-down",
        help="check a go-down against the hand's contract",
        description="Decide whether the cards laid down form exactly the contract of hand N\n"
        "(every card used) and show the melds and what each wild card stands for,\n"
        "or say why not. With --whole-hand the cards are a whole hand: find the contract\n"
        "in it, leaving the fewest points.\n\n"
        "exit status: 0 valid, 1 not valid, 2 bad input",
        epilog="examples:\n"
        "  onze-vision check-down --variant onze --round 2 7H 7S JK 3C 4C 5C 6C\n"
        "  onze-vision check-down --variant once --round 7 --whole-hand --json \\\n"
        "      3H 4H 5H 6H 8S 9S 10S JS 2C 3C 4C JK KD\n"
        f"\nvariants: {_VARIANT_NAMES}",
        formatter_class=formatter,
    )
    p.add_argument("--variant", required=True, metavar="V", help=f"one of {_VARIANT_NAMES}")
    p.add_argument("--round", type=_round, required=True, metavar="N", help="the hand, 1-7")
    p.add_argument(
        "--whole-hand", "--hand",
        dest="hand",
        action="store_true",
        help="the cards are a whole hand: find the contract inside it (--hand, its older name, works too)",
    )
    _add_card_inputs(p)
    p.set_defaults(handler=_guarded(_cmd_check_down))
