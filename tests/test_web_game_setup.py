"""What was chosen wrong at a game's start is mended on the sheet: who dealt first, the
seating order (each player keeps their scores) and the rules (scores from cards counted again)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest


def _game(api: Any, game_id: int) -> dict[str, Any]:
    return api.get(f"/api/games/{game_id}").get_json()


def _names(game: dict[str, Any]) -> list[str]:
    return [p["name"] for p in game["players"]]


def _points(game: dict[str, Any], hand: int) -> dict[str, int | None]:
    """Each player's points for the hand, by name."""
    return {p["name"]: (s["points"] if s else None)
            for p, s in zip(game["players"], game["hands"][hand - 1]["scores"])}


# --------------------------------------------------------------------- the first dealer


@pytest.mark.parametrize(("sent", "dealer"), [(3, 3), ("3", 3), ("di", 4), ("Bo", 2)])
def test_who_dealt_first_is_said_again_and_every_hands_dealer_follows(api: Any, game_id: int, sent: Any,
                                                                      dealer: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 10})
    game = api.post(f"/api/games/{game_id}/dealer", {"first_dealer": sent}).get_json()
    assert game["first_dealer"] == dealer
    assert [h["dealer"] for h in game["hands"]] == [(dealer - 1 + n) % 4 + 1 for n in range(7)]
    assert _points(game, 1)["Bo"] == 10                                   # scores stay


@pytest.mark.parametrize(("sent", "said"), [
    (5, "The first dealer must be player 1-4, not 5."),
    ("Zed", "The first dealer 'Zed' is not one of the players."),
    (1.5, "The first dealer must be a seat number or a player's name, not 1.5."),
])
def test_a_first_dealer_who_is_not_at_the_table_is_refused(api: Any, game_id: int, sent: Any, said: str) -> None:
    response = api.post(f"/api/games/{game_id}/dealer", {"first_dealer": sent})
    assert response.status_code == 400 and response.get_json() == {"error": said}
    assert _game(api, game_id)["first_dealer"] == 1


# --------------------------------------------------------------------- the seating


@pytest.mark.parametrize(("seat", "to", "order"), [
    (2, 1, ["Bo", "Ann", "Cy", "Di"]),
    (4, 2, ["Ann", "Di", "Bo", "Cy"]),
    (1, 4, ["Bo", "Cy", "Di", "Ann"]),
    (3, 3, ["Ann", "Bo", "Cy", "Di"]),
])
def test_a_player_moved_to_another_seat_keeps_their_scores_their_going_out_and_their_first_deal(
    api: Any, game_id: int, seat: int, to: int, order: list[str]
) -> None:
    api.post(f"/api/games/{game_id}/dealer", {"first_dealer": "Cy"})
    for number, (out, points) in enumerate([("Di", [5, 7, 9]), ("Bo", [1, 2, 3])], start=1):
        api.post(f"/api/games/{game_id}/hands/{number}", {"out": ["Ann", "Bo", "Cy", "Di"].index(out) + 1})
        others = [n for n in ("Ann", "Bo", "Cy", "Di") if n != out]
        for name, value in zip(others, points):
            api.post(f"/api/games/{game_id}/hands/{number}/scores/{['Ann', 'Bo', 'Cy', 'Di'].index(name) + 1}",
                     {"points": value})
    before = _game(api, game_id)
    game = api.post(f"/api/games/{game_id}/players/{seat}/move", {"to": to}).get_json()
    assert _names(game) == order
    for number in (1, 2):
        assert _points(game, number) == _points(before, number)
        assert game["players"][game["hands"][number - 1]["out"] - 1]["name"] == ("Di" if number == 1 else "Bo")
    assert game["players"][game["first_dealer"] - 1]["name"] == "Cy"
    totals = dict(zip(_names(game), game["totals"]))
    assert totals == dict(zip(_names(before), before["totals"]))


@pytest.mark.parametrize(("seat", "to", "status", "said"), [
    (2, 0, 400, "Seat 0 is not one of game {id}'s seats (1-4)."),
    (2, "x", 400, "Seat 'x' is not one of game {id}'s seats (1-4)."),
    # The seat the address names is no player: 404, as for a score of player 5.
    (5, 1, 404, "Player 5 doesn't exist in game {id} (it has players 1-4)."),
])
def test_a_move_to_or_from_a_seat_the_game_lacks_is_refused(api: Any, game_id: int, seat: int, to: Any,
                                                           status: int, said: str) -> None:
    response = api.post(f"/api/games/{game_id}/players/{seat}/move", {"to": to})
    assert response.status_code == status and response.get_json() == {"error": said.format(id=game_id)}
    assert _names(_game(api, game_id)) == ["Ann", "Bo", "Cy", "Di"]


def test_the_sheet_moves_a_player_one_seat_earlier(client: Any, token: str, api: Any, game_id: int) -> None:
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'aria-label="Move Cy one seat earlier"' in page and 'aria-label="Move Ann one seat earlier"' not in page
    response = client.post(f"/games/{game_id}/players/3/move", data={"csrf_token": token, "to": "2"},
                           follow_redirects=True)
    assert "Seating saved: Ann, Cy, Bo, Di. Each player keeps their scores, and Ann deals hand 1." in html.unescape(
        response.get_data(as_text=True))
    response = client.post(f"/games/{game_id}/dealer", data={"csrf_token": token, "first_dealer": "4"},
                           follow_redirects=True)
    assert "Di dealt hand 1: every hand&#39;s dealer follows, and Di deals hand 1." in response.get_data(as_text=True)


# --------------------------------------------------------------------- the rules


def test_changed_rules_count_every_card_score_again_with_their_own_decks(api: Any) -> None:
    game_id = api.post("/api/games", {"variant": "llenroc", "players": ["Ann", "Bo", "Cy"]}).get_json()["id"]
    api.post(f"/api/games/{game_id}/hands/1", {"out": 1})
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["AH", "KS"]})
    api.post(f"/api/games/{game_id}/hands/7/scores/3", {"cards": ["JK"]})
    before = _game(api, game_id)
    assert _points(before, 1)["Bo"] == 15 + 10 and _points(before, 7)["Cy"] == 40   # llenroc: hand 7 doubles
    game = api.post(f"/api/games/{game_id}/variant", {"variant": "onze"}).get_json()
    assert game["variant"]["name"] == "onze" and game["decks"] == 2
    assert _points(game, 1)["Bo"] == 30 + 10 and _points(game, 7)["Cy"] == 30
    assert game["hands"][1 - 1]["scores"][1]["base"] == 40
    assert game["totals"] == [0, 40, 30]


@pytest.mark.parametrize(("setup", "variant", "said"), [
    ([("score", 2, {"points": 35})], "onze",
     "A score was typed, not saved as cards: Bo's for hand 1 (35). A typed number cannot be counted again under "
     "other rules: keep it as typed, or save it as the cards (or clear it), then change the rules."),
    ([("score", 2, {"points": 35}), ("score", 3, {"points": 8})], "onze",
     "2 scores were typed, not saved as cards: Bo's for hand 1 (35) and Cy's for hand 1 (8)."),
    ([("hand", 1, {"out": 1, "splash": True})], "onze",
     "Hand 1 is marked a splash, which Onze (as played in France and the US) does not have: untick it first."),
    ([("score", 2, {"cards": ["JK", "7H"]})], "ons",
     "Under Ons (a variation on gin rummy), hand 1's saved cards: "),
    ([], "nope", "Unknown variant"),
])
def test_rules_that_cannot_take_the_saved_scores_are_refused_changing_nothing(
    api: Any, game_id: int, setup: list[Any], variant: str, said: str
) -> None:
    for kind, where, body in setup:
        url = f"/api/games/{game_id}/hands/1" + (f"/scores/{where}" if kind == "score" else "")
        assert api.post(url, body).status_code == 200
    before = _game(api, game_id)
    response = api.post(f"/api/games/{game_id}/variant", {"variant": variant})
    assert response.status_code == 400
    assert said.lower() in response.get_json()["error"].lower()
    assert _game(api, game_id) == before


def test_rules_for_fewer_players_than_the_table_are_refused(api: Any) -> None:
    game_id = api.post("/api/games", {"variant": "ons", "players": list("ABCDEFGH")}).get_json()["id"]
    response = api.post(f"/api/games/{game_id}/variant", {"variant": "once"})
    assert response.status_code == 400
    assert response.get_json()["error"] == f"Once' (Don Williamson's rules) is played by 2-6 players; game {game_id} has 8."


def test_the_sheet_changes_the_rules_and_says_so(client: Any, token: str, api: Any, game_id: int) -> None:
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert '<option value="llenroc" selected>' in page and "Change the rules</button>" in page
    response = client.post(f"/games/{game_id}/variant", data={"csrf_token": token, "variant": "once"},
                           follow_redirects=True)
    assert "Rules saved: Once&#39; (Don Williamson&#39;s rules), 2 decks." in response.get_data(as_text=True)
    api.post(f"/api/games/{game_id}/hands/1/scores/1", {"points": 3})
    refused = client.post(f"/games/{game_id}/variant", data={"csrf_token": token, "variant": "onze"})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 400 and "Ann&#39;s for hand 1 (3)" in page
    # One more tap changes them anyway, the typed number kept as it is.
    assert 'name="keep_typed" value="1"' in page and 'name="variant" value="onze"' in page
    assert "Change the rules, keeping the 1 typed score as typed</button>" in page
    kept = client.post(f"/games/{game_id}/variant", data={"csrf_token": token, "variant": "onze", "keep_typed": "1"},
                       follow_redirects=True)
    assert "Typed scores were kept as typed." in kept.get_data(as_text=True)
    game = api.get(f"/api/games/{game_id}").get_json()
    assert game["variant"]["name"] == "onze" and game["hands"][0]["scores"][0]["points"] == 3


def test_the_rules_a_game_has_already_change_nothing_and_refuse_nothing(client: Any, token: str, api: Any,
                                                                        game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/1", {"points": 3})   # typed: a change of rules asks first
    before = api.get(f"/api/games/{game_id}").get_json()
    response = api.post(f"/api/games/{game_id}/variant", {"variant": "llenroc"})   # a PUT sent twice
    assert response.status_code == 200 and response.get_json()["changes"] == before["changes"]
    page = client.post(f"/games/{game_id}/variant", data={"csrf_token": token, "variant": "llenroc"},
                       follow_redirects=True).get_data(as_text=True)
    assert "is played by Llenroc" in page and "already: nothing changed." in page
    assert api.get(f"/api/games/{game_id}").get_json() == before


def test_typed_scores_kept_under_new_rules_are_doubled_as_those_rules_double(api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/7/scores/2", {"points": 20})     # llenroc: hand 7 doubles
    assert _game(api, game_id)["hands"][6]["scores"][1]["points"] == 40
    refused = api.post(f"/api/games/{game_id}/variant", {"variant": "onze", "keep_typed": "maybe"})
    assert refused.status_code == 400
    assert refused.get_json()["error"] == "\"keep_typed\" must be true or false, not 'maybe'."
    game = api.post(f"/api/games/{game_id}/variant", {"variant": "onze", "keep_typed": True}).get_json()
    assert game["hands"][6]["scores"][1]["points"] == 20 and game["hands"][6]["scores"][1]["base"] == 20


# --------------------------------------------------------------------- pages drawn before a move

def _seating(client: Any, game_id: int) -> str:
    """The seating token the hand page draws its forms with."""
    import re

    return re.search(r'name="seating" value="([^"]+)"', client.get(f"/games/{game_id}/hands/1").get_data(
        as_text=True)).group(1)


@pytest.mark.parametrize("fields", [
    {"mode": "cards", "cards": "KD", "was": ""},
    {"mode": "points", "points": "33", "was": ""},
], ids=["cards", "typed points"])
def test_a_page_drawn_before_a_move_does_not_save_into_the_player_now_in_that_seat(
    client: Any, token: str, api: Any, game_id: int, fields: dict[str, str]
) -> None:
    seating = _seating(client, game_id)
    api.post(f"/api/games/{game_id}/players/3/move", {"to": 2})            # Cy now sits where Bo sat
    response = client.post(f"/games/{game_id}/hands/1/players/2", data={"csrf_token": token, "seating": seating,
                                                                        **fields})
    assert response.status_code == 409
    page = html.unescape(response.get_data(as_text=True))
    assert ("The players were moved to other seats on another device since this page was opened (they now sit "
            "Ann, Cy, Bo, Di), so nothing was saved: open the player's page again. What you sent: "
            f"{fields.get('cards') or fields.get('points')}.") in page
    assert 'aria-invalid="true"' not in page and 'value="33"' not in page     # nothing put in Cy's box
    assert _game(api, game_id)["hands"][0]["scores"][1] is None
    marked = client.post(f"/games/{game_id}/hands/1", data={"csrf_token": token, "out": "2", "out_was": "",
                                                            "seating": seating})
    assert marked.status_code == 409 and _game(api, game_id)["hands"][0]["out"] is None
    assert 'value="2" checked' not in marked.get_data(as_text=True)          # Cy not ticked as out


@pytest.mark.parametrize("fields", [
    {"mode": "cards", "cards": "KD 7S", "was": ""},
    {"mode": "points", "points": "33", "was": ""},
], ids=["cards", "typed points"])
def test_what_was_sent_for_a_player_moved_since_goes_back_to_that_players_new_seat(
    client: Any, token: str, api: Any, game_id: int, fields: dict[str, str]
) -> None:
    seating = _seating(client, game_id)
    bo = _game(api, game_id)["players"][1]["id"]
    api.post(f"/api/games/{game_id}/players/3/move", {"to": 2})            # Bo now sits in seat 3
    response = client.post(f"/games/{game_id}/hands/1/players/2", data={
        "csrf_token": token, "seating": seating, "player_id": str(bo), **fields}, follow_redirects=True)
    page = html.unescape(response.get_data(as_text=True))
    assert ("(they now sit Ann, Cy, Bo, Di), so nothing was saved. What you sent is back for Bo, now in seat 3: "
            "check it, then save again.") in page
    if fields["mode"] == "points":
        assert response.status_code == 409 and 'value="33" aria-invalid="true"' in page   # in Bo's box, seat 3
        forms = re.findall(r'action="([^"]+)" class="typed-score"', page.split('value="33"')[0])
        assert forms[-1] == f"/games/{game_id}/hands/1/players/3"
    else:
        assert response.request.path == f"/games/{game_id}/hands/1/players/3"
        assert 'name="cards" class="cards-text" value="KD 7S"' in page
    assert [score for score in _game(api, game_id)["hands"][0]["scores"]] == [None] * 4


@pytest.mark.parametrize("action", ["photo", "forget-photo", "four-corners", "undo"])
def test_every_form_that_names_a_seat_is_refused_after_a_move(client: Any, token: str, api: Any, game_id: int,
                                                              jpeg_bytes: bytes, action: str) -> None:
    import io

    seating = _seating(client, game_id)
    api.post(f"/api/games/{game_id}/players/3/move", {"to": 2})
    data: dict[str, Any] = {"csrf_token": token, "seating": seating}
    if action == "photo":
        data["photo"] = (io.BytesIO(jpeg_bytes), "hand.jpg")
    response = client.post(f"/games/{game_id}/hands/1/players/2/{action}", data=data)
    assert response.status_code == 409
    assert "moved to other seats on another device" in html.unescape(response.get_data(as_text=True))
    assert _game(api, game_id)["corners"] == "auto"


def test_a_new_name_on_another_phone_does_not_stop_a_page_saving(client: Any, token: str, api: Any,
                                                                 game_id: int) -> None:
    seating = _seating(client, game_id)
    api.post(f"/api/games/{game_id}/players", {"players": ["Ann", "Bob", "Cy", "Di"]})
    response = client.post(f"/games/{game_id}/hands/1/players/2", data={"csrf_token": token, "seating": seating,
                                                                        "mode": "points", "points": "9", "was": ""})
    assert response.status_code == 302 and _points(_game(api, game_id), 1)["Bob"] == 9


def test_the_same_move_sent_twice_is_made_once(client: Any, token: str, api: Any, game_id: int) -> None:
    seating = _seating(client, game_id)
    for status in (302, 400):
        response = client.post(f"/games/{game_id}/players/3/move",
                               data={"csrf_token": token, "to": "2", "seating": seating})
        assert response.status_code == status
    assert _names(_game(api, game_id)) == ["Ann", "Cy", "Bo", "Di"]


def test_an_undo_follows_the_player_to_their_new_seat(client: Any, token: str, api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "7S"]})
    client.post(f"/games/{game_id}/hands/1/players/2/delete", data={"csrf_token": token})   # Bo's, cleared
    api.post(f"/api/games/{game_id}/players/3/move", {"to": 2})                           # Bo now in seat 3
    page = html.unescape(client.post(f"/games/{game_id}/hands/1/players/2/undo", data={"csrf_token": token},
                                     follow_redirects=True).get_data(as_text=True))
    assert "There is no earlier score of Cy's for hand 1 to put back on this phone." in page
    client.post(f"/games/{game_id}/hands/1/players/3/undo", data={"csrf_token": token})
    game = _game(api, game_id)
    assert _points(game, 1) == {"Ann": None, "Cy": None, "Bo": 17, "Di": None}


def test_a_typed_score_set_aside_for_the_player_who_went_out_is_refused_as_any_typed_one(api: Any,
                                                                                       game_id: int) -> None:
    # Undoing the mark would bring back a number counted under the old rules (600 can pass in
    # Onze's hand 1 and not in Llenroc's).
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 12})
    api.post(f"/api/games/{game_id}/hands/1", {"out": 2})
    response = api.post(f"/api/games/{game_id}/variant", {"variant": "onze"})
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(
        "A score was typed, not saved as cards: Bo's for hand 1 (12, set aside while they are marked out).")


def test_the_api_clears_a_score_only_as_read_when_told_what_was_read(api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 5})
    assert api.delete(f"/api/games/{game_id}/hands/1/scores/2?was=0123456789abcdef").status_code == 409
    version = _game(api, game_id)["hands"][0]["scores"][1]["version"]
    assert api.delete(f"/api/games/{game_id}/hands/1/scores/2?was={version}").status_code == 200
    assert _game(api, game_id)["hands"][0]["scores"][1] is None


def test_the_live_banner_of_a_refused_sheet_form_shows_the_sheet_not_the_forms_address(
    client: Any, token: str, api: Any, game_id: int
) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/1", {"points": 3})
    refused = client.post(f"/games/{game_id}/variant", data={"csrf_token": token, "variant": "onze"})
    assert refused.status_code == 400
    assert f'<a class="btn btn-small" href="/games/{game_id}" data-live-show>' in refused.get_data(as_text=True)
