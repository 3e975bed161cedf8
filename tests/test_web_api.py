"""The JSON API: every endpoint, and the same errors the pages show."""

from __future__ import annotations

import io
from typing import Any

import cv2
import numpy as np
import pytest


def test_csrf_variants_and_cards(client: Any) -> None:
    assert len(client.get("/api/csrf").get_json()["token"]) > 20
    variants = client.get("/api/variants").get_json()["variants"]
    llenroc = next(v for v in variants if v["name"] == "llenroc")
    assert llenroc["has_splash"] and llenroc["min_players"] == 2 and llenroc["max_players"] == 8
    assert llenroc["hands"][0] == {"number": 1, "contract": "two sets", "cards_dealt": 6}
    cards = client.get("/api/cards").get_json()["cards"]
    assert len(cards) == 53 and cards[-1] == "JK"


def test_create_and_get_game(api: Any) -> None:
    response = api.post("/api/games", {"variant": "ons", "players": ["Ann", "Bo", "Cy"], "first_dealer": "Bo",
                                       "note": "Family night"})
    assert response.status_code == 201
    game = response.get_json()
    assert game["variant"]["name"] == "ons" and game["decks"] == 2 and game["first_dealer"] == 2
    assert game["url"] == f"/games/{game['id']}"
    assert api.get(f"/api/games/{game['id']}").get_json()["note"] == "Family night"
    assert [g["id"] for g in api.get("/api/games").get_json()["games"]] == [game["id"]]


def test_create_game_errors(api: Any) -> None:
    cases = [
        ({"variant": "onze", "players": ["A", "B"]}, "3-7 players"),
        ({"variant": "llenroc", "players": [f"P{i}" for i in range(9)]}, "2-8 players; 9 were named"),
        ({"variant": "bridge", "players": ["A", "B"]}, "bridge"),
        ({"variant": "once", "players": "A,B"}, "must be a list"),
        ({"variant": "once", "players": ["A", "B"], "first_dealer": 3}, "player 1-2, not 3"),
        ({"variant": "once", "players": ["A", "B"], "first_dealer": "Zed"}, "'Zed' is not one of the players"),
        ({"variant": "once", "players": ["A", "x" * 41]}, "limit is 40"),
        ({"variant": "once", "players": ["A", "B"], "first_dealer": [1]},
         "The first dealer must be a seat number or a player's name, not [1]."),
    ]
    for body, message in cases:
        response = api.post("/api/games", body)
        assert response.status_code == 400, body
        assert message in response.get_json()["error"], (body, response.get_json())
    assert api.post("/api/games", None, data="not json").status_code == 400
    assert api.get("/api/games").get_json()["games"] == []


def test_mutating_calls_need_the_csrf_header(client: Any, game_id: int) -> None:
    response = client.post("/api/games", json={"variant": "once", "players": ["A", "B"]})
    assert response.status_code == 400 and "security token" in response.get_json()["error"]
    response = client.post(f"/api/games/{game_id}/hands/1/scores/1", json={"points": 5})
    assert response.status_code == 400
    assert client.get(f"/api/games/{game_id}").get_json()["totals"] == [0, 0, 0, 0]


def test_scores_typed_and_from_cards(api: Any, game_id: int) -> None:
    game = api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 40}).get_json()
    assert game["hands"][0]["scores"][1]["points"] == 40
    game = api.post(f"/api/games/{game_id}/hands/1/scores/3", {"cards": ["QH", "10s"]}).get_json()
    assert game["hands"][0]["scores"][2]["points"] == 20 and game["totals"] == [0, 40, 20, 0]
    game = api.delete(f"/api/games/{game_id}/hands/1/scores/3").get_json()
    assert game["hands"][0]["scores"][2] is None


def test_score_errors(api: Any, game_id: int) -> None:
    url = f"/api/games/{game_id}/hands/1/scores"
    cases = [
        (f"{url}/2", {"points": -1}, 400, "negative"),
        (f"{url}/2", {"points": 99999}, 400, "more than any hand 1"),
        (f"{url}/2", {"points": "ten"}, 400, "not a whole number"),
        (f"{url}/2", {"points": True}, 400, '"points": true is not a value this call takes'),
        (f"{url}/2", {"cards": ["QH", "1X"]}, 400, "1X"),
        (f"{url}/2", {"cards": ["7H", "7H", "7H"]}, 400, "3 × 7H"),
        (f"{url}/2", {}, 400, "either the cards"),
        (f"{url}/2", {"cards": ["QH"], "points": 10}, 400, "not both"),
        (f"{url}/2", {"cards": ["QH"], "photo_id": 44}, 400, "Photo 44 doesn't exist"),
        (f"{url}/2", {"cards": ["QH"], "photo_id": "the last"}, 400, "Photo 'the last' is not a photo number."),
        (f"{url}/2", {"cards": {"QH": 1}}, 400, 'Cards must be a list of codes like ["QH", "10S"], not {\'QH\': 1}.'),
        (f"{url}/2", {"cards": ["QH", 7]}, 400, 'Cards must be given as codes like "QH", not 7.'),
        (f"{url}/5", {"points": 10}, 404, "Player 5 doesn't exist in game 1"),
        (f"/api/games/{game_id}/hands/8/scores/1", {"points": 10}, 404, "Hand 8 doesn't exist"),
        ("/api/games/42/hands/1/scores/1", {"points": 10}, 404, "Game 42 doesn't exist."),
    ]
    for path, body, status, message in cases:
        response = api.post(path, body)
        assert response.status_code == status, (path, body)
        assert message in response.get_json()["error"], (body, response.get_json())
    assert api.get(f"/api/games/{game_id}").get_json()["totals"] == [0, 0, 0, 0]


def test_hand_out_splash_note(api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/2/scores/2", {"cards": ["KS", "JK"]})
    game = api.post(f"/api/games/{game_id}/hands/2", {"out": 1, "splash": True, "note": "splash!"}).get_json()
    hand = game["hands"][1]
    assert hand["out"] == 1 and hand["doubled"] and hand["note"] == "splash!"
    assert [s and s["points"] for s in hand["scores"]] == [0, 60, None, None]
    # A partial update keeps the rest.
    hand = api.post(f"/api/games/{game_id}/hands/2", {"note": "edited"}).get_json()["hands"][1]
    assert hand["splash"] and hand["out"] == 1 and hand["note"] == "edited"
    for body, message in (({"out": 9}, "Player 9 doesn't exist"), ({"splash": "maybe"}, "Splash must be true or false"),
                          ({"out": "first"}, "Who went out must be a player number, not 'first'."),
                          ({"out": None, "splash": True}, "needs the player who went out")):
        response = api.post(f"/api/games/{game_id}/hands/2", body)
        assert response.status_code == 400 and message in response.get_json()["error"]
    assert api.post(f"/api/games/{game_id}/hands/0", {"note": "x"}).status_code == 404


def test_moving_who_went_out_is_refused_where_it_would_count_impossible_cards(api: Any) -> None:
    # Ann's cards are set aside once she is marked out, so Bo's third QH was never checked
    # against them; moving the mark would count three QH from two decks.
    game_id = api.post("/api/games", {"variant": "onze", "players": ["Ann", "Bo", "Cy"]}).get_json()["id"]
    api.post(f"/api/games/{game_id}/hands/1/scores/1", {"cards": ["QH", "QH", "4C"]})
    api.post(f"/api/games/{game_id}/hands/1", {"out": 1})
    assert api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "5D"]}).status_code == 200
    before = api.get(f"/api/games/{game_id}").get_json()
    for body, who in (({"out": 3}, "marking Cy out"), ({"out": None}, "clearing who went out")):
        response = api.post(f"/api/games/{game_id}/hands/1", body)
        assert response.status_code == 400
        assert response.get_json()["error"] == (
            f"Not saved: {who} would count the set-aside cards again, and with the other players' saved cards "
            "for hand 1: impossible hand: 3 × QH, but 2 decks in onze hold only 2 of each card; correct the cards first.")
    assert api.get(f"/api/games/{game_id}").get_json() == before
    # Once Bo's cards are right, the mark moves and Ann's cards count again.
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QS", "5D"]})
    hand = api.post(f"/api/games/{game_id}/hands/1", {"out": 3}).get_json()["hands"][0]
    assert hand["out"] == 3 and [s and s["points"] for s in hand["scores"]][:2] == [24, 15]


def test_clearing_who_went_out_on_a_splash_says_to_untick_the_splash(api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/2", {"out": 1, "splash": True})
    response = api.post(f"/api/games/{game_id}/hands/2", {"out": None})
    assert response.status_code == 400
    assert "untick the splash first, then clear who went out" in response.get_json()["error"]
    assert api.get(f"/api/games/{game_id}").get_json()["hands"][1]["out"] == 1


def test_game_note(api: Any, game_id: int) -> None:
    assert api.post(f"/api/games/{game_id}/note", {"note": "Grandpa's deck"}).get_json()["note"] == "Grandpa's deck"
    response = api.post(f"/api/games/{game_id}/note", {"note": 5})
    assert response.status_code == 400 and response.get_json()["error"] == '"note" is text (a JSON string), not 5.'


@pytest.mark.parametrize(("url", "sent", "named"), [
    ("/api/score", {"variant": "once"}, '"variant"'),
    ("/api/score", {"players": 1, "decks": 9}, '"players" and "decks"'),
    ("/api/godown", {"variant": "ons", "hand": 1}, '"variant"'),
])
def test_a_game_brings_its_own_rules_and_a_call_that_also_sends_them_is_refused(
        client: Any, game_id: int, url: str, sent: dict[str, Any], named: str) -> None:
    response = client.post(url, json={"game_id": game_id, "cards": ["JK"], **sent})
    assert response.status_code == 400
    assert response.get_json()["error"] == (f'Send "game_id" or {named}, not both: a game brings its own rules, '
                                            "players and decks.")


def test_score_computation(client: Any, game_id: int) -> None:
    result = client.post("/api/score", json={"variant": "once", "cards": ["QH", "JK", "7S"]}).get_json()
    assert result["points"] == 47 and result["breakdown"][1] == {"card": "JK", "points": 30}
    result = client.post("/api/score", json={"variant": "llenroc", "cards": ["QH"], "hand": 7}).get_json()
    # Hand 7 of Llenroc doubles without a splash: the reply says which.
    assert result["points"] == 20 and result["doubled"] is True and result["splash"] is False
    result = client.post("/api/score", json={"variant": "llenroc", "cards": ["QH"], "splash": True}).get_json()
    assert result["points"] == 20 and result["doubled"] is True and result["splash"] is True
    result = client.post("/api/score", json={"game_id": game_id, "cards": ["qh", "10d"]}).get_json()
    assert result["cards"] == ["QH", "10D"] and result["points"] == 20


def test_score_computation_errors(client: Any) -> None:
    cases = [
        ({"variant": "llenroc", "cards": ["7H"] * 3, "players": 4}, "3 × 7H"),
        ({"variant": "ons", "cards": ["JK"]}, "without Jokers"),
        ({"variant": "once", "cards": ["QQ"]}, "QQ"),
        ({"variant": "whist", "cards": ["QH"]}, "whist"),
        ({"variant": "once", "cards": ["QH"], "splash": True}, "no splash"),
        ({"variant": "once", "cards": ["QH"], "players": "lots"}, "whole number"),
        ({"variant": "once", "cards": "QH", "hand": 12}, "no hand 12"),
    ]
    for body, message in cases:
        response = client.post("/api/score", json=body)
        assert response.status_code == 400, body
        assert message in response.get_json()["error"], (body, response.get_json())
    # An id in the body that names nothing is bad input; 404 is for what the URL names.
    response = client.post("/api/score", json={"game_id": 77, "cards": []})
    assert response.status_code == 400 and response.get_json() == {"error": "Game 77 doesn't exist."}


def test_parse_cards(client: Any) -> None:
    assert client.post("/api/cards/parse", json={"text": "7h, 10s qd"}).get_json() == {"cards": ["7H", "10S", "QD"]}
    response = client.post("/api/cards/parse", json={"text": "7h 11s"})
    assert response.status_code == 400 and "11S" in response.get_json()["error"].upper()


def test_godown(client: Any, api: Any, game_id: int) -> None:
    result = client.post("/api/godown", json={"variant": "llenroc", "hand": 1,
                                              "cards": ["7H", "7S", "JK", "8D", "8C", "8S"]}).get_json()
    assert result["valid"] and result["contract"] == "two sets" and len(result["melds"]) == 2
    assert any(m["wilds"] for m in result["melds"])
    result = client.post("/api/godown", json={"variant": "llenroc", "hand": 1, "cards": "7H 7S 9D 8D 8C 8S"}).get_json()
    assert not result["valid"] and "missing one set" in result["reason"]
    result = client.post("/api/godown", json={"game_id": game_id, "cards": "7H 7S 7D 8D 8C 8S"}).get_json()
    assert result["valid"] and result["hand"] == 1        # the game's current hand
    result = client.post("/api/godown", json={"variant": "llenroc", "hand": 1, "mode": "hand",
                                              "cards": "7H 7S 7D 8D 8C 8S KH"}).get_json()
    assert result["valid"] and result["leftover"] == ["KH"] and result["going_out"] is False
    # Llenroc's hand 7 is gone down in only by going out: what is left is the discard.
    result = client.post("/api/godown", json={"variant": "llenroc", "hand": 7, "mode": "hand",
                                              "cards": "2H 3H 4H 5H 6S 7S 8S 9S 10D JD QD KD 5D"}).get_json()
    assert result["valid"] and result["going_out"] is True and result["leftover"] == ["5D"]


def test_godown_errors(client: Any) -> None:
    cases = [
        ({"variant": "llenroc", "cards": "7H 7S 7D"}, 400, "which hand"),
        ({"variant": "llenroc", "hand": 0, "cards": "7H 7S 7D"}, 400, "no hand 0"),
        ({"variant": "llenroc", "hand": "two", "cards": "7H 7S 7D"}, 400, "not a number"),
        ({"variant": "llenroc", "hand": 1, "cards": "7H ZZ"}, 400, "ZZ"),
        ({"variant": "llenroc", "hand": 1, "cards": []}, 400, "No cards"),
        ({"game_id": 9, "cards": "7H"}, 400, "Game 9 doesn't exist."),   # an id in the body
    ]
    for body, status, message in cases:
        response = client.post("/api/godown", json=body)
        assert response.status_code == status, body
        assert message in response.get_json()["error"], (body, response.get_json())


def test_detect_and_photos(client: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    reading = client.post("/api/detect", data={"photo": (io.BytesIO(jpeg_bytes), "a.jpg")}).get_json()
    assert reading["width"] == 320 and reading["height"] == 200
    assert [c["card"] for c in reading["cards"]] == ["QH", "7S", "JK"]
    assert len(reading["cards"][0]["box"]) == 4
    raw = client.post("/api/detect", data=jpeg_bytes, content_type="image/jpeg").get_json()
    assert raw == reading
    stored = client.post("/api/photos", data={"photo": (io.BytesIO(jpeg_bytes), "a.jpg"), "game_id": str(game_id)},
                         headers={"X-CSRF-Token": token})
    assert stored.status_code == 201
    photo = stored.get_json()
    assert photo["url"] == f"/photos/{photo['id']}" and photo["game_id"] == game_id
    assert client.get(f"/api/photos/{photo['id']}").get_json()["cards"] == reading["cards"]
    saved = client.post(f"/api/games/{game_id}/hands/1/scores/2", json={"cards": ["QH", "7S"], "photo_id": photo["id"]},
                        headers={"X-CSRF-Token": token}).get_json()
    assert saved["hands"][0]["scores"][1]["photo_id"] == photo["id"]


def test_detect_errors(client: Any, token: str, app: Any) -> None:
    cases = [
        ({"photo": (io.BytesIO(b"GIF89a......"), "a.gif")}, 400, "GIF"),
        ({"photo": (io.BytesIO(b""), "a.jpg")}, 400, "empty"),
        ({}, 400, "No photo was sent"),
        ({"photo": (io.BytesIO(cv2.imencode(".png", np.full((10, 20000, 3), 200, np.uint8))[1].tobytes()),
                    "strip.png")}, 400, "20000x10 pixels: too small to hold a card"),
        ({"photo": (io.BytesIO(b"\xff\xd8\xff" + b"0" * (3 * 1024 * 1024)), "big.jpg")}, 413, "the limit is 2 MB"),
    ]
    for data, status, message in cases:
        response = client.post("/api/detect", data=data)
        assert response.status_code == status, data
        assert message in response.get_json()["error"], response.get_json()
    response = client.post("/api/photos", data={"photo": (io.BytesIO(b"nope"), "a.jpg")}, headers={"X-CSRF-Token": token})
    assert response.status_code == 400
    assert client.get("/api/photos/1").status_code == 404


def test_missing_model_is_a_clear_503(client: Any, app: Any, jpeg_bytes: bytes) -> None:
    def no_model(data: bytes, corners: str = "auto") -> Any:
        raise FileNotFoundError("models/index_detector.onnx")

    app.config["DETECT"] = no_model
    response = client.post("/api/detect", data={"photo": (io.BytesIO(jpeg_bytes), "a.jpg")})
    from onze_vision.detector import DEFAULT_MODEL_DIR

    assert response.status_code == 503
    # The folder looked in, which ONZE_VISION_MODELS may have named, not always models/.
    assert response.get_json()["error"] == (f"The card detector's model files are not installed "
                                            f"({DEFAULT_MODEL_DIR}): type the cards instead.")


def test_api_404s_are_json(client: Any) -> None:
    response = client.get("/api/games/12")
    assert response.status_code == 404 and response.get_json() == {"error": "Game 12 doesn't exist."}
    response = client.get("/api/nothing-here")
    assert response.status_code == 404 and "error" in response.get_json()


def test_api_csv_export(client: Any, api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 40})
    text = client.get(f"/api/games/{game_id}/export.csv").get_data(as_text=True)
    assert text.splitlines()[1].startswith("1,two sets,6,Ann,,40,,")


def test_put_is_accepted_for_updates(client: Any, token: str, game_id: int) -> None:
    headers = {"X-CSRF-Token": token}
    assert client.put(f"/api/games/{game_id}/hands/1/scores/2", json={"points": 9}, headers=headers).status_code == 200
    assert client.put(f"/api/games/{game_id}/hands/1", json={"note": "put"}, headers=headers).status_code == 200
    game = client.put(f"/api/games/{game_id}/note", json={"note": "put too"}, headers=headers).get_json()
    assert game["hands"][0]["scores"][1]["points"] == 9 and game["hands"][0]["note"] == "put" and game["note"] == "put too"


def test_the_api_corrects_the_players_names_in_seat_order(api: Any, game_id: int) -> None:
    response = api.post(f"/api/games/{game_id}/players", {"players": ["Ann", "Bob", "Cy", "Di"]})
    assert response.status_code == 200
    assert [p["name"] for p in response.get_json()["players"]] == ["Ann", "Bob", "Cy", "Di"]


@pytest.mark.parametrize(("body", "says"), [
    ({"players": ["Ann", "Bo", "Cy"]}, "Game 1 has 4 players and 3 names were given"),
    ({"players": ["Ann"]}, "Game 1 has 4 players and 1 name was given: a name is corrected in its seat"),
    ({"players": "Ann Bo Cy Di"}, "The players' names come as a list in seat order, not 'Ann Bo Cy Di'."),
    ({}, 'Send {"players": ...}: the JSON object sent has no "players".'),
    ({"players": None}, '"players": null is not a value this call takes: send one.'),
    ({"players": ["Ann", "Bo", "Cy", 7]}, "The player name must be text, not 7."),
])
def test_the_api_refuses_names_it_cannot_save_and_saves_none(api: Any, game_id: int, body: dict[str, Any],
                                                              says: str) -> None:
    response = api.post(f"/api/games/{game_id}/players", body)
    assert response.status_code == 400
    assert says in response.get_json()["error"]
    assert [p["name"] for p in api.get(f"/api/games/{game_id}").get_json()["players"]] == ["Ann", "Bo", "Cy", "Di"]


@pytest.mark.parametrize(("points", "saved"), [(12.0, 12), ("12", 12), (" 7 ", 7)])
def test_a_whole_number_of_points_is_taken_however_it_is_written(api: Any, game_id: int, points: Any, saved: int) -> None:
    game = api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": points}).get_json()
    assert game["hands"][0]["scores"][1]["points"] == saved


@pytest.mark.parametrize("points", [12.5, "12.5", "1e3", [12]])
def test_points_that_are_not_a_whole_number_are_refused_and_quoted(api: Any, game_id: int, points: Any) -> None:
    response = api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": points})
    assert response.status_code == 400
    assert response.get_json()["error"] == f"For Bo: Score {points!r} is not a whole number of points."
    assert api.get(f"/api/games/{game_id}").get_json()["hands"][0]["scores"][1] is None


# What docs/api.md promises, held where an audit found the API doing otherwise.

@pytest.mark.parametrize(("splash", "points"), [
    (False, 10), ("false", 10), ("no", 10), ("0", 10), (0, 10),
    (True, 20), ("true", 20), ("yes", 20), (1, 20),
])
def test_a_splash_said_in_words_is_read_as_the_hands_call_reads_it(client: Any, splash: Any, points: int) -> None:
    response = client.post("/api/score", json={"variant": "llenroc", "cards": ["QH"], "hand": 1, "splash": splash})
    assert response.status_code == 200 and response.get_json()["points"] == points


def test_a_splash_that_is_neither_true_nor_false_is_refused(client: Any) -> None:
    response = client.post("/api/score", json={"variant": "llenroc", "cards": ["QH"], "hand": 1, "splash": "maybe"})
    assert response.status_code == 400
    assert response.get_json()["error"] == "Splash must be true or false, not 'maybe'."


@pytest.mark.parametrize("players", [["Ann", "  ", "Bo"], ["Ann", None, "Bo"], ["Ann", "Bo", ""]])
def test_a_game_with_a_blank_name_is_refused_not_started_with_the_seats_shifted(api: Any, players: list[Any]) -> None:
    response = api.post("/api/games", {"variant": "llenroc", "players": players})
    assert response.status_code == 400
    assert "name is blank: name every player, in seat order." in response.get_json()["error"]
    assert api.get("/api/games").get_json()["games"] == []


@pytest.mark.parametrize(("call", "key"), [("corners", "corners"), ("note", "note"), ("players", "players")])
def test_a_call_that_replaces_a_value_without_the_value_is_refused_and_changes_nothing(
        api: Any, game_id: int, call: str, key: str) -> None:
    api.post(f"/api/games/{game_id}/corners", {"corners": "four"})
    api.post(f"/api/games/{game_id}/note", {"note": "Family night"})
    before = api.get(f"/api/games/{game_id}").get_json()
    response = api.post(f"/api/games/{game_id}/{call}", {})
    assert response.status_code == 400
    assert response.get_json()["error"] == f'Send {{"{key}": ...}}: the JSON object sent has no "{key}".'
    assert api.get(f"/api/games/{game_id}").get_json() == before


@pytest.mark.parametrize("mode", ["sideways", "Hand", "", 1])
def test_a_go_down_mode_other_than_down_or_hand_is_refused(client: Any, mode: Any) -> None:
    response = client.post("/api/godown", json={"variant": "once", "hand": 1, "cards": ["7H", "7S", "JK"], "mode": mode})
    assert response.status_code == 400
    assert response.get_json()["error"].startswith('"mode" is "down" (the cards laid down, every one in a meld) or "hand"')


@pytest.mark.parametrize("said", [{}, {"mode": None}])
def test_a_go_down_without_a_mode_checks_the_cards_laid_down(client: Any, said: dict[str, Any]) -> None:
    response = client.post("/api/godown", json={"variant": "once", "hand": 1, "cards": ["7H", "7S", "JK"], **said})
    assert response.status_code == 200 and response.get_json()["mode"] == "down"


@pytest.mark.parametrize(("method", "path", "status"), [
    ("post", "/api/nope", 404), ("post", "/api/cards", 405), ("delete", "/api/variants", 405),
])
def test_a_call_to_no_route_is_told_so_even_without_a_token(client: Any, method: str, path: str, status: int) -> None:
    response = getattr(client, method)(path)
    assert response.status_code == status and response.is_json


def test_a_405_says_which_methods_the_path_takes(client: Any) -> None:
    response = client.delete("/api/cards")
    assert response.status_code == 405 and response.is_json
    assert set(response.headers["Allow"].split(", ")) >= {"GET", "HEAD"}


def test_the_api_root_answers_in_json(client: Any) -> None:
    response = client.get("/api")
    assert response.status_code == 404 and response.is_json and response.get_json()["error"]


def test_more_cards_than_a_hand_holds_are_refused_as_a_score(api: Any, client: Any, game_id: int) -> None:
    codes = [f"{rank}{suit}" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10") for suit in "CDHS"][:27]
    for response in (api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": codes}),
                     client.post("/api/score", json={"variant": "llenroc", "cards": codes})):
        assert response.status_code == 400
        assert response.get_json()["error"].startswith("27 cards: a hand holds at most 26 (13 dealt")
    assert api.get(f"/api/games/{game_id}").get_json()["totals"] == [0, 0, 0, 0]


@pytest.mark.parametrize(("photo_id", "said"), [
    (2.9, "Photo 2.9 is not a photo number."),
    ("2.9", "Photo '2.9' is not a photo number."),
    ([1], "Photo [1] is not a photo number."),
    (True, '"photo_id": true is not a value this call takes (true and false are for yes-or-no fields).'),
])
def test_a_photo_number_that_is_not_a_whole_number_is_refused(api: Any, game_id: int, photo_id: Any,
                                                              said: str) -> None:
    response = api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH"], "photo_id": photo_id})
    assert response.status_code == 400
    assert response.get_json()["error"] == said


def test_the_zero_of_the_player_who_went_out_is_not_cleared_and_keeps_what_was_set_aside(api: Any,
                                                                                        game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 12})
    api.post(f"/api/games/{game_id}/hands/1", {"out": 2})
    refused = api.delete(f"/api/games/{game_id}/hands/1/scores/2")
    assert refused.status_code == 400
    assert refused.get_json()["error"] == ("Bo went out in hand 1: the score is 0, and one saved before is kept "
                                           "aside. To change it, first change who went out.")
    game = api.post(f"/api/games/{game_id}/hands/1", {"out": None}).get_json()
    assert game["hands"][0]["scores"][1]["points"] == 12          # the mark undone: the score counts again


def test_clearing_a_score_that_is_not_there_changes_nothing(api: Any, game_id: int) -> None:
    before = api.get(f"/api/games/{game_id}/changes").get_json()
    assert api.delete(f"/api/games/{game_id}/hands/1/scores/3").status_code == 200
    assert api.get(f"/api/games/{game_id}/changes").get_json() == before


# -- what a body may hold: its call's fields, null and true/false where they mean something ---------
@pytest.mark.parametrize(("url", "body", "said"), [
    ("/hands/1", {"outt": 2}, '"outt" is not a field of this call, which takes "out", "splash" and "note".'),
    ("/note", {"note": "x", "Note": "y"}, '"Note" is not a field of this call, which takes "note".'),
    ("/hands/1/scores/2", {"point": 5}, '"point" is not a field of this call, which takes "cards", "points", '
                                        '"photo_id" and "was".'),
    # null had reset what was saved: the splash unticked, the note emptied, seat 1 dealing.
    ("/hands/1", {"splash": None}, '"splash": null is not a value this call takes: send one.'),
    ("/hands/1", {"note": None}, '"note": null is not a value this call takes: send one.'),
    ("/note", {"note": None}, '"note": null is not a value this call takes: send one.'),
    ("/dealer", {"first_dealer": None}, '"first_dealer": null is not a value this call takes: send one.'),
    ("/corners", {"corners": None}, '"corners": null is not a value this call takes: send one.'),
    ("/players/2/move", {"to": None}, '"to": null is not a value this call takes: send one.'),
    # Seats count from 1: a client counting from 0 had cleared the mark with seat 1's 0.
    ("/hands/1", {"out": 0}, '"out" is the seat of the player who went out (from 1), or null for no one; not 0.'),
    ("/hands/1", {"out": ""}, '"out" is the seat of the player who went out (from 1), or null for no one; not "".'),
    ("/hands/1", {"out": 0.0}, '"out" is the seat of the player who went out (from 1), or null for no one; not 0.0.'),
    ("/dealer", {"first_dealer": True}, '"first_dealer": true is not a value this call takes '
                                        "(true and false are for yes-or-no fields)."),
    ("/variant", {"variant": 5}, '"variant" is text (a JSON string), not 5.'),
])
def test_a_body_holds_its_calls_fields_and_values_that_mean_something(api: Any, game_id: int, url: str,
                                                                      body: Any, said: str) -> None:
    api.post(f"/api/games/{game_id}/hands/1", {"out": 1, "splash": True, "note": "kept"})
    before = api.get(f"/api/games/{game_id}").get_json()
    response = api.post(f"/api/games/{game_id}{url}", body)
    assert response.status_code == 400 and response.get_json() == {"error": said}
    assert api.get(f"/api/games/{game_id}").get_json() == before   # nothing changed


def test_null_still_says_no_one_went_out(api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1", {"out": 2})
    assert api.post(f"/api/games/{game_id}/hands/1", {"out": None}).get_json()["hands"][0]["out"] is None


@pytest.mark.parametrize(("url", "body", "said"), [
    ("/api/score", {"variant": "once"}, 'Send {"cards": [...]} (or a string of codes): the JSON object sent has no "cards".'),
    ("/api/score", {"variant": "once", "cards": ["QH"], "splash": None},
     '"splash": null is not a value this call takes: send one.'),
    ("/api/score", {"variant": "once", "cards": ["QH"], "players": 4, "deck": 2},
     '"deck" is not a field of this call, which takes "variant", "cards", "players", "decks", "splash", "hand" and "game_id".'),
    ("/api/cards/parse", {}, 'Send {"text": "7h 10s"} or {"cards": [...]}: the JSON object sent has neither.'),
    ("/api/cards/parse", {"text": 5}, '"text" is text (a JSON string), not 5.'),
    ("/api/cards/parse", {"text": "qh", "cards": ["7S"]},
     'Send {"text": "7h 10s"} or {"cards": [...]}: the JSON object sent has both.'),
    ("/api/godown", {"variant": "once", "hand": 1, "cards": "7H 7S 7D", "mod": "hand"},
     '"mod" is not a field of this call, which takes "variant", "game_id", "hand", "cards" and "mode".'),
])
def test_the_calls_that_only_count_refuse_a_body_they_cannot_mean(client: Any, url: str, body: Any,
                                                                  said: str) -> None:
    response = client.post(url, json=body)
    assert response.status_code == 400 and response.get_json() == {"error": said}


def test_the_optional_fields_of_the_counting_calls_may_be_null(client: Any) -> None:
    body = {"variant": "once", "cards": ["QH", "JK"], "players": None, "decks": None, "hand": None, "game_id": None}
    assert client.post("/api/score", json=body).get_json()["points"] == 40   # Q 10 + Joker 30 in once
    godown = {"variant": "once", "hand": 1, "cards": "7H 7S 7D 8C 8S 8D", "mode": None, "game_id": None}
    assert client.post("/api/godown", json=godown).get_json()["valid"] is True
