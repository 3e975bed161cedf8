"""The game's deck: which corners of its cards carry an index, and how its photos are read."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any

import pytest

DECK_LABELS = {"auto": "not said (each photo tells)", "two": "two corners (most decks)",
               "four": "all four corners (Copag-style decks)"}

# The game and player tables as shipped before the game had its deck's corners.
OLD_GAME_TABLES = """
CREATE TABLE game (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    variant TEXT NOT NULL,
    decks INTEGER NOT NULL,
    first_dealer INTEGER NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now')),
    updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%S', 'now'))
);
CREATE TABLE player (
    game_id INTEGER NOT NULL REFERENCES game (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
"""


def _upload(client: Any, token: str, game_id: int, jpeg_bytes: bytes) -> Any:
    return client.post(f"/games/{game_id}/hands/1/players/2/photo",
                       data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})


def test_a_game_reads_its_photos_as_not_sure_of_the_deck_until_told(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    assert client.get(f"/api/games/{game_id}").get_json()["corners"] == "auto"
    assert _upload(client, token, game_id, jpeg_bytes).status_code == 302
    assert detector.corners == ["auto"]


@pytest.mark.parametrize("corners", ["two", "four", "auto"])
def test_photos_of_a_game_are_read_as_its_deck_was_said_to_be(
        client: Any, token: str, jpeg_bytes: bytes, detector: Any, corners: str) -> None:
    response = client.post("/games/new", data={"csrf_token": token, "variant": "llenroc", "player1": "Ann",
                                               "player2": "Bo", "first_dealer": "1", "corners": corners})
    assert response.status_code == 302
    game_id = int(response.location.rsplit("/", 1)[1])
    sheet = client.get(response.location).get_data(as_text=True)
    assert f'<option value="{corners}" selected>' in sheet
    page = client.get(_upload(client, token, game_id, jpeg_bytes).location).get_data(as_text=True)
    assert detector.corners == [corners]
    # The score page says how the photo was read, with the way to change it.
    assert f"Rank and suit printed in: {DECK_LABELS[corners]} · <a href=\"/games/{game_id}#deck\">change</a>" in page


def test_the_deck_can_be_changed_mid_game_and_later_photos_follow(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    response = client.post(f"/games/{game_id}/corners", data={"csrf_token": token, "corners": "four"},
                           follow_redirects=True)
    assert response.status_code == 200
    assert "Deck saved: all four corners (Copag-style decks)." in response.get_data(as_text=True)
    _upload(client, token, game_id, jpeg_bytes)
    assert detector.corners == ["four"]


@pytest.mark.parametrize("bad", ["three", "", "fours"])
def test_a_deck_said_to_have_other_corners_is_refused_and_changes_nothing(
        client: Any, token: str, api: Any, game_id: int, bad: str) -> None:
    api.post(f"/api/games/{game_id}/corners", {"corners": "two"})
    page = client.post(f"/games/{game_id}/corners", data={"csrf_token": token, "corners": bad})
    if bad == "":  # an empty choice is "not sure", as on the new-game form
        assert page.status_code == 302
        assert client.get(f"/api/games/{game_id}").get_json()["corners"] == "auto"
        return
    assert page.status_code == 400
    assert f"The deck&#39;s indices are in &#39;two&#39; or &#39;four&#39; corners" in page.get_data(as_text=True)
    assert f"not &#39;{bad}&#39;." in page.get_data(as_text=True)
    assert client.get(f"/api/games/{game_id}").get_json()["corners"] == "two"


def test_a_deck_is_said_in_any_letter_case_as_the_rules_are(api: Any, game_id: int) -> None:
    assert api.post(f"/api/games/{game_id}/corners", {"corners": " FOUR "}).get_json()["corners"] == "four"


def test_the_api_starts_and_changes_a_games_deck(api: Any) -> None:
    created = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"], "corners": "four"})
    assert created.status_code == 201 and created.get_json()["corners"] == "four"
    game_id = created.get_json()["id"]
    assert api.post(f"/api/games/{game_id}/corners", {"corners": "two"}).get_json()["corners"] == "two"
    refused = api.post(f"/api/games/{game_id}/corners", {"corners": 4})
    assert refused.status_code == 400
    assert "not 4." in refused.get_json()["error"]
    assert api.post("/api/games/999/corners", {"corners": "two"}).status_code == 404
    bad_start = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"], "corners": "many"})
    assert bad_start.status_code == 400 and "not 'many'." in bad_start.get_json()["error"]
    assert len(api.get("/api/games").get_json()["games"]) == 1  # the refused game was not started


def test_detect_reads_as_the_deck_is_said_to_be_and_refuses_other_corners(
        client: Any, jpeg_bytes: bytes, detector: Any) -> None:
    assert client.post("/api/detect?corners=four", data=jpeg_bytes, content_type="image/jpeg").status_code == 200
    client.post("/api/detect", data={"photo": (io.BytesIO(jpeg_bytes), "a.jpg"), "corners": "two"})
    client.post("/api/detect", data=jpeg_bytes, content_type="image/jpeg")
    assert detector.corners == ["four", "two", "auto"]
    refused = client.post("/api/detect?corners=six", data=jpeg_bytes, content_type="image/jpeg")
    assert refused.status_code == 400 and "not 'six'." in refused.get_json()["error"]
    assert detector.calls == 3  # refused before the photo was read


def test_a_database_from_before_decks_had_corners_keeps_its_games(tmp_path: Path) -> None:
    database = tmp_path / "old.sqlite"
    db = sqlite3.connect(database)
    db.executescript(OLD_GAME_TABLES)
    db.execute("INSERT INTO game (variant, decks, first_dealer, note) VALUES ('llenroc', 2, 1, 'from before')")
    db.executemany("INSERT INTO player (game_id, seat, name) VALUES (1, ?, ?)", [(1, "Ann"), (2, "Bo")])
    db.commit()
    db.close()

    from webapp import create_app

    client = create_app({"TESTING": True, "DATABASE": str(database), "SECRET_KEY": "t"}).test_client()
    game = client.get("/api/games/1").get_json()
    assert (game["note"], game["corners"]) == ("from before", "auto")
    token = client.get("/api/csrf").get_json()["token"]
    changed = client.post("/api/games/1/corners", json={"corners": "four"}, headers={"X-CSRF-Token": token})
    assert changed.get_json()["corners"] == "four"


def test_the_pages_offer_every_choice_the_detector_knows() -> None:
    from onze_vision.detector_config import DECK_CORNERS
    from webapp import model

    assert tuple(model.DECK_CORNERS) == DECK_CORNERS


def test_a_photo_of_a_four_corner_deck_offers_to_say_so_and_read_it_again(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    detector.four_corner_deck = True
    page_url = _upload(client, token, game_id, jpeg_bytes).location
    page = client.get(page_url).get_data(as_text=True)
    assert "These cards have an index in all four corners." in page
    assert f'action="/games/{game_id}/hands/1/players/2/four-corners"' in page
    photo_id = int(page_url.rsplit("photo=", 1)[1])
    answer = client.post(f"/games/{game_id}/hands/1/players/2/four-corners",
                         data={"csrf_token": token, "photo_id": str(photo_id)})
    assert answer.status_code == 302 and answer.location.endswith(f"/players/2?photo={photo_id}")
    assert client.get(f"/api/games/{game_id}").get_json()["corners"] == "four"
    assert detector.corners == ["auto", "four"]  # the same photo, read again as four-cornered
    page = client.get(answer.location).get_data(as_text=True)
    assert "Deck saved: all four corners. The photo read again: 3 cards" in page
    assert "These cards have an index in all four corners." not in page  # said: not offered again
    assert "Rank and suit printed in: all four corners (Copag-style decks)" in page


def test_a_photo_of_another_game_is_not_read_again_and_the_deck_stays(
        client: Any, token: str, api: Any, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    other = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()["id"]
    photo_id = int(_upload(client, token, other, jpeg_bytes).location.rsplit("photo=", 1)[1])
    answer = client.post(f"/games/{game_id}/hands/1/players/2/four-corners",
                         data={"csrf_token": token, "photo_id": str(photo_id)})
    assert answer.status_code == 404
    assert f"Photo {photo_id} doesn&#39;t belong to game {game_id}." in answer.get_data(as_text=True)
    assert client.get(f"/api/games/{game_id}").get_json()["corners"] == "auto"
    assert detector.calls == 1


def test_a_deck_said_to_have_two_corners_is_not_offered_four(
        client: Any, token: str, api: Any, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    api.post(f"/api/games/{game_id}/corners", {"corners": "two"})
    detector.four_corner_deck = True
    page = client.get(_upload(client, token, game_id, jpeg_bytes).location).get_data(as_text=True)
    assert "These cards have an index in all four corners." not in page



# --- the deck's own Joker ------------------------------------------------------------------

def _show_joker(client: Any, token: str, game_id: int, jpeg_bytes: bytes | None) -> Any:
    files = {} if jpeg_bytes is None else {"joker_photo": (io.BytesIO(jpeg_bytes), "joker.jpg")}
    return client.post(f"/games/{game_id}/joker", data={"csrf_token": token, **files})


def test_a_joker_shown_once_is_known_to_every_photo_read_after(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    _upload(client, token, game_id, jpeg_bytes)
    assert detector.jokers == [None]   # not shown yet: read as any deck
    sheet = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Show the app this deck&#39;s Joker" in sheet
    response = _show_joker(client, token, game_id, jpeg_bytes)
    assert response.status_code == 302 and response.location.endswith(f"/games/{game_id}#deck")
    page = client.get(response.location).get_data(as_text=True)
    assert "Joker learned: in photos read from now on, a corner that looks like it is read as a Joker." in page
    assert "This deck's Joker is shown:" in page and "Forget it" in page
    assert client.get(f"/api/games/{game_id}").get_json()["joker_shown"] is True
    _upload(client, token, game_id, jpeg_bytes)
    assert detector.jokers[-1] is not None and detector.jokers[-1].corner_distance == 6.5


@pytest.mark.parametrize("photo, why", [(None, "No photo was sent"),
                                        (b"hello", "The Joker was not learned: "),
                                        ("no joker", "The Joker was not learned: the photo shows QH, and no Joker")])
def test_a_joker_photo_that_teaches_nothing_is_said_and_changes_nothing(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes, detector: Any, photo: Any, why: str) -> None:
    if photo == "no joker":
        detector.joker_in_photo, photo = False, jpeg_bytes
    response = _show_joker(client, token, game_id, photo)
    assert response.status_code == 400
    assert why in response.get_data(as_text=True).replace("&#39;", "'")
    assert client.get(f"/api/games/{game_id}").get_json()["joker_shown"] is False


def test_a_joker_shown_is_forgotten_with_one_tap(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    _show_joker(client, token, game_id, jpeg_bytes)
    response = client.post(f"/games/{game_id}/joker/forget", data={"csrf_token": token}, follow_redirects=True)
    assert "The Joker shown is forgotten" in response.get_data(as_text=True)
    assert client.get(f"/api/games/{game_id}").get_json()["joker_shown"] is False
    _upload(client, token, game_id, jpeg_bytes)
    assert detector.jokers == [None]


def test_the_api_shows_and_forgets_a_games_joker(
        client: Any, token: str, api: Any, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    response = client.post(f"/api/games/{game_id}/joker", headers={"X-CSRF-Token": token},
                           data={"photo": (io.BytesIO(jpeg_bytes), "joker.jpg")})
    assert response.status_code == 200 and response.get_json()["joker_shown"] is True
    detector.joker_in_photo = False
    refused = client.post(f"/api/games/{game_id}/joker", headers={"X-CSRF-Token": token},
                          data={"photo": (io.BytesIO(jpeg_bytes), "joker.jpg")})
    assert refused.status_code == 400 and "no Joker" in refused.get_json()["error"]
    assert api.get(f"/api/games/{game_id}").get_json()["joker_shown"] is True   # the one shown before stays
    assert api.delete(f"/api/games/{game_id}/joker").get_json()["joker_shown"] is False
    assert client.post("/api/games/999/joker", headers={"X-CSRF-Token": token},
                       data={"photo": (io.BytesIO(jpeg_bytes), "joker.jpg")}).status_code == 404


def test_a_game_played_again_knows_the_joker_shown_before(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes) -> None:
    _show_joker(client, token, game_id, jpeg_bytes)
    form = client.get(f"/games/new?again={game_id}").get_data(as_text=True)
    assert f'name="joker_from" value="{game_id}"' in form
    response = client.post("/games/new", data={"csrf_token": token, "variant": "llenroc", "player1": "Ann",
                                               "player2": "Bo", "first_dealer": "1", "joker_from": str(game_id)})
    new_id = int(response.location.rsplit("/", 1)[1])
    assert client.get(f"/api/games/{new_id}").get_json()["joker_shown"] is True
    # A form naming no game's Joker starts a game without one.
    other = client.post("/games/new", data={"csrf_token": token, "variant": "llenroc", "player1": "Cy",
                                            "player2": "Di", "first_dealer": "1", "joker_from": "x" * 5000})
    assert client.get(f"/api/games/{int(other.location.rsplit('/', 1)[1])}").get_json()["joker_shown"] is False


def test_a_joker_learned_by_other_models_is_left_out_and_said(
        client: Any, token: str, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    _show_joker(client, token, game_id, jpeg_bytes)
    detector.joker_outdated = True
    page = client.get(_upload(client, token, game_id, jpeg_bytes).location).get_data(as_text=True)
    assert "This photo was read without the Joker shown for this game" in page
    assert detector.jokers[-1] is None   # read again, as any deck's


def test_a_joker_look_the_book_cannot_read_is_left_out_and_said(
        client: Any, token: str, app: Any, game_id: int, jpeg_bytes: bytes, detector: Any) -> None:
    with app.app_context():
        from webapp.db import get_db

        get_db().execute("UPDATE game SET joker_look = 'joker-look/9 whatever' WHERE id = ?", (game_id,))
        get_db().commit()
    page = client.get(_upload(client, token, game_id, jpeg_bytes).location).get_data(as_text=True)
    assert "This photo was read without the Joker shown for this game" in page
    assert detector.jokers == [None]
