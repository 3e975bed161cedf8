"""The rules pages: each variant in the command line's words, hand by hand, for a table."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from onze_vision.variants import VARIANTS


def _text(response: Any) -> str:
    """The page's words, tags dropped and entities read, whitespace made single."""
    words = re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))
    return re.sub(r"\s+", " ", html.unescape(words))


def _hand_row(page: str, hand: int) -> str:
    row = re.search(rf'<tr[^>]*>\s*<th scope="row" class="col-hand">{hand}</th>(.*?)</tr>', page, re.S)
    assert row, f"no row for hand {hand}"
    return row.group(1)


def test_the_rules_page_lists_the_five_variants(client: Any) -> None:
    response = client.get("/rules")
    page, text = response.get_data(as_text=True), _text(response)
    for variant in VARIANTS.values():
        assert f'href="/rules/{variant.name}"' in page
        assert variant.title in text


def test_every_page_has_the_rules_in_the_nav(client: Any) -> None:
    assert '<a href="/rules">Rules</a>' in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_a_variant_page_says_what_the_command_line_says(client: Any, name: str) -> None:
    response = client.get(f"/rules/{name}")
    assert response.status_code == 200
    text = _text(response)
    for topic, words in VARIANTS[name].rules_in_words():
        assert f"{topic.capitalize()} {words}" in text
    for note in VARIANTS[name].notes:
        assert note in text


@pytest.mark.parametrize(("name", "values"), [
    ("llenroc", ["Joker 20", "red Ace 15", "black Ace 15", "J Q K 10", "2-10 face value"]),
    ("onze", ["Joker 30", "red Ace 30", "black Ace 20"]),
    ("once", ["Joker 30", "red Ace 30", "black Ace 15"]),
    ("ons", ["red Ace 25", "black Ace 15"]),
])
def test_what_a_card_left_in_hand_counts(client: Any, name: str, values: list[str]) -> None:
    section = client.get(f"/rules/{name}").get_data(as_text=True).split('id="values"')[1].split("</section>")[0]
    shown = [re.sub(r"<[^>]+>", "", item).strip() for item in re.findall(r"<li>(.*?)</li>", section)]
    assert all(value in shown for value in values)
    assert any(item.startswith("Joker") for item in shown) == (name != "ons")   # ons plays without Jokers


@pytest.mark.parametrize(("name", "hand", "contract", "dealt", "fewest"), [
    ("llenroc", 1, "two sets", 6, 6),
    ("llenroc", 7, "three runs", 12, 12),
    ("onze", 5, "two sets + one run", 11, 10),
    ("once", 6, "two runs + one set", 11, 11),
    ("ons", 7, "three runs", 13, 12),
])
def test_hand_by_hand_contract_deal_and_fewest_cards(
    client: Any, name: str, hand: int, contract: str, dealt: int, fewest: int
) -> None:
    row = _hand_row(client.get(f"/rules/{name}").get_data(as_text=True), hand)
    cells = [re.sub(r"<[^>]+>", " ", cell).split() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    assert " ".join(cells[0]).startswith(contract)
    assert cells[1:] == [[str(dealt)], [str(fewest)]]


def test_llenroc_hand_7_always_doubles_and_no_other_hand_does(client: Any) -> None:
    page = client.get("/rules/llenroc").get_data(as_text=True)
    doubling = [hand for hand in range(1, 8) if "the others' scores double" in html.unescape(_hand_row(page, hand))]
    assert doubling == [7]
    assert "scores double" not in client.get("/rules/onze").get_data(as_text=True).split('id="hands"')[1]


@pytest.mark.parametrize(("url", "heading"), [
    ("/rules/llenroc?players=6", "for 6 players: 3 decks with 6 Jokers"),
    ("/rules/llenroc?players=7", "for 7 players: 4 decks with 8 Jokers"),
    ("/rules/once?players=4", "for 4 players: 2 decks with 4 Jokers"),
    ("/rules/ons?players=5", "for 5 players: 2 decks"),
])
def test_a_table_size_gives_its_decks(client: Any, url: str, heading: str) -> None:
    h1 = re.search(r"<h1>(.*?)</h1>", client.get(url).get_data(as_text=True), re.S)
    assert h1 and heading in html.unescape(re.sub(r"<[^>]+>", "", h1.group(1)))


def test_a_table_size_gives_the_cards_left_after_each_deal(client: Any) -> None:
    # Once with 4 players: 2 decks of 54 cards; 4 x 11 dealt in hands 1-6, 4 x 13 in hand 7.
    page = client.get("/rules/once?players=4").get_data(as_text=True)
    left = [re.findall(r"<td[^>]*>(\d+)", _hand_row(page, hand))[-1] for hand in range(1, 8)]
    assert left == ["64"] * 6 + ["56"]
    assert "no stock" not in page


def test_ons_with_eight_players_has_no_stock_in_hand_7_only(client: Any) -> None:
    page = client.get("/rules/ons?players=8").get_data(as_text=True)
    short = [hand for hand in range(1, 8) if "no stock" in _hand_row(page, hand)]
    assert short == [7]
    assert "Hand 7: 8 players × 13 cards take every card of the 2 decks, leaving no stock to draw from." in _text(
        client.get("/rules/ons?players=8"))


def test_without_a_table_size_the_page_offers_to_choose_one(client: Any) -> None:
    page = client.get("/rules/once").get_data(as_text=True)
    assert re.findall(r'<option value="(\d+)">', page) == [str(n) for n in range(2, 7)]
    assert "Left after the deal" not in page
    assert client.get("/rules/once?players=").get_data(as_text=True) == page


def test_a_variant_name_is_read_in_any_case(client: Any) -> None:
    assert "Ons (a variation on gin rummy)" in client.get("/rules/ONS").get_data(as_text=True)


@pytest.mark.parametrize(("url", "status", "message"), [
    ("/rules/gin", 404, f"Variant 'gin' doesn't exist: the rules are those of {', '.join(VARIANTS)}."),
    ("/rules/once?players=9", 400, "Once is played by 2 to 6 players, not 9."),
    ("/rules/onze?players=2", 400, "Onze is played by 3 to 7 players, not 2."),
    ("/rules/once?players=four", 400, "Players must be a whole number, not 'four'."),
    ("/rules/once?players=-3", 400, "Players must be a whole number, not '-3'."),
])
def test_a_bad_address_says_what_was_wrong(client: Any, url: str, status: int, message: str) -> None:
    response = client.get(url)
    assert response.status_code == status
    assert message in _text(response)


@pytest.mark.parametrize("page", ["/games/{id}", "/games/{id}/hands/3"])
def test_the_sheet_and_a_hand_link_the_rules_for_their_table(client: Any, game_id: int, page: str) -> None:
    assert 'href="/rules/llenroc?players=4"' in client.get(page.format(id=game_id)).get_data(as_text=True)


def test_the_new_game_form_links_the_rules_in_a_new_tab(client: Any) -> None:
    page = client.get("/games/new").get_data(as_text=True)
    assert '<a href="/rules" target="_blank" rel="noopener">' in page


def test_the_api_gives_a_variants_rules_as_the_page_says_them(client: Any) -> None:
    data = client.get("/api/variants/ons").get_json()
    assert data["name"] == "ons" and data["table"] is None
    assert [(r["topic"], r["words"]) for r in data["rules"]] == list(VARIANTS["ons"].rules_in_words())
    assert {"cards": "red Ace", "points": "25"} in data["card_values"]
    assert [h["contract"] for h in data["hands"]][-1] == "three runs" and "cards_left" not in data["hands"][0]


def test_the_api_gives_a_tables_hands_with_players(client: Any) -> None:
    data = client.get("/api/variants/ons?players=8").get_json()
    assert data["table"] == {"players": 8, "decks": 2, "jokers": 0}
    assert [h["cards_left"] for h in data["hands"]] == [16] * 6 + [0]
    assert data["hands"][6]["short_deal"].startswith("8 players × 13 cards take every card")


@pytest.mark.parametrize(("url", "status", "message"), [
    ("/api/variants/gin", 404, f"Variant 'gin' doesn't exist: the rules are those of {', '.join(VARIANTS)}."),
    ("/api/variants/once?players=9", 400, "Once is played by 2 to 6 players, not 9."),
    ("/api/variants/once?players=two", 400, "Players must be a whole number, not 'two'."),
])
def test_the_api_says_what_was_wrong_as_json(client: Any, url: str, status: int, message: str) -> None:
    response = client.get(url)
    assert response.status_code == status
    assert response.get_json() == {"error": message}


def test_a_variant_whose_runs_take_no_ace_is_summed_up_and_listed(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The engine allows it (ace_low and ace_high both false); the sheet's summary must say so.
    from dataclasses import replace
    no_aces = replace(VARIANTS["ons"], name="noaces", title="No Aces (a family's own)", ace_low=False, ace_high=False)
    monkeypatch.setitem(VARIANTS, "noaces", no_aces)
    listed = {v["name"]: v for v in client.get("/api/variants").get_json()["variants"]}
    assert listed["noaces"]["summary"] == "a family's own · 2-8 players · wild: red Aces (no limit) · runs: one suit, no Ace"
