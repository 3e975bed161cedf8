"""A hand in two photos, or a card the first photo missed: "Add another photo's cards"
adds what a second photo reads to the list as it stands, and the hand keeps both photos."""

from __future__ import annotations

import html
import io
import re
import sqlite3
from typing import Any

import pytest


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _read(client: Any, token: str, game_id: int, data: bytes, *, more: bool = False, cards_text: str = "",
          current: int | None = None, seat: int = 2) -> Any:
    form: dict[str, Any] = {"csrf_token": token, "cards_text": cards_text,
                            "more_photo" if more else "photo": (io.BytesIO(data), "IMG_0002.JPG")}
    if current is not None:
        form["current_photo"] = str(current)
    return client.post(f"/games/{game_id}/hands/1/players/{seat}/photo", data=form)


def _photo_id(response: Any) -> int:
    assert response.status_code == 302, response.get_data(as_text=True)
    return int(response.location.split("photo=")[1].split("&")[0])


def _list_on(page: str) -> str:
    return html.unescape(re.search(r'name="cards" class="cards-text" value="([^"]*)"', page).group(1))


@pytest.fixture
def two_photos(client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes) -> tuple[int, int]:
    """Bo's hand read from a photo (QH 7S JK), then 5D 8C read from a second one, added."""
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    detector.cards = ["5D", "8C"]
    second = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH 7S JK", current=first))
    return first, second


def test_a_second_photos_cards_are_added_to_the_list_and_both_photos_shown(
        client: Any, token: str, game_id: int, two_photos: tuple[int, int]) -> None:
    first, second = two_photos
    page = client.get(f"/games/{game_id}/hands/1/players/2?photo={second}").get_data(as_text=True)
    assert _list_on(page) == "QH 7S JK 5D 8C"
    text = _text(page)
    assert "Read 2 cards in this photo and added them to the 3 in the list" in text
    assert "added to the 3 cards listed before it" in text
    assert "The photo of the cards listed before" in text
    assert f'src="/photos/{second}"' in page and f'src="/photos/{first}"' in page
    saved = client.post(f"/games/{game_id}/hands/1/players/2",
                        data={"csrf_token": token, "mode": "cards", "cards": _list_on(page), "photo_id": str(second)})
    assert saved.status_code == 302
    score = client.get(f"/api/games/{game_id}").get_json()["hands"][0]["scores"][1]
    assert (score["cards"], score["photo_id"]) == (["QH", "7S", "JK", "5D", "8C"], second)
    # Back on the page after saving: the saved list, and still both photos.
    again = client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)
    assert _list_on(again) == "QH 7S JK 5D 8C" and f'src="/photos/{first}"' in again


def test_the_list_as_edited_is_what_the_cards_are_added_to(client: Any, token: str, game_id: int,
                                                           detector: Any, jpeg_bytes: bytes) -> None:
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    detector.cards = ["5D"]
    second = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="qh, 9s", current=first))
    page = client.get(f"/games/{game_id}/hands/1/players/2?photo={second}").get_data(as_text=True)
    assert _list_on(page) == "QH 9S 5D"
    assert client.get(f"/api/photos/{second}").get_json()["added_to"] == {"earlier_id": first,
                                                                          "cards_before": ["QH", "9S"]}


def test_a_card_read_in_both_photos_is_pointed_out(client: Any, token: str, game_id: int, detector: Any,
                                                   jpeg_bytes: bytes) -> None:
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    detector.cards = ["QH", "5D"]
    second = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH 7S JK", current=first))
    page = client.get(f"/games/{game_id}/hands/1/players/2?photo={second}").get_data(as_text=True)
    assert _list_on(page) == "QH 7S JK QH 5D"       # two decks: both may be there; the player says
    text = _text(page)
    assert "Read in both photos: Q♥" in text and "If it is one card, remove it once from the list." in text


def test_three_photos_of_one_hand_are_all_shown_and_kept(app: Any, client: Any, token: str, game_id: int,
                                                         detector: Any, jpeg_bytes: bytes) -> None:
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    detector.cards = ["5D"]
    second = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH 7S JK", current=first))
    detector.cards = ["8C"]
    third = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH 7S JK 5D", current=second))
    retaken = _photo_id(_read(client, token, game_id, jpeg_bytes, seat=3))   # read, never used
    page = client.get(f"/games/{game_id}/hands/1/players/2?photo={third}").get_data(as_text=True)
    assert _list_on(page) == "QH 7S JK 5D 8C" and "The photos of the cards listed before" in _text(page)
    assert all(f'src="/photos/{photo}"' in page for photo in (first, second, third))
    client.post(f"/games/{game_id}/hands/1/players/2",
                data={"csrf_token": token, "mode": "cards", "cards": "QH 7S JK 5D 8C", "photo_id": str(third)})
    # A week on, an upload forgets the photos no score uses: not the earlier photos of a used one.
    with sqlite3.connect(app.config["DATABASE"]) as db:
        db.execute("UPDATE photo SET created = datetime('now', '-8 days')")
    _read(client, token, game_id, jpeg_bytes, seat=4)
    assert [client.get(f"/api/photos/{photo}").status_code for photo in (first, second, third)] == [200] * 3
    assert client.get(f"/api/photos/{retaken}").status_code == 404


def test_a_photo_sent_to_add_to_an_empty_list_is_read_as_the_first(client: Any, token: str, game_id: int,
                                                                   jpeg_bytes: bytes) -> None:
    page = client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)
    assert "Add another photo's cards" not in page               # nothing to add to yet
    photo = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text=""))
    assert client.get(f"/api/photos/{photo}").get_json()["added_to"] is None
    page = client.get(f"/games/{game_id}/hands/1/players/2?photo={photo}").get_data(as_text=True)
    assert _list_on(page) == "QH 7S JK" and "Add another photo's cards" in page


def test_a_list_with_a_mistake_is_said_and_kept_and_nothing_read(client: Any, token: str, game_id: int,
                                                                  detector: Any, jpeg_bytes: bytes) -> None:
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    calls = detector.calls
    response = _read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH XX", current=first)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "XX" in _text(page) and _list_on(page) == "QH XX"    # said, and the list kept to mend
    assert detector.calls == calls and client.get(f"/api/photos/{first + 1}").status_code == 404


def test_a_photo_of_another_game_is_not_linked_but_the_cards_still_count(client: Any, api: Any, token: str,
                                                                         game_id: int, detector: Any,
                                                                         jpeg_bytes: bytes) -> None:
    other = api.post("/api/games", {"variant": "once", "players": ["Eve", "Fay"]}).get_json()["id"]
    elsewhere = _photo_id(_read(client, token, other, jpeg_bytes))
    detector.cards = ["5D"]
    photo = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH", current=elsewhere))
    assert client.get(f"/api/photos/{photo}").get_json()["added_to"] == {"earlier_id": None, "cards_before": ["QH"]}
    page = client.get(f"/games/{game_id}/hands/1/players/2?photo={photo}").get_data(as_text=True)
    assert _list_on(page) == "QH 5D" and f'src="/photos/{elsewhere}"' not in page


def test_a_deleted_game_takes_its_additions_along(app: Any, client: Any, api: Any, game_id: int,
                                                  two_photos: tuple[int, int]) -> None:
    from webapp.db import get_db
    from webapp.model import DELETED_GAME_DAYS, forget_deleted_games

    api.delete(f"/api/games/{game_id}")
    with app.app_context():
        db = get_db()
        db.execute("UPDATE game SET deleted = datetime('now', ?)", (f"-{DELETED_GAME_DAYS + 1} days",))
        forget_deleted_games(db)
        assert db.execute("SELECT COUNT(*) FROM photo_addition").fetchone()[0] == 0


def test_a_rescue_copies_the_additions(app: Any, two_photos: tuple[int, int]) -> None:
    from webapp.db import get_db, remove_snapshot, rescue_copy

    first, second = two_photos
    with app.app_context():
        path, lost = rescue_copy(get_db())
    with sqlite3.connect(path) as copy:
        rows = copy.execute("SELECT photo_id, earlier_id, cards_before FROM photo_addition").fetchall()
    remove_snapshot(path)
    assert lost == {} and rows == [(second, first, '["QH", "7S", "JK"]')]


def test_the_api_adds_a_photos_cards_to_those_before_it(client: Any, api: Any, token: str, game_id: int,
                                                        detector: Any, jpeg_bytes: bytes) -> None:
    def post(**fields: str) -> Any:
        return client.post("/api/photos", data={"photo": (io.BytesIO(jpeg_bytes), "hand.jpg"), **fields},
                           headers={"X-CSRF-Token": token})

    first = post(game_id=str(game_id)).get_json()
    assert first["added_to"] is None
    detector.cards = ["5D"]
    second = post(game_id=str(game_id), cards_before="qh 7s jk", earlier_id=str(first["id"]))
    assert second.status_code == 201
    assert second.get_json()["added_to"] == {"earlier_id": first["id"], "cards_before": ["QH", "7S", "JK"]}
    refused = post(game_id=str(game_id), earlier_id=str(first["id"]))
    assert refused.status_code == 400 and "needs \"cards_before\"" in refused.get_json()["error"]
    unknown = post(game_id=str(game_id), cards_before="QH", earlier_id="999")   # an id in the body: bad input
    assert unknown.status_code == 400 and unknown.get_json() == {"error": "Photo 999 doesn't exist."}
    assert post(game_id="999").status_code == 400
    assert post(cards_before="QH", earlier_id=str(first["id"])).status_code == 400   # no game named
    # A list no hand can hold is refused before anything is read or kept.
    calls = detector.calls
    too_many = post(game_id=str(game_id), cards_before="2C " * 27)
    assert too_many.status_code == 400 and "27 cards: a hand holds at most 26" in too_many.get_json()["error"]
    impossible = post(game_id=str(game_id), cards_before="2C 2C 2C")   # the game has two decks
    assert impossible.status_code == 400 and "3 × 2C" in impossible.get_json()["error"]
    assert detector.calls == calls


def test_without_javascript_the_list_the_page_drew_is_sent_along(client: Any, token: str, game_id: int,
                                                                  jpeg_bytes: bytes) -> None:
    """An old phone sends the form with "Read the cards": the hidden list is the page's own."""
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    page = client.get(f"/games/{game_id}/hands/1/players/2?photo={first}").get_data(as_text=True)
    assert '<input type="hidden" name="cards_text" value="QH 7S JK">' in page


def test_two_photos_chosen_at_once_are_refused_and_the_list_kept(client: Any, token: str, game_id: int,
                                                                 detector: Any, jpeg_bytes: bytes) -> None:
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    calls = detector.calls
    response = client.post(f"/games/{game_id}/hands/1/players/2/photo", data={
        "csrf_token": token, "cards_text": "QH 9S", "current_photo": str(first),
        "photo": (io.BytesIO(jpeg_bytes), "a.jpg"), "more_photo": (io.BytesIO(jpeg_bytes), "b.jpg")})
    assert response.status_code == 400 and detector.calls == calls
    page = response.get_data(as_text=True)
    assert "Two photos were chosen: choose one" in _text(page) and _list_on(page) == "QH 9S"


def test_a_photo_added_and_let_go_gives_the_list_back_as_it_was_before_it(
        client: Any, token: str, game_id: int, detector: Any, jpeg_bytes: bytes) -> None:
    client.post(f"/games/{game_id}/hands/1/players/2", data={"csrf_token": token, "mode": "points", "points": "30"})
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    detector.cards = ["5D"]
    second = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH 7S", current=first))
    # Offered at once, the list before it named.
    just_read = client.get(f"/games/{game_id}/hands/1/players/2?photo={second}").get_data(as_text=True)
    assert "Wrong photo? Let it go and keep the list before it" in just_read
    waiting = client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)
    assert _list_on(waiting) == "QH 7S 5D" and "Wrong photo? Let it go" in waiting
    let_go = client.post(f"/games/{game_id}/hands/1/players/2/forget-photo", data={"csrf_token": token})
    page = client.get(let_go.location).get_data(as_text=True)
    assert "The photo added is let go; the list is as it was before it: QH 7S." in _text(page)
    assert _list_on(page) == "QH 7S" and f'src="/photos/{first}"' in page
    # The first photo waits again, as it did before the second was added.
    again = client.get(f"/games/{game_id}/hands/1/players/2").get_data(as_text=True)
    assert f'src="/photos/{first}"' in again and "not saved yet" in again


def test_a_photo_added_that_reads_no_card_leaves_the_list_and_says_so(client: Any, token: str, game_id: int,
                                                                      detector: Any, jpeg_bytes: bytes) -> None:
    first = _photo_id(_read(client, token, game_id, jpeg_bytes))
    detector.cards = []
    second = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH 7S JK", current=first))
    page = client.get(f"/games/{game_id}/hands/1/players/2?photo={second}").get_data(as_text=True)
    assert "No card could be read in this photo, so the list is as it was: take a closer photo" in _text(page)
    assert "added them" not in page and _list_on(page) == "QH 7S JK"


def test_a_card_already_typed_in_the_list_is_not_said_to_be_in_two_photos(client: Any, token: str, game_id: int,
                                                                          detector: Any, jpeg_bytes: bytes) -> None:
    detector.cards = ["QH", "5D"]
    photo = _photo_id(_read(client, token, game_id, jpeg_bytes, more=True, cards_text="QH 9S"))   # typed, no photo
    text = _text(client.get(f"/games/{game_id}/hands/1/players/2?photo={photo}").get_data(as_text=True))
    assert "Read in this photo and already in the list: Q♥" in text and "Read in both photos" not in text
    assert "against the photo, then save" in text


def _jpeg(bgr: tuple[int, int, int]) -> bytes:
    import cv2
    import numpy as np

    ok, encoded = cv2.imencode(".jpg", np.full((200, 320, 3), bgr, np.uint8))
    assert ok
    return encoded.tobytes()


# Two photos of one hand of a four-corner deck: the red photo and the blue one. Read as not
# sure of the deck, a card whose top strip alone shows is counted twice.
RED, BLUE = (40, 40, 220), (220, 40, 40)
SEEN = {("red", "auto"): ["QH", "QH", "7S"], ("red", "four"): ["QH", "7S"],
        ("blue", "auto"): ["5D", "5D"], ("blue", "four"): ["5D"]}


def _four_corner_photos(image: Any, corners: str) -> list[str]:
    blue, _, red = image.reshape(-1, 3).mean(axis=0)
    return SEEN["red" if red > blue else "blue", corners]


@pytest.mark.parametrize(("list_sent", "list_after"), [
    ("QH QH 7S", "QH 7S 5D"),          # as the first photo read it: it follows the new reading
    ("QH 7S 9C", "QH 7S 9C 5D"),       # changed by hand: the player's list stays
])
def test_a_four_corner_deck_said_on_the_second_photo_reads_both_photos_again(
        client: Any, token: str, game_id: int, detector: Any, list_sent: str, list_after: str) -> None:
    detector.sees = _four_corner_photos
    detector.four_corner_deck = True
    first = _photo_id(_read(client, token, game_id, _jpeg(RED)))
    second = _photo_id(_read(client, token, game_id, _jpeg(BLUE), more=True, cards_text=list_sent, current=first))
    answer = client.post(f"/games/{game_id}/hands/1/players/2/four-corners",
                         data={"csrf_token": token, "photo_id": str(second)})
    assert answer.status_code == 302 and answer.location.endswith(f"?photo={second}")
    assert detector.corners == ["auto", "auto", "four", "four"]
    page = client.get(answer.location).get_data(as_text=True)
    assert _list_on(page) == list_after
    assert f"The photos read again: {len(list_after.split())} cards in the list" in _text(page)
    assert [card["card"] for card in client.get(f"/api/photos/{first}").get_json()["cards"]] == ["QH", "7S"]
    assert client.get(f"/api/photos/{second}").get_json()["added_to"] == {
        "earlier_id": first, "cards_before": list_after.split()[:-1]}


def test_a_second_photo_that_cannot_be_read_again_leaves_both_as_they_were_to_try_again(
        client: Any, token: str, game_id: int, detector: Any) -> None:
    from webapp import model

    detector.sees = _four_corner_photos
    detector.four_corner_deck = True
    first = _photo_id(_read(client, token, game_id, _jpeg(RED)))
    second = _photo_id(_read(client, token, game_id, _jpeg(BLUE), more=True, cards_text="QH QH 7S", current=first))

    def blue_fails(image: Any, corners: str) -> list[str]:
        seen = _four_corner_photos(image, corners)
        if seen == SEEN["blue", "four"]:
            raise model.DetectorUnavailableError("The card reader is not installed here.")
        return seen

    detector.sees = blue_fails
    url = f"/games/{game_id}/hands/1/players/2/four-corners"
    client.post(url, data={"csrf_token": token, "photo_id": str(second)})
    # Neither photo was written: the first still reads as it did, the list is as it was.
    assert [card["card"] for card in client.get(f"/api/photos/{first}").get_json()["cards"]] == ["QH", "QH", "7S"]
    assert client.get(f"/api/photos/{second}").get_json()["added_to"]["cards_before"] == ["QH", "QH", "7S"]
    detector.sees = _four_corner_photos
    answer = client.post(url, data={"csrf_token": token, "photo_id": str(second)})
    assert _list_on(client.get(answer.location).get_data(as_text=True)) == "QH 7S 5D"
