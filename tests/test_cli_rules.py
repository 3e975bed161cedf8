"""The rules commands: output, JSON, exit codes, help, photos."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from onze_vision.cli import build_parser, main
from onze_vision.pairing import DetectedCard
from onze_vision.variants import VARIANTS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- variants -------------------------------------------------------------------
def test_variants_lists_every_variant_and_its_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants")
    assert code == 0
    for name in VARIANTS:
        assert f"{name}:" in out
    assert "suits mixed as you like" in out and "two runs + one set" in out and "hand 7 always doubles" in out
    # What every variant shares is said too: what a set is, how a hand is scored, who wins.
    assert out.count("3 or more cards of one rank") == len(VARIANTS)
    assert out.count("after hand 7 the lowest total wins") == len(VARIANTS)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variants_says_each_variants_own_customs_as_the_rules_page_does(
        capsys: pytest.CaptureFixture[str], name: str) -> None:
    _, out, _ = run(capsys, "variants", name)
    for note in VARIANTS[name].notes:
        assert note in out


def test_variants_names_the_one_deal_that_leaves_no_stock(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "variants")
    short = [line.strip() for line in out.splitlines() if "short deal" in line]
    assert short == ["short deal    hand 7: 8 players × 13 cards take every card of the 2 decks, "
                     "leaving no stock to draw from"]
    ons = out.split("ons: ")[1]
    assert "short deal" in ons   # listed under Ons, the only variant with such a deal


def test_variants_json_is_the_rules_as_data(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants", "--json")
    data = json.loads(out)
    assert code == 0
    assert [v["name"] for v in data] == list(VARIANTS)
    assert data[4]["values"]["joker"] is None and data[4]["jokers_per_deck"] == 0


def test_variants_name_prints_that_variant_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants", "ONCE")
    assert code == 0
    assert out.startswith("once: Once' (Don Williamson's rules)") and "llenroc:" not in out


def _table_rows(out: str) -> dict[int, list[str]]:
    rows = [line.split() for line in out.splitlines()]
    return {int(row[0]): row for row in rows if row and row[0].isdigit()}


@pytest.mark.parametrize(("name", "players", "decks", "left", "noted"), [
    ("once", 4, "2 decks with 4 Jokers", [64] * 6 + [56], {}),
    ("llenroc", 6, "3 decks with 6 Jokers", [162 - 6 * dealt for dealt in range(6, 13)], {7: "the others' scores double"}),
    ("ons", 8, "2 decks, no Jokers", [16] * 6 + [0], {7: "no stock"}),
])
def test_variants_players_gives_the_table_hand_by_hand(
    capsys: pytest.CaptureFixture[str], name: str, players: int, decks: str, left: list[int], noted: dict[int, str]
) -> None:
    code, out, _ = run(capsys, "variants", name, "--players", str(players))
    assert code == 0
    assert f"for {players} players: {decks}" in out
    rows = _table_rows(out)
    assert list(rows) == [1, 2, 3, 4, 5, 6, 7]
    for hand, row in rows.items():
        line = " ".join(row)
        assert str(left[hand - 1]) in row
        assert line.endswith(noted[hand]) if hand in noted else line.split()[-1].isdigit()


@pytest.mark.parametrize("command", [["variants", "once"], ["score", "--variant", "once", "QH"]])
def test_players_that_are_not_a_number_are_refused_by_name(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--players", "four"])
    assert exit_.value.code == 2
    assert "argument --players: players must be a whole number, not 'four'" in capsys.readouterr().err


def test_variants_players_json_adds_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants", "ons", "--players", "8", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["table"] == {"players": 8, "decks": 2, "jokers": 0}
    assert [h["cards_left"] for h in data["hands"]] == [16] * 6 + [0]
    assert [h["hand"] for h in data["hands"] if h["short_deal"]] == [7]


@pytest.mark.parametrize(("argv", "message"), [
    (["variants", "gin"], f"unknown variant 'gin': choose one of {', '.join(VARIANTS)}"),
    (["variants", "once", "--players", "9"], "once is played by 2 to 6 players, not 9"),
    (["variants", "--players", "4"], "--players N gives one variant's table: name the variant too"),
])
def test_variants_bad_input_says_what_was_wrong(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert message in err


# -- score ------------------------------------------------------------------------
def test_score_prints_each_card_and_the_total(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "score", "--variant", "once", "QH", "JK", "7S")
    assert (code, err) == (0, "")
    assert "47 points" in out and "JK   30" in out


@pytest.mark.parametrize("args", [["score", "--variant", "once", "ZZ"], ["score", "--variant", "nope", "QH"],
                                  ["check-down", "--variant", "once", "--round", "8", "QH"]])
def test_bad_input_with_json_says_the_error_as_json_too(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    code, out, err = run(capsys, *args, "--json")
    assert code == 2
    assert json.loads(out) == {"error": err.removeprefix(f"onze-vision {args[0]}: error: ").rstrip("\n")}


@pytest.mark.parametrize("args", [["score", "--variant", "once", "--players", "x", "QH"],
                                  ["check-down", "--variant", "once", "--round", "x", "QH"],
                                  ["score", "QH"],                        # no --variant
                                  ["detect", "hand.jpg", "--corners", "three"]])
def test_an_option_that_cannot_be_read_with_json_is_said_as_json_too(capsys: pytest.CaptureFixture[str],
                                                                     args: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:   # argparse's own refusal
        main([*args, "--json"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2
    assert json.loads(out) == {"error": err.splitlines()[-1].removeprefix(f"onze-vision {args[0]}: error: ")}
    with pytest.raises(SystemExit):   # a later run without --json prints nothing on stdout for its error
        main(["score", "--variant", "once", "--players", "x", "QH"])
    assert capsys.readouterr().out == ""


def test_json_asked_in_short_is_json_and_a_command_without_json_prints_none(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--variant", "once", "--players", "x", "QH", "--js"])   # argparse takes --js for --json
    assert json.loads(capsys.readouterr().out) == {"error": "argument --players: players must be a whole number, not 'x'"}
    with pytest.raises(SystemExit):
        main(["serve", "--json"])   # serve has no --json: its refusal is words only
    out, err = capsys.readouterr()
    assert out == "" and "unrecognized arguments: --json" in err


def test_an_option_a_command_does_not_take_is_refused_by_that_command_in_json_when_asked(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["score", "--variant", "once", "--json", "QH", "--bogus"])
    out, err = capsys.readouterr()
    assert refused.value.code == 2 and json.loads(out) == {"error": "unrecognized arguments: --bogus"}
    assert err.startswith("usage: onze-vision score ")   # the command's own usage, not the top level's


def test_after_a_double_dash_every_word_is_a_card(capsys: pytest.CaptureFixture[str]) -> None:
    # As argparse reads it: "--" lets a card or a file name (-hand.jpg) start with a dash.
    code, _, err = run(capsys, "score", "--variant", "once", "--", "--json")
    assert code == 2 and "'--json' is not a card" in err
    code, out, err = run(capsys, "detect", "--json", "--", "-hand.jpg")
    assert code == 2 and json.loads(out) == [{"image": "-hand.jpg", "error": "no such file: '-hand.jpg'"}]


def test_score_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "--variant", "once", "qh", "10♥", "--json")
    assert code == 0
    assert json.loads(out) == {
        "variant": "once",
        "cards": ["QH", "10H"],
        "points": 20,
        "breakdown": [{"card": "QH", "points": 10}, {"card": "10H", "points": 10}],
        "doubled": False,
        "splash": False,
    }


@pytest.mark.parametrize(("argv", "key", "read"), [
    (("score", "--variant", "once", "QH", "--json", "7S"), "cards", ["QH", "7S"]),
    (("score", "QH", "--variant", "once", "7S", "--json"), "cards", ["QH", "7S"]),
    (("check-down", "--variant", "onze", "7H", "7S", "7C", "--round", "1", "8H", "8S", "8C", "--json"), "melds",
     [["7S", "7H", "7C"], ["8S", "8H", "8C"]]),
], ids=["cards on both sides of --json", "cards around --variant", "a go-down around --round"])
def test_cards_are_read_wherever_they_stand_among_the_options(capsys: pytest.CaptureFixture[str],
                                                              argv: tuple[str, ...], key: str, read: list[Any]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 0 and not err
    found = json.loads(out)[key]
    assert (found if key == "cards" else [meld["cards"] for meld in found]) == read


def test_one_argument_may_hold_several_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "--variant", "once", "QH,10s", "7D 2C", "--json")
    assert code == 0 and json.loads(out)["cards"] == ["QH", "10S", "7D", "2C"]


def test_score_splash_doubles_in_llenroc(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "--variant", "llenroc", "--splash", "9H", "KS", "--json")
    assert code == 0 and json.loads(out)["points"] == 38 and json.loads(out)["splash"] is True


@pytest.mark.parametrize(("splash", "why"), [
    pytest.param([], "(9 doubled: hand 7 always doubles in llenroc)", id="no splash: the hand's own rule"),
    pytest.param(["--splash"], "(9 doubled: splash)", id="a splash said"),
])
def test_score_round_7_in_llenroc_doubles_and_says_why(
    capsys: pytest.CaptureFixture[str], splash: list[str], why: str
) -> None:
    code, out, _ = run(capsys, "score", "--variant", "llenroc", "--round", "7", *splash, "9H")
    assert code == 0 and out.splitlines()[-1] == f"18 points in llenroc {why}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["score", "--variant", "once", "QH", "ZZ"], "'ZZ' is not a card", id="unknown card"),
        pytest.param(["score", "--variant", "rummy", "QH"], "unknown variant 'rummy'", id="unknown variant"),
        pytest.param(["score", "--variant", "once", "QH", "QH", "QH"], "3 × QH", id="impossible hand"),
        pytest.param(["score", "--variant", "ons", "JK"], "without Jokers", id="a Joker in ons"),
        pytest.param(["score", "--variant", "llenroc", "--players", "5", "7S", "7S", "7S"], "7S", id="players decide the decks"),
        pytest.param(["score", "--variant", "onze", "--players", "9", "7S"], "not 9", id="players outside the variant"),
        pytest.param(["score", "--variant", "once", "--splash", "7S"], "no splash rule", id="splash without the rule"),
        pytest.param(["score", "--variant", "once"], "no cards given", id="no cards"),
        pytest.param(["check-down", "--variant", "once", "--round", "8", "7H"], "hand 8 does not exist", id="round 8"),
        pytest.param(["check-down", "--variant", "once", "--round", "0", "7H"], "hand 0 does not exist", id="round 0"),
        pytest.param(["check-down", "--variant", "nope", "--round", "1", "7H"], "unknown variant", id="check-down unknown variant"),
        pytest.param(["check-down", "--variant", "once", "--round", "1", "7H", "1X"], "'1X' is not a card", id="check-down unknown card"),
    ],
)
def test_bad_input_exits_2_with_the_error_on_stderr(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err


def test_a_round_that_is_not_a_number_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["check-down", "--variant", "once", "--round", "seven", "7H"])
    assert caught.value.code == 2
    assert "'seven'" in capsys.readouterr().err


# -- check-down ------------------------------------------------------------------------
def test_check_down_valid_exits_0_and_shows_the_melds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check-down", "--variant", "onze", "--round", "2", "7H", "7S", "JK", "3C", "4C", "5C", "6C")
    assert code == 0
    assert "Valid" in out and "7S 7H JK" in out and "JK = 7D" in out and "3C 4C 5C 6C" in out


def test_check_down_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check-down", "--variant", "once", "--round", "1", "--json", "7H", "7S", "JK", "9C", "9D", "9H")
    assert code == 0
    assert json.loads(out) == {
        "valid": True,
        "melds": [
            {"kind": "set", "cards": ["7S", "7H", "JK"], "wilds": {"2": "7D"}},
            {"kind": "set", "cards": ["9H", "9D", "9C"], "wilds": {}},
        ],
        "leftover": [],
        "leftover_points": 0,
        "reason": None,
        "variant": "once",
        "hand": 1,
        "contract": "two sets",
        "cards": ["7H", "7S", "JK", "9C", "9D", "9H"],
        "mode": "down",
        "going_out": False,
    }


@pytest.mark.parametrize("whole_hand", [False, True])
def test_check_down_json_is_the_object_the_api_answers_with(capsys: pytest.CaptureFixture[str],
                                                            whole_hand: bool) -> None:
    from webapp.model import check_go_down

    cards = "3H 4H 5H 6H 8S 9S 10S JS 2C 3C 4C JK KD".split()
    _, out, _ = run(capsys, "check-down", "--variant", "once", "--round", "7", *(["--whole-hand"] * whole_hand),
                    "--json", *cards)
    assert json.loads(out) == check_go_down("once", 7, cards, whole_hand=whole_hand)


def test_a_whole_hand_7_of_llenroc_says_in_json_that_it_goes_out(capsys: pytest.CaptureFixture[str]) -> None:
    # Hand 7 is gone down only by splashing: what is left is the discard, not points to score.
    code, out, _ = run(capsys, "check-down", "--variant", "llenroc", "--round", "7", "--hand", "--json",
                       *"3H 4H 5H 6H 8S 9S 10S JS 2C 3C 4C JK KD".split())
    data = json.loads(out)
    assert code == 0 and data["going_out"] is True and data["leftover"] == ["KD"]


def test_check_down_not_valid_exits_1_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check-down", "--variant", "once", "--round", "1", "--json", "7H", "JK", "AH", "9C", "9D", "9H")
    data = json.loads(out)
    assert (code, err) == (1, "")
    assert data["valid"] is False and data["melds"] == []
    assert data["reason"] == ("Hand 1 needs two sets, but a set holds at most one wild card in once "
                              "(red Aces are wild): 7H JK AH.")


def test_check_down_hand_finds_the_contract_in_a_whole_hand(capsys: pytest.CaptureFixture[str]) -> None:
    cards = "3H 4H 5H 6H 8S 9S 10S JS 2C 3C 4C JK KD".split()
    code, out, _ = run(capsys, "check-down", "--variant", "onze", "--round", "7", "--whole-hand", "--json", *cards)
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["leftover"] == ["KD"]
    assert [m["kind"] for m in data["melds"]] == ["run", "run", "run"]
    code, out, _ = run(capsys, "check-down", "--variant", "onze", "--round", "7", "--hand", *cards)
    assert code == 0 and "KD   10 points" in out


# -- photos --------------------------------------------------------------------------
def _detected(code: str, alternative: str | None = None,
              box: tuple[float, float, float, float] = (0.0, 0.0, 10.0, 10.0)) -> DetectedCard:
    """A card as the detector reports it: read at 0.9, unsure where it has an alternative."""
    return DetectedCard(code, 0.9, box, alternative=alternative)


@pytest.fixture
def fake_detector(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Stand-in for onze_vision.detector: reads a fixed list of cards from any photo. The
    photos it read are listed, each with " (corners: four)" where the deck was said to be."""
    seen: list[str] = []
    module = types.ModuleType("onze_vision.detector")

    def detect_cards(path: str, corners: str = "auto") -> object:
        seen.append(str(path) if corners == "auto" else f"{path} (corners: {corners})")
        if str(path).endswith(".bad"):
            raise ValueError(f"not an image: {path}")
        if str(path).endswith("blank.jpg"):   # nothing read, one card possibly missed
            return types.SimpleNamespace(cards=[], maybe=[_detected("QS")])
        if str(path).endswith("grey.jpg"):    # no colour: every card offers its other colour
            cards = [_detected(c, a) for c, a in (("7S", "7H"), ("7S", "7H"), ("JK", None), ("9C", "9D"),
                                                   ("9C", "9D"), ("9S", "9H"))]
            return types.SimpleNamespace(cards=cards, maybe=[], colourless=True)
        if str(path).endswith("fourcorner.jpg"):  # a deck with an index in all four corners
            return types.SimpleNamespace(cards=[_detected(c) for c in ("7H", "7S", "JK", "9C", "9D", "9H")], maybe=[],
                                         four_corner_deck=True)
        if str(path).endswith("shaken.jpg"):  # read, but too blurred to trust
            return types.SimpleNamespace(cards=[_detected(c) for c in ("7H", "7S", "JK", "9C", "9D", "9H")], maybe=[],
                                         blurred=True)
        if str(path).endswith("rows.jpg"):  # a set laid above a run: left to right, their cards interleave
            cards = [_detected(c, box=(10.0 * i, 50.0 * (i % 2), 10.0 * i + 8, 50.0 * (i % 2) + 20))
                     for i, c in enumerate(("7H", "5S", "7D", "6S", "7C", "JK", "7S", "8S"))]
            return types.SimpleNamespace(cards=cards, maybe=[])
        if str(path).endswith("unsure.jpg"):  # a 9D read unsure (or 9H?), and a QS possibly missed
            cards = [_detected(c) for c in ("7H", "7S", "JK", "9C", "9H")] + [_detected("9D", "9H")]
            return types.SimpleNamespace(cards=cards, maybe=[_detected("QS")])
        return types.SimpleNamespace(cards=[_detected(c) for c in ("7H", "7S", "JK", "9C", "9D", "9H")])

    module.detect_cards = detect_cards  # type: ignore[attr-defined]
    # The real module's model errors, which the command tells apart from a bad photo.
    module.ModelNotFoundError = type("ModelNotFoundError", (FileNotFoundError,), {})  # type: ignore[attr-defined]
    module.InvalidModelError = type("InvalidModelError", (ValueError,), {})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "onze_vision.detector", module)
    return seen


@pytest.mark.parametrize(("name", "notes"), [
    ("hand.jpg", []),  # every card read sure: nothing to check
    # A 9D read unsure (scored as read) and a QS possibly missed (not counted): said on stderr.
    ("unsure.jpg", ["read unsure, scored as read: 9D (or 9H?)", "possibly missed, not scored: QS"]),
    # No colour: said first, then every suited card with its other colour.
    # Too blurred to trust: scored as read, and the player told to check or retake it.
    ("shaken.jpg", ["this photo looks blurred (shaken, or out of focus): cards in it may be missed"]),
    ("grey.jpg", ["no colour in this photo: red and black suits look alike",
                  "read unsure, scored as read: 7S (or 7H?), 7S (or 7H?), 9C (or 9D?), 9C (or 9D?), 9S (or 9H?)"]),
])
def test_score_reads_the_cards_from_a_photo_and_says_which_to_check(
    capsys: pytest.CaptureFixture[str], fake_detector: list[str], tmp_path: Path, name: str, notes: list[str]
) -> None:
    photo = tmp_path / name
    photo.write_bytes(b"jpeg")
    code, out, err = run(capsys, "score", "--variant", "onze", "--photo", str(photo), "--json")
    assert code == 0 and fake_detector == [str(photo)]
    assert json.loads(out)["points"] == 7 + 7 + 30 + 27
    noted = [line for line in err.splitlines() if line.startswith("note:")]
    assert len(noted) == len(notes) and all(note in line for note, line in zip(notes, noted))


def test_check_down_reads_the_cards_from_a_photo(
    capsys: pytest.CaptureFixture[str], fake_detector: list[str], tmp_path: Path
) -> None:
    photo = tmp_path / "down.png"
    photo.write_bytes(b"png")
    code, out, _ = run(capsys, "check-down", "--variant", "once", "--round", "1", "--photo", str(photo), "--json")
    assert code == 0 and json.loads(out)["valid"] is True


def test_check_down_reads_a_photo_row_by_row(capsys: pytest.CaptureFixture[str], fake_detector: list[str],
                                             tmp_path: Path) -> None:
    photo = tmp_path / "rows.jpg"
    photo.write_bytes(b"jpeg")
    code, out, _ = run(capsys, "check-down", "--variant", "onze", "--round", "2", "--photo", str(photo), "--json")
    melds = json.loads(out)["melds"]
    assert code == 0 and [m["cards"] for m in melds] == [["7S", "7H", "7D", "7C"], ["5S", "6S", "JK", "8S"]]


@pytest.mark.parametrize("command", [["score"], ["check-down", "--round", "1"]])
def test_a_missing_photo_exits_2(
    capsys: pytest.CaptureFixture[str], fake_detector: list[str], tmp_path: Path, command: list[str]
) -> None:
    code, out, err = run(capsys, *command, "--variant", "once", "--photo", str(tmp_path / "nope.jpg"))
    assert code == 2 and out == "" and "no such file" in err and fake_detector == []


@pytest.mark.parametrize("command", [["score"], ["check-down", "--round", "1"]])
def test_a_photo_with_no_card_read_is_not_scored_0(
    capsys: pytest.CaptureFixture[str], fake_detector: list[str], tmp_path: Path, command: list[str]
) -> None:
    # 0 is the score of the player who went out: an empty reading must not pass for it.
    photo = tmp_path / "blank.jpg"
    photo.write_bytes(b"jpeg")
    code, out, err = run(capsys, *command, "--variant", "once", "--photo", str(photo))
    assert code == 2 and out == ""
    assert "no card was read in" in err and "possibly missed, not scored: QS" in err


@pytest.mark.parametrize("cards", [[""], [" "], [","]])
def test_card_arguments_that_hold_no_code_are_no_cards(capsys: pytest.CaptureFixture[str], cards: list[str]) -> None:
    code, out, err = run(capsys, "score", "--variant", "once", *cards)
    assert code == 2 and out == "" and "no cards given" in err


def test_a_photo_the_detector_refuses_exits_2(
    capsys: pytest.CaptureFixture[str], fake_detector: list[str], tmp_path: Path
) -> None:
    photo = tmp_path / "x.bad"
    photo.write_bytes(b"")
    code, _, err = run(capsys, "score", "--variant", "once", "--photo", str(photo))
    assert code == 2 and "not an image" in err


def test_cards_and_a_photo_together_exit_2(capsys: pytest.CaptureFixture[str], fake_detector: list[str], tmp_path: Path) -> None:
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(b"jpeg")
    code, _, err = run(capsys, "score", "--variant", "once", "--photo", str(photo), "QH")
    assert code == 2 and "not both" in err


@pytest.mark.parametrize("corners", ["two", "four"])
@pytest.mark.parametrize("command", [["score"], ["check-down", "--round", "1"]])
def test_a_photo_is_read_as_the_deck_is_said_to_be(
    capsys: pytest.CaptureFixture[str], fake_detector: list[str], tmp_path: Path, command: list[str], corners: str
) -> None:
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(b"jpeg")
    code, _, _ = run(capsys, *command, "--variant", "once", "--photo", str(photo), "--corners", corners)
    assert code == 0 and fake_detector == [f"{photo} (corners: {corners})"]


@pytest.mark.parametrize(("corners", "noted"), [("auto", True), ("four", False)])
def test_a_photo_of_a_four_corner_deck_says_how_to_read_it_so(
    capsys: pytest.CaptureFixture[str], fake_detector: list[str], tmp_path: Path, corners: str, noted: bool
) -> None:
    photo = tmp_path / "fourcorner.jpg"
    photo.write_bytes(b"jpeg")
    code, _, err = run(capsys, "score", "--variant", "onze", "--photo", str(photo), "--corners", corners)
    assert code == 0
    assert ("these cards have an index in all four corners: with --corners four" in err) is noted


def test_the_decks_corners_without_a_photo_exit_2(capsys: pytest.CaptureFixture[str], fake_detector: list[str]) -> None:
    code, out, err = run(capsys, "score", "--variant", "once", "--corners", "four", "QH")
    assert code == 2 and out == "" and "--corners four says how to read a photo: give --photo PHOTO too" in err
    with pytest.raises(SystemExit) as caught:
        main(["score", "--variant", "once", "--corners", "3", "QH"])
    assert caught.value.code == 2 and "invalid choice: '3'" in capsys.readouterr().err and fake_detector == []


# -- help ------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["variants", "score", "check-down", "detect", "evaluate", "serve",
                                     "make-dataset", "train"])
def test_help_says_what_the_command_does_with_an_example(capsys: pytest.CaptureFixture[str], command: str) -> None:
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args([command, "--help"])
    out = capsys.readouterr().out
    assert caught.value.code == 0
    assert "example" in out and f"onze-vision {command}" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(["--version"])
    assert caught.value.code == 0 and capsys.readouterr().out.startswith("onze-vision 0.")


def test_the_installed_command_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "onze_vision", "check-down", "--variant", "onze", "--round", "1", "7H", "7S"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and "Not valid: hand 1 needs two sets" in done.stdout


@pytest.mark.parametrize("argv", [["variants"], ["score", "--variant", "once", "QH", "10S", "JK"]])
def test_a_reader_that_goes_away_is_not_an_error(argv: list[str]) -> None:
    # `onze-vision variants | head -1`: stdout's reader has closed the pipe.
    script = (
        "import os, sys\n"
        "r, w = os.pipe(); os.close(r); os.dup2(w, 1)\n"
        "from onze_vision.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["score", "--variant", "once"], ["check-down", "--variant", "once", "--round", "1"]])
def test_two_photos_for_one_hand_are_refused_not_one_silently_dropped(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--photo", "a.jpg", "--photo", "b.jpg"])
    assert exit_.value.code == 2
    assert "--photo 'a.jpg' and --photo 'b.jpg': one hand, one photo" in capsys.readouterr().err
