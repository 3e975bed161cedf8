"""Ending a game before hand 7: the table stops after a whole hand, the lowest total so far
wins, later scores are kept uncounted, and "Play on" takes it all back."""

from __future__ import annotations

import csv
import html
import io
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

PLAYERS = ["Ann", "Bo", "Cy", "Di"]


def _score_hand(api: Any, game_id: int, hand: int, points: list[int | None]) -> None:
    """Type each seat's points for the hand (None: left without a score)."""
    for seat, value in enumerate(points, start=1):
        if value is not None:
            response = api.post(f"/api/games/{game_id}/hands/{hand}/scores/{seat}", {"points": value})
            assert response.status_code == 200, response.get_json()


def _play(api: Any, game_id: int, hands: int) -> None:
    """Hands 1..``hands`` scored whole: Bo low in each, Di high."""
    for hand in range(1, hands + 1):
        _score_hand(api, game_id, hand, [10, 5, 20, 30])


def _end(api: Any, game_id: int) -> Any:
    return api.post(f"/api/games/{game_id}/end")


def test_a_game_ended_after_hand_5_is_won_on_hands_1_to_5(api: Any, game_id: int) -> None:
    _play(api, game_id, 5)
    assert api.get(f"/api/games/{game_id}").get_json()["can_end_after"] == 5
    game = _end(api, game_id).get_json()
    assert game["ended_after"] == 5 and game["finished"]
    assert game["winners"] == [2] and game["totals"] == [50, 25, 100, 150]
    assert game["current_hand"] is None and game["missing"] == [] and game["can_end_after"] is None
    assert [h["counted"] for h in game["hands"]] == [True] * 5 + [False] * 2


def test_scores_of_a_hand_after_the_end_are_kept_uncounted_and_count_again_on_playing_on(
    api: Any, game_id: int
) -> None:
    _play(api, game_id, 5)
    _score_hand(api, game_id, 6, [40, None, 1, None])
    game = _end(api, game_id).get_json()
    assert game["ended_after"] == 5 and game["totals"] == [50, 25, 100, 150]
    assert game["hands"][5]["scores"][0]["points"] == 40       # kept, shown
    game = api.post(f"/api/games/{game_id}/play-on").get_json()
    assert game["ended_after"] is None and not game["finished"] and game["winners"] == []
    assert game["totals"] == [90, 25, 101, 150] and game["current_hand"] == 6
    assert all(h["counted"] for h in game["hands"])


def test_ending_a_game_ended_already_gives_it_back_as_it_is(api: Any, game_id: int) -> None:
    _play(api, game_id, 3)
    first = _end(api, game_id).get_json()
    _play(api, game_id, 0)
    second = _end(api, game_id)
    assert second.status_code == 200 and second.get_json()["ended_after"] == 3
    assert second.get_json()["changes"] == first["changes"]      # nothing written twice


@pytest.mark.parametrize(("hands", "said"), [
    ({}, "Game {id} has no hand with every player's score yet: a game ends after a whole hand."),
    ({1: [1, 2, 3, None]}, "Game {id} has no hand with every player's score yet"),
    ({h: [1, 2, 3, 4] for h in range(1, 8)}, "Game {id} is over already: every player has a score for all 7 hands."),
    ({1: [1, 2, 3, 4], 2: [1, None, None, 4], 3: [1, 2, 3, 4]},
     "Hand 2 has no score for Bo and Cy: save it before ending the game after hand 3."),
])
def test_a_game_ends_only_after_a_whole_hand_with_every_hand_before_it_whole(
    api: Any, game_id: int, hands: dict[int, list[int | None]], said: str
) -> None:
    for hand, points in hands.items():
        _score_hand(api, game_id, hand, points)
    before = api.get(f"/api/games/{game_id}").get_json()
    response = _end(api, game_id)
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(said.format(id=game_id))
    assert api.get(f"/api/games/{game_id}").get_json() == before   # nothing changed


@pytest.mark.parametrize(("method", "url", "body"), [
    ("post", "/api/games/{id}/hands/6/scores/1", {"points": 12}),
    ("post", "/api/games/{id}/hands/7/scores/2", {"cards": ["QH", "7S"]}),
    ("delete", "/api/games/{id}/hands/6/scores/3", None),
    ("post", "/api/games/{id}/hands/6", {"out": 1}),
    ("post", "/api/games/{id}/hands/7", {"note": "we stopped"}),
])
def test_a_hand_after_the_end_cannot_change_until_the_table_plays_on(
    api: Any, game_id: int, method: str, url: str, body: Any
) -> None:
    _play(api, game_id, 5)
    _score_hand(api, game_id, 6, [None, None, 7, None])
    _end(api, game_id)
    before = api.get(f"/api/games/{game_id}").get_json()
    send = getattr(api, method)
    response = send(url.format(id=game_id), body) if body is not None else send(url.format(id=game_id))
    assert response.status_code == 400
    hand = url.split("/hands/")[1][0]
    assert response.get_json()["error"] == (f"Game {game_id} was ended after hand 5: choose \u201cPlay on\u201d "
                                            f"on the sheet to change hand {hand}.")
    assert api.get(f"/api/games/{game_id}").get_json() == before
    api.post(f"/api/games/{game_id}/play-on")
    response = send(url.format(id=game_id), body) if body is not None else send(url.format(id=game_id))
    assert response.status_code == 200, response.get_json()


def test_a_played_hand_of_an_ended_game_can_still_be_corrected(api: Any, game_id: int) -> None:
    _play(api, game_id, 5)
    _end(api, game_id)
    game = api.post(f"/api/games/{game_id}/hands/5/scores/2", {"points": 100}).get_json()
    assert game["ended_after"] == 5 and game["winners"] == [1] and game["totals"][1] == 120


def test_standings_count_a_game_ended_early_as_won_but_not_in_the_totals(api: Any) -> None:
    full = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()["id"]
    for hand in range(1, 8):
        _score_hand(api, full, hand, [10, 20])
    short = api.post("/api/games", {"variant": "once", "players": ["Ann", "Eve"]}).get_json()["id"]
    _score_hand(api, short, 1, [9, 3])
    _end(api, short)
    rows = {row["name"]: row for row in api.get("/api/standings").get_json()["standings"]}
    assert rows["Ann"] == {"name": "Ann", "games": 2, "wins": 1, "average": 70, "best": 70}
    assert rows["Eve"] == {"name": "Eve", "games": 1, "wins": 1, "average": None, "best": None}


def test_the_sheet_offers_to_end_says_it_ended_and_offers_to_play_on(client: Any, api: Any, token: str,
                                                                     game_id: int) -> None:
    _play(api, game_id, 2)
    _score_hand(api, game_id, 3, [1, None, None, None])
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "End the game after hand 2</button>" in page
    # Named by its hand: "so far" would be the sheet's "Total so far", which counts hand 3's score.
    assert "Stopping early? The lowest total after hand 2 wins" in page
    assert "The score saved in hand 3 is kept, not counted." in page        # the question asked first
    response = client.post(f"/games/{game_id}/end", data={"csrf_token": token}, follow_redirects=True)
    page = response.get_data(as_text=True)
    assert "Game over after hand 2: Bo wins with 10." in page
    assert re.search(r"Winner: <strong>Bo</strong> with 10 <span class=\"ended-early\">· ended after hand 2 of 7", page)
    assert "Play on to hand 7</button>" in page and "End the game after" not in page
    assert page.count('class="badge badge-not-counted"') == 5
    hand_page = client.get(f"/games/{game_id}/hands/3").get_data(as_text=True)
    assert f"Game {game_id} was ended after hand 2: hand 3 is not counted" in hand_page
    response = client.post(f"/games/{game_id}/play-on", data={"csrf_token": token}, follow_redirects=True)
    page = response.get_data(as_text=True)
    assert "Playing on: the game runs to hand 7" in page and "Winner:" not in page


def test_ending_refused_on_the_page_says_why_and_changes_nothing(client: Any, api: Any, token: str,
                                                                game_id: int) -> None:
    response = client.post(f"/games/{game_id}/end", data={"csrf_token": token})
    assert response.status_code == 400
    assert "has no hand with every player&#39;s score yet" in response.get_data(as_text=True)
    assert api.get(f"/api/games/{game_id}").get_json()["ended_after"] is None


def test_history_home_print_and_csv_say_the_game_ended_early(client: Any, api: Any, game_id: int) -> None:
    _play(api, game_id, 4)
    _end(api, game_id)
    for url in ("/", "/history", f"/games/{game_id}/print"):
        assert "ended after hand 4 of 7" in client.get(url).get_data(as_text=True), url
    rows = list(csv.reader(io.StringIO(client.get(f"/games/{game_id}/export.csv").data.decode("utf-8-sig"))))
    assert ["ended after hand", "4"] in rows
    assert rows[[r[0] for r in rows].index("total")][4:8] == ["40", "20", "80", "120"]


def test_playing_again_after_an_early_end_passes_the_deal_on_from_the_last_hand_played(
    client: Any, api: Any, game_id: int
) -> None:
    _play(api, game_id, 2)   # Ann deals hand 1, Bo hand 2: Cy deals next
    _end(api, game_id)
    page = client.get(f"/games/new?again={game_id}").get_data(as_text=True)
    assert f"Playing again: the players, rules and deck of game {game_id}; Cy deals first this time." in page
    assert '<option value="3" selected' in page


def test_a_book_from_before_games_could_end_early_opens_with_every_game_running_to_hand_7(tmp_path: Path) -> None:
    from webapp import create_app
    from webapp.db import schema_sql

    book = tmp_path / "old.sqlite"
    # The game table as first shipped: none of the columns added since.
    old = re.sub(r"CREATE TABLE IF NOT EXISTS game \(.*?\n\);",
                 "CREATE TABLE IF NOT EXISTS game (id INTEGER PRIMARY KEY AUTOINCREMENT, variant TEXT NOT NULL,"
                 " decks INTEGER NOT NULL, first_dealer INTEGER NOT NULL, note TEXT NOT NULL DEFAULT '',"
                 " created TEXT NOT NULL DEFAULT '2025-01-01 00:00:00', updated TEXT NOT NULL DEFAULT '2025-01-01 00:00:00');",
                 schema_sql(), flags=re.S)
    with sqlite3.connect(book) as db:
        db.executescript(old)
        db.execute("INSERT INTO game (variant, decks, first_dealer) VALUES ('once', 2, 1)")
        db.executemany("INSERT INTO player VALUES (1, ?, ?)", [(1, "Ann"), (2, "Bo")])
        db.executemany("INSERT INTO score (game_id, hand, seat, base, points) VALUES (1, 1, ?, ?, ?)",
                       [(1, 5, 5), (2, 8, 8)])
    db.close()
    app = create_app({"TESTING": True, "DATABASE": str(book), "SECRET_KEY": "test"})
    client = app.test_client()
    game = client.get("/api/games/1").get_json()
    assert game["ended_after"] is None and game["can_end_after"] == 1 and game["totals"] == [5, 8]
    token = client.get("/api/csrf").get_json()["token"]
    game = client.post("/api/games/1/end", headers={"X-CSRF-Token": token}).get_json()
    assert game["ended_after"] == 1 and game["winners"] == [1]


def test_a_game_whose_hand_7_is_whole_is_never_offered_an_end(api: Any, game_id: int) -> None:
    _play(api, game_id, 5)
    _score_hand(api, game_id, 7, [1, 2, 3, 4])          # hand 6 still lacks its scores
    assert api.get(f"/api/games/{game_id}").get_json()["can_end_after"] is None


def test_an_ended_game_missing_a_score_it_counts_shows_the_way_on(client: Any, api: Any, game_id: int) -> None:
    _play(api, game_id, 2)
    _end(api, game_id)
    api.delete(f"/api/games/{game_id}/hands/1/scores/2")
    game = api.get(f"/api/games/{game_id}").get_json()
    assert game["ended_after"] == 2 and not game["finished"]
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Ended after hand 2 of 7: the winner is judged once every hand up to it has its scores." in page
    assert "Play on to hand 7</button>" in page


def test_a_hand_after_the_end_shows_its_scores_without_forms_to_change_them(client: Any, api: Any,
                                                                           game_id: int) -> None:
    _play(api, game_id, 2)
    api.post(f"/api/games/{game_id}/hands/3", {"out": 1})
    _score_hand(api, game_id, 3, [None, 8, None, None])
    _end(api, game_id)
    hand = client.get(f"/games/{game_id}/hands/3").get_data(as_text=True)
    assert 'id="hand-form"' not in hand and 'class="typed-score"' not in hand
    assert "Ann went out." in hand
    player = client.get(f"/games/{game_id}/hands/3/players/2").get_data(as_text=True)
    assert 'id="score-form"' not in player and 'class="upload-form"' not in player
    assert "Typed: 8 points" in player


def test_an_end_asked_after_one_hand_is_not_made_after_another(client: Any, api: Any, token: str,
                                                               game_id: int) -> None:
    _play(api, game_id, 2)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert '<input type="hidden" name="after" value="2">' in page
    api.delete(f"/api/games/{game_id}/hands/2/scores/3")           # another phone, meanwhile
    response = client.post(f"/games/{game_id}/end", data={"csrf_token": token, "after": "2"})
    assert response.status_code == 400
    assert (f"Game {game_id} would now end after hand 1, not hand 2: a score was changed on another device "
            "meanwhile.") in html.unescape(response.get_data(as_text=True))
    assert api.get(f"/api/games/{game_id}").get_json()["ended_after"] is None
