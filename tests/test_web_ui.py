"""Template helpers and what a page says besides its words: which part of a photo it shows,
where its boxes' labels go, the cards its picker offers, its title, the fields it marks invalid."""

from __future__ import annotations

import re
from typing import Any

import pytest

from webapp.ui import cards_region


def photo(width: int, height: int, *boxes: tuple[float, float, float, float], maybe: tuple = ()) -> dict:
    return {"width": width, "height": height, "cards": [{"box": list(b)} for b in boxes],
            "maybe": [{"box": list(b)} for b in maybe]}


@pytest.mark.parametrize(("name", "shown", "region"), [
    ("a hand filling the photo is shown whole", photo(1000, 750, (100, 100, 900, 650)), None),
    ("no card read: the whole photo", photo(4000, 3000), None),
    ("a far shot: the cards grown by a quarter of their span",
     photo(8000, 6000, (3000, 2000, 3600, 2300), (3800, 2000, 4200, 2600)), (2700, 1700, 1800, 1200)),
    ("cards offered as possibly missed count too",
     photo(8000, 6000, (3000, 2000, 3600, 2300), maybe=((3800, 2000, 4200, 2600),)), (2700, 1700, 1800, 1200)),
    ("at least 3 % of the photo around a single small card",
     photo(20000, 15000, (4000, 3000, 4040, 3060)), (3400, 2400, 1240, 1260)),
    ("never closer than 480 photo px: grown around the cards' centre",
     photo(4000, 3000, (2000, 1500, 2040, 1560)), (1796, 1290, 448, 480)),
    ("grown, then moved to lie within the photo", photo(4000, 3000, (0, 0, 200, 100)), (0, 0, 480, 330)),
    ("a small photo is shown whole: zoomed, its pixels would be a blur",
     photo(504, 378, (200, 150, 230, 190)), None),
    ("a long thin photo whose short side is under 480 px: shown whole, the frame never past it",
     photo(800, 450, (380, 200, 420, 260)), None),
    ("cards spanning more than 0.6 of the long side: the whole photo",
     photo(4000, 3000, (500, 1000, 700, 1200), (2500, 1000, 2700, 1200)), None),
])
def test_the_page_shows_the_part_of_the_photo_the_cards_lie_in(name: str, shown: dict, region: tuple | None) -> None:
    result = cards_region(shown)
    if region is None:
        assert result is None, name
    else:
        assert result == pytest.approx(region), name



def _label_rect(label: dict[str, Any]) -> tuple[float, float, float, float]:
    from webapp.ui import _LABEL_CHAR_WIDTH

    return (label["x"], label["y"] - label["font"] * 0.9,
            label["x"] + _LABEL_CHAR_WIDTH * label["font"] * len(label["label"]), label["y"] + label["font"] * 0.2)


def test_labels_of_boxes_lying_close_are_placed_apart_and_on_the_photo() -> None:
    from webapp.ui import box_labels

    # A tight fan: five indices one above another, 12 px apart, two of them offered as missed.
    cards = [{"card": code, "confidence": 0.9, "box": [100 + 6 * i, 40 + 12 * i, 120 + 6 * i, 70 + 12 * i]}
             for i, code in enumerate(["QS", "JK", "AC", "7S"])]
    photo = {"width": 320, "height": 240, "cards": cards[:2] + [{**cards[2], "check": True}],
             "maybe": [cards[3], {"card": "KH", "box": [0, 0, 15, 20]}]}
    labels = box_labels(photo, stroke=320 / 250)
    assert [(label["card"], label["kind"], label["label"]) for label in labels] == [
        ("QS", "read", "Q♠"), ("JK", "read", "Joker"), ("AC", "unsure", "A♣?"), ("7S", "maybe", "7♠?"),
        ("KH", "maybe", "K♥?")]
    rects = [_label_rect(label) for label in labels]
    for i, a in enumerate(rects):
        assert 0 <= a[0] and a[2] <= 320 and 0 <= a[1] and a[3] <= 240 + labels[i]["font"]   # on the photo
        for b in rects[i + 1:]:
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1])   # apart


def test_a_lone_box_has_its_label_above_it() -> None:
    from webapp.ui import box_labels

    ten = {"card": "10H", "confidence": 0.9, "box": [200, 100, 230, 140]}
    label, = box_labels({"width": 640, "height": 480, "cards": [ten]}, stroke=2.0)
    assert (label["x"], label["y"]) == (200.0, 96.0) and label["label"] == "10♥"


def test_the_cards_to_check_are_grouped_by_why_each_once_as_a_card_says_its_doubt() -> None:
    from webapp.ui import cards_to_check

    def read(code: str, **flags: Any) -> dict[str, Any]:
        return {"card": code, "confidence": 0.5, "box": [0, 0, 10, 10], **flags}

    # A reading kept as JSON says its flags, not its doubt: readings kept in books long ago too.
    sure, swapped, faint, both = read("KS"), read("8H", alternative="6H"), read("9C", check=True), \
        read("QD", alternative="QH", check=True)
    jokers = [read("JK", count_unsure=True), read("JK", count_unsure=True)]
    to_check = cards_to_check({"width": 99, "height": 99, "cards": [sure, swapped, faint, both, *jokers]})
    assert to_check == {"alternative": [swapped, both], "faint": [faint], "joker_count": jokers}
    assert cards_to_check({"width": 99, "height": 99, "cards": [sure]}) == {
        "alternative": [], "faint": [], "joker_count": []}


@pytest.mark.parametrize(("variant", "offers_a_joker"), [("llenroc", True), ("once", True), ("ons", False)])
def test_the_card_picker_offers_a_joker_only_where_the_rules_deal_one(client: Any, api: Any, variant: str,
                                                                      offers_a_joker: bool) -> None:
    game = api.post("/api/games", {"variant": variant, "players": ["Ann", "Bo", "Cy"]}).get_json()
    for url in (f"/games/{game['id']}/hands/1/players/2", f"/games/{game['id']}/godown"):
        page = client.get(url).get_data(as_text=True)
        assert ('<option value="JK" aria-label="joker">Joker</option>' in page) is offers_a_joker, url
        assert ("codes like QH 10S 7D JK;" in page) is offers_a_joker, url
        assert '<option value="AH" aria-label="ace of hearts">A♥</option>' in page
    # The go-down page without a game may change its rules under the editor: every card is offered.
    page = client.get(f"/godown?variant={variant}").get_data(as_text=True)
    assert '<option value="JK" aria-label="joker">Joker</option>' in page


def test_what_was_just_done_leads_the_title_and_nothing_else_does(client: Any, api: Any, token: str) -> None:
    """A status drawn with the page is not read out as the page opens; its title is."""
    game = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()
    saved = client.post(f"/games/{game['id']}/hands/1/players/2", data={"csrf_token": token, "cards": "QH 7S"},
                        follow_redirects=True).get_data(as_text=True)
    assert "<title>Saved Bo&#39;s score for hand 1. · Hand 1 · Game 1 · Onze Vision</title>" in saved
    assert "<title>Hand 1 · Game 1 · Onze Vision</title>" in client.get(f"/games/{game['id']}/hands/1").get_data(
        as_text=True)   # said once
    refused = client.post("/games/new", data={"csrf_token": token, "variant": "once", "player1": "Ann",
                                              "player2": "ann"}).get_data(as_text=True)
    assert "<title>New game · Onze Vision</title>" in refused   # an error is focused and read, not titled


def test_names_given_twice_are_marked_invalid_on_the_refused_form(client: Any, token: str) -> None:
    page = client.post("/games/new", data={"csrf_token": token, "variant": "once", "player1": "Ann",
                                           "player2": "Bo", "player3": "ANN"}).get_data(as_text=True)
    marked = re.findall(r'name="player(\d)"[^>]*aria-invalid="true"', page)
    assert marked == ["1", "3"]


@pytest.mark.parametrize(("words", "figures"), [
    ("two sets", "2 sets"), ("one set + one run", "1 set + 1 run"), ("two runs + one set", "2 runs + 1 set"),
    ("three runs", "3 runs"),
])
def test_a_contract_is_put_in_figures_for_a_narrow_sheet(words: str, figures: str) -> None:
    from webapp.ui import contract_short

    assert contract_short(words) == figures


def test_the_new_game_pages_help_lines_describe_their_fields_and_do_not_name_them(client: Any) -> None:
    # Inside the <label> they were part of the name a screen reader says on every landing
    # (about 200 characters for the variant); beside it they are its description.
    page = client.get("/games/new").get_data(as_text=True)
    assert '<label for="variant" class="field-name">Variant</label>' in page
    assert '<select name="variant" id="variant" aria-describedby="variant-summary">' in page
    assert '<select name="corners" id="corners" aria-describedby="corners-hint">' in page
    assert 'id="variant-summary"' in page and 'id="corners-hint"' in page


def test_a_players_page_and_a_deleted_games_buttons_say_which_game(client: Any, api: Any, token: str) -> None:
    game = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()
    page = client.get(f"/games/{game['id']}/hands/1/players/2").get_data(as_text=True)
    assert f"<title>Bo · hand 1 · Game {game['id']} · Onze Vision</title>" in page
    api.delete(f"/api/games/{game['id']}")
    history = client.get("/history").get_data(as_text=True)
    # Each row's buttons named for their game, their words first (a voice says what it sees).
    assert f'aria-label="Bring back game {game["id"]}">Bring back</button>' in history
    assert f'aria-label="Delete for good game {game["id"]}">Delete for good</button>' in history


def test_the_live_pages_carry_the_switch_that_keeps_them_still(client: Any, api: Any) -> None:
    game = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()
    for url in (f"/games/{game['id']}", f"/games/{game['id']}/hands/1"):
        page = client.get(url).get_data(as_text=True)
        # Hidden until app.js runs (without scripts nothing reloads), and not printed.
        assert '<p class="meta live-switch no-print" hidden>' in page, url
        assert '<input type="checkbox" data-live-auto checked> Show what other phones save as it comes in' in page
    assert "data-live-auto" not in client.get("/").get_data(as_text=True)
