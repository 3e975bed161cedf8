"""Filling a hand: typed scores, photos read into chips, who went out, splash, edits."""

from __future__ import annotations

import html
import io
import re
from typing import Any

import pytest


def said(shown: str, words: str) -> str:
    """A card as the pages show it ("Q♥") and say it ("queen of hearts")."""
    return f'<span aria-hidden="true">{shown}</span><span class="visually-hidden">{words}</span>'


def _game(client: Any, game_id: int) -> dict[str, Any]:
    return client.get(f"/api/games/{game_id}").get_json()


def _score(client: Any, game_id: int, hand: int, seat: int) -> Any:
    return _game(client, game_id)["hands"][hand - 1]["scores"][seat - 1]


def _save_cards(client: Any, token: str, game_id: int, hand: int, seat: int, cards: str, **extra: str) -> Any:
    return client.post(f"/games/{game_id}/hands/{hand}/players/{seat}",
                       data={"csrf_token": token, "mode": "cards", "cards": cards, **extra})


def _save_points(client: Any, token: str, game_id: int, hand: int, seat: int, points: str) -> Any:
    return client.post(f"/games/{game_id}/hands/{hand}/players/{seat}",
                       data={"csrf_token": token, "mode": "points", "points": points}, follow_redirects=True)


def test_hand_page_shows_contract_dealer_and_players(client: Any, game_id: int) -> None:
    page = client.get(f"/games/{game_id}/hands/2").get_data(as_text=True)
    assert "one set + one run" in page and "7 cards dealt" in page
    assert "<strong>Bo</strong> deals" in page
    for name in ("Ann", "Bo", "Cy", "Di"):
        assert name in page


def test_typed_score_is_saved_and_totalled(client: Any, token: str, game_id: int) -> None:
    page = _save_points(client, token, game_id, 1, 2, "35").get_data(as_text=True)
    assert "Saved Bo&#39;s score for hand 1." in page
    assert _score(client, game_id, 1, 2)["points"] == 35
    assert _game(client, game_id)["totals"] == [0, 35, 0, 0]


def test_saved_score_can_be_edited(client: Any, token: str, game_id: int) -> None:
    _save_points(client, token, game_id, 1, 2, "35")
    _save_points(client, token, game_id, 1, 2, "25")
    assert _score(client, game_id, 1, 2)["points"] == 25
    _save_cards(client, token, game_id, 1, 2, "QH 7S")
    assert _score(client, game_id, 1, 2) | {"updated": None, "version": None} == {
        "points": 17, "base": 17, "cards": ["QH", "7S"], "photo_id": None, "updated": None, "version": None,
        "set_aside": None}


def test_score_can_be_cleared(client: Any, token: str, game_id: int) -> None:
    _save_points(client, token, game_id, 1, 2, "35")
    client.post(f"/games/{game_id}/hands/1/players/2/delete", data={"csrf_token": token})
    assert _score(client, game_id, 1, 2) is None


def test_negative_absurd_and_non_numeric_scores_are_refused(client: Any, token: str, game_id: int) -> None:
    _save_points(client, token, game_id, 1, 2, "35")
    for bad, message in (("-5", "Score -5 is negative"), ("4200", "Bo&#39;s score 4200 is more than any hand 1"),
                         ("abc", "Score &#39;abc&#39; is not a whole number"), ("", "is not a whole number"),
                         ("3.5", "not a whole number")):
        page = _save_points(client, token, game_id, 1, 2, bad).get_data(as_text=True)
        assert message in page, bad
    assert _score(client, game_id, 1, 2)["points"] == 35


def test_score_for_a_player_or_hand_that_does_not_exist_is_404(client: Any, token: str, game_id: int) -> None:
    response = client.post(f"/games/{game_id}/hands/1/players/9", data={"csrf_token": token, "mode": "points", "points": "5"})
    assert response.status_code == 404
    assert "Player 9 doesn&#39;t exist in game 1" in response.get_data(as_text=True)
    response = client.post(f"/games/{game_id}/hands/8/players/1", data={"csrf_token": token, "mode": "points", "points": "5"})
    assert response.status_code == 404
    assert "Hand 8 doesn&#39;t exist" in response.get_data(as_text=True)
    assert client.get(f"/games/{game_id}/hands/0").status_code == 404
    assert client.post("/games/99/hands/1/players/1", data={"csrf_token": token, "points": "5"}).status_code == 404
    assert _game(client, game_id)["totals"] == [0, 0, 0, 0]


def test_cards_are_scored_by_the_engine(client: Any, token: str, game_id: int) -> None:
    # Llenroc: Q=10, Joker=20, red Ace=15 (not wild), 7=7.
    assert _save_cards(client, token, game_id, 1, 3, "qh jk ah 7s").status_code == 302
    assert _score(client, game_id, 1, 3)["points"] == 52
    assert _score(client, game_id, 1, 3)["cards"] == ["QH", "JK", "AH", "7S"]


def test_unknown_card_is_refused_and_kept_for_correction(client: Any, token: str, game_id: int) -> None:
    response = _save_cards(client, token, game_id, 1, 3, "QH ZZ")
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "ZZ" in page and 'value="QH ZZ"' in page
    assert _score(client, game_id, 1, 3) is None


def test_impossible_hand_is_flagged_before_saving(client: Any, token: str, game_id: int) -> None:
    response = _save_cards(client, token, game_id, 1, 3, "7H 7H 7H")
    assert response.status_code == 400
    assert "3 × 7H" in response.get_data(as_text=True)
    assert _score(client, game_id, 1, 3) is None


def test_impossible_across_the_hand_is_flagged(client: Any, token: str, game_id: int) -> None:
    _save_cards(client, token, game_id, 1, 2, "7H 7H")
    response = _save_cards(client, token, game_id, 1, 3, "7H KS")
    assert response.status_code == 400
    assert "other players&#39; saved cards" in response.get_data(as_text=True)
    assert _score(client, game_id, 1, 3) is None


def test_went_out_scores_zero_and_splash_doubles_the_others(client: Any, token: str, game_id: int) -> None:
    _save_cards(client, token, game_id, 2, 2, "QH 7S")        # 17
    _save_points(client, token, game_id, 2, 3, "30")
    client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, "out": "1", "splash": "1", "note": "Ann splashed!"})
    hand = _game(client, game_id)["hands"][1]
    assert hand["out"] == 1 and hand["splash"] and hand["doubled"]
    assert [s and s["points"] for s in hand["scores"]] == [0, 34, 60, None]
    assert hand["note"] == "Ann splashed!"
    # Undo the splash: scores go back.
    client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, "out": "1", "note": ""})
    hand = _game(client, game_id)["hands"][1]
    assert [s and s["points"] for s in hand["scores"]] == [0, 17, 30, None]


def test_hand_seven_always_doubles_in_llenroc(client: Any, token: str, game_id: int) -> None:
    _save_cards(client, token, game_id, 7, 2, "QH 7S")
    assert _score(client, game_id, 7, 2)["points"] == 34
    page = client.get(f"/games/{game_id}/hands/7").get_data(as_text=True)
    assert "in hand 7 one goes down only by splashing" in page


def test_no_doubling_in_onze(client: Any, api: Any) -> None:
    game_id = api.post("/api/games", {"variant": "onze", "players": ["A", "B", "C"]}).get_json()["id"]
    api.post(f"/api/games/{game_id}/hands/7/scores/2", {"cards": ["QH"]})
    assert _score(client, game_id, 7, 2)["points"] == 10


def test_went_out_player_cannot_get_points(client: Any, token: str, game_id: int) -> None:
    client.post(f"/games/{game_id}/hands/1", data={"csrf_token": token, "out": "2"})
    page = _save_points(client, token, game_id, 1, 2, "12").get_data(as_text=True)
    assert "Bo went out in hand 1, so their score is 0" in page
    assert _score(client, game_id, 1, 2)["points"] == 0


def test_changing_who_went_out_clears_the_old_zero(client: Any, token: str, game_id: int) -> None:
    client.post(f"/games/{game_id}/hands/1", data={"csrf_token": token, "out": "2"})
    client.post(f"/games/{game_id}/hands/1", data={"csrf_token": token, "out": "3"})
    scores = _game(client, game_id)["hands"][0]["scores"]
    assert scores[1] is None and scores[2]["points"] == 0


def test_marking_a_player_out_sets_their_saved_score_aside_and_undoing_brings_it_back(
        client: Any, token: str, game_id: int) -> None:
    _save_cards(client, token, game_id, 2, 2, "QH 10S")
    page = client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, "out": "2"},
                       follow_redirects=True).get_data(as_text=True)
    assert "Bo&#39;s saved score (20) is set aside" in page
    hand = _game(client, game_id)["hands"][1]
    assert hand["scores"][1]["points"] == 0 and hand["totals"][1] == 0
    assert hand["scores"][1]["set_aside"]["cards"] == ["QH", "10S"]
    page = client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, "out": ""},
                       follow_redirects=True).get_data(as_text=True)
    assert "Bo is no longer marked as out: their saved score (20) counts again." in page
    assert _score(client, game_id, 2, 2)["cards"] == ["QH", "10S"]
    assert _game(client, game_id)["hands"][1]["totals"][1] == 20


def test_a_page_open_in_another_tab_does_not_undo_who_went_out(client: Any, token: str, game_id: int) -> None:
    # Tab A drew the page before tab B marked Ann out; A then saves a note only.
    client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, "out": "1", "out_was": "", "note_was": ""})
    client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, "out": "", "out_was": "",
                                                   "note": "Cy dealt twice", "note_was": ""})
    hand = _game(client, game_id)["hands"][1]
    assert hand["out"] == 1 and hand["note"] == "Cy dealt twice"


@pytest.mark.parametrize(("field", "theirs", "mine", "said"), [
    pytest.param("out", "2", "3", "Bo was marked as out on another device", id="two players marked out"),
    pytest.param("out", "", "3", None, id="nothing changed elsewhere: saved"),
    pytest.param("note", "Bo dealt", "Cy dealt", "The note was changed to \u201cBo dealt\u201d on another device",
                 id="two notes"),
])
def test_two_devices_changing_the_same_field_are_told_not_overwritten(
    client: Any, token: str, game_id: int, field: str, theirs: str, mine: str, said: str | None
) -> None:
    # Tab B saves first; tab A, drawn before, changes the same field.
    if theirs:
        client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, field: theirs, f"{field}_was": ""})
    response = client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, field: mine, f"{field}_was": ""})
    hand = _game(client, game_id)["hands"][1]
    if said is None:
        assert response.status_code == 302 and str(hand[field]) == mine
        return
    page = response.get_data(as_text=True)
    assert response.status_code == 409 and html.unescape(said) in html.unescape(page)
    assert str(hand[field]) == theirs                             # B's save stands...
    assert page.count("save again</strong> to keep it") == 1 and f'name="{field}_was" value="{theirs}"' in page
    assert f'<a href="/games/{game_id}/hands/2">keep what the other device saved</a>' in page
    # ...and A's choice is on the page, drawn as of now: one more save keeps it.
    resend = {"out": mine, "out_was": theirs} if field == "out" else {"note": mine, "note_was": theirs}
    assert client.post(f"/games/{game_id}/hands/2", data={"csrf_token": token, **resend}).status_code == 302
    assert str(_game(client, game_id)["hands"][1][field]) == mine


def test_a_refused_hand_form_comes_back_as_it_was_typed(client: Any, token: str, game_id: int) -> None:
    response = client.post(f"/games/{game_id}/hands/1", data={"csrf_token": token, "out": "", "splash": "1",
                                                              "note": "long hand, Di dealt"})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "A splash needs the player who went out" in page
    assert ">long hand, Di dealt</textarea>" in page
    assert 'name="splash" value="1" checked' in page
    assert _game(client, game_id)["hands"][0]["note"] == ""


def test_a_refused_typed_score_keeps_the_number_and_names_the_player(client: Any, token: str, game_id: int) -> None:
    response = _save_points(client, token, game_id, 1, 3, "2400")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "Cy&#39;s score 2400 is more than any hand 1" in page
    assert ('aria-label="Points for Cy" value="2400" aria-invalid="true" aria-describedby="typed-error-3" autofocus'
            in page)
    # Said in Cy's card, beside the box the page scrolls to, not at the top out of sight.
    card = page[page.index('id="player-3"'):page.index('aria-label="Points for Cy"')]
    assert 'id="typed-error-3">Cy&#39;s score 2400 is more than any hand 1' in card
    # Drawn at the player's address, the hand form still posts to the hand.
    assert f'id="hand-form" action="/games/{game_id}/hands/1"' in page


@pytest.mark.parametrize("cards", ["", "  "])
def test_no_cards_is_refused_for_a_player_who_did_not_go_out(client: Any, token: str, game_id: int,
                                                               cards: str) -> None:
    response = _save_cards(client, token, game_id, 1, 3, cards)
    assert response.status_code == 400
    assert "No cards for Cy: only the player who went out has none left" in response.get_data(as_text=True)
    assert _score(client, game_id, 1, 3) is None


def test_a_saved_score_offers_a_clear_button_that_asks_first(client: Any, token: str, game_id: int) -> None:
    _save_points(client, token, game_id, 1, 2, "35")
    page = client.get(f"/games/{game_id}/hands/1").get_data(as_text=True)
    assert f'action="/games/{game_id}/hands/1/players/2/delete"' in page
    assert "Clear Bo's score for hand 1?" in page
    assert f'action="/games/{game_id}/hands/1/players/3/delete"' not in page


def test_splash_without_going_out_or_in_other_variants_is_refused(client: Any, token: str, api: Any, game_id: int) -> None:
    page = client.post(f"/games/{game_id}/hands/1", data={"csrf_token": token, "splash": "1"},
                       follow_redirects=True).get_data(as_text=True)
    assert "A splash needs the player who went out" in page
    other = api.post("/api/games", {"variant": "once", "players": ["A", "B"]}).get_json()["id"]
    page = client.post(f"/games/{other}/hands/1", data={"csrf_token": token, "out": "1", "splash": "1"},
                       follow_redirects=True).get_data(as_text=True)
    assert "has no splash" in page
    assert not _game(client, other)["hands"][0]["splash"]


def test_hand_note_is_kept_and_escaped(client: Any, token: str, game_id: int) -> None:
    client.post(f"/games/{game_id}/hands/3", data={"csrf_token": token, "out": "", "note": "<b>Di</b> bought 3 times"})
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "&lt;b&gt;Di&lt;/b&gt; bought 3 times" in page
    assert "<b>Di</b>" not in page


def test_photo_upload_shows_boxes_and_chips(client: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    # Before the photo, the one thing that costs a card (a corner covered) is said once.
    tip = "The cards are read by their corners: keep fingers and a lamp's glare off them."
    assert tip in client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)
    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    assert response.status_code == 302 and "photo=1" in response.location
    page = client.get(response.location).get_data(as_text=True)
    assert 'viewBox="0 0 320 200"' in page                 # the overlay uses the reading's size
    assert page.count("<rect ") == 3                        # one box per card read
    assert "Q♥" in page and "Joker" in page                 # boxes are named
    assert 'value="QH 7S JK"' in page                       # the list the chips edit
    # Named as the chips name them, without how sure: shown as "Q♥", said as "queen of hearts".
    cards = [said("Q♥", "queen of hearts"), said("7♠", "7 of spades"), said("Joker", "joker")]
    assert re.search(r"3 cards read\s+\(" + re.escape(", ".join(cards)) + r"\)", page)
    # "Take or choose": the phone offers its camera and its photos (capture would force the camera).
    assert 'accept="image/*,.heic,.heif"' in page and "capture=" not in page
    assert "zoomed" not in page                             # cards fill the photo: shown whole
    assert tip not in page                                  # the photo is taken: the boxes say the rest
    image = client.get("/photos/1")
    assert image.status_code == 200 and image.mimetype == "image/jpeg" and image.data == jpeg_bytes


def test_a_far_shot_is_shown_zoomed_to_its_cards(client: Any, token: str, game_id: int) -> None:
    from PIL import Image

    # The fake detector's three cards span 10-180 x 10-90 px: in a 2000x1500 photo, a far shot.
    buffer = io.BytesIO()
    Image.new("RGB", (2000, 1500), (20, 120, 60)).save(buffer, "JPEG")
    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(buffer.getvalue()), "far.jpg")})
    page = client.get(response.location).get_data(as_text=True)
    assert 'class="photo-frame zoomed"' in page and "zoomed to the cards" in page
    # The cards' box grown by 60 px (3 % of 2000), within the photo: 0-240 x 0-150, then to
    # 480 px long (ZOOM_MIN_PX) and moved within the photo: 0-480 x 0-300 is shown, the photo
    # laid out 2000 / 480 times the frame's width, the boxes on the whole photo's grid.
    assert "aspect-ratio: 480.0 / 300.0" in page and "width: 416.667%; left: 0.000%; top: 0.000%" in page
    assert 'viewBox="0 0 2000 1500"' in page and page.count("<rect ") == 3


def test_photo_then_corrected_cards_are_saved_with_the_photo(client: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    client.post(f"/games/{game_id}/hands/1/players/2/photo",
                data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    # The player changed JK (misread) to 8S and saves.
    _save_cards(client, token, game_id, 1, 2, "QH 7S 8S", photo_id="1")
    assert _score(client, game_id, 1, 2)["points"] == 25
    assert _score(client, game_id, 1, 2)["photo_id"] == 1
    page = client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)
    assert 'value="QH 7S 8S"' in page and "/photos/1" in page


def test_back_to_a_saved_photo_shows_the_cards_as_saved_not_as_read(
    client: Any, token: str, game_id: int, jpeg_bytes: bytes
) -> None:
    upload = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                         data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    _save_cards(client, token, game_id, 1, 2, "QH 7S 8S", photo_id="1")
    # Back (or a reload) returns to the upload's address: saving there again keeps the fix.
    page = client.get(upload.location).get_data(as_text=True)
    assert 'value="QH 7S 8S"' in page and 'value="QH 7S JK"' not in page
    # A second photo is a fresh reading: it starts from what it read.
    second = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                         data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "again.jpg")})
    assert 'value="QH 7S JK"' in client.get(second.location).get_data(as_text=True)


def test_upload_that_is_not_an_image_is_refused(client: Any, token: str, game_id: int) -> None:
    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(b"%PDF-1.4 not a photo"), "scores.pdf")},
                           follow_redirects=True)
    page = response.get_data(as_text=True)
    assert "PDF" in page
    assert client.get("/photos/1").status_code == 404


def test_empty_and_missing_uploads_are_refused(client: Any, token: str, game_id: int, detector: Any) -> None:
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(b""), "empty.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "The photo is empty" in page
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo", data={"csrf_token": token},
                       follow_redirects=True).get_data(as_text=True)
    assert "No photo was sent" in page
    assert detector.calls == 0


def test_huge_upload_is_refused_with_the_limit(client: Any, token: str, game_id: int) -> None:
    big = b"\xff\xd8\xff" + b"0" * (3 * 1024 * 1024)
    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(big), "big.jpg")})
    assert response.status_code == 413
    assert "the limit is 2 MB" in response.get_data(as_text=True)
    assert client.get("/photos/1").status_code == 404


@pytest.mark.parametrize("url", ["/photos/5", "/games/{game_id}/hands/1/players/2?photo=5"],
                         ids=["the photo", "a player's page showing it"])
def test_unknown_photo_is_404(client: Any, game_id: int, url: str) -> None:
    response = client.get(url.format(game_id=game_id))
    assert response.status_code == 404
    assert "Photo 5 doesn't exist." in html.unescape(response.get_data(as_text=True))


def test_missing_model_keeps_the_page_usable(client: Any, app: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    def no_model(data: bytes, corners: str = "auto") -> Any:
        raise FileNotFoundError("models/index_detector.onnx")

    app.config["DETECT"] = no_model
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "type the cards instead" in page and 'name="cards"' in page


@pytest.mark.parametrize(("hand", "out", "said"), [
    (1, None, "Read 3 cards, 37 points: check them against the photo, then save."),   # Q 10 + 7 + Joker 20
    (7, None, "Read 3 cards, 74 points: check them against the photo, then save."),   # hand 7 always doubles
    (1, 2, "Read 3 cards: check them against the photo, then save."),                 # went out: scores 0
], ids=["the points read", "doubled as the hand doubles", "none for the player who went out"])
def test_the_cards_read_are_said_at_the_top_with_their_points(
        client: Any, token: str, api: Any, game_id: int, detector: Any, jpeg_bytes: bytes,
        hand: int, out: int | None, said: str) -> None:
    # A phone shows the message without scrolling; the points box is below the photo.
    for earlier in range(1, hand):
        api.post(f"/api/games/{game_id}/hands/{earlier}", {"out": 1})
    if out is not None:
        api.post(f"/api/games/{game_id}/hands/{hand}", {"out": out})
    page = html.unescape(client.post(f"/games/{game_id}/hands/{hand}/players/2/photo",
                                     data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")},
                                     follow_redirects=True).get_data(as_text=True))
    assert f'class="flash flash-ok" role="status">{said}</p>' in page


def test_photo_with_no_card_read_says_so(client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes) -> None:
    detector.cards = []
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "table.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "No card could be read in this photo" in page
    assert 'value=""' in page and "<rect " not in page


def test_a_photo_that_reads_no_card_keeps_the_cards_typed_before_it(client: Any, token: str, game_id: int,
                                                                    detector: Any, jpeg_bytes: bytes) -> None:
    detector.cards = []
    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "table.jpg"),
                                 "cards_text": "QH  10S"}, follow_redirects=True)
    page = html.unescape(response.get_data(as_text=True))
    assert "No card could be read in this photo, so the list is as it was: take a closer photo" in page
    assert 'name="cards" class="cards-text" value="QH 10S"' in page
    # Opened again later (Back, or from the hand's page): the photo waits, with the list.
    again = html.unescape(client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True))
    assert 'name="cards" class="cards-text" value="QH 10S"' in again and "This photo was read" in again


def test_an_unsure_card_is_dashed_and_offers_its_alternative(client: Any, token: str, game_id: int, detector: Any,
                                                             jpeg_bytes: bytes) -> None:
    detector.alternatives = {"7S": "7C"}
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert page.count("stroke-dasharray") == 1 and "7♠?" in page     # only the unsure box is dashed
    assert "Check this card" in page
    assert 'data-from="7S" data-to="7C"' in page and 'It is ' + said("7♣", "7 of clubs") in page
    assert 'value="QH 7S JK"' in page                                  # the list keeps what was read
    stored = client.get("/api/photos/1").get_json()
    assert [c.get("alternative") for c in stored["cards"]] == [None, "7C", None]


def test_a_photo_without_colour_says_so_and_offers_each_card_in_the_other_colour(
        client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes) -> None:
    detector.colourless = True
    detector.alternatives = {"QH": "QC", "7S": "7D"}   # what the detector offers in a grey photo
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "grey.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "This photo has no colour" in page and "check each card's suit" in page
    assert "the reading was not sure" not in page
    assert 'data-from="QH" data-to="QC"' in page and 'data-from="7S" data-to="7D"' in page
    assert client.get("/api/photos/1").get_json()["colourless"] is True


def test_a_blurred_photo_asks_for_a_sharper_one_and_keeps_what_was_read(
        client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes) -> None:
    detector.smear = 0.31   # the blur gauge read the indices smeared by a third of an index
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "shaken.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "This photo looks blurred" in page and "phone held still" in page
    # Said at the top as a warning, not under a green "read".
    assert re.search(r'class="flash flash-warn"[^>]*>Read 3 cards, 37 points, but the photo looks blurred: '
                     r'check each card against the hand, or take the photo again held still\.', page)
    assert "<title>Read 3 cards, 37 points, but the photo looks blurred" in page   # said first by a screen reader
    assert 'value="QH 7S JK"' in page                                  # what was read is still offered
    stored = client.get("/api/photos/1").get_json()
    assert stored["blurred"] is True and stored["smear"] == 0.31
    detector.smear = 0.05   # a sharp photo: no note
    page = client.post(f"/games/{game_id}/hands/1/players/3/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "sharp.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "looks blurred" not in page and "blurred" not in client.get("/api/photos/2").get_json()
    detector.cards, detector.smear = [], 0.5   # so blurred that nothing was read
    page = client.post(f"/games/{game_id}/hands/1/players/3/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "smeared.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "No card could be read in this photo" in page and "take a sharper photo, the phone held still" in page


def test_a_photo_whose_light_was_evened_out_is_shown_as_it_was_read(
        client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes) -> None:
    detector.light_gains = (1.6, 2.2, 3.0)
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "dark.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert 'values="1.6 0 0 0 0  0 2.2 0 0 0  0 0 3.0 0 0  0 0 0 1 0"' in page
    assert 'style="filter: url(#light-1)"' in page and "shown brightened, as it was read" in page
    assert client.get("/api/photos/1").get_json()["light_gains"] == {"red": 1.6, "green": 2.2, "blue": 3.0}
    detector.light_gains = None   # a photo in good light is shown as taken
    page = client.post(f"/games/{game_id}/hands/1/players/3/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "day.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "feColorMatrix" not in page and "shown brightened" not in page


def test_a_faint_card_without_an_alternative_is_dashed_and_listed_to_check(
        client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes) -> None:
    detector.faint = {"JK"}
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert page.count("stroke-dasharray") == 1 and "Check this card" in page
    assert "was read faintly: remove or change it below" in page and "swap-btn" not in page
    assert [c.get("check") for c in client.get("/api/photos/1").get_json()["cards"]] == [None, None, True]


def test_jokers_whose_count_is_unsure_are_dashed_and_asked_one_or_two(
        client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes) -> None:
    detector.cards, detector.count_unsure = ["QH", "JK", "JK"], {"JK"}
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "star.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert page.count("stroke-dasharray") == 2 and "Check these 2 cards" in page
    assert page.count("One Joker or two?") == 1 and "was read faintly" not in page
    assert [c.get("count_unsure") for c in client.get("/api/photos/1").get_json()["cards"]] == [None, True, True]


def test_a_failed_second_photo_keeps_the_first_photo_and_the_list_as_it_stood(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    url = f"/games/{game_id}/hands/1/players/2/photo"
    client.post(url, data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    # The player took the Joker out and added 5C, then chose a file that is not a photo.
    response = client.post(url, data={"csrf_token": token, "current_photo": "1", "cards_text": "QH 7S 5C",
                                      "photo": (io.BytesIO(b"GIF89a...."), "hand.gif")})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "a GIF image" in page and 'value="QH 7S 5C"' in page and "<rect " in page


def test_a_failed_photo_on_a_saved_score_keeps_the_saved_list(client: Any, token: str, game_id: int,
                                                              jpeg_bytes: bytes) -> None:
    url = f"/games/{game_id}/hands/1/players/2"
    client.post(url + "/photo", data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    _save_cards(client, token, game_id, 1, 2, "QH 7S", photo_id="1")   # corrected: no Joker
    page = client.post(url + "/photo", data={"csrf_token": token, "current_photo": "1",
                                              "photo": (io.BytesIO(b"not a photo"), "x.txt")}).get_data(as_text=True)
    assert 'value="QH 7S"' in page and 'value="QH 7S JK"' not in page


def test_a_sure_reading_asks_for_no_check(client: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "stroke-dasharray" not in page and "swap-btn" not in page and "Check this" not in page


def test_a_card_possibly_missed_is_offered_but_not_counted(client: Any, token: str, game_id: int, detector: Any,
                                                           jpeg_bytes: bytes) -> None:
    detector.maybe = ["9D"]
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "Possibly missed" in page and 'class="box maybe' in page and "9♦?" in page
    assert 'data-card="9D"' in page and 'Add ' + said("9♦", "9 of diamonds") in page
    assert 'value="QH 7S JK"' in page                                  # offered, not added
    assert client.get("/api/photos/1").get_json()["maybe"][0]["card"] == "9D"


def test_a_photo_with_only_cards_possibly_missed_says_so(client: Any, token: str, game_id: int, detector: Any,
                                                         jpeg_bytes: bytes) -> None:
    detector.cards, detector.maybe = [], ["9D"]
    page = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")},
                       follow_redirects=True).get_data(as_text=True)
    assert "No card could be read for sure" in page and 'Add ' + said("9♦", "9 of diamonds") in page and 'value=""' in page


def test_a_photo_address_that_is_not_this_games_photo_is_a_404(client: Any, api: Any, token: str, game_id: int) -> None:
    other = api.post("/api/games", {"variant": "once", "players": ["Eve", "Fay"]}).get_json()["id"]
    with open(__file__.rsplit("/", 1)[0] + "/data/web_edje_IMG_2560.jpg", "rb") as handle:
        photo = client.post(f"/api/photos?game_id={other}", data=handle.read(), content_type="image/jpeg",
                            headers={"X-CSRF-Token": token}).get_json()["id"]
    page = f"/games/{game_id}/hands/1/players/2"
    for query, message in ((f"?photo={photo}", f"Photo {photo} doesn&#39;t exist in game {game_id}."),
                           ("?photo=the-last", "Photo &#39;the-last&#39; doesn&#39;t exist."),
                           ("?photo=999", "Photo 999 doesn&#39;t exist.")):
        response = client.get(page + query)
        assert response.status_code == 404, query
        assert message in response.get_data(as_text=True), query


@pytest.mark.parametrize("photo", ["forgotten", "another game's", "not a number"])
def test_cards_sent_with_a_photo_no_longer_kept_come_back_typed(app: Any, client: Any, api: Any, token: str,
                                                                  game_id: int, jpeg_bytes: bytes,
                                                                  photo: str) -> None:
    import sqlite3

    read = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    photo_id = read.location.rsplit("photo=", 1)[1]
    if photo == "forgotten":   # a page left open a week: the photo read and never saved is let go
        with sqlite3.connect(app.config["DATABASE"]) as db:
            db.execute("DELETE FROM photo WHERE id = ?", (photo_id,))
    elif photo == "another game's":
        other = api.post("/api/games", {"variant": "once", "players": ["Eve", "Fay"]}).get_json()["id"]
        photo_id = client.post(f"/api/photos?game_id={other}", data=jpeg_bytes, content_type="image/jpeg",
                               headers={"X-CSRF-Token": token}).get_json()["id"]
    else:
        photo_id = "abc"
    response = _save_cards(client, token, game_id, 1, 2, "QH 7S KD JK 9C", photo_id=str(photo_id))
    assert response.status_code == 400
    page = html.unescape(response.get_data(as_text=True))
    assert "The cards are below as sent: save them again, without the photo." in page
    assert 'value="QH 7S KD JK 9C"' in page and '<img' not in page.split("<main", 1)[1].split("</main>")[0]
    assert _score(client, game_id, 1, 2) is None
    # Saved again as the page now sends it: no photo.
    assert _save_cards(client, token, game_id, 1, 2, "QH 7S KD JK 9C").status_code == 302


@pytest.mark.parametrize(("more", "said"), [(0, False), (1, True)])
def test_more_cards_than_were_dealt_are_pointed_out(client: Any, game_id: int, more: int, said: bool) -> None:
    dealt = _game(client, game_id)["hands"][0]["cards_dealt"]
    listed = dealt + more
    cards = ",".join("2C 3C 4C 5C 6C 7C 8C 9C 10C".split()[:listed])
    page = client.get(f"/games/{game_id}/hands/1/players/2?list={cards}").get_data(as_text=True)
    note = re.search(r'<p class="count-note[^>]*>([^<]*)</p>', page)
    assert note is not None and ("hidden" not in note.group(0)) is said
    assert note.group(1).startswith(f"{listed} cards: more than the {dealt} dealt. Check that no card is listed twice")


@pytest.mark.parametrize(("hand", "said"), [
    pytest.param(1, None, id="its box shows a typed score: said once"),
    pytest.param(7, "Typed: 12 points, doubled", id="a doubled hand says what was typed beside the 24"),
])
def test_a_typed_score_is_said_where_its_box_does_not_show_it(client: Any, token: str, game_id: int,
                                                              hand: int, said: str | None) -> None:
    _save_points(client, token, game_id, hand, 2, "12")
    page = client.get(f"/games/{game_id}/hands/{hand}").get_data(as_text=True)
    assert 'aria-label="Points for Bo" value="12"' in page
    assert (said in page) if said else ("Typed:" not in page)
