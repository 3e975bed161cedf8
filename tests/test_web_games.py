"""Pages for games and the score sheet: start a game, the sheet, notes, errors."""

from __future__ import annotations

import html
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from support import looks_until


def _new_game_form(token: str, **fields: str) -> dict[str, str]:
    form = {"csrf_token": token, "variant": "llenroc", "player1": "Ann", "player2": "Bo",
            "player3": "Cy", "first_dealer": "2", "note": ""}
    form.update(fields)
    return form


def _game_count(client: Any) -> int:
    return len(client.get("/api/games").get_json()["games"])


def test_home_and_new_game_pages_render(client: Any) -> None:
    assert b"New game" in client.get("/").data
    page = client.get("/games/new")
    assert page.status_code == 200
    assert b'name="csrf_token"' in page.data
    for name in (b"llenroc", b"onze", b"scorecard", b"once", b"ons"):
        assert b'value="' + name + b'"' in page.data


@pytest.mark.parametrize(("variant", "summary"), [
    ("llenroc", "the Caldwell family rules · 2-8 players · wild: Jokers (no limit) · runs: one suit, Ace low or high · "
                "a splash doubles"),
    # onze and scorecard share their wild cards: the line says what sets them apart.
    ("onze", "as played in France and the US · 3-7 players · wild: Jokers and red Aces (every meld needs at least "
             "2 natural cards; no two wild cards side by side in a run) · runs: one suit, Ace low"),
    ("scorecard", "the Onze Score Card app&#39;s rules · 3-7 players · wild: Jokers and red Aces (no limit) · "
                  "runs: one suit, Ace low or high · go down with exactly 3-card sets and 4-card runs"),
    ("once", "Don Williamson&#39;s rules · 2-6 players · wild: Jokers and red Aces (no meld of only wild cards; "
             "a set holds at most one wild card; no two wild cards side by side in a run) · runs: any suits, Ace low"),
    ("ons", "a variation on gin rummy · 2-8 players · wild: red Aces (no limit) · runs: one suit, Ace high"),
])
def test_the_new_game_page_says_each_variants_rules_in_a_line(client: Any, variant: str, summary: str) -> None:
    page = client.get("/games/new").get_data(as_text=True)
    assert f'value="{variant}" data-summary="{summary}"' in page
    assert '<small class="meta" id="variant-summary">the Caldwell family rules · 2-8 players' in page   # chosen first
    assert f'value="{variant}" data-summary' in page and ">Llenroc Onze</option>" in page


def test_start_a_game_shows_the_sheet(client: Any, token: str) -> None:
    response = client.post("/games/new", data=_new_game_form(token))
    assert response.status_code == 302
    sheet = client.get(response.location).get_data(as_text=True)
    assert "Game 1" in sheet and "2 decks" in sheet
    # Hands 1-7 with contracts and cards dealt (Llenroc deals 6..12).
    assert "two sets" in sheet and "three runs" in sheet
    assert "6 cards" in sheet and "12 cards" in sheet
    game = client.get("/api/games/1").get_json()
    assert [p["name"] for p in game["players"]] == ["Ann", "Bo", "Cy"]
    # Bo deals first; the deal passes left (the next seat) each hand.
    assert [h["dealer"] for h in game["hands"]] == [2, 3, 1, 2, 3, 1, 2]
    assert "<strong>Bo</strong> deals" in sheet


def test_decks_follow_variant_and_player_count(client: Any, token: str) -> None:
    names = {f"player{i}": f"P{i}" for i in range(1, 7)}
    client.post("/games/new", data=_new_game_form(token, first_dealer="1", **names))
    assert client.get("/api/games/1").get_json()["decks"] == 3   # Llenroc: 3 decks for 6


def test_blank_slots_are_skipped_and_dealer_follows_the_names(client: Any, token: str) -> None:
    form = _new_game_form(token, player1="", player2="Ann", player3="", player4="Bo", player5="Cy",
                          first_dealer="4")
    assert client.post("/games/new", data=form).status_code == 302
    game = client.get("/api/games/1").get_json()
    assert [p["name"] for p in game["players"]] == ["Ann", "Bo", "Cy"]
    assert game["first_dealer"] == 2


def test_wrong_player_count_for_the_variant_is_refused(client: Any, token: str) -> None:
    # Onze is played by 3-7: two players is not a game of Onze.
    response = client.post("/games/new", data=_new_game_form(token, variant="onze", player3=""))
    assert response.status_code == 400
    assert "3-7 players; 2 were named" in response.get_data(as_text=True)
    assert _game_count(client) == 0


def test_one_player_is_refused(client: Any, token: str) -> None:
    response = client.post("/games/new", data=_new_game_form(token, player2="", player3="", first_dealer="1"))
    assert response.status_code == 400
    assert "1 was named" in response.get_data(as_text=True)
    assert _game_count(client) == 0


def test_unknown_variant_is_refused_with_the_engines_message(client: Any, token: str) -> None:
    response = client.post("/games/new", data=_new_game_form(token, variant="poker"))
    assert response.status_code == 400
    assert "poker" in response.get_data(as_text=True)
    assert _game_count(client) == 0


def test_duplicate_names_and_nameless_dealer_are_refused(client: Any, token: str) -> None:
    response = client.post("/games/new", data=_new_game_form(token, player3="ann"))
    page = response.get_data(as_text=True)
    assert "Two players are called" in page
    # Both boxes of the name are marked and tied to the message (id'd once, the first refusal).
    assert page.count('id="form-error"') == 1 and page.count('aria-invalid="true" aria-describedby="form-error"') == 2
    response = client.post("/games/new", data=_new_game_form(token, first_dealer="5"))
    assert "has no name" in response.get_data(as_text=True)
    assert _game_count(client) == 0


@pytest.mark.parametrize(("fields", "boxes_at_fault"), [
    ({"player3": "ann"}, [1, 3]),                 # a name twice: both boxes
    ({"player3": "\u200b"}, [3]),                # a name that shows nothing
    ({"player3": "C" * 41}, [3]),                 # too long
    ({"player3": "", "player4": "ann"}, [1, 4]),  # an empty seat between is no fault
])
def test_a_refused_new_game_marks_the_boxes_to_put_right(client: Any, token: str, fields: dict[str, str],
                                                         boxes_at_fault: list[int]) -> None:
    page = client.post("/games/new", data=_new_game_form(token, **fields)).get_data(as_text=True)
    marked = re.findall(r'name="player(\d)"[^>]*aria-invalid="true" aria-describedby="form-error"', page)
    assert [int(seat) for seat in marked] == boxes_at_fault and 'id="form-error"' in page
    assert _game_count(client) == 0


def test_post_without_csrf_token_changes_nothing(client: Any, token: str) -> None:
    form = _new_game_form(token)
    del form["csrf_token"]
    response = client.post("/games/new", data=form)
    assert response.status_code == 400
    assert "This phone had forgotten the score sheet" in response.get_data(as_text=True)
    response = client.post("/games/new", data=_new_game_form("forged"))
    assert response.status_code == 400
    assert _game_count(client) == 0


def test_player_names_and_notes_are_escaped(client: Any, token: str) -> None:
    client.post("/games/new", data=_new_game_form(token, player1="<script>alert(1)</script>"))
    client.post("/games/1/note", data={"csrf_token": token, "note": "<img src=x onerror=alert(2)>"})
    for url in ("/games/1", "/", "/history", "/games/1/print", "/games/1/hands/1"):
        page = client.get(url).get_data(as_text=True)
        assert "<script>alert(1)</script>" not in page, url
        assert "<img src=x" not in page, url
    page = client.get("/games/1").get_data(as_text=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page


def test_game_note_is_saved_and_shown(client: Any, token: str, game_id: int) -> None:
    response = client.post(f"/games/{game_id}/note", data={"csrf_token": token, "note": "At Grandma's; 40th game"})
    assert response.status_code == 302
    assert "At Grandma&#39;s; 40th game" in client.get(f"/games/{game_id}").get_data(as_text=True)


def test_overlong_note_is_refused_and_comes_back_to_be_shortened(client: Any, token: str, game_id: int) -> None:
    response = client.post(f"/games/{game_id}/note", data={"csrf_token": token, "note": "x" * 5001})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "the limit is 5000" in page
    assert ">" + "x" * 5001 + "</textarea>" in page
    assert client.get(f"/api/games/{game_id}").get_json()["note"] == ""


@pytest.mark.parametrize("fields, message", [
    ({"player1": "", "player2": " ", "player3": ""}, "played by 2-8 players; 0 were named"),
    ({"first_dealer": "abc"}, "The first dealer &#39;abc&#39; is not a player number (1-8)"),
    ({"player2": "\u200b"}, "shows nothing on the sheet: type a visible name"),
    ({"player2": "\u2800"}, "shows nothing on the sheet: type a visible name"),     # the blank Braille sign
    ({"player2": "B\x00o"}, "holds a control character (&#39;\\x00&#39;): type it as letters"),
    ({"player2": "B\x07o"}, "holds a control character (&#39;\\x07&#39;): type it as letters"),
    ({"player2": "\u200bAnn"}, "Two players are called &#39;Ann&#39;"),             # a zero-width space before
    ({"player2": "\uff21nn"}, "Two players are called &#39;\uff21nn&#39;"),          # a full-width A
])
def test_a_game_that_cannot_start_says_what_to_fix(client: Any, token: str, fields: dict[str, str],
                                                    message: str) -> None:
    response = client.post("/games/new", data=_new_game_form(token, **fields))
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert _game_count(client) == 0


def test_a_name_keeps_no_invisible_format_character_but_an_emojis_joiners_and_tags(api: Any) -> None:
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    names = ["\u202ennA", "\U0001f468\u200d\U0001f469\u200d\U0001f467", scotland, "Cy\tDi\r\nEd"]
    game = api.post("/api/games", {"variant": "once", "players": names}).get_json()
    # A right-to-left override dropped; a family's joiners and a flag's tags kept; a tab and a
    # line break (a name pasted from a list) a space each.
    assert [player["name"] for player in game["players"]] == ["nnA", names[1], scotland, "Cy Di Ed"]


@pytest.mark.parametrize("dealer", ["Bo\u200b", "bo", "B\tO"])
def test_a_name_sent_with_an_invisible_character_or_a_tab_still_names_its_player(api: Any, dealer: str) -> None:
    players = ["Ann", "B o"] if "\t" in dealer else ["Ann", "Bo"]
    game = api.post("/api/games", {"variant": "llenroc", "players": players, "first_dealer": dealer})
    assert game.status_code == 201 and game.get_json()["first_dealer"] == 2


def test_a_stray_tag_character_makes_no_second_player_of_one_name(api: Any) -> None:
    response = api.post("/api/games", {"variant": "llenroc", "players": ["Ann", "Ann\U000e0078", "Di"]})
    assert response.status_code == 400 and "Two players are called" in response.get_json()["error"]


def test_deleting_a_game_asks_first_and_offers_to_undo_it(client: Any, token: str, api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 12})
    before = api.get(f"/api/games/{game_id}").get_json()
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'action="/games/{game_id}/delete"' in page
    assert "with all its scores and photos? History keeps it 30 days to bring back." in page
    response = client.post(f"/games/{game_id}/delete", data={"csrf_token": token}, follow_redirects=True)
    home = response.get_data(as_text=True)
    assert f"Game {game_id} (Ann, Bo, Cy, Di) deleted." in home
    assert f'action="/games/{game_id}/restore"' in home and f"Undo: bring game {game_id} back" in home
    assert client.get(f"/games/{game_id}").status_code == 404
    assert api.get("/api/games").get_json()["games"] == []
    assert client.post(f"/games/{game_id}/delete", data={"csrf_token": token}).status_code == 404

    response = client.post(f"/games/{game_id}/restore", data={"csrf_token": token}, follow_redirects=True)
    assert f"Game {game_id} is back in the book." in response.get_data(as_text=True)
    after = api.get(f"/api/games/{game_id}").get_json()
    assert {k: v for k, v in after.items() if k not in ("changes", "updated")} == \
        {k: v for k, v in before.items() if k not in ("changes", "updated")}


def test_history_keeps_deleted_games_to_bring_back_or_delete_for_good(client: Any, token: str, api: Any,
                                                                      game_id: int, app: Any) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 12})
    client.post(f"/games/{game_id}/delete", data={"csrf_token": token})
    history = client.get("/history").get_data(as_text=True)
    deleted = history.split('id="deleted"')[1]
    assert "kept 30 days to bring back" in deleted and "Ann, Bo, Cy, Di" in deleted
    assert f'id="game-{game_id}"' not in history   # not among the book's games, nor its standings
    assert "This cannot be undone." in deleted      # deleting for good asks first

    response = client.post(f"/games/{game_id}/delete-for-good", data={"csrf_token": token}, follow_redirects=True)
    assert f"Game {game_id} (Ann, Bo, Cy, Di) and its photos are gone for good." in response.get_data(as_text=True)
    with app.app_context():
        from webapp.db import get_db
        assert get_db().execute("SELECT COUNT(*) FROM score").fetchone()[0] == 0
        assert get_db().execute("SELECT COUNT(*) FROM game").fetchone()[0] == 0
    assert 'id="deleted"' not in client.get("/history").get_data(as_text=True)


def test_only_a_deleted_game_can_be_deleted_for_good(client: Any, token: str, game_id: int) -> None:
    response = client.post(f"/games/{game_id}/delete-for-good", data={"csrf_token": token})
    assert response.status_code == 404
    assert f"Game {game_id} is not among the deleted games (they are kept 30 days)." in response.get_data(as_text=True)
    assert client.get(f"/games/{game_id}").status_code == 200


def test_bringing_back_a_game_in_the_book_the_same_tap_twice_shows_it_as_it_is(client: Any, token: str,
                                                                              game_id: int) -> None:
    client.post(f"/games/{game_id}/delete", data={"csrf_token": token})
    for _ in range(2):
        response = client.post(f"/games/{game_id}/restore", data={"csrf_token": token}, follow_redirects=True)
        assert response.status_code == 200
        assert f"Game {game_id} is back in the book." in response.get_data(as_text=True)
    assert client.post("/games/424242/restore", data={"csrf_token": token}).status_code == 404


def test_a_deleted_games_address_says_where_to_bring_it_back(client: Any, api: Any, token: str,
                                                           game_id: int) -> None:
    client.post(f"/games/{game_id}/delete", data={"csrf_token": token})
    deleted = api.get("/api/games").get_json()
    assert all(g["id"] != game_id for g in deleted["games"])
    for url in (f"/games/{game_id}", f"/games/{game_id}/hands/2", f"/api/games/{game_id}"):
        response = client.get(url)
        assert response.status_code == 404
        text = html.unescape(response.get_data(as_text=True))
        assert re.search(rf"Game {game_id} was deleted \(\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d UTC\): History keeps it "
                         r"30 days from then, to bring back\.", text), url


def test_games_deleted_more_than_30_days_ago_go_for_good(client: Any, token: str, api: Any, app: Any) -> None:
    old = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()["id"]
    recent = api.post("/api/games", {"variant": "once", "players": ["Cy", "Di"]}).get_json()["id"]
    api.delete(f"/api/games/{old}")
    with app.app_context():
        from webapp.db import get_db, transaction
        with transaction() as db:
            db.execute("UPDATE game SET deleted = datetime('now', '-31 days') WHERE id = ?", (old,))
    api.delete(f"/api/games/{recent}")   # each deletion forgets the games deleted too long ago
    with app.app_context():
        assert [r[0] for r in get_db().execute("SELECT id FROM game")] == [recent]


def test_a_game_past_its_30_days_is_no_longer_offered_and_the_servers_thread_removes_it(
        client: Any, api: Any, app: Any) -> None:
    old = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()["id"]
    api.delete(f"/api/games/{old}")
    with app.app_context():
        from webapp.db import get_db, transaction
        with transaction() as db:
            db.execute("UPDATE game SET deleted = datetime('now', '-31 days') WHERE id = ?", (old,))
    # No deletion came since: History no longer offers it as kept to bring back.
    assert 'id="deleted"' not in client.get("/history").get_data(as_text=True)
    app.config["WHOLE_PHOTO_DAYS"] = None   # even a book that keeps its photos as taken
    thread = looks_until(app, lambda started: started.looks >= 1, every_seconds=3600)   # its first look
    assert thread.looks == 1
    with app.app_context():
        assert get_db().execute("SELECT COUNT(*) FROM game").fetchone()[0] == 0


def test_the_api_deletes_and_restores_a_game(api: Any, game_id: int) -> None:
    gone = api.delete(f"/api/games/{game_id}")
    assert gone.status_code == 200 and gone.get_json()["id"] == game_id and gone.get_json()["url"] == f"/games/{game_id}"
    assert api.get(f"/api/games/{game_id}").status_code == 404
    back = api.post(f"/api/games/{game_id}/restore")
    assert back.status_code == 200 and back.get_json()["deleted"] is None
    again = api.post(f"/api/games/{game_id}/restore")   # the same call sent twice
    assert again.status_code == 200 and again.get_json()["deleted"] is None
    missing = api.post("/api/games/4242/restore")
    assert missing.status_code == 404
    assert missing.get_json() == {"error": "Game 4242 is not among the deleted games (they are kept 30 days)."}


def test_the_api_lists_the_deleted_games_and_deletes_one_for_good(api: Any, app: Any, game_id: int) -> None:
    assert api.get("/api/games/deleted").get_json() == {"games": [], "unknown_rules": []}
    # A game in the book is never removed by one call: it is deleted first.
    in_play = api.post(f"/api/games/{game_id}/delete-for-good")
    assert in_play.status_code == 404
    assert in_play.get_json() == {"error": f"Game {game_id} is not among the deleted games (they are kept 30 days)."}
    api.delete(f"/api/games/{game_id}")
    (listed,) = api.get("/api/games/deleted").get_json()["games"]
    assert listed["id"] == game_id and listed["deleted"] is not None
    assert listed["url"] == f"/games/{game_id}"   # a game, as every call gives one
    assert [p["name"] for p in listed["players"]] == ["Ann", "Bo", "Cy", "Di"]
    gone = api.post(f"/api/games/{game_id}/delete-for-good")
    assert gone.status_code == 200 and gone.get_json()["id"] == game_id and gone.get_json()["url"] == f"/games/{game_id}"
    assert api.get("/api/games/deleted").get_json() == {"games": [], "unknown_rules": []}
    assert api.post(f"/api/games/{game_id}/restore").status_code == 404
    with app.app_context():
        from webapp.db import get_db
        assert get_db().execute("SELECT COUNT(*) FROM game").fetchone()[0] == 0


def test_deleting_needs_the_csrf_token(client: Any, game_id: int) -> None:
    refused = client.post(f"/games/{game_id}/delete")
    assert refused.status_code == 400
    assert "This phone had forgotten the score sheet (the page was open a long time, or the phone let go of its cookie), so nothing was saved. Reload the page and try again." in html.unescape(refused.get_data(as_text=True))
    assert client.get(f"/games/{game_id}").status_code == 200


@pytest.mark.parametrize(("url", "message"), [
    pytest.param("/games/99999999999999999999999", "Game 99999999999999999999999 doesn't exist.", id="a game"),
    pytest.param("/games/9223372036854775808/hands/1", "Game 9223372036854775808 doesn't exist.",
                 id="a hand of a game one past SQLite's largest id"),
    pytest.param("/api/games/99999999999999999999999", "Game 99999999999999999999999 doesn't exist.",
                 id="a game in the API"),
    pytest.param("/photos/99999999999999999999999", "Photo 99999999999999999999999 doesn't exist.", id="a photo"),
])
def test_ids_beyond_sqlites_integers_are_404_not_a_crash(client: Any, url: str, message: str) -> None:
    response = client.get(url)
    assert response.status_code == 404
    assert message in html.unescape(response.get_data(as_text=True))   # said as for any id not there


def test_unknown_game_is_a_404_with_a_message(client: Any) -> None:
    response = client.get("/games/7")
    assert response.status_code == 404
    assert "Game 7 doesn&#39;t exist." in response.get_data(as_text=True)


def test_sheet_shows_totals_leader_and_winner(client: Any, api: Any, game_id: int) -> None:
    for hand in range(1, 8):
        api.post(f"/api/games/{game_id}/hands/{hand}", {"out": 1})
        for seat, points in ((2, 10), (3, 5), (4, 20)):
            assert api.post(f"/api/games/{game_id}/hands/{hand}/scores/{seat}", {"points": points}).status_code == 200
        if hand == 3:
            sheet = client.get(f"/games/{game_id}").get_data(as_text=True)
            assert 'id="leader"' in sheet and "<strong>Ann</strong> with 0" in sheet
    game = client.get(f"/api/games/{game_id}").get_json()
    # Hand 7 of Llenroc always doubles the others.
    assert game["totals"] == [0, 6 * 10 + 20, 6 * 5 + 10, 6 * 20 + 40]
    assert game["finished"] and game["winners"] == [1]
    sheet = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="winner"' in sheet and "Winner: <strong>Ann</strong>" in sheet


def test_no_leader_until_a_hand_is_complete(client: Any, api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 30})
    game = client.get(f"/api/games/{game_id}").get_json()
    assert game["leaders"] == [] and game["totals"] == [0, 30, 0, 0]
    assert 'id="leader"' not in client.get(f"/games/{game_id}").get_data(as_text=True)
    for seat, points in ((1, 0), (3, 12), (4, 8)):
        api.post(f"/api/games/{game_id}/hands/1/scores/{seat}", {"points": points})
    api.post(f"/api/games/{game_id}/hands/2/scores/1", {"points": 50})   # hand 2 only begun
    game = client.get(f"/api/games/{game_id}").get_json()
    assert game["leaders"] == [1] and game["standing"] == [0, 30, 12, 8]
    assert "<strong>Ann</strong> with 0 after 1 hand" in client.get(f"/games/{game_id}").get_data(as_text=True)


def _eight_player_ons(client: Any, token: str) -> Any:
    names = {f"player{i}": f"P{i}" for i in range(1, 9)}
    return client.post("/games/new", data=_new_game_form(token, variant="ons", first_dealer="1", **names))


def test_a_game_that_cannot_deal_a_hand_says_so_when_it_starts(client: Any, token: str) -> None:
    # Ons: two decks without Jokers, 104 cards; hand 7 deals 8 x 13 of them.
    response = _eight_player_ons(client, token)
    assert response.status_code == 302
    sheet = client.get(response.location).get_data(as_text=True)
    assert ('<p class="flash flash-warn" role="status">Hand 7: 8 players × 13 cards take every card of the '
            "2 decks, leaving no stock to draw from.") in sheet
    hands = client.get("/api/games/1").get_json()["hands"]
    assert [(h["short_deal"], h["cards_left"]) for h in hands] == [(False, 16)] * 6 + [(True, 0)]


@pytest.mark.parametrize(("hand", "warned"), [(6, False), (7, True)])
def test_the_hand_page_warns_only_on_the_hand_that_cannot_be_dealt(
    client: Any, token: str, hand: int, warned: bool
) -> None:
    client.get(_eight_player_ons(client, token).location)   # the sheet shows the start's messages
    page = client.get(f"/games/1/hands/{hand}").get_data(as_text=True)
    assert ("leaving no stock to draw from. Agree at the table how to play this hand" in page) is warned


def test_the_sheet_warns_again_when_the_hand_that_cannot_be_dealt_comes_up(client: Any, token: str, api: Any) -> None:
    client.get(_eight_player_ons(client, token).location)   # the start's warning, shown and gone
    sheet = client.get("/games/1").get_data(as_text=True)
    assert "flash-warn" not in sheet
    assert sheet.count('<span class="badge badge-short"') == 1   # on hand 7's row, from the start
    for hand in range(1, 7):
        api.post(f"/api/games/1/hands/{hand}", {"out": 1})
        for seat in range(2, 9):
            api.post(f"/api/games/1/hands/{hand}/scores/{seat}", {"points": 5})
    sheet = client.get("/games/1").get_data(as_text=True)
    assert "Hand 7: <strong>three runs</strong>, 13 cards" in sheet
    assert ('<p class="flash flash-warn" role="status">8 players × 13 cards take every card of the 2 decks, '
            "leaving no stock to draw from. Agree at the table how to play this hand before dealing.</p>") in sheet


def test_a_game_every_hand_of_which_can_be_dealt_has_no_warning(client: Any, token: str) -> None:
    names = {f"player{i}": f"P{i}" for i in range(1, 8)}
    response = client.post("/games/new", data=_new_game_form(token, variant="ons", first_dealer="1", **names))
    pages = [client.get(response.location).get_data(as_text=True),
             *(client.get(f"/games/1/hands/{hand}").get_data(as_text=True) for hand in range(1, 8))]
    assert not any("flash-warn" in page for page in pages)
    assert not any(h["short_deal"] for h in client.get("/api/games/1").get_json()["hands"])


# ------------------------------------------------------------------ correcting players' names

def _names(client: Any, game_id: int) -> list[str]:
    return [p["name"] for p in client.get(f"/api/games/{game_id}").get_json()["players"]]


def test_a_misspelt_name_is_corrected_and_the_scores_stay_in_its_seat(client: Any, token: str, api: Any,
                                                                       game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/3", {"points": 25})
    form = {"csrf_token": token, "player1": "Ann", "player2": "Bo", "player3": "Cyril", "player4": "Di"}
    response = client.post(f"/games/{game_id}/players", data=form)
    assert response.status_code == 302 and response.location.endswith("#players")
    assert _names(client, game_id) == ["Ann", "Bo", "Cyril", "Di"]
    game = client.get(f"/api/games/{game_id}").get_json()
    assert game["hands"][0]["scores"][2]["points"] == 25 and game["first_dealer"] == 1
    sheet = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Names saved." in sheet and "Cyril" in sheet
    assert "Cyril" in client.get(f"/games/{game_id}/export.csv").get_data(as_text=True)


def test_two_players_may_swap_names_in_one_save(client: Any, token: str, game_id: int) -> None:
    form = {"csrf_token": token, "player1": "Bo", "player2": "Ann", "player3": "Cy", "player4": "Di"}
    assert client.post(f"/games/{game_id}/players", data=form).status_code == 302
    assert _names(client, game_id) == ["Bo", "Ann", "Cy", "Di"]


@pytest.mark.parametrize(("player3", "says", "boxes_at_fault"), [
    ("", "Player 3&#39;s name is blank: every player keeps a name (it was &#39;Cy&#39;).", [3]),
    ("bo", "Two players are called &#39;bo&#39;: give each a different name.", [2, 3]),
    ("\u200b", "shows nothing on the sheet: type a visible name", [3]),
    ("C" * 41, "The player name is 41 characters long; the limit is 40.", [3]),
])
def test_a_refused_name_saves_none_and_comes_back_as_typed(client: Any, token: str, game_id: int, player3: str,
                                                           says: str, boxes_at_fault: list[int]) -> None:
    form = {"csrf_token": token, "player1": "Annie", "player2": "Bo", "player3": player3, "player4": "Di"}
    response = client.post(f"/games/{game_id}/players", data=form)
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert says in page
    assert 'name="player1" maxlength="40" required autocomplete="off"\n               value="Annie"' in page
    assert _names(client, game_id) == ["Ann", "Bo", "Cy", "Di"]   # Annie is not saved either
    # The boxes to put right are marked, and tied to the message a screen reader reads with them.
    assert 'id="form-error"' in page
    marked = re.findall(r'name="player(\d)"[^>]*aria-invalid="true" aria-describedby="form-error"', page)
    assert [int(seat) for seat in marked] == boxes_at_fault


def test_names_of_a_game_that_does_not_exist_are_404(client: Any, token: str) -> None:
    response = client.post("/games/7/players", data={"csrf_token": token, "player1": "Ann"})
    assert response.status_code == 404
    assert "Game 7 doesn" in response.get_data(as_text=True)


# ------------------------------------------------------------------ playing again

def test_playing_again_fills_the_new_game_with_the_players_rules_and_deck(client: Any, api: Any) -> None:
    game = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo", "Cy"], "first_dealer": 2,
                                   "corners": "four"}).get_json()
    page = client.get(f"/games/new?again={game['id']}").get_data(as_text=True)
    # Hand 7 of a 3-player game that Bo (seat 2) started is dealt by seat (2 - 1 + 6) % 3 + 1 = 2;
    # the deal passes on to seat 3.
    assert "Playing again: the players, rules and deck of game 1; Cy deals first this time." in page
    for seat, name in enumerate(["Ann", "Bo", "Cy"], start=1):
        assert f'name="player{seat}" value="{name}"' in page
    assert re.search(r'<option value="once"[^>]*selected>', page)
    assert '<option value="3" selected' in page
    assert '<option value="four" selected' in page


def test_a_finished_game_offers_to_play_again(client: Any, api: Any, game_id: int) -> None:
    assert "Play again" not in client.get(f"/games/{game_id}").get_data(as_text=True)
    for hand in range(1, 8):
        api.post(f"/api/games/{game_id}/hands/{hand}", {"out": 1})
        for seat in range(2, 5):
            api.post(f"/api/games/{game_id}/hands/{hand}/scores/{seat}", {"points": seat})
    assert f'href="/games/new?again={game_id}">Play again</a>' in client.get(f"/games/{game_id}").get_data(as_text=True)


@pytest.mark.parametrize(("again", "says"), [("7", "Game 7 doesn"), ("abc", "Game &#39;abc&#39; doesn")])
def test_playing_again_a_game_that_does_not_exist_is_404(client: Any, again: str, says: str) -> None:
    response = client.get(f"/games/new?again={again}")
    assert response.status_code == 404
    assert says in response.get_data(as_text=True)


def test_a_phone_can_add_the_score_sheet_to_its_home_screen(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    response = client.get("/static/manifest.webmanifest")
    assert response.status_code == 200 and response.mimetype == "application/manifest+json"
    manifest = response.get_json(force=True)
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        data = client.get(f"/static/{icon['src']}").data
        if icon["type"] == "image/png":   # the size it says is the size it is (PNG IHDR)
            width, height = struct.unpack(">II", data[16:24])
            assert icon["sizes"] == f"{width}x{height}"
        else:
            assert data.startswith(b"<svg")


def test_a_deleted_games_photos_are_not_served_until_it_is_back(client: Any, token: str, api: Any,
                                                                 game_id: int) -> None:
    with open(Path(__file__).parent / "data" / "web_edje_IMG_2560.jpg", "rb") as handle:
        photo = client.post(f"/api/photos?game_id={game_id}", data=handle.read(), content_type="image/jpeg",
                            headers={"X-CSRF-Token": token}).get_json()["id"]
    assert client.get(f"/photos/{photo}").status_code == 200
    api.delete(f"/api/games/{game_id}")
    assert client.get(f"/photos/{photo}").status_code == 404
    assert client.get(f"/api/photos/{photo}").status_code == 404
    api.post(f"/api/games/{game_id}/restore")
    assert client.get(f"/photos/{photo}").status_code == 200


def _start(client: Any, token: str, names: list[str], variant: str = "llenroc", **extra: str) -> Any:
    data = {"csrf_token": token, "variant": variant, "first_dealer": "1", "form_id": extra.pop("form_id", "")}
    data |= {f"player{seat}": name for seat, name in enumerate(names, start=1)} | extra
    return client.post("/games/new", data=data)


@pytest.mark.parametrize(("names", "variant", "asked"), [
    (["Ann", "Bo", "Cy"], "llenroc", True),
    (["ann", " Bo", "CY "], "llenroc", True),       # letter case and spaces aside
    (["Bo", "Ann", "Cy"], "llenroc", False),        # other seats: another table
    (["Ann", "Bo", "Cy"], "onze", False),           # other rules
    (["Ann", "Bo"], "llenroc", False),
])
def test_a_game_of_the_same_table_started_again_soon_is_asked_about_first(
    client: Any, token: str, api: Any, names: list[str], variant: str, asked: bool
) -> None:
    first = api.post("/api/games", {"variant": "llenroc", "players": ["Ann", "Bo", "Cy"]}).get_json()["id"]
    response = _start(client, token, names, variant)
    if not asked:
        assert response.status_code == 302
        return
    assert response.status_code == 409
    page = html.unescape(response.get_data(as_text=True))
    assert f"Game {first} has these players and rules, started just now (on another phone?)." in \
        re.sub(r"<[^>]+>", "", page)
    assert f'href="/games/{first}">Open game {first}</a>' in page
    # Said where a screen reader looks first: the page's title, and the note is focused (app.js).
    assert f"<title>Not started: game {first} has these players · New game · Onze Vision</title>" in page
    assert 'class="unsure-cards twin-game" role="note" tabindex="-1"' in page
    assert len(api.get("/api/games").get_json()["games"]) == 1          # nothing started unasked
    again = _start(client, token, names, variant, twin_ok=str(first))
    assert again.status_code == 302 and len(api.get("/api/games").get_json()["games"]) == 2


def test_a_finished_or_old_game_of_the_same_table_is_not_asked_about(client: Any, token: str, api: Any,
                                                                    app: Any) -> None:
    old = api.post("/api/games", {"variant": "once", "players": ["Ann", "Bo"]}).get_json()["id"]
    with app.app_context():
        from webapp.db import transaction
        with transaction() as db:
            db.execute("UPDATE game SET created = datetime('now', '-31 minutes') WHERE id = ?", (old,))
    assert _start(client, token, ["Ann", "Bo"], "once").status_code == 302
    done = api.get("/api/games").get_json()["games"][0]["id"]
    for hand in range(1, 8):
        for seat in (1, 2):
            api.post(f"/api/games/{done}/hands/{hand}/scores/{seat}", {"points": hand + seat})
    assert _start(client, token, ["Ann", "Bo"], "once").status_code == 302   # played again at once


@pytest.mark.parametrize(("path", "body"), [
    ("/api/games/{id}/hands/1", {}),
    ("/api/games/{id}/hands/1", {"out": None, "splash": False, "note": ""}),
    ("/api/games/{id}/note", {"note": ""}),
    ("/api/games/{id}/corners", {"corners": "auto"}),
    ("/api/games/{id}/players", {"players": ["Ann", "Bo", "Cy", "Di"]}),
    ("/api/games/{id}/dealer", {"first_dealer": 1}),
])
def test_a_change_to_what_it_already_is_does_not_make_the_other_phones_reload(api: Any, game_id: int, path: str,
                                                                              body: dict[str, Any]) -> None:
    before = api.get(f"/api/games/{game_id}/changes").get_json()
    response = api.post(path.format(id=game_id), body)
    assert response.status_code == 200, response.get_json()
    assert api.get(f"/api/games/{game_id}/changes").get_json() == before
