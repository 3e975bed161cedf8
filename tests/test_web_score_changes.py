"""A saved score is never replaced or cleared unseen: a page open since before another phone
changed it is told so, and a score replaced or cleared on this phone comes back with one tap."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

WAS = re.compile(r'name="was" value="([^"]*)"')


def _score(api: Any, game_id: int, hand: int, seat: int) -> Any:
    return api.get(f"/api/games/{game_id}").get_json()["hands"][hand - 1]["scores"][seat - 1]


def _was(client: Any, url: str) -> str:
    """The score token a page drew its form with (the first on the page)."""
    match = WAS.search(client.get(url).get_data(as_text=True))
    assert match is not None, url
    return match.group(1)


def _send(client: Any, token: str, game_id: int, seat: int, was: str | None, **fields: str) -> Any:
    data = {"csrf_token": token, **fields} | ({} if was is None else {"was": was})
    return client.post(f"/games/{game_id}/hands/1/players/{seat}", data=data)


def _clear_was(client: Any, api: Any, game_id: int) -> str:
    """Bo's typed 5 saved for hand 1, and the score token the hand page's Clear sends for it."""
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 5})
    page = client.get(f"/games/{game_id}/hands/1").get_data(as_text=True)
    return re.search(r'/players/2/delete".*?name="was" value="([^"]*)"', page, re.S).group(1)


def _page(response: Any) -> str:
    return html.unescape(response.get_data(as_text=True))


# --------------------------------------------------------------------- another phone's change


# A score sent from a player's page: as cards (17) or as a typed number (12).
SENT_SCORES = pytest.mark.parametrize("fields", [
    {"mode": "cards", "cards": "KD 7S"},
    {"mode": "points", "points": "12"},
], ids=["cards", "typed points"])


@SENT_SCORES
def test_a_score_changed_on_another_phone_since_the_page_was_drawn_is_not_replaced_unseen(
    client: Any, api: Any, token: str, game_id: int, fields: dict[str, str]
) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "7S"]})
    was = _was(client, f"/games/{game_id}/hands/1/players/2")
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "7S", "KD", "10C"]})   # the other phone
    response = _send(client, token, game_id, 2, was, **fields)
    assert response.status_code == 409
    page = _page(response)
    assert ("Bo's score for hand 1 was changed on another device since this page was opened: it is now "
            "37 with Q\u2665 7\u2660 K\u2666 10\u2663. Yours is below, not saved yet: save again to replace it.") in page
    typed = fields.get("cards") or fields["points"]
    assert f'value="{typed}"' in page or f">{typed}</textarea>" in page       # kept as sent
    assert _score(api, game_id, 1, 2)["cards"] == ["QH", "7S", "KD", "10C"]
    # Drawn again with the score as it is now: one more tap replaces it knowingly.
    drawn = response.get_data(as_text=True)
    again = _send(client, token, game_id, 2, WAS.search(drawn, drawn.find('id="player-2"') + 1).group(1), **fields)
    assert again.status_code == 302
    assert _score(api, game_id, 1, 2)["points"] in (17, 12)


def test_a_clash_with_a_score_this_phone_saved_says_so(client: Any, api: Any, token: str, game_id: int) -> None:
    # Saved, then Back to the page as it was drawn (or another tab) and saved with other cards.
    was = _was(client, f"/games/{game_id}/hands/1/players/2")
    assert _send(client, token, game_id, 2, was, mode="cards", cards="QH 7S").status_code == 302
    response = _send(client, token, game_id, 2, was, mode="cards", cards="QH 7S 8D")
    assert response.status_code == 409
    assert ("Bo's score for hand 1 was saved from this phone since this page was opened (in another tab, or "
            "before going Back): it is now 17 with Q\u2665 7\u2660. Yours is below") in _page(response)
    # Another phone's change is still said as another device's.
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 9})
    again = _send(client, token, game_id, 2, was, mode="cards", cards="QH 7S 8D")
    assert "was changed on another device since this page was opened: it is now a typed 9." in _page(again)


def test_a_first_score_saved_meanwhile_on_another_phone_is_not_replaced_unseen(
    client: Any, api: Any, token: str, game_id: int
) -> None:
    was = _was(client, f"/games/{game_id}/hands/1/players/3")
    assert was == ""                                                     # no score yet
    api.post(f"/api/games/{game_id}/hands/1/scores/3", {"points": 20})
    response = _send(client, token, game_id, 3, was, mode="cards", cards="QH")
    assert response.status_code == 409 and "it is now a typed 20." in _page(response)


def test_a_clear_from_a_page_drawn_before_another_phone_changed_the_score_clears_nothing(
    client: Any, api: Any, token: str, game_id: int
) -> None:
    was = _clear_was(client, api, game_id)
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 9})
    response = client.post(f"/games/{game_id}/hands/1/players/2/delete", data={"csrf_token": token, "was": was})
    assert response.status_code == 409
    assert "it is now a typed 9. Nothing was cleared." in _page(response)
    assert _score(api, game_id, 1, 2)["points"] == 9


@SENT_SCORES
def test_the_same_score_sent_twice_is_saved_once_and_no_clash_is_said(
    client: Any, api: Any, token: str, game_id: int, fields: dict[str, str]
) -> None:
    # A second tap, or a reload that sends the form again: the page still carries the token
    # of the score it showed before the first send.
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 5})
    was = _was(client, f"/games/{game_id}/hands/1/players/2")
    first = _send(client, token, game_id, 2, was, **fields)
    changes = api.get(f"/api/games/{game_id}/changes").get_json()
    second = _send(client, token, game_id, 2, was, **fields)
    assert first.status_code == second.status_code == 302
    page = _page(client.get(second.headers["Location"]))
    assert "Saved Bo's score for hand 1." in page and "another device" not in page
    assert _score(api, game_id, 1, 2)["points"] == (17 if "cards" in fields else 12)
    assert api.get(f"/api/games/{game_id}/changes").get_json() == changes   # no reload asked of other phones


def test_the_same_cards_sent_again_for_the_player_marked_out_are_still_refused(api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "7S"]})
    api.post(f"/api/games/{game_id}/hands/1", {"out": 2})
    again = api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "7S"]})
    assert again.status_code == 400 and "Bo went out in hand 1, so their score is 0, not 17" in again.get_json()["error"]


def test_clearing_the_score_of_the_player_marked_out_is_refused_with_or_without_one_saved(
    api: Any, game_id: int
) -> None:
    api.post(f"/api/games/{game_id}/hands/1", {"out": 2})
    response = api.delete(f"/api/games/{game_id}/hands/1/scores/2")
    assert response.status_code == 400 and "Bo went out in hand 1: the score is 0" in response.get_json()["error"]


def test_the_same_clear_sent_twice_clears_once_and_no_clash_is_said(
    client: Any, api: Any, token: str, game_id: int
) -> None:
    was = _clear_was(client, api, game_id)
    for _ in range(2):
        response = client.post(f"/games/{game_id}/hands/1/players/2/delete", data={"csrf_token": token, "was": was})
        assert response.status_code == 302
    assert "another device" not in _page(client.get(response.headers["Location"]))
    assert _score(api, game_id, 1, 2) is None


def test_a_page_drawn_before_the_check_existed_saves_as_it_always_did(client: Any, api: Any, token: str,
                                                                      game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 5})
    assert _send(client, token, game_id, 2, None, mode="points", points="7").status_code == 302
    assert _score(api, game_id, 1, 2)["points"] == 7


@pytest.mark.parametrize(("was", "status"), [
    ("", 409),                 # the caller read no score; there is one
    ("0123456789abcdef", 409),
    (7, 400),
    (None, 200),               # not said: saved over whatever is there
])
def test_the_api_saves_over_a_score_only_as_read_when_told_what_was_read(
    api: Any, game_id: int, was: Any, status: int
) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 5})
    body = {"points": 8} | ({} if was is None else {"was": was})
    response = api.post(f"/api/games/{game_id}/hands/1/scores/2", body)
    assert response.status_code == status, response.get_json()
    assert _score(api, game_id, 1, 2)["points"] == (8 if status == 200 else 5)
    version = _score(api, game_id, 1, 2)["version"]
    assert api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 3, "was": version}).status_code == 200


# --------------------------------------------------------------------- undo on this phone


def _photo_score(client: Any, api: Any, token: str, game_id: int, jpeg_bytes: bytes) -> int:
    """Bo's hand 1 saved from a photo read as QH 7S JK, corrected to QH 7S 8D."""
    import io

    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")})
    photo_id = int(re.search(r"photo=(\d+)", response.headers["Location"]).group(1))
    _send(client, token, game_id, 2, "", mode="cards", cards="QH 7S 8D", photo_id=str(photo_id))
    return photo_id


def test_a_photo_score_replaced_by_a_typed_number_comes_back_with_one_tap(
    client: Any, api: Any, token: str, game_id: int, jpeg_bytes: bytes
) -> None:
    photo_id = _photo_score(client, api, token, game_id, jpeg_bytes)
    was = _score(api, game_id, 1, 2)["version"]
    page = _page(client.post(f"/games/{game_id}/hands/1/players/2",
                             data={"csrf_token": token, "mode": "points", "points": "5", "was": was},
                             follow_redirects=True))
    assert "Saved Bo's score for hand 1: a typed 5 (it was 25 with Q\u2665 7\u2660 8\u2666)." in page
    assert "Undo: put the earlier score back" in page
    page = _page(client.post(f"/games/{game_id}/hands/1/players/2/undo", data={"csrf_token": token},
                             follow_redirects=True))
    assert "Bo's score for hand 1 is back: 25 with Q\u2665 7\u2660 8\u2666." in page
    score = _score(api, game_id, 1, 2)
    assert score["cards"] == ["QH", "7S", "8D"] and score["photo_id"] == photo_id
    # Put back once: a second tap has nothing to put back.
    page = _page(client.post(f"/games/{game_id}/hands/1/players/2/undo", data={"csrf_token": token},
                             follow_redirects=True))
    assert "There is no earlier score of Bo's for hand 1 to put back on this phone." in page


def test_a_cleared_score_comes_back_with_one_tap(client: Any, api: Any, token: str, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/3", {"points": 14})
    page = _page(client.post(f"/games/{game_id}/hands/1/players/3/delete", data={"csrf_token": token},
                             follow_redirects=True))
    assert "Cleared Cy's score for hand 1: it was a typed 14." in page and "Undo: put the earlier score back" in page
    assert _score(api, game_id, 1, 3) is None
    client.post(f"/games/{game_id}/hands/1/players/3/undo", data={"csrf_token": token})
    assert _score(api, game_id, 1, 3)["points"] == 14


def test_an_undo_does_not_put_back_over_a_score_changed_again_since(client: Any, api: Any, token: str,
                                                                     game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/3", {"points": 14})
    client.post(f"/games/{game_id}/hands/1/players/3/delete", data={"csrf_token": token})
    api.post(f"/api/games/{game_id}/hands/1/scores/3", {"points": 30})    # another phone, meanwhile
    page = _page(client.post(f"/games/{game_id}/hands/1/players/3/undo", data={"csrf_token": token},
                             follow_redirects=True))
    assert "Not put back: Cy's score for hand 1 was changed on another device since this page was opened: " \
           "it is now a typed 30." in page
    assert _score(api, game_id, 1, 3)["points"] == 30


@pytest.mark.parametrize("second", ["", "35"], ids=["first score", "the same score again"])
def test_no_undo_is_offered_where_nothing_was_lost(client: Any, token: str, game_id: int, second: str) -> None:
    _send(client, token, game_id, 2, None, mode="points", points="35")
    if second:
        response = _send(client, token, game_id, 2, None, mode="points", points=second)
    else:
        response = _send(client, token, game_id, 3, None, mode="points", points="35")
    page = _page(client.get(response.headers["Location"]))
    assert "Undo: put the earlier score back" not in page and "(it was" not in page


def test_typing_over_a_score_read_from_cards_asks_first(client: Any, api: Any, game_id: int) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"cards": ["QH", "7S"]})
    page = _page(client.get(f"/games/{game_id}/hands/1"))
    assert 'data-confirm="Replace Bo\'s 2 cards (17) with a typed score?"' in page
    assert page.count("data-confirm=\"Replace") == 1          # typed scores and empty ones are not asked


def test_a_wrong_photo_read_and_not_saved_is_let_go_keeping_the_saved_score(
    client: Any, api: Any, token: str, game_id: int, jpeg_bytes: bytes
) -> None:
    import io

    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 25})
    client.post(f"/games/{game_id}/hands/1/players/2/photo",
                data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "someone-elses-hand.jpg")})
    page = _page(client.get(f"/games/{game_id}/hands/1/players/2"))   # the photo waits on this phone
    assert 'id="not-saved"' in page and "Wrong photo? Let it go and keep the saved score" in page
    assert "a photo read, not saved" in _page(client.get(f"/games/{game_id}/hands/1"))
    page = _page(client.post(f"/games/{game_id}/hands/1/players/2/forget-photo", data={"csrf_token": token},
                             follow_redirects=True))
    assert "The photo is let go; Bo's score for hand 1 stays a typed 25." in page
    assert 'id="not-saved"' not in page and "Wrong photo?" not in page and "alt=\"Photo of the cards\"" not in page
    assert "a photo read, not saved" not in _page(client.get(f"/games/{game_id}/hands/1"))
    assert _score(api, game_id, 1, 2)["points"] == 25


# --------------------------------------------------------------------- names and the game note


@pytest.mark.parametrize("where", ["game", "hand"])
def test_a_note_of_several_lines_is_edited_as_the_browser_sends_it(
    client: Any, api: Any, token: str, game_id: int, where: str
) -> None:
    # Browsers send a form's line breaks as CRLF, the hidden *_was field's too; the book keeps LF.
    url = f"/games/{game_id}/note" if where == "game" else f"/games/{game_id}/hands/1"
    was = {"note_was": "line one\r\nline two"} | ({} if where == "game" else {"out": "", "out_was": ""})
    assert client.post(url, data={"csrf_token": token, "note": "line one\r\nline two", "note_was": "",
                                  **({} if where == "game" else {"out": "", "out_was": ""})}).status_code == 302
    response = client.post(url, data={"csrf_token": token, "note": "line one\r\nline two\r\nline three", **was})
    assert response.status_code == 302, _page(response)
    game = api.get(f"/api/games/{game_id}").get_json()
    assert (game["note"] if where == "game" else game["hands"][0]["note"]) == "line one\nline two\nline three"


def _sheet_form(client: Any, game_id: int) -> dict[str, str]:
    """The players' and note forms' fields as the sheet drew them."""
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    fields = dict(re.findall(r'name="(player\d_was|note_was)" value="([^"]*)"', page))
    fields |= {f"player{seat}": name for seat, name in re.findall(r'name="player(\d)"[^>]*value="([^"]*)"', page)}
    return fields


def test_a_name_fixed_on_another_phone_is_not_undone_by_a_page_fixing_another(
    client: Any, api: Any, token: str, game_id: int
) -> None:
    drawn = _sheet_form(client, game_id)
    api.post(f"/api/games/{game_id}/players", {"players": ["Annie", "Bo", "Cy", "Di"]})   # the other phone
    response = client.post(f"/games/{game_id}/players", data={**drawn, "player2": "Bob", "csrf_token": token})
    assert response.status_code == 302
    assert [p["name"] for p in api.get(f"/api/games/{game_id}").get_json()["players"]] == ["Annie", "Bob", "Cy", "Di"]


def test_a_name_changed_here_and_on_another_phone_is_not_saved_over_unseen(
    client: Any, api: Any, token: str, game_id: int
) -> None:
    drawn = _sheet_form(client, game_id)
    api.post(f"/api/games/{game_id}/players", {"players": ["Annie", "Bo", "Cy", "Di"]})
    response = client.post(f"/games/{game_id}/players", data={**drawn, "player1": "Anna", "csrf_token": token})
    assert response.status_code == 409
    page = _page(response)
    assert ("Names were changed on another device since this page was opened (player 1 is now \u201cAnnie\u201d). "
            "Yours are in the boxes, not saved yet: save again to replace them.") in page
    assert 'value="Anna"' in page
    assert api.get(f"/api/games/{game_id}").get_json()["players"][0]["name"] == "Annie"
    again = client.post(f"/games/{game_id}/players", data={**_sheet_form(client, game_id), "player1": "Anna",
                                                            "csrf_token": token})
    assert again.status_code == 302
    assert api.get(f"/api/games/{game_id}").get_json()["players"][0]["name"] == "Anna"


@pytest.mark.parametrize(("typed", "status", "note", "said"), [
    ("Di deals next time", 409, "Cy owes a round",
     "The game note was changed on another device since this page was opened. Yours is in the box, not saved yet"),
    ("", 302, "Cy owes a round",     # left as drawn: the other phone's note stays
     "The game note was changed on another device since this page was opened: here it is."),
], ids=["both changed", "only the other"])
def test_a_game_note_changed_on_another_phone_is_not_saved_over_unseen(
    client: Any, api: Any, token: str, game_id: int, typed: str, status: int, note: str, said: str
) -> None:
    drawn = _sheet_form(client, game_id)
    api.post(f"/api/games/{game_id}/note", {"note": "Cy owes a round"})
    response = client.post(f"/games/{game_id}/note", data={"note": typed, "note_was": drawn["note_was"],
                                                           "csrf_token": token}, follow_redirects=status == 302)
    assert response.status_code == (200 if status == 302 else status)
    assert said in _page(response)
    assert api.get(f"/api/games/{game_id}").get_json()["note"] == note


def test_the_hand_page_offers_undo_beside_the_score_only_while_it_is_as_this_phone_left_it(
    client: Any, api: Any, token: str, game_id: int
) -> None:
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 5})
    response = _send(client, token, game_id, 2, None, mode="points", points="9")
    assert response.headers["Location"].endswith(f"/games/{game_id}/hands/1#player-2")   # its card, in view
    undo = 'aria-label="Undo: put Bo\'s earlier score back"'
    assert _page(client.get(f"/games/{game_id}/hands/1")).count(undo) == 1
    api.post(f"/api/games/{game_id}/hands/1/scores/2", {"points": 11})          # changed again elsewhere
    assert undo not in _page(client.get(f"/games/{game_id}/hands/1"))


# --------------------------------------------------------------------- a session let go of


def test_a_form_sent_after_the_phone_let_go_of_its_cookie_comes_back_to_send_again(
    client: Any, app: Any, api: Any, game_id: int
) -> None:
    fresh = app.test_client()        # no session: its token is gone
    response = fresh.post(f"/games/{game_id}/hands/1/players/2",
                          data={"csrf_token": "old", "mode": "cards", "cards": "QH 7S 8D", "was": ""},
                          headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 400
    page = _page(response)
    assert "so nothing was saved. What you sent is below: send it again." in page
    assert "Nothing was saved yet" in page and "Game 1, hand 1, Bo" in page            # where it was going
    assert "<dd>QH 7S 8D</dd>" in page and "<dt>was</dt>" not in page
    resend = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">',
                             response.get_data(as_text=True)))
    assert resend["cards"] == "QH 7S 8D" and resend["csrf_token"] != "old"
    assert fresh.post(f"/games/{game_id}/hands/1/players/2", data=resend).status_code == 302
    assert _score(api, game_id, 1, 2)["cards"] == ["QH", "7S", "8D"]


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Sec-Fetch-Site": "cross-site"},
    {},
], ids=["another site's origin", "a cross-site fetch", "nothing said"])
def test_a_form_without_its_token_from_elsewhere_gets_no_button_to_send_it_again(
    app: Any, api: Any, game_id: int, headers: dict[str, str]
) -> None:
    response = app.test_client().post(f"/games/{game_id}/hands/1/players/2",
                                      data={"mode": "points", "points": "99"}, headers=headers)
    assert response.status_code in (400, 403)      # 403: guard.py refuses another site's form first
    page = _page(response)
    assert "Send it again" not in page and "<dd>99</dd>" not in page and "value=\"99\"" not in page
    assert _score(api, game_id, 1, 2) is None


def test_a_phones_session_outlasts_the_browser(client: Any) -> None:
    cookie = client.get("/api/csrf").headers["Set-Cookie"]
    assert "Expires=" in cookie


def test_the_session_cookie_is_sent_only_when_the_session_changes(client: Any, game_id: int) -> None:
    client.get("/api/csrf")
    for url in ("/static/style.css", f"/api/games/{game_id}/changes", f"/games/{game_id}"):
        assert "Set-Cookie" not in client.get(url).headers, url


def test_a_first_photo_read_is_not_offered_to_let_go(client: Any, token: str, game_id: int,
                                                      jpeg_bytes: bytes) -> None:
    import io

    response = client.post(f"/games/{game_id}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(jpeg_bytes), "hand.jpg")},
                           follow_redirects=True)
    # Nothing saved to keep instead, and the photo just taken: the happy path shows no such button.
    assert "Wrong photo?" not in response.get_data(as_text=True)
