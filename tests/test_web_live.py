"""A sheet open on one phone learns of what another phone saved: the game counts its changes."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from webapp import create_app

#: Each way the sheet changes, as the API makes it (the pages call the same model).
CHANGES: dict[str, Callable[[Any, int], Any]] = {
    "a score saved as points": lambda api, g: api.post(f"/api/games/{g}/hands/1/scores/2", {"points": 12}),
    "a score saved as cards": lambda api, g: api.post(f"/api/games/{g}/hands/1/scores/2", {"cards": ["QH", "7S"]}),
    "who went out": lambda api, g: api.post(f"/api/games/{g}/hands/1", {"out": 1}),
    "a hand's note": lambda api, g: api.post(f"/api/games/{g}/hands/1", {"note": "Bo bought twice"}),
    "the players' names": lambda api, g: api.post(f"/api/games/{g}/players", {"players": ["Ann", "Bob", "Cy", "Di"]}),
    "the game's note": lambda api, g: api.post(f"/api/games/{g}/note", {"note": "Sunday"}),
    "the deck's corners": lambda api, g: api.post(f"/api/games/{g}/corners", {"corners": "four"}),
}


def _changes(client: Any, game_id: int) -> int:
    return client.get(f"/api/games/{game_id}/changes").get_json()["changes"]


def test_a_new_game_has_no_changes(client: Any, game_id: int) -> None:
    assert client.get(f"/api/games/{game_id}/changes").get_json() == {"id": game_id, "changes": 0}
    assert client.get(f"/api/games/{game_id}").get_json()["changes"] == 0


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_change_to_the_sheet_counts_once(client: Any, api: Any, game_id: int, change: str) -> None:
    response = CHANGES[change](api, game_id)
    assert response.status_code == 200, response.get_json()
    assert _changes(client, game_id) == 1


def test_two_saves_in_the_same_second_count_twice(client: Any, api: Any, game_id: int) -> None:
    # `updated` keeps whole seconds, so two quick saves could look like one: the count cannot.
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 12})
    api.post(f"/api/games/{game_id}/hands/1/scores/3", {"points": 7})
    assert _changes(client, game_id) == 2


def test_clearing_a_score_is_a_change(client: Any, api: Any, game_id: int, token: str) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 12})
    response = client.post(f"/games/{game_id}/hands/1/players/2/delete", data={"csrf_token": token})
    assert response.status_code == 302
    assert _changes(client, game_id) == 2


@pytest.mark.parametrize("refused", [
    {"points": -5},
    {"points": "lots"},
    {"cards": ["QH", "ZZ"]},
])
def test_a_refused_save_changes_nothing(client: Any, api: Any, game_id: int, refused: dict[str, Any]) -> None:
    assert api.post(f"/api/games/{game_id}/hands/1/scores/2", refused).status_code == 400
    assert _changes(client, game_id) == 0


def test_reading_a_photo_is_not_a_change_until_its_cards_are_saved(client: Any, game_id: int, token: str) -> None:
    photo = (Path(__file__).parent / "data" / "web_edje_IMG_2560.jpg").read_bytes()
    response = client.post(f"/api/photos?game_id={game_id}", data=photo, content_type="image/jpeg",
                           headers={"X-CSRF-Token": token})
    assert response.status_code == 201, response.get_json()
    assert _changes(client, game_id) == 0


def test_the_count_of_a_game_that_does_not_exist_is_a_404(client: Any) -> None:
    response = client.get("/api/games/99/changes")
    assert response.status_code == 404
    assert response.get_json() == {"error": "Game 99 doesn't exist."}


@pytest.mark.parametrize("page", ["/games/{id}", "/games/{id}/hands/1"])
def test_the_sheet_and_a_hand_carry_the_count_they_were_drawn_at(
    client: Any, api: Any, game_id: int, page: str
) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 12})
    html = client.get(page.format(id=game_id)).get_data(as_text=True)
    live = re.search(r'<div [^>]*id="live"[^>]*>', html)
    assert live, "no live note on the page"
    assert f'data-changes-url="/api/games/{game_id}/changes"' in live.group(0)
    assert 'data-changes="1"' in live.group(0)
    assert 'data-poll-ms="4000"' in live.group(0)
    assert "data-typed" not in live.group(0)


def test_a_page_back_from_a_refused_form_waits_for_a_tap(client: Any, game_id: int, token: str) -> None:
    # What the player typed is on the page to fix: an automatic reload would lose it.
    response = client.post(f"/games/{game_id}/note", data={"csrf_token": token, "note": "x" * 5001})
    assert response.status_code == 400
    assert re.search(r'<div [^>]*id="live"[^>]*data-typed="1"', response.get_data(as_text=True))


def test_a_player_page_is_not_reloaded_under_the_player(client: Any, game_id: int) -> None:
    assert 'id="live"' not in client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)


def test_polling_can_be_turned_off(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "SECRET_KEY": "t",
                      "CSRF_ENABLED": False, "LIVE_POLL_SECONDS": 0})
    client = app.test_client()
    game = client.post("/api/games", json={"variant": "once", "players": ["Ann", "Bo"]}).get_json()
    assert 'data-poll-ms="0"' in client.get(f"/games/{game['id']}").get_data(as_text=True)


def test_a_book_from_before_the_count_gains_it_and_keeps_its_games(tmp_path: Path) -> None:
    # The game table as first shipped: no corners, no changes.
    book = tmp_path / "old-book.sqlite"
    with sqlite3.connect(book) as db:
        db.executescript("""
            CREATE TABLE game (id INTEGER PRIMARY KEY AUTOINCREMENT, variant TEXT NOT NULL,
                decks INTEGER NOT NULL, first_dealer INTEGER NOT NULL, note TEXT NOT NULL DEFAULT '',
                created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')),
                updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')));
            CREATE TABLE player (game_id INTEGER NOT NULL REFERENCES game (id) ON DELETE CASCADE,
                seat INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (game_id, seat));
            INSERT INTO game (variant, decks, first_dealer, note) VALUES ('once', 2, 1, 'from 2025');
            INSERT INTO player VALUES (1, 1, 'Ann'), (1, 2, 'Bo');
        """)
    db.close()
    app = create_app({"TESTING": True, "DATABASE": str(book), "SECRET_KEY": "t", "CSRF_ENABLED": False})
    client = app.test_client()
    game = client.get("/api/games/1").get_json()
    assert (game["note"], game["corners"], game["changes"]) == ("from 2025", "auto", 0)
    assert client.post("/api/games/1/hands/1/scores/2", json={"points": 9}).status_code == 200
    assert _changes(client, 1) == 1
