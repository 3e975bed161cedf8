"""The go-down check page: valid arrangements drawn as melds, reasons when not."""

from __future__ import annotations

import html
import io
import re
from typing import Any

import pytest


def _check(client: Any, token: str, url: str = "/godown", **fields: Any) -> Any:
    data = {"csrf_token": token, "variant": "llenroc", "hand": "1", "mode": "down", **fields}
    return client.post(url, data=data, content_type="multipart/form-data")


def test_form_renders_with_the_games_current_hand(client: Any, api: Any, game_id: int) -> None:
    assert client.get("/godown").status_code == 200
    api.post(f"/api/games/{game_id}/hands/1", {"out": 1})
    for seat in (2, 3, 4):
        api.post(f"/api/games/{game_id}/hands/1/scores/{seat}", {"points": 5})
    page = client.get(f"/games/{game_id}/godown").get_data(as_text=True)
    assert '<option value="2" selected>2: one set + one run (current)' in page   # llenroc's hand 2


def test_valid_go_down_is_drawn_with_wilds(client: Any, token: str) -> None:
    response = _check(client, token, cards="7H 7S JK 8D 8C 8S")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "✔ Valid" in page
    assert page.count('class="meld"') == 2
    assert 'title="JK as 7' in page and "= 7" in page       # the Joker shows what it stands for


def test_invalid_go_down_gives_the_reason(client: Any, token: str) -> None:
    page = _check(client, token, cards="7H 7S 9D 8D 8C 8S").get_data(as_text=True)
    assert "✘ Not valid <small>· hand 1</small>" in page     # the contract once, in the reason
    # Its cards as the chips show them, red ones marked red, the rest of the sentence escaped.
    assert ('<span class="card-red"><span aria-hidden="true">7♥</span><span class="visually-hidden">7 of hearts'
            '</span></span>') in page and '<span class="card-black"><span aria-hidden="true">7♠</span>' in page
    assert "Hand 1 needs two sets" in page and "missing one set" in page
    # The reason says which cards fit; no "Left over" list contradicts it with all six.
    assert 'Left over: <span class="chip-row">' not in page


def test_whole_hand_mode_finds_the_contract(client: Any, token: str) -> None:
    page = _check(client, token, cards="7H 7S 7D 8D 8C 8S KH 2C", mode="hand").get_data(as_text=True)
    assert "✔ Valid" in page and "Left over" in page
    assert '<strong class="leftover-points">12 points</strong>' in page


@pytest.mark.parametrize(("cards", "says"), [
    pytest.param("2H 3H 4H 5H 6S 7S 8S 9S 10D JD QD KD 5D", "Going down here is going out", id="one card to discard"),
    pytest.param("2H 3H 4H 5H 6S 7S 8S 9S 10D JD QD KD 5D 2C", "only by going out in the same turn", id="two left: no go-down"),
])
def test_llenrocs_hand_7_whole_hand_is_going_out(client: Any, token: str, cards: str, says: str) -> None:
    page = _check(client, token, cards=cards, mode="hand", hand="7").get_data(as_text=True)
    assert says in page
    # Going out, the one card left is the discard; not going down, the whole hand counts (the
    # reason names the two cards a found contract would leave, so no "Left over" of all 14).
    assert "Left over:" not in page
    assert ("Not down, the whole hand counts:" in page) is ("Going down here" not in page)


def test_game_go_down_uses_the_games_variant(client: Any, token: str, game_id: int) -> None:
    # Hand 3 is two runs; the game is Llenroc whatever the form says.
    page = _check(client, token, url=f"/games/{game_id}/godown", variant="once", hand="3",
                  cards="3H 4H 5H 6H 9S 10S JS QS").get_data(as_text=True)
    assert "✔ Valid" in page and "two runs" in page


def test_bad_cards_and_hands_show_a_message(client: Any, token: str) -> None:
    response = _check(client, token, cards="7H XX")
    assert response.status_code == 400 and "XX" in response.get_data(as_text=True)
    response = _check(client, token, cards="7H 7S 7D", hand="9")
    assert response.status_code == 400 and "There is no hand 9" in response.get_data(as_text=True)
    response = _check(client, token, cards="")
    assert response.status_code == 400 and "No cards to check" in response.get_data(as_text=True)
    response = _check(client, token, cards="7H", variant="gin")
    assert response.status_code == 400 and "gin" in response.get_data(as_text=True)


def test_photo_go_down_reads_the_cards(client: Any, token: str, detector: Any, jpeg_bytes: bytes) -> None:
    detector.cards = ["7H", "7S", "JK", "8D", "8C", "8S"]
    response = _check(client, token, photo=(io.BytesIO(jpeg_bytes), "down.jpg"))
    page = response.get_data(as_text=True)
    assert "✔ Valid" in page
    assert page.count("<rect ") == 6
    assert 'value="7H 7S JK 8D 8C 8S"' in page


def test_a_photo_of_melds_laid_in_rows_is_checked_row_by_row(client: Any, token: str, detector: Any,
                                                             jpeg_bytes: bytes) -> None:
    # Left to right, the two rows' cards interleave; read row by row, each row is a meld.
    detector.cards = ["7H", "5S", "7D", "6S", "7C", "JK", "7S", "8S"]
    detector.rows = [0, 1, 0, 1, 0, 1, 0, 1]
    page = _check(client, token, hand="2", photo=(io.BytesIO(jpeg_bytes), "down.jpg")).get_data(as_text=True)
    assert "✔ Valid" in page and 'value="7H 7D 7C 7S 5S 6S JK 8S"' in page
    assert 'title="JK as 7S"' in page   # the Joker stands in the run it was laid in, the 7S in the set


def test_photo_that_is_not_an_image_is_refused(client: Any, token: str) -> None:
    response = _check(client, token, photo=(io.BytesIO(b"hello world"), "notes.txt"))
    assert response.status_code == 400
    assert ("the image data is not a JPEG, PNG, WebP or HEIC image: it looks like text starting 'hello world'"
            in html.unescape(response.get_data(as_text=True)))


def test_go_down_post_needs_the_csrf_token(client: Any) -> None:
    response = client.post("/godown", data={"variant": "llenroc", "hand": "1", "cards": "7H 7S 7D"})
    assert response.status_code == 400
    assert "This phone had forgotten the score sheet (the page was open a long time, or the phone let go of its cookie), so nothing was saved. Reload the page and try again." in html.unescape(response.get_data(as_text=True))


def test_photo_go_down_shows_the_cards_to_check(client: Any, token: str, detector: Any, jpeg_bytes: bytes) -> None:
    detector.cards = ["7H", "7S", "JK", "8D", "8C", "8S"]
    detector.alternatives, detector.maybe = {"8S": "6S"}, ["QD"]
    page = _check(client, token, photo=(io.BytesIO(jpeg_bytes), "down.jpg")).get_data(as_text=True)
    assert "✔ Valid" in page                                         # judged on the cards read
    assert 'data-from="8S" data-to="6S"' in page and 'data-card="QD"' in page
    assert 'value="7H 7S JK 8D 8C 8S"' in page                        # QD offered, not added


def test_a_games_go_down_is_held_to_the_games_decks(client: Any, token: str, api: Any) -> None:
    game = api.post("/api/games", {"variant": "llenroc", "players": ["A", "B", "C"]}).get_json()["id"]  # 2 decks
    page = _check(client, token, url=f"/games/{game}/godown", cards="7H 7H 7H 10S 10D 10H").get_data(as_text=True)
    assert "✔ Valid" not in page and "3 × 7H" in page
    answer = client.post("/api/godown", json={"game_id": game, "hand": 1, "cards": ["7H", "7H", "7H", "10S", "10D", "10H"]})
    assert answer.status_code == 400 and "3 × 7H" in answer.get_json()["error"]
    # Without a game the checker does not know the decks, and takes the cards as laid.
    assert "✔ Valid" in _check(client, token, cards="7H 7H 7H 10S 10D 10H").get_data(as_text=True)


def test_a_photo_that_reads_no_card_keeps_the_typed_list(client: Any, token: str, detector: Any,
                                                        jpeg_bytes: bytes) -> None:
    detector.cards = []
    response = _check(client, token, cards="7H 7S JK 8D 8C 8S", photo=(io.BytesIO(jpeg_bytes), "hand.jpg"))
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "No card could be read in this photo: the list below is as it was" in page
    assert 'value="7H 7S JK 8D 8C 8S"' in page


def test_the_hand_menu_names_the_contracts_of_the_variant_chosen(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A family's variant whose hand 7 is four sets, beside the five that end on three runs.
    from dataclasses import replace

    from onze_vision.variants import CONTRACTS, VARIANTS, Contract
    sixteen = replace(VARIANTS["onze"], name="sixteen", title="Sixteen (a family's own)",
                      contracts=(*CONTRACTS[:6], Contract(("set", "set", "set", "set"))))
    monkeypatch.setitem(VARIANTS, "sixteen", sixteen)
    menu = html.unescape(client.get("/godown?variant=sixteen").get_data(as_text=True))
    assert "7: four sets</option>" in menu
    menu = html.unescape(client.get("/godown?variant=onze").get_data(as_text=True))
    assert "7: three runs</option>" in menu


def test_the_reason_shows_the_cards_as_the_chips_do(client: Any, token: str) -> None:
    response = client.post("/godown", data={"csrf_token": token, "variant": "llenroc", "hand": "2", "mode": "down",
                                            "cards": "7S 7C 7D 8C 9H 10H AH"})
    reason = re.search(r'<p class="reason">(.*?)</p>', response.get_data(as_text=True), re.S).group(1)
    # As seen: without the words said to a screen reader instead of the suits' signs, and markup.
    words = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<span class="visually-hidden">[^<]*</span>', "", reason)))
    assert "A♥ is not wild in llenroc" in words and "8♣ 9♥ 10♥ A♥" in words


@pytest.mark.parametrize(("cards", "title"), [("7H 7S 7D 8D 8C 8S", "Valid"), ("7H 7S 9D 8D 8C 8S", "Not valid")])
def test_the_verdict_leads_the_pages_title(client: Any, token: str, cards: str, title: str) -> None:
    """A screen reader says the title as the page opens: the verdict is heard first."""
    page = _check(client, token, cards=cards).get_data(as_text=True)
    assert f"<title>{title} · Check a go-down · Onze Vision</title>" in page
