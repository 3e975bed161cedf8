"""What a family meets over an evening (a review played a whole game on phones): a score
left out of a hand, the last score of the game, the player who went out, the next player."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest


def _points(client: Any, token: str, game_id: int, hand: int, seat: int, points: int) -> Any:
    return client.post(f"/games/{game_id}/hands/{hand}/players/{seat}",
                       data={"csrf_token": token, "mode": "points", "points": str(points)})


def _out(client: Any, token: str, game_id: int, hand: int, seat: int) -> Any:
    return client.post(f"/games/{game_id}/hands/{hand}",
                       data={"csrf_token": token, "out": str(seat), "out_was": "", "note": "", "note_was": ""})


def _hand(client: Any, token: str, game_id: int, hand: int, points: dict[int, int], out: int = 1) -> None:
    _out(client, token, game_id, hand, out)
    for seat, value in points.items():
        _points(client, token, game_id, hand, seat, value)


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


def test_a_score_left_out_does_not_hold_the_table_back_and_is_said_missing(client: Any, token: str,
                                                                           game_id: int) -> None:
    _hand(client, token, game_id, 1, {2: 10, 3: 20, 4: 30})
    _hand(client, token, game_id, 2, {2: 10, 4: 30})          # Cy's score left out
    _hand(client, token, game_id, 3, {2: 10, 3: 20, 4: 30})
    game = client.get(f"/api/games/{game_id}").get_json()
    assert game["current_hand"] == 4 and game["missing"] == [{"hand": 2, "seats": [3]}]
    sheet = _text(client.get(f"/games/{game_id}").get_data(as_text=True))
    # The deal the table is at, the score it lacks, and the hands the lead is judged on.
    assert "Hand 4: three sets, 9 cards, Di deals." in sheet
    assert "Hand 2: Cy's score is missing." in sheet
    assert "Leading: Ann with 0 after hands 1 and 3" in sheet
    # Hand 4's own page says so too; hand 2's does not (its players are listed there).
    assert "Hand 2: Cy's score is missing." in _text(client.get(f"/games/{game_id}/hands/4").get_data(as_text=True))
    assert "missing." not in _text(client.get(f"/games/{game_id}/hands/2").get_data(as_text=True))


def test_a_hand_in_play_is_the_current_one_and_nothing_is_missing(client: Any, token: str, game_id: int) -> None:
    _hand(client, token, game_id, 1, {2: 10, 3: 20, 4: 30})
    _hand(client, token, game_id, 2, {2: 10})
    game = client.get(f"/api/games/{game_id}").get_json()
    assert game["current_hand"] == 2 and game["missing"] == []
    assert "after 1 hand " in _text(client.get(f"/games/{game_id}").get_data(as_text=True))


def _footer(page: str) -> list[list[str]]:
    """The sheet's total rows: each row's header and cells, as read, the leader's cell marked *."""
    foot = re.search(r"<tfoot>(.*?)</tfoot>", page, re.S).group(1)  # type: ignore[union-attr]
    return [[_text(cell) + ("*" if "leader" in attrs else "") for attrs, cell in
             re.findall(r"<t[hd]([^>]*)>(.*?)</t[hd]>", row, re.S)] for row in re.findall(r"<tr.*?</tr>", foot, re.S)]


def test_a_hand_part_scored_counts_in_the_total_but_not_in_who_leads(client: Any, token: str, game_id: int) -> None:
    _hand(client, token, game_id, 1, {2: 10, 3: 20, 4: 30})
    _points(client, token, game_id, 2, 1, 25)          # Ann's 25 saved, the others' not yet
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Leading: Ann with 0 after 1 hand" in _text(page)
    assert "Under each score, in small: the player's total after that hand." in _text(page)   # phones show no hover title
    # The leader is marked where the sheet says she leads, not on a total Bo's 10 looks lower than.
    assert _footer(page) == [["After 1 hand", "0*", "10", "20", "30"], ["Total so far", "25", "10", "20", "30"]]
    _hand(client, token, game_id, 2, {3: 5, 4: 5}, out=2)   # Bo went out: the hand scored whole
    assert _footer(client.get(f"/games/{game_id}").get_data(as_text=True)) == [["Total", "25", "10*", "25", "35"]]


def test_hand_7_scored_before_hand_6_leaves_the_game_unfinished_with_hand_6_missing(client: Any, token: str,
                                                                                   game_id: int) -> None:
    for hand in (1, 2, 3, 4, 5, 7):
        _hand(client, token, game_id, hand, {2: 5, 3: 5, 4: 5})
    game = client.get(f"/api/games/{game_id}").get_json()
    assert game["current_hand"] is None and not game["finished"]
    assert game["missing"] == [{"hand": 6, "seats": [1, 2, 3, 4]}]
    assert "Scores missing" in client.get("/").get_data(as_text=True)
    assert "Unfinished: scores missing" in client.get("/history").get_data(as_text=True)


def test_the_last_score_of_the_game_leads_to_the_winner(client: Any, token: str, game_id: int) -> None:
    for hand in range(1, 7):
        _hand(client, token, game_id, hand, {2: 5, 3: 6, 4: 7})
    _hand(client, token, game_id, 7, {2: 5, 3: 6})
    response = _points(client, token, game_id, 7, 4, 1)
    assert response.status_code == 302 and response.location.endswith(f"/games/{game_id}#winner")
    page = _text(client.get(response.location).get_data(as_text=True))
    assert "Game over: Ann wins with 0." in page and "Winner: Ann with 0" in page


def test_a_saved_score_leads_to_the_next_player_without_one(client: Any, token: str, game_id: int) -> None:
    _out(client, token, game_id, 1, 1)
    assert _points(client, token, game_id, 1, 2, 10).location.endswith(f"/games/{game_id}/hands/1#player-3")
    assert _points(client, token, game_id, 1, 4, 10).location.endswith("#player-3")
    done = _points(client, token, game_id, 1, 3, 10)   # every one done: the way on to hand 2
    assert done.location.endswith(f"/games/{game_id}/hands/1#hand-done")
    page = _text(client.get(done.location).get_data(as_text=True))
    assert "Hand 1 is scored. Hand 2 → Bo deals 7 cards: one set + one run." in page
    assert "no one is marked as gone out" not in page


def test_a_hand_scored_with_no_one_marked_out_asks_who_went_out(client: Any, token: str, game_id: int) -> None:
    for seat in (1, 2, 3, 4):
        done = _points(client, token, game_id, 1, seat, 10)
    assert done.location.endswith("#hand-done")
    page = _text(client.get(done.location).get_data(as_text=True))
    assert "Every score is in, but no one is marked as gone out: who went out? Their score becomes 0." in page
    sheet = _text(client.get(f"/games/{game_id}").get_data(as_text=True))
    assert "Hand 1: no one is marked as gone out. Who went out? Their score becomes 0." in sheet
    assert client.get(f"/api/games/{game_id}").get_json()["out_unmarked"] == [1]
    _out(client, token, game_id, 1, 2)
    assert "no one is marked as gone out" not in _text(client.get(f"/games/{game_id}").get_data(as_text=True))


def test_a_hand_whose_zero_was_typed_for_the_player_out_asks_nothing(client: Any, token: str, game_id: int) -> None:
    for seat, points in ((1, 0), (2, 10), (3, 10), (4, 10)):
        _points(client, token, game_id, 1, seat, points)
    assert client.get(f"/api/games/{game_id}").get_json()["out_unmarked"] == []


@pytest.mark.parametrize(("seat", "says"), [(1, True), (2, False)])
def test_the_page_of_the_player_who_went_out_says_so_up_front(client: Any, token: str, game_id: int,
                                                               seat: int, says: bool) -> None:
    _out(client, token, game_id, 1, 1)
    page = _text(client.get(f"/games/{game_id}/hands/1/players/{seat}").get_data(as_text=True))
    assert ("Ann went out in hand 1: the score is 0." in page) is says


def _new_game_form(client: Any) -> dict[str, str]:
    page = client.get("/games/new").get_data(as_text=True)
    form_id = re.search(r'name="form_id" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    return {"csrf_token": token, "form_id": form_id, "variant": "llenroc", "player1": "Mum", "player2": "Dad",
            "first_dealer": "1", "corners": "auto"}


def test_the_new_game_form_sent_twice_starts_one_game(client: Any) -> None:
    form = _new_game_form(client)
    first = client.post("/games/new", data=form)
    again = client.post("/games/new", data=form)          # Back, then "Start the game" again
    assert first.location == again.location
    assert len(client.get("/api/games").get_json()["games"]) == 1
    assert "This game was started already: here it is." in client.get(again.location).get_data(as_text=True)
    # A form drawn afresh starts a game of its own.
    assert client.post("/games/new", data=_new_game_form(client)).location != first.location


def test_a_form_whose_game_was_deleted_starts_a_new_one(client: Any, api: Any) -> None:
    form = _new_game_form(client)
    first = client.post("/games/new", data=form).location
    api.delete(f"/api/games/{first.rsplit('/', 1)[1]}")
    assert client.post("/games/new", data=form).location != first


def test_a_photo_read_and_left_unsaved_waits_on_the_players_page(client: Any, token: str, game_id: int,
                                                                 detector: Any, jpeg_bytes: bytes) -> None:
    import io

    response = client.post(f"/games/{game_id}/hands/1/players/3/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    assert response.status_code == 302
    # The player goes back to the hand without saving: the reading is said there, and waits.
    assert "a photo read, not saved" in _text(client.get(f"/games/{game_id}/hands/1").get_data(as_text=True))
    page = client.get(f"/games/{game_id}/hands/1/players/3").get_data(as_text=True)
    assert "This photo was read but its cards are not saved yet" in _text(page)
    read = [card["card"] for card in client.get("/api/photos/1").get_json()["cards"]]
    assert f'value="{" ".join(read)}"' in page or " ".join(read) in page
    # Saved, it waits no more.
    client.post(f"/games/{game_id}/hands/1/players/3",
                data={"csrf_token": token, "mode": "cards", "cards": " ".join(read), "photo_id": "1"})
    assert "not saved yet" not in client.get(f"/games/{game_id}/hands/1/players/3").get_data(as_text=True)
    assert "a photo read, not saved" not in client.get(f"/games/{game_id}/hands/1").get_data(as_text=True)


def test_a_photo_left_unsaved_and_forgotten_a_week_later_leaves_the_players_page_as_it_was(
        app: Any, client: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    import io
    import sqlite3

    client.post(f"/games/{game_id}/hands/1/players/3",
                data={"csrf_token": token, "mode": "points", "points": "25"})
    response = client.post(f"/games/{game_id}/hands/1/players/3/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    assert response.status_code == 302
    with sqlite3.connect(app.config["DATABASE"]) as db:   # a week on, forgotten as no score used it
        db.execute("UPDATE photo SET created = datetime('now', '-8 days')")
    client.post("/api/photos", data={"photo": (io.BytesIO(jpeg_bytes), "other.jpg")}, headers={"X-CSRF-Token": token})
    assert client.get("/api/photos/1").status_code == 404
    page = client.get(f"/games/{game_id}/hands/1/players/3")
    assert page.status_code == 200      # was a 404 ("Photo 1 doesn't exist") on this phone for good
    text = _text(page.get_data(as_text=True))
    assert "Saved: 25 points" in text and "not saved yet" not in text


def test_a_hand_dealt_without_a_stock_is_not_said_to_lack_who_went_out(client: Any, token: str, api: Any) -> None:
    game_id = api.post("/api/games", {"variant": "ons", "players": list("ABCDEFGH")}).get_json()["id"]
    for seat in range(1, 9):
        _points(client, token, game_id, 7, seat, 10)
    game = client.get(f"/api/games/{game_id}").get_json()
    assert game["hands"][6]["short_deal"] and game["out_unmarked"] == []
