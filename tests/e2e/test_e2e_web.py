"""The score sheet in a real headless Chromium: what a family does at the table."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import cards_photo, needs_art

from .conftest import (ARTIFACTS, CONTEXT, DATA, MODEL, StandInDetector, assert_accessible, assert_no_sideways_scroll,
                       shoot)

pytestmark = pytest.mark.e2e

PHOTO = DATA / "web_edje_IMG_2560.jpg"


def _api(server: Any, path: str) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=30) as response:
        return json.loads(response.read())


def _points(page: Any) -> str:
    return page.locator(".points-total").inner_text().strip()


def _press_start(page: Any) -> None:
    """Start the game on the new-game form, as another one when the tests' shared book holds a
    game of the same table started minutes ago (the form asks first)."""
    page.click("button:has-text('Start the game')")
    page.wait_for_selector("table.sheet, .twin-game")
    if page.locator(".twin-game").count():
        page.click("button:has-text('Start another game')")
        page.wait_for_selector("table.sheet")


def _start_game(page: Any, server: Any, names: list[str]) -> str:
    """Start a game of ``names`` from the new-game form (every other setting left as it is):
    its sheet's URL."""
    page.goto(server.url + "/games/new")
    for seat, name in enumerate(names, start=1):
        page.fill(f"input[name=player{seat}]", name)
    _press_start(page)
    return str(page.url.rstrip("/"))


def test_a_game_at_the_table(page: Any, live_server: Any) -> None:
    base = live_server.url
    page.goto(base + "/")
    shoot(page, "01-home-empty")

    # Create a game.
    page.click("text=New game")
    page.select_option("#variant", "llenroc")
    for i, name in enumerate(["Ann", "Bo", "Cy", "Di"], start=1):
        page.fill(f"input[name=player{i}]", name)
    page.select_option("#first-dealer", "2")
    page.fill("textarea[name=note]", "Thanksgiving at Grandma's")
    shoot(page, "02-new-game")
    _press_start(page)
    game_url = page.url
    assert "Bo</strong> deals" in page.content()
    shoot(page, "03-sheet-new")

    # Score Bo's hand from a real photo.
    page.click("text=Score hand 1")
    page.wait_for_selector("#hand-form")
    page.click("#player-2 >> text=Photo / cards")
    page.wait_for_selector("#photo-input", state="attached")
    with page.expect_navigation():
        page.set_input_files("#photo-input", str(PHOTO))
    page.wait_for_selector("figure.photo img")
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() !== '\\u2013'")
    chips = page.locator(".chips li")
    # Every card the detector read is boxed on the photo and listed as a chip.
    assert page.locator("svg.boxes rect:not(.edge)").count() == chips.count()
    assert page.locator("svg.boxes text").count() == chips.count()
    if chips.count() == 0:        # the detector missed every card: add one by picking it
        page.select_option(".add-pick", "QS")
        page.wait_for_function("document.querySelectorAll('.chips li').length === 1")
        page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '10'")
    count = chips.count()
    before = _points(page)
    shoot(page, "04-photo-read")

    # The player corrects the first card to a Joker: the points follow.
    first = chips.nth(0).locator("select")
    old = first.input_value()
    new = "JK" if old != "JK" else "KS"
    first.select_option(new)
    page.wait_for_function(f"document.querySelector('.points-total').textContent.trim() !== '{before}'")
    cards = page.input_value("input.cards-text").split()
    assert cards[0] == new and len(cards) == count
    after = int(_points(page))
    expected = json.loads(urllib.request.urlopen(urllib.request.Request(
        base + "/api/score", data=json.dumps({"variant": "llenroc", "cards": cards}).encode(),
        headers={"Content-Type": "application/json"}), timeout=30).read())["points"]
    assert after == expected

    # Add a missed card by typing it.
    page.fill(".add-text", "5d")
    page.press(".add-text", "Enter")
    page.wait_for_function(f"document.querySelector('.points-total').textContent.trim() === '{after + 5}'")
    assert page.locator(".chips li").count() == count + 1
    shoot(page, "05-photo-corrected")

    # An impossible hand is flagged and cannot be saved.
    page.fill(".add-text", "5d 5d")
    page.press(".add-text", "Enter")
    page.wait_for_selector(".editor-error:not([hidden])")
    assert "5D" in page.inner_text(".editor-error")
    # Blocked, not disabled: Save stays in the Tab order, and pressed it points to the error.
    assert page.get_attribute(".save-btn", "aria-disabled") == "true"
    page.focus(".save-btn")          # reached by Tab, as a disabled button is not
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.classList.contains('editor-error')")
    assert "/players/2" in page.url and "Saved Bo's score" not in page.content()
    shoot(page, "06-impossible-hand")
    page.locator(".chips li").last.locator(".chip-remove").click()
    page.locator(".chips li").last.locator(".chip-remove").click()
    page.wait_for_selector(".editor-error", state="hidden")

    page.click(".save-btn")
    page.wait_for_selector("text=Saved Bo's score for hand 1.")
    saved = after + 5
    assert str(saved) in page.inner_text("#player-2")

    # Type Cy's score; mark Ann as out.
    page.fill("#player-3 input[name=points]", "23")
    page.click("#player-3 button:has-text('Save')")
    page.wait_for_selector("text=Saved Cy's score for hand 1.")
    page.check("#hand-form input[name=out][value='1']")
    page.fill("#hand-form textarea[name=note]", "Ann went out on the first turn <3")
    page.click("#hand-form button:has-text('Save hand')")
    page.wait_for_selector("text=Hand 1 saved.")
    shoot(page, "07-hand")

    # The sheet shows the total; it survives a reload and a server restart.
    page.goto(game_url)
    assert page.inner_text("tfoot td[data-seat='2']") == str(saved)
    assert page.inner_text("tfoot td[data-seat='3']") == "23"
    page.reload()
    assert page.inner_text("tfoot td[data-seat='2']") == str(saved)
    live_server.restart()
    page.goto(game_url.replace(base, live_server.url))
    assert page.inner_text("tfoot td[data-seat='2']") == str(saved)
    assert "Ann went out on the first turn &lt;3" in page.content()
    shoot(page, "08-sheet-scored")


def _photo_on_player_page(page: Any, live_server: Any, players: list[str], hand: int, seat: int,
                          photo: Path) -> None:
    """Start a game of ``players``, open one player's page for ``hand`` and upload ``photo`` there."""
    game_url = _start_game(page, live_server, players)
    page.goto(game_url + f"/hands/{hand}/players/{seat}")
    with page.expect_navigation():
        page.set_input_files("#photo-input", str(photo))


def test_a_photo_being_read_is_said_while_it_is_read(page: Any, live_server: Any) -> None:
    """The words 'Reading the cards…' drawn by CSS are not read out: a status says them too.
    (The form is kept from leaving the page, so that the page can be looked at while it waits.)"""
    game_url = _start_game(page, live_server, ["Kim", "Lee"])
    page.goto(game_url + "/hands/1/players/2")
    page.evaluate("HTMLFormElement.prototype.submit = function () { window.sent = this.action; }")
    page.set_input_files("#photo-input", str(DATA / "web_edje_IMG_2571.jpg"))
    page.wait_for_function("(document.querySelector('.reading-status') || {}).textContent === 'Reading the cards…'")
    assert page.get_attribute(".reading-status", "role") == "status"
    assert page.evaluate("window.sent").endswith("/photo") and page.locator("form.busy[aria-busy=true]").count() == 1


def test_photo_boxes_are_drawn_on_the_cards(page: Any, live_server: Any) -> None:
    """With a reading that has cards (the photo's labels), each is boxed and named on the photo."""
    saved = live_server.app.config["DETECT"]
    live_server.app.config["DETECT"] = StandInDetector()
    try:
        _photo_on_player_page(page, live_server, ["Hal", "Ivy", "Jo"], 2, 3, DATA / "web_edje_IMG_2571.jpg")
        page.wait_for_selector("figure.photo img")
        assert page.locator("svg.boxes rect:not(.edge)").count() == 3
        assert page.locator("svg.boxes text").all_text_contents() == ["Q♣", "10♠", "9♥"]
        page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '29'")
        # The overlay is scaled to the displayed photo: the 10♠ box sits over the right half.
        img = page.locator("figure.photo img").bounding_box()
        box = page.locator("svg.boxes rect:not(.edge)").nth(1).bounding_box()
        assert abs(box["x"] - (img["x"] + 157 / 378 * img["width"])) < 3
        assert abs(box["width"] - (336 - 157) / 378 * img["width"]) < 3
        shoot(page, "04b-photo-boxes")
    finally:
        live_server.app.config["DETECT"] = saved


@needs_art
@pytest.mark.skipif(not MODEL.exists(), reason="the shipped models are not in models/")
def test_a_star_joker_alone_is_asked_one_joker_or_two(page: Any, live_server: Any, art_cache: Path,
                                                      tmp_path: Path) -> None:
    """The shipped detector reads a lone ringed star's two corners as two Jokers; nothing in
    the photo tells one card from two, so the page asks and the player takes one away."""
    import cv2

    from onze_vision.synth.art import load_decks

    star = load_decks(names=["tigullio"], cache=art_cache)[0].cards["JK"]
    path = tmp_path / "star.png"
    cv2.imwrite(str(path), cards_photo([(star, 0.0)], 300, seed=0))
    _photo_on_player_page(page, live_server, ["Una", "Vic"], 1, 2, path)
    page.wait_for_selector("figure.photo img")
    assert page.locator(".unsure-cards li.joker-count .card").count() == 2   # both Jokers, asked once
    assert page.locator("svg.boxes g.unsure").count() == 2   # dashed, as every reading to check
    shoot(page, "04f-joker-count-unsure")


def _far_shot_on_player_page(page: Any, live_server: Any, tmp_path: Path, players: list[str],
                             reload: bool = False) -> None:
    """Upload a photo whose two cards lie in a small part of it, and check that the frame
    shows that part with the boxes on the cards (``reload``: on the page loaded again, not
    the one the upload was redirected to)."""
    import cv2
    import numpy as np

    from onze_vision.detector import DetectedCard, PhotoReading

    photo = np.full((2000, 3000, 3), (40, 110, 40), np.uint8)
    boxes = [(1400.0, 900.0, 1460.0, 990.0), (1480.0, 900.0, 1540.0, 990.0)]
    for x1, y1, x2, y2 in boxes:  # two white "cards" where the stand-in reads them
        cv2.rectangle(photo, (int(x1), int(y1)), (int(x2), int(y2)), (250, 250, 250), -1)
    path = tmp_path / "far.jpg"
    cv2.imwrite(str(path), photo)
    saved = live_server.app.config["DETECT"]
    live_server.app.config["DETECT"] = lambda data, corners="auto": PhotoReading(
        3000, 2000, [DetectedCard("QH", 0.95, boxes[0]), DetectedCard("7S", 0.95, boxes[1])])
    try:
        _photo_on_player_page(page, live_server, players, 1, 1, path)
    finally:
        live_server.app.config["DETECT"] = saved
    if reload:
        page.goto(page.url)
    page.wait_for_selector("figure.photo .photo-frame.zoomed img")
    page.wait_for_function("document.querySelector('figure.photo img').complete")
    frame = page.locator("figure.photo .photo-frame").bounding_box()
    img = page.locator("figure.photo img").bounding_box()
    # The whole photo is laid out larger than the frame, which shows the cards' part.
    assert frame["height"] > 100 and img["width"] > 4 * frame["width"]
    for rect in page.locator("svg.boxes rect:not(.edge)").all():
        box = rect.bounding_box()
        assert frame["x"] <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1
        assert frame["y"] <= box["y"] and box["y"] + box["height"] <= frame["y"] + frame["height"] + 1
        assert box["width"] > 40  # a card's box is large enough to see on a phone
    # And the white card is under its box: the frame shows the photo's pixels there.
    first = page.locator("svg.boxes rect:not(.edge)").first.bounding_box()
    shot = page.screenshot(clip={"x": first["x"] + first["width"] / 2, "y": first["y"] + first["height"] / 2,
                                 "width": 1, "height": 1})
    pixel = cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_COLOR)[0, 0]
    assert pixel.min() > 180, pixel


def test_a_far_shot_is_shown_zoomed_to_its_cards(page: Any, live_server: Any, tmp_path: Path) -> None:
    """Cards in a small part of a large photo: the frame shows that part, the boxes on the cards."""
    _far_shot_on_player_page(page, live_server, tmp_path, ["Kim", "Lou"])
    shoot(page, "04d-far-shot-zoomed")


@pytest.fixture
def old_phone_page(browser: Any) -> Iterator[Any]:
    """A page laid out as an old phone's browser lays it out (iOS 12-14, Chrome before 84):
    no aspect-ratio, inset or flex gap, no form.requestSubmit; the style sheet's blocks for
    such browsers, which Chromium would skip, are taken. (Playwright routes a redirect's
    first request only: a page reached by one must be loaded again to be seen so.)"""
    import re

    from .conftest import PHONE
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, **CONTEXT)
    context.add_init_script("delete HTMLFormElement.prototype.requestSubmit;"
                            "document.addEventListener('DOMContentLoaded', function () {"
                            "  document.querySelectorAll('*').forEach(function (e) {"
                            "    if (getComputedStyle(e).display.indexOf('flex') >= 0) e.style.gap = 'normal'; }); });")

    def old_css(route: Any) -> None:
        css = route.fetch().text()
        assert "@supports not (inset: 0)" in css and "@supports not (aspect-ratio: 1)" in css
        css = css.replace("inset: 0;", "").replace("@supports not (inset: 0)", "@supports (display: block)")
        route.fulfill(status=200, content_type="text/css",
                      body=css.replace("@supports not (aspect-ratio: 1)", "@supports (display: block)"))

    def without_aspect_ratio(route: Any) -> None:
        if route.request.method != "GET":
            route.continue_()
            return
        answer = route.fetch()
        route.fulfill(response=answer, body=re.sub(r"aspect-ratio:[^;]*;", "", answer.text()))

    context.route("**/static/style.css", old_css)
    context.route(re.compile(r".*/players/\d+(\?.*)?$"), without_aspect_ratio)
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    # A route still fetching when the test ends would fail the next test's setup.
    context.unroute_all(behavior="ignoreErrors")
    context.close()


def test_an_old_phone_shows_a_far_shot_zoomed_and_saves_typed_cards_with_enter(
        old_phone_page: Any, live_server: Any, tmp_path: Path) -> None:
    _far_shot_on_player_page(old_phone_page, live_server, tmp_path, ["Abe", "Bea"], reload=True)
    assert "aspect-ratio" not in old_phone_page.content()
    old_phone_page.screenshot(path=str(ARTIFACTS / "04m-old-phone-far-shot.png"), full_page=True)
    old_phone_page.fill("input.cards-text", "QH 8S 7S")
    old_phone_page.press("input.cards-text", "Enter")
    old_phone_page.wait_for_selector(".flash-ok")
    game_id = old_phone_page.url.split("/games/")[1].split("/")[0]
    assert _api(live_server, f"/api/games/{game_id}")["hands"][0]["scores"][0]["points"] == 25


def test_cards_typed_and_not_saved_come_back_after_a_reload(page: Any, live_server: Any) -> None:
    """A phone may reload the tab while its camera is open: the list typed is not lost."""
    sheet = _start_game(page, live_server, ["Ray", "Sue"])
    page.goto(sheet + "/hands/1/players/2")
    page.fill("input.cards-text", "KH KD 7S ")
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '27'")
    page.reload()
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '27'")
    assert page.input_value(".cards-text") == "KH KD 7S"
    assert page.locator(".draft-note").inner_text() == "The cards typed before the page reloaded are back: not saved yet."
    assert_accessible(page, "a player's page with the cards typed before a reload")
    page.click(".save-btn")
    page.wait_for_selector("text=Saved")
    page.goto(sheet + "/hands/1/players/2")   # saved: the list is the saved one, no draft said
    assert page.input_value(".cards-text") == "KH KD 7S" and page.locator(".draft-note").count() == 0
    # Cleared (typed for the wrong player, say): the page is empty again, the list spent.
    page.goto(sheet + "/hands/1")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#player-2 .clear-score button")
    page.wait_for_selector("text=Cleared Sue's score")
    page.goto(sheet + "/hands/1/players/2")
    assert page.input_value(".cards-text") == "" and page.locator(".draft-note").count() == 0


def test_more_cards_than_were_dealt_are_pointed_out_as_they_are_typed(page: Any, live_server: Any) -> None:
    sheet = _start_game(page, live_server, ["Uma", "Vic"])
    dealt = _api(live_server, "/api/games/" + sheet.rsplit("/", 1)[1])["hands"][0]["cards_dealt"]
    page.goto(sheet + "/hands/1/players/2")
    codes = "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC".split()
    page.fill("input.cards-text", " ".join(codes[:dealt]) + " ")
    assert page.locator(".count-note").is_hidden()
    page.fill("input.cards-text", " ".join(codes[:dealt + 1]) + " ")
    page.wait_for_selector(".count-note", state="visible")
    assert page.locator(".count-note").inner_text().startswith(f"{dealt + 1} cards: more than the {dealt} dealt.")
    assert_accessible(page, "a player's page listing more cards than were dealt")
    page.click(".chip-remove >> nth=0")
    page.wait_for_selector(".count-note", state="hidden")


def test_an_unsure_card_is_fixed_with_one_tap(page: Any, live_server: Any) -> None:
    """A 9H read as 6H, unsure, with 9H offered, and a QC possibly missed: a tap each puts them in the list."""
    saved = live_server.app.config["DETECT"]
    live_server.app.config["DETECT"] = StandInDetector(misread={"9H": ("6H", "9H")}, missed=("QC",))
    try:
        _photo_on_player_page(page, live_server, ["Kit", "Lou"], 1, 2, DATA / "web_edje_IMG_2571.jpg")
        page.wait_for_selector(".unsure-cards")
        assert page.locator("svg.boxes text").all_text_contents() == ["10♠", "6♥?", "Q♣?"]
        assert page.locator("svg.boxes .unsure rect").count() == 1
        assert page.locator("svg.boxes .maybe rect:not(.edge)").count() == 1
        page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '16'")
        shoot(page, "04c-unsure-card")
        page.focus(".swap-btn")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '19'")
        # A spent button hands focus to the card it changed or added, for the keyboard's user.
        assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Card 2, 9 of hearts: change it"
        page.focus(".add-maybe-btn")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '29'")
        assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Card 3, queen of clubs: change it"
        assert page.input_value(".cards-text") == "10S 9H QC"
        # Shown as the chips show a card, said in words as they say it.
        added, swapped = page.locator(".add-maybe-btn"), page.locator(".swap-btn")
        assert added.text_content() == "Added Q♣queen of clubs" and swapped.text_content() == "Changed to 9♥9 of hearts"
        assert added.locator("[aria-hidden=true]").inner_text() == "Q♣" and swapped.is_disabled()
        assert added.locator(".visually-hidden").inner_text() == "queen of clubs"
        page.click(".save-btn")
        page.wait_for_selector("text=Saved")
        score = _api(live_server, f"/api/games/{page.url.split('/games/')[1].split('/')[0]}")["hands"][0]["scores"][1]
        assert score["cards"] == ["10S", "9H", "QC"] and score["points"] == 29
    finally:
        live_server.app.config["DETECT"] = saved


def test_the_boxes_on_the_photo_follow_the_card_list(page: Any, live_server: Any) -> None:
    """Which box is which chip: a chip pointed at lights its box; a card taken out of the list
    greys its box; a card possibly missed, added, is drawn as read; a swap keeps its box."""
    saved = live_server.app.config["DETECT"]
    live_server.app.config["DETECT"] = StandInDetector(misread={"9H": ("6H", "9H")}, missed=("QC",))
    try:
        _photo_on_player_page(page, live_server, ["Kit", "Lou"], 1, 2, DATA / "web_edje_IMG_2571.jpg")
        page.wait_for_selector(".unsure-cards")
        boxes = "svg.boxes g.box"

        def classes() -> list[list[str]]:
            return page.eval_on_selector_all(boxes, "gs => gs.map(g => Array.from(g.classList).filter("
                                                    "c => ['gone', 'taken', 'lit'].includes(c)))")

        assert classes() == [[], [], []]                                   # 10S, 6H?, QC? (offered)
        page.hover(".chips li:nth-child(1)")
        assert classes() == [["lit"], [], []]
        page.hover("h1")
        page.click(".chips li:nth-child(1) .chip-remove")                 # 10S out of the list
        # Focus went on to the next chip, 6H, read unsure: its box is lit.
        assert classes() == [["gone"], ["lit"], []]
        page.click(".swap-btn")                                            # 6H read unsure: it is 9H
        page.click(".add-maybe-btn")                                       # QC is there after all
        page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '19'")
        assert classes() == [["gone"], [], ["taken", "lit"]]               # focus on the QC chip added
        # The labels say the cards the boxes now stand for: 6H? swapped is 9H, QC? added is QC.
        assert page.locator("svg.boxes text").all_text_contents() == ["10♠", "9♥", "Q♣"]
        page.focus(".chips li:nth-child(1) select")                        # the 9H chip: the swapped box
        assert classes() == [["gone"], ["lit"], ["taken"]]
        shoot(page, "04k-boxes-follow-the-list")
    finally:
        live_server.app.config["DETECT"] = saved


def test_an_empty_list_shows_no_points_but_for_the_player_who_went_out(page: Any, live_server: Any) -> None:
    """No cards is no score (a green 0 is the best score there is), unless the player went out."""
    game_url = _start_game(page, live_server, ["Ann", "Bo", "Cy"])
    page.goto(game_url + "/hands/1/players/2")
    page.fill("input.cards-text", "QH")
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '10'")
    page.click(".chips li:nth-child(1) .chip-remove")
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '\u2013'")
    page.goto(game_url + "/hands/1")                                  # Bo went out
    page.check("#hand-form input[name=out][value='2']")
    with page.expect_navigation():
        page.click("#hand-form button[type=submit]")
    page.goto(game_url + "/hands/1/players/2")
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '0'")


def _unreachable(page: Any, pattern: str, method: str) -> None:
    """Requests of ``method`` to ``pattern`` get no answer, as from a laptop asleep."""
    page.route(pattern, lambda route: route.abort() if route.request.method == method else route.continue_())


def test_a_form_sent_while_the_sheet_cannot_be_reached_stays_as_typed(page: Any, live_server: Any) -> None:
    """A new game of six names, sent with the laptop asleep: the browser's error page would
    lose them (and Back skips past it); the form stays, says why, and sends once it is back."""
    page.goto(live_server.url + "/games/new")
    names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"]
    for seat, name in enumerate(names, start=1):
        page.fill(f"input[name=player{seat}]", name)
    _unreachable(page, "**/games/new", "HEAD")
    page.click("button:has-text('Start the game')")
    page.wait_for_selector("#new-game .unreachable")
    assert "can't be reached" in page.inner_text("#new-game .unreachable")
    assert page.url.endswith("/games/new") and page.input_value("input[name=player6]") == "Flo"
    # Said once, beside the button pressed, which keeps the focus: Enter tries again.
    assert page.evaluate("document.activeElement.textContent.trim()") == "Start the game"
    assert page.evaluate("document.getElementById(document.activeElement.getAttribute('aria-describedby'))"
                         ".classList.contains('unreachable')")
    page.unroute("**/games/new")
    _press_start(page)                              # sent now, "Start another game" with its name
    assert all(name in page.inner_text("table.sheet thead") for name in names)


def test_a_hand_mark_and_points_typed_stay_when_the_sheet_cannot_be_reached(page: Any, live_server: Any) -> None:
    """Who went out chosen, then a player's points typed and saved with the laptop asleep: the
    page stays with both, where it used to send the hand's form into the browser's error page."""
    game_url = _start_game(page, live_server, ["Ann", "Bo", "Cy"])
    page.goto(game_url + "/hands/1")
    page.check("#hand-form input[name=out][value='1']")
    page.fill("input[aria-label='Points for Bo']", "55")
    _unreachable(page, "**/hands/1", "POST")
    page.click("button[aria-label=\"Save Bo's points\"]")
    page.wait_for_selector(".unreachable")
    assert page.is_checked("#hand-form input[name=out][value='1']")
    assert page.input_value("input[aria-label='Points for Bo']") == "55"
    page.unroute("**/hands/1")
    page.click("button[aria-label=\"Save Bo's points\"]")
    page.wait_for_selector(".flash-ok")
    hand = _api(live_server, game_url.replace(live_server.url, "/api"))["hands"][0]
    assert hand["out"] == 1 and hand["scores"][1]["points"] == 55


def _hand_page(page: Any, server: Any, names: list[str]) -> str:
    """Start a game of ``names`` and open its hand 1: the game's address in the API."""
    game_url = _start_game(page, server, names)
    page.goto(game_url + "/hands/1")
    return game_url.replace(server.url, "/api")


def _slow_saves(page: Any) -> None:
    """Each player's score sent takes 0.7 s, as on a weak Wi-Fi: a round of saves is caught midway."""
    page.route("**/players/*", lambda route: (page.wait_for_timeout(700), route.continue_())
               if route.request.method == "POST" else route.continue_())


@pytest.mark.parametrize("then", ["Save Ann's points", "Clear", "Photo / cards for Cy", "Save hand"])
def test_points_typed_for_several_players_are_all_saved_by_one_tap(page: Any, live_server: Any, then: str) -> None:
    """A family types every player's points, then taps one Save (or goes on to another player,
    or saves who went out): each number typed is saved, where all but the one tapped were lost."""
    api_game = _hand_page(page, live_server, ["Ann", "Bo", "Cy", "Di"])
    if then == "Clear":   # Di's earlier score, to clear: a tap that is no Save of points
        page.fill("input[aria-label='Points for Di']", "9")
        page.click("button[aria-label=\"Save Di's points\"]")
        page.wait_for_selector("button[aria-label=\"Clear Di's score\"]")
    page.fill("input[aria-label='Points for Ann']", "11")
    page.fill("input[aria-label='Points for Bo']", "22")
    page.once("dialog", lambda dialog: dialog.accept())   # Clear asks first
    if then == "Save hand":
        page.check("#hand-form input[name=out][value='3']")
    tapped = {"Save Ann's points": "button[aria-label=\"Save Ann's points\"]",
              "Clear": "button[aria-label=\"Clear Di's score\"]",
              "Save hand": "#hand-form button[type=submit]"}.get(then, f"a[aria-label='{then}']")
    with page.expect_navigation():   # once the other points are saved, the tap goes on as it would
        page.click(tapped)
    hand = _api(live_server, api_game)["hands"][0]
    went_out = 0 if then == "Save hand" else None   # Cy, marked out with the hand's form, scores 0
    assert [s and s["points"] for s in hand["scores"]] == [11, 22, went_out, None]


def test_points_refused_among_several_typed_are_said_and_the_rest_saved(page: Any, live_server: Any) -> None:
    """One box refused (more points than the hand's cards can make) among four: the others are
    saved, the page says why with the refused points back in their box, and a second refused
    box gets its points back too."""
    api_game = _hand_page(page, live_server, ["Ann", "Bo", "Cy", "Di"])
    for name, points in (("Ann", "11"), ("Bo", "999"), ("Cy", "33"), ("Di", "44")):
        page.fill(f"input[aria-label='Points for {name}']", points)
    with page.expect_navigation():
        page.click("button[aria-label=\"Save Di's points\"]")
    hand = _api(live_server, api_game)["hands"][0]
    assert [s and s["points"] for s in hand["scores"]] == [11, None, 33, 44]
    assert page.locator(".typed-error").count() == 1 and page.input_value("input[aria-label='Points for Bo']") == "999"
    # Two refused: the second's points come back into its box, typed and not saved.
    page.fill("input[aria-label='Points for Bo']", "998")
    page.fill("input[aria-label='Points for Ann']", "997")
    with page.expect_navigation():
        page.click("button[aria-label=\"Save Cy's points\"]")
    page.wait_for_load_state()
    assert {page.input_value("input[aria-label='Points for Ann']"), page.input_value("input[aria-label='Points for Bo']")} == {"997", "998"}
    assert [s and s["points"] for s in _api(live_server, api_game)["hands"][0]["scores"]] == [11, None, 33, 44]


def test_a_box_typed_and_tapped_while_others_are_being_saved_is_saved_with_them(page: Any, live_server: Any) -> None:
    """On a slow Wi-Fi: Ann's and Bo's points being saved, Cy's typed and its Save tapped
    meanwhile. Nothing is sent twice and nothing typed is dropped."""
    api_game = _hand_page(page, live_server, ["Ann", "Bo", "Cy", "Di"])
    _slow_saves(page)
    page.fill("input[aria-label='Points for Ann']", "11")
    page.fill("input[aria-label='Points for Bo']", "22")
    page.click("button[aria-label=\"Save Bo's points\"]")
    page.wait_for_selector(".saving-status")
    page.fill("input[aria-label='Points for Cy']", "33")
    with page.expect_navigation(timeout=30_000):
        page.click("button[aria-label=\"Save Cy's points\"]")
    hand = _api(live_server, api_game)["hands"][0]
    assert [s and s["points"] for s in hand["scores"]] == [11, 22, 33, None]


def test_a_link_followed_with_points_typed_saves_them_and_leaves_without_asking(page: Any, live_server: Any) -> None:
    api_game = _hand_page(page, live_server, ["Ann", "Bo", "Cy"])
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
    page.fill("input[aria-label='Points for Ann']", "11")
    with page.expect_navigation():
        page.click("a[aria-label='Photo / cards for Cy']")
    assert page.url.endswith("/hands/1/players/3") and asked == []   # no "Leave site?" after the save
    assert _api(live_server, api_game)["hands"][0]["scores"][0]["points"] == 11


def test_a_clear_tapped_while_points_are_being_saved_is_sent_after_them(page: Any, live_server: Any) -> None:
    api_game = _hand_page(page, live_server, ["Ann", "Bo", "Cy", "Di"])
    page.fill("input[aria-label='Points for Di']", "9")
    page.click("button[aria-label=\"Save Di's points\"]")
    page.wait_for_selector("button[aria-label=\"Clear Di's score\"]")
    _slow_saves(page)
    page.fill("input[aria-label='Points for Ann']", "11")
    page.fill("input[aria-label='Points for Bo']", "22")
    page.click("button[aria-label=\"Save Bo's points\"]")
    page.wait_for_selector(".saving-status")
    page.once("dialog", lambda dialog: dialog.accept())   # "Clear Di's score for hand 1?"
    with page.expect_navigation(timeout=30_000):
        page.click("button[aria-label=\"Clear Di's score\"]")
    hand = _api(live_server, api_game)["hands"][0]
    assert [s and s["points"] for s in hand["scores"]] == [11, 22, None, None]


def test_a_box_changed_after_it_was_sent_is_saved_as_changed(page: Any, live_server: Any) -> None:
    api_game = _hand_page(page, live_server, ["Ann", "Bo", "Cy", "Di"])
    _slow_saves(page)
    page.fill("input[aria-label='Points for Ann']", "11")
    page.fill("input[aria-label='Points for Bo']", "22")
    page.fill("input[aria-label='Points for Cy']", "33")
    with page.expect_navigation(timeout=30_000):
        page.click("button[aria-label=\"Save Cy's points\"]")
        page.wait_for_selector(".saving-status")
        page.fill("input[aria-label='Points for Ann']", "12")   # a slip mended while it was being sent
    hand = _api(live_server, api_game)["hands"][0]
    assert [s and s["points"] for s in hand["scores"]] == [12, 22, 33, None]


def test_clearing_a_score_does_not_first_save_what_was_typed_in_its_own_box(page: Any, live_server: Any) -> None:
    api_game = _hand_page(page, live_server, ["Ann", "Bo", "Cy", "Di"])
    page.fill("input[aria-label='Points for Di']", "9")
    page.click("button[aria-label=\"Save Di's points\"]")
    page.wait_for_selector("button[aria-label=\"Clear Di's score\"]")
    page.fill("input[aria-label='Points for Di']", "20")   # then thought better of it: Clear
    page.fill("input[aria-label='Points for Ann']", "11")
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.click("button[aria-label=\"Clear Di's score\"]")
    hand = _api(live_server, api_game)["hands"][0]
    assert [s and s["points"] for s in hand["scores"]] == [11, None, None, None]


def test_points_are_not_shown_stale_when_the_sheet_cannot_be_reached(page: Any, live_server: Any) -> None:
    game_url = _start_game(page, live_server, ["Ann", "Bo"])
    page.goto(game_url + "/hands/1/players/2")
    page.fill("input.cards-text", "QS KS")
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '20'")
    _unreachable(page, "**/api/score", "POST")
    page.fill("input.cards-text", "QS KS 2D")
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '\u2013'")
    assert "can't be reached" in page.inner_text(".editor-error")


def test_a_page_come_back_to_after_its_photo_was_sent_can_send_another(page: Any, live_server: Any) -> None:
    game_url = _start_game(page, live_server, ["Ann", "Bo"])
    page.goto(game_url + "/hands/1/players/2")
    page.evaluate("""() => {   // as the page was left, its photo being sent
        const form = document.querySelector('.upload-form');
        form.classList.add('busy'); form.setAttribute('aria-busy', 'true');
        window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}));
    }""")
    assert page.locator(".upload-form.busy, .upload-form[aria-busy]").count() == 0


def test_five_players_fit_a_phones_sheet_with_their_names_whole(page: Any, live_server: Any) -> None:
    """Five columns of players on a 390-px phone: no swipe, the contract in figures, a name
    broken between its words only."""
    page.set_viewport_size({"width": 390, "height": 844})
    _start_game(page, live_server, ["Grandma Ria", "Bo", "Cy", "Dientje", "Evert-Jan"])
    wrap = page.locator(".table-wrap")
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth")
    assert page.locator("tbody tr").nth(4).locator(".contract-short").inner_text() == "2 sets + 1 run"
    assert page.locator("tbody tr").nth(4).locator(".contract").inner_text() == "two sets + one run"   # read out
    first = page.locator("thead th.col-player").first
    # "Grandma" on one line: a range over its letters has one box.
    assert first.evaluate("th => { const r = document.createRange(); r.setStart(th.firstChild, 0); "
                          "r.setEnd(th.firstChild, 7); return r.getClientRects().length; }") == 1


def test_check_a_go_down(page: Any, live_server: Any) -> None:
    page.goto(live_server.url + "/godown")
    page.select_option("select[name=variant]", "llenroc")
    page.select_option("select[name=hand]", "1")
    page.fill("input.cards-text", "7h 7s jk 8d 8c")
    page.fill(".add-text", "8s")
    page.press(".add-text", "Enter")
    page.wait_for_function("document.querySelectorAll('.chips li').length === 6")
    page.click("button:has-text('Check')")
    page.wait_for_selector("#verdict")
    assert "Valid" in page.inner_text("#verdict")
    assert page.locator(".meld").count() == 2
    assert page.locator(".card.wild").count() == 1
    shoot(page, "09-godown-valid")
    page.fill("input.cards-text", "7H 7S 9D 8D 8C 8S")
    page.click("button:has-text('Check')")
    page.wait_for_selector("#verdict.invalid")
    assert "missing one set" in page.inner_text("#verdict")
    shoot(page, "10-godown-invalid")
    # Choosing a photo reads it and checks its cards at once, as a player's page does.
    page.set_input_files("#godown-form input[type=file]", str(DATA / "web_edje_IMG_2571.jpg"))
    page.wait_for_selector("#godown-form .photo img")
    page.wait_for_selector("#verdict")
    assert sorted(page.locator("svg.boxes text").all_text_contents()) == ["10♠", "9♥", "Q♣"]
    assert sorted(page.input_value(".cards-text").split()) == ["10S", "9H", "QC"]
    assert_accessible(page, "a go-down checked from a photo")


def test_two_browsers_save_different_players_at_once(browser: Any, live_server: Any) -> None:
    base = live_server.url
    setup = browser.new_context(**CONTEXT)
    page = setup.new_page()
    game_id = int(_start_game(page, live_server, ["Eve", "Fay", "Gus"]).split("/")[-1])
    setup.close()

    contexts = [browser.new_context(viewport={"width": 390, "height": 844}, **CONTEXT) for _ in range(2)]
    pages = [c.new_page() for c in contexts]
    hands = {2: "QH 7S", 3: "KC 9D 2C"}
    for p, seat in zip(pages, hands):
        p.goto(f"{base}/games/{game_id}/hands/2/players/{seat}")
        p.fill("input.cards-text", hands[seat])
        p.dispatch_event("input.cards-text", "change")
        p.wait_for_function("document.querySelector('.points-total').textContent.trim() !== '\\u2013'")
    # Submit both forms without waiting for either, then wait for both.
    for p in pages:
        p.evaluate("document.getElementById('score-form').requestSubmit()")
    for p in pages:
        p.wait_for_selector(".flash-ok")
    game = _api(live_server, f"/api/games/{game_id}")
    assert [s and s["points"] for s in game["hands"][1]["scores"]] == [None, 17, 21]
    for c in contexts:
        c.close()


def test_oversized_and_non_image_uploads(page: Any, live_server: Any) -> None:
    game_url = _start_game(page, live_server, ["Ann", "Bo", "Cy"])   # its own game: runs alone or in any order
    game_id = int(game_url.split("/")[-1])
    url = f"{game_url}/hands/3/players/1"
    page.goto(url)
    # Too big: refused in the page before anything is sent.
    page.set_input_files("#photo-input", {"name": "huge.jpg", "mimeType": "image/jpeg",
                                          "buffer": b"\xff\xd8\xff" + b"0" * (5 * 1024 * 1024)})
    page.wait_for_selector(".upload-error:not([hidden])")
    assert "the limit is 4 MB" in page.inner_text(".upload-error")
    assert page.url == url
    # Not an image: the server says so and nothing is saved.
    with page.expect_navigation():
        page.set_input_files("#photo-input", {"name": "notes.pdf", "mimeType": "application/pdf",
                                              "buffer": b"%PDF-1.4 the scores"})
    assert "PDF" in page.inner_text(".flash-error")
    shoot(page, "15-bad-upload")
    game = _api(live_server, f"/api/games/{game_id}")
    assert game["hands"][2]["scores"][0] is None


def _finished_game(server: Any, played: int = 7) -> int:
    """An Ons game played through the API (its own session and CSRF token), to hand
    ``played`` (all 7: a whole game)."""
    from http.cookiejar import CookieJar

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

    def call(path: str, body: Any = None, token: str = "") -> Any:
        request = urllib.request.Request(server.url + path, data=json.dumps(body).encode() if body else None,
                                         headers={"Content-Type": "application/json", "X-CSRF-Token": token})
        with opener.open(request, timeout=30) as response:
            return json.loads(response.read())

    token = call("/api/csrf")["token"]
    game = call("/api/games", {"variant": "ons", "players": ["Nana", "Pops", "Lou", "Kit", "Max"],
                               "first_dealer": "Pops", "note": "Sunday game; Kit's first win?"}, token)
    hands = [["QH", "7S"], ["AH", "KD", "2C"], ["10S"], ["5D", "5C", "JS", "AS"], ["3H"]]
    for number in range(1, played + 1):
        out = (number % 5) + 1
        call(f"/api/games/{game['id']}/hands/{number}", {"out": out, "note": "Lou bought twice" if number == 4 else ""},
             token)
        for seat in range(1, 6):
            if seat != out:
                call(f"/api/games/{game['id']}/hands/{number}/scores/{seat}",
                     {"cards": hands[(seat + number) % 5]}, token)
    return int(game["id"])


def test_the_standings_of_one_variants_games(page: Any, live_server: Any) -> None:
    _finished_game(live_server)   # an Ons game
    page.goto(live_server.url + "/history?rules=ons#standings")
    assert "finished game" in page.inner_text("#standings h2") and "of Ons" in page.inner_text("#standings h2")
    assert page.locator('#standings th[scope=row]:has-text("Nana")').count() == 1
    assert_accessible(page, "the standings of one variant's games")


def test_screenshots_of_the_other_pages(page: Any, live_server: Any) -> None:
    pages = ("16-sheet-finished", "11-history", "12-print", "13-home", "14-not-found")
    shots = [ARTIFACTS / f"{name}-{look}.png" for name in pages for look in ("phone", "desktop", "phone-dark")]
    for shot in shots:   # an earlier run's files must not pass for this run's
        shot.unlink(missing_ok=True)
    game_id = _finished_game(live_server)
    page.goto(f"{live_server.url}/games/{game_id}")
    assert "Winner:" in page.inner_text("#winner")
    shoot(page, "16-sheet-finished")
    page.goto(f"{live_server.url}/history")
    shoot(page, "11-history")
    page.goto(f"{live_server.url}/games/{game_id}/print")
    page.emulate_media(media="print")
    shoot(page, "12-print")
    page.emulate_media(media="screen")
    page.goto(f"{live_server.url}/")
    shoot(page, "13-home")
    page.goto(f"{live_server.url}/games/{game_id}/hands/9")
    assert "Hand 9 doesn" in page.content()
    shoot(page, "14-not-found")
    assert [shot.name for shot in shots if not shot.is_file()] == []


@pytest.mark.skipif(not (DATA.parent.parent / "models" / "index_detector.onnx").exists(),
                    reason="needs the shipped model")
def test_a_black_and_white_photo_is_said_to_have_no_colour_and_each_suit_can_be_swapped(
        page: Any, live_server: Any, tmp_path: Path) -> None:
    """The shipped model on a grey copy of a real photo (Q♣ 10♠ 9♥): the page says the suits
    cannot be told by colour and offers every card in the other colour, one tap each."""
    import cv2

    grey = tmp_path / "grey.jpg"
    cv2.imwrite(str(grey), cv2.imread(str(DATA / "web_edje_IMG_2571.jpg"), cv2.IMREAD_GRAYSCALE))
    _photo_on_player_page(page, live_server, ["Kim", "Lou", "Max"], 3, 2, grey)
    page.wait_for_selector("figure.photo img")
    assert "This photo has no colour" in page.locator(".unsure-cards").first.inner_text()
    buttons = page.locator(".swap-btn")
    assert buttons.count() == 3 and buttons.first.is_visible()
    shoot(page, "04e-photo-without-colour")
    nine = page.locator(".swap-btn[data-to='9H']")
    if nine.count():   # the 9 read black: one tap makes it the 9♥ it is
        nine.click()
        assert "9H" in page.locator("input.cards-text").input_value()


@pytest.mark.skipif(not (DATA.parent.parent / "models" / "index_detector.onnx").exists(),
                    reason="needs the shipped model")
def test_a_photo_taken_in_a_dim_warm_room_is_read_and_shown_brightened(
        page: Any, live_server: Any, tmp_path: Path) -> None:
    """The shipped model on a dark, warm copy of a real photo (Q♣ 10♠ 9♥): all three read,
    and the photo shown as it was read, brightened, so the player can check it."""
    import cv2
    import numpy as np

    dark = tmp_path / "dark.jpg"
    image = cv2.imread(str(DATA / "web_edje_IMG_2571.jpg")).astype(np.float32) * np.array([0.12, 0.22, 0.35])
    cv2.imwrite(str(dark), np.clip(image, 0, 255).astype(np.uint8))
    _photo_on_player_page(page, live_server, ["Ned", "Oda", "Pim"], 3, 2, dark)
    page.wait_for_selector("figure.photo img")
    assert sorted(page.locator("svg.boxes text").all_text_contents()) == ["10♠", "9♥", "Q♣"]
    assert "shown brightened" in page.locator("figure.photo figcaption").inner_text()
    assert "url(" in page.locator("figure.photo img").evaluate("img => getComputedStyle(img).filter")
    shoot(page, "04f-photo-dim-light")


@pytest.mark.skipif(not (DATA.parent.parent / "models" / "blur_gauge.onnx").exists(),
                    reason="needs the shipped model and its blur gauge")
def test_a_shaken_photo_asks_for_a_sharper_one(page: Any, live_server: Any, tmp_path: Path) -> None:
    """The shipped model on a real photo smeared the way a moving hand smears it (3 % of its
    long side): the page says the photo looks blurred and asks for it again, held still."""
    import cv2

    from onze_vision.synth.blur import motion_kernel

    shaken = tmp_path / "shaken.jpg"
    image = cv2.imread(str(DATA / "web_edje_IMG_2571.jpg"))
    cv2.imwrite(str(shaken), cv2.filter2D(image, -1, motion_kernel(round(0.03 * max(image.shape[:2])), 30.0)))
    _photo_on_player_page(page, live_server, ["Quin", "Rae"], 2, 2, shaken)
    page.wait_for_selector("figure.photo img")
    assert "This photo looks blurred" in page.locator(".blurred-note").inner_text()
    shoot(page, "04g-photo-shaken")


def test_a_four_corner_deck_is_said_at_the_start_and_photos_are_read_so(page: Any, live_server: Any) -> None:
    """The new-game form takes the deck's corner indices; the photo is read so, the score page
    says how, and the sheet's Deck panel changes it."""
    told: list[str] = []
    stand_in = StandInDetector()

    def detect(data: bytes, corners: str = "auto") -> Any:
        told.append(corners)
        return stand_in(data, corners)

    saved = live_server.app.config["DETECT"]
    live_server.app.config["DETECT"] = detect
    try:
        page.goto(live_server.url + "/games/new")
        for i, name in enumerate(["Kim", "Lou"], start=1):
            page.fill(f"input[name=player{i}]", name)
        page.select_option("#corners", "four")
        _press_start(page)
        game_url = page.url
        page.goto(game_url + "/hands/1/players/2")
        with page.expect_navigation():
            page.set_input_files("#photo-input", str(DATA / "web_edje_IMG_2571.jpg"))
        page.wait_for_selector("figure.photo img")
        assert told == ["four"]
        assert page.locator(".deck-line").inner_text() == "Rank and suit printed in: all four corners (Copag-style decks) · change"
        page.click(".deck-line >> text=change")
        page.wait_for_selector("#deck select")
        page.select_option("#deck select", "two")
        with page.expect_navigation():
            page.click("#deck button:has-text('Save')")
        assert "Deck saved: two corners (most decks)." in page.content()
        shoot(page, "04h-deck-saved")
        page.goto(game_url + "/hands/1/players/1")
        with page.expect_navigation():
            page.set_input_files("#photo-input", str(DATA / "web_edje_IMG_2571.jpg"))
        assert told == ["four", "two"]
    finally:
        live_server.app.config["DETECT"] = saved


def test_the_decks_joker_is_shown_with_one_photo_and_forgotten_with_one_tap(page: Any, live_server: Any) -> None:
    """The Deck panel's photo button sends the Joker's photo as soon as it is chosen; the
    sheet then says the Joker is shown, and one tap forgets it."""
    import numpy as np

    from onze_vision.jokers import JokerLook

    learned: list[int] = []

    def learn(data: bytes) -> JokerLook:
        learned.append(len(data))
        return JokerLook.from_features(np.array([[0.6, 0.8, 0.0, 1.0]]))

    live_server.app.config["LEARN_JOKER"] = learn
    try:
        page.goto(live_server.url + "/games/new")
        for i, name in enumerate(["Nell", "Otto"], start=1):
            page.fill(f"input[name=player{i}]", name)
        _press_start(page)
        with page.expect_navigation():
            page.set_input_files("#deck input[name=joker_photo]", str(DATA / "web_edje_IMG_2595.jpg"))
        assert learned == [(DATA / "web_edje_IMG_2595.jpg").stat().st_size]
        assert "Joker learned" in page.content()
        assert page.locator("#deck .joker-shown").inner_text().startswith("This deck's Joker is shown:")
        shoot(page, "04i-joker-shown")
        with page.expect_navigation():
            page.click("#deck button:has-text('Forget it')")
        assert "The Joker shown is forgotten" in page.content() and page.locator("#deck .joker-shown").count() == 0
    finally:
        live_server.app.config.pop("LEARN_JOKER", None)


def test_a_game_that_cannot_deal_hand_7_is_warned_at_the_start_and_on_the_hand(page: Any, live_server: Any) -> None:
    # Ons: 8 players x 13 cards in hand 7 take all 104 cards of its two decks.
    page.goto(live_server.url + "/games/new")
    page.select_option("#variant", "ons")
    for seat in range(1, 9):
        page.fill(f"input[name=player{seat}]", f"Player {seat}")
    _press_start(page)
    warning = page.locator(".flash-warn")
    assert warning.count() == 1
    assert warning.inner_text().startswith("Hand 7: 8 players × 13 cards take every card of the 2 decks")
    shoot(page, "17-short-deal-sheet")
    page.goto(page.url.rstrip("/") + "/hands/7")
    page.wait_for_selector("#hand-form")
    assert "leaving no stock to draw from. Agree at the table" in page.inner_text("main")
    shoot(page, "18-short-deal-hand")


def test_a_misspelt_name_is_corrected_on_the_sheet(page: Any, live_server: Any) -> None:
    game_id = _finished_game(live_server)
    totals = _api(live_server, f"/api/games/{game_id}")["totals"]
    page.goto(f"{live_server.url}/games/{game_id}")
    page.fill("#players input[name=player3]", "Louise")
    page.click("#players button:has-text('Save names')")
    page.wait_for_selector(".flash-ok")
    header = page.inner_text("table.sheet thead")
    assert "Louise" in header and "Nana" in header
    game = _api(live_server, f"/api/games/{game_id}")
    assert [p["name"] for p in game["players"]] == ["Nana", "Pops", "Louise", "Kit", "Max"]
    assert game["totals"] == totals   # the scores stay in their seats
    shoot(page, "19-names-corrected")


def test_a_seating_typed_in_the_wrong_order_is_mended_with_the_scores_following(page: Any, live_server: Any) -> None:
    game_id = _finished_game(live_server, played=2)
    before = _api(live_server, f"/api/games/{game_id}")
    page.goto(f"{live_server.url}/games/{game_id}#seating")
    page.click("button[aria-label='Move Kit one seat earlier']")
    page.wait_for_selector(".flash-ok")
    assert "Seating saved: Nana, Pops, Kit, Lou, Max." in page.inner_text(".flash-ok")
    shoot(page, "19b-seating-mended")
    after = _api(live_server, f"/api/games/{game_id}")
    totals = {p["name"]: t for p, t in zip(before["players"], before["totals"])}
    assert {p["name"]: t for p, t in zip(after["players"], after["totals"])} == totals


def test_the_same_table_started_on_a_second_phone_is_asked_about_first(page: Any, live_server: Any) -> None:
    first = _start_game(page, live_server, ["Rui", "Sol", "Tao"])
    page.goto(live_server.url + "/games/new")
    for seat, name in enumerate(["Rui", "Sol", "Tao"], start=1):
        page.fill(f"input[name=player{seat}]", name)
    page.click("button:has-text('Start the game')")
    page.wait_for_selector(".twin-game")
    shoot(page, "02b-same-table-started-twice")
    games = len(_api(live_server, "/api/games")["games"])
    with page.expect_navigation():
        page.press("input[name=player1]", "Enter")        # a phone's Go key: asks again, starts nothing
    page.wait_for_selector(".twin-game")
    assert len(_api(live_server, "/api/games")["games"]) == games
    page.click(".twin-game >> text=Open game")
    page.wait_for_selector("table.sheet")
    assert page.url.rstrip("/") == first


def test_a_finished_game_is_played_again_with_one_tap(page: Any, live_server: Any) -> None:
    game_id = _finished_game(live_server)   # Ons, five players, Pops (seat 2) dealt first
    page.goto(f"{live_server.url}/games/{game_id}")
    page.click("text=Play again")
    page.wait_for_selector("#variant")
    shoot(page, "20-play-again")
    # Hand 7 was dealt by seat (2 - 1 + 6) % 5 + 1 = 3 (Lou); the deal passes on to Kit.
    assert "Kit deals first this time" in page.inner_text(".flash-ok")
    _press_start(page)
    new_game = _api(live_server, page.url.replace(live_server.url, "/api").rstrip("/"))
    assert new_game["id"] != game_id and new_game["variant"]["name"] == "ons"
    assert [p["name"] for p in new_game["players"]] == ["Nana", "Pops", "Lou", "Kit", "Max"]
    assert new_game["first_dealer"] == 4


def test_a_game_ended_early_is_won_on_the_hands_played_and_can_play_on(page: Any, live_server: Any) -> None:
    game_id = _finished_game(live_server, played=4)
    page.goto(f"{live_server.url}/games/{game_id}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("form.end-game button")
    page.wait_for_selector("#winner")
    assert "ended after hand 4 of 7" in page.inner_text("#winner")
    assert page.locator(".badge-not-counted").count() == 3
    shoot(page, "20b-game-ended-early")
    game = _api(live_server, f"/api/games/{game_id}")
    assert game["finished"] and game["ended_after"] == 4
    page.click("button:has-text('Play on to hand 7')")
    page.wait_for_selector(".flash-ok")
    assert page.locator("#winner").count() == 0 and page.locator("form.end-game").count() == 1
    assert _api(live_server, f"/api/games/{game_id}")["current_hand"] == 5


def test_the_rules_of_a_variant_for_a_table_of_eight(page: Any, live_server: Any) -> None:
    page.goto(live_server.url + "/")
    page.click("nav >> text=Rules")
    page.click("text=Ons (a variation on gin rummy)")
    page.wait_for_selector("dl.rules")
    assert "red Aces" in page.inner_text("dl.rules")
    page.select_option("select[name=players]", "8")
    page.click("button:has-text('Show')")
    page.wait_for_selector(".flash-warn")
    assert page.url.endswith("/rules/ons?players=8")
    assert page.inner_text("h1").endswith("for 8 players: 2 decks")
    assert page.locator("tr.short-deal .col-hand").inner_text() == "7"
    shoot(page, "21-rules")


def test_the_accessibility_audit_fails_a_page_that_breaks_its_rules(page: Any) -> None:
    # What every shoot() checks: a field no screen reader can name, a button with no words.
    page.set_content('<!doctype html><html lang="en"><title>t</title><main><h1>Score</h1>'
                     '<input type="number"><button></button></main></html>')
    with pytest.raises(AssertionError) as failure:
        assert_accessible(page, "broken")
    assert "label" in str(failure.value) and "button-name" in str(failure.value)


def _save_points(page: Any, game_url: str, name: str, points: int) -> None:
    page.goto(game_url + "/hands/1")
    page.fill(f"input[aria-label='Points for {name}']", str(points))
    page.click(f"button[aria-label=\"Save {name}'s points\"]")
    page.wait_for_selector(".flash-ok")


def test_the_sheet_on_one_phone_shows_what_another_phone_saves(browser: Any, live_server: Any) -> None:
    phones = [browser.new_context(viewport={"width": 390, "height": 844}, **CONTEXT) for _ in range(2)]
    keeper, player = (phone.new_page() for phone in phones)
    game_url = _start_game(player, live_server, ["Ann", "Bo", "Cy"])
    keeper.goto(game_url)

    # Nothing typed on the keeper's phone: the new score simply appears there, focus kept where
    # it was (a keyboard or a screen reader's user is not sent to the page's top) and the change said.
    keeper.focus("textarea[name=note]")
    _save_points(player, game_url, "Bo", 25)
    keeper.wait_for_function("document.getElementById('live').dataset.changes === '1'")
    assert "25" in keeper.locator("table.sheet tbody tr").first.inner_text()
    assert keeper.evaluate("document.activeElement.name") == "note"
    keeper.wait_for_function("document.querySelector('#live .live-text').textContent"
                             " === 'Updated with what was saved on another device.'")
    assert keeper.locator("#live [data-live-show]").is_hidden()
    keeper.wait_for_function("document.getElementById('live').hidden", timeout=15_000)   # then out of the way

    # A note half typed on the keeper's phone is not lost to a reload: the page says so and waits.
    keeper.fill("textarea[name=note]", "Cy owes the pizza")
    _save_points(player, game_url, "Cy", 40)
    keeper.wait_for_selector("#live:not([hidden])")
    assert keeper.inner_text("#live .live-text") == "Something was saved on another device (a score, a name or a note)."
    assert keeper.input_value("textarea[name=note]") == "Cy owes the pizza"
    shoot(keeper, "22-saved-on-another-phone")
    # Showing the changes would lose the note typed: asked first; kept when the answer is no.
    asked: list[str] = []
    keeper.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    keeper.click("#live >> text=Show them")
    assert asked and "not saved yet" in asked[0]
    assert keeper.input_value("textarea[name=note]") == "Cy owes the pizza"
    keeper.once("dialog", lambda dialog: dialog.accept())
    keeper.click("#live >> text=Show them")
    keeper.wait_for_function("document.getElementById('live').dataset.changes === '2'")
    assert "40" in keeper.locator("table.sheet tbody tr").first.inner_text()

    # The game deleted on the other phone: said; and brought back there, it is back here too.
    player.goto(game_url)
    player.once("dialog", lambda dialog: dialog.accept())
    player.click("form.delete-game button")
    player.wait_for_selector(".undo-form")
    keeper.wait_for_selector("#live:not([hidden])")
    assert keeper.inner_text("#live .live-text") == "This game was deleted on another device."
    assert keeper.locator("#live [data-live-show]").is_hidden()
    assert keeper.locator("#live [data-live-history]").is_visible()     # the way back, from this phone too
    player.click(".undo-form button")
    player.wait_for_selector("table.sheet")
    keeper.wait_for_function("document.getElementById('live').hidden")
    assert "40" in keeper.locator("table.sheet tbody tr").first.inner_text()
    for phone in phones:
        phone.close()


def test_a_hand_page_reloaded_for_another_phone_keeps_focus_on_the_same_choice(browser: Any,
                                                                               live_server: Any) -> None:
    phones = [browser.new_context(viewport={"width": 390, "height": 844}, **CONTEXT) for _ in range(2)]
    keeper, player = (phone.new_page() for phone in phones)
    game_url = _start_game(player, live_server, ["Ann", "Bo", "Cy"])
    keeper.goto(game_url + "/hands/1")
    keeper.focus("input[name=out][value='3']")      # Cy's choice, reached by keyboard, not chosen
    _save_points(player, game_url, "Bo", 25)
    keeper.wait_for_function("document.getElementById('live').dataset.changes === '1'")
    # The same radio, not the group's first ("Not yet"), and the change said.
    assert keeper.evaluate("[document.activeElement.name, document.activeElement.value]") == ["out", "3"]
    keeper.wait_for_function("document.querySelector('#live .live-text').textContent.startsWith('Updated')")
    # A button with no name of its own (the hand's Save) is found by its form and place.
    keeper.focus("#hand-form button[type=submit]")
    _save_points(player, game_url, "Cy", 30)
    keeper.wait_for_function("document.getElementById('live').dataset.changes === '2'")
    assert keeper.evaluate("document.activeElement.textContent.trim()") == "Save hand"
    for phone in phones:
        phone.close()


def test_the_card_list_is_kept_by_keyboard_alone(page: Any, live_server: Any) -> None:
    game_url = _start_game(page, live_server, ["Ann", "Bo", "Cy"])
    page.goto(game_url + "/hands/1/players/2")
    page.focus("input.add-text")
    for typed in ("qh", "jk", "7s"):
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        page.wait_for_function(f"document.querySelectorAll('.chips li').length === {'qh jk 7s'.split().index(typed) + 1}")
    from onze_vision import score_hand

    variant = _api(live_server, "/api" + game_url.removeprefix(live_server.url))["variant"]["name"]
    points = score_hand(["QH", "JK", "7S"], variant).points
    page.wait_for_function(f"document.querySelector('.points-total').textContent.trim() === '{points}'")

    def focused() -> str:
        return str(page.evaluate("document.activeElement.getAttribute('aria-label')"))

    # Removing a card by keyboard leaves focus on the card that takes its place...
    page.focus("[aria-label='Remove Joker']")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#score-form [name=cards]').value === 'QH 7S'")
    assert focused() == "Remove 7 of spades"
    # ... and changing one by keyboard keeps focus on it.
    page.keyboard.press("Shift+Tab")
    assert focused() == "Card 2, 7 of spades: change it"
    page.select_option(".chips li:nth-child(2) select", "8S")
    page.wait_for_function("document.querySelector('#score-form [name=cards]').value === 'QH 8S'")
    assert focused() == "Card 2, 8 of spades: change it"
    # Removing the last cards leaves focus in the box that adds one.
    page.focus("[aria-label='Remove 8 of spades']")
    page.keyboard.press("Enter")
    page.focus("[aria-label='Remove queen of hearts']")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('.chips li').length === 0")
    assert page.evaluate("document.activeElement.classList.contains('add-text')")


def test_a_card_list_moved_through_by_the_keyboard_changes_on_enter_and_says_what_changed(
    page: Any, live_server: Any
) -> None:
    game_url = _start_game(page, live_server, ["Ann", "Bo", "Cy"])
    page.goto(game_url + "/hands/1/players/2")

    def cards() -> str:
        return str(page.input_value("#score-form [name=cards]"))

    # Letters and arrows move through the picker (Chromium picks on each while it is closed):
    # nothing is added until Enter.
    page.focus(".add-pick")
    for key in ("k", "k", "ArrowDown"):
        page.keyboard.press(key)
    assert cards() == "" and page.locator(".chips li").count() == 0
    picked = page.input_value(".add-pick")   # K♠, K♥, then the card after it
    assert picked not in ("", "KS", "KH")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('.chips li').length === 1")
    added = cards()
    assert added == picked
    said = ".card-editor p[aria-live]"
    page.wait_for_function(f"document.querySelector('{said}').textContent.endsWith(', 1 card.')")
    assert page.inner_text(said).startswith("Added ") and "Points: " in page.inner_text(said)
    # A chip moved through by arrows changes when left (or on Enter), once, mended in place: Tab
    # goes on to its remove button, not to the page's top.
    page.focus(".chips li select")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert cards() == added
    page.keyboard.press("Tab")
    page.wait_for_function(f"document.querySelector('#score-form [name=cards]').value !== '{added}'")
    page.wait_for_function(f"document.querySelector('{said}').textContent.startsWith('Card 1 is the ')")
    assert page.evaluate("document.activeElement.classList.contains('chip-remove')")
    changed = cards()
    # Escape puts a chip moved through back as it was.
    page.focus(".chips li select")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert cards() == changed and page.input_value(".chips li select") == changed
    # A pick made with a pointer counts at once, as before.
    page.select_option(".add-pick", "7H")
    page.wait_for_function("document.querySelectorAll('.chips li').length === 2")
    page.wait_for_function(f"document.querySelector('{said}').textContent.startsWith('Added the 7 of hearts. Points: ')")
    # The list opened from the keyboard (Alt+Down), a card chosen in it: counted as it closes.
    page.focus(".add-pick")
    page.keyboard.press("Alt+ArrowDown")
    page.wait_for_timeout(300)   # the list opens (a person's keys come slower than these)
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(100)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('.chips li').length === 3")
    page.wait_for_timeout(300)
    assert page.locator(".chips li").count() == 3   # once, not again on the Enter
    # Moved through and left without Enter, the add picker adds nothing yet and still shows its
    # choice: its Add button, next in the Tab order, adds it.
    page.focus(".add-pick")
    page.keyboard.press("k")
    page.keyboard.press("Tab")
    assert page.locator(".chips li").count() == 3 and page.input_value(".add-pick") == "KS"
    page.keyboard.press("Enter")   # on Add
    page.wait_for_function("document.querySelectorAll('.chips li').length === 4")
    assert cards().split()[-1] == "KS"
    # Escape puts the add picker back.
    page.focus(".add-pick")
    page.keyboard.press("q")
    page.keyboard.press("Escape")
    assert page.input_value(".add-pick") == ""
    # Two changes before the points come back are both said: a chip left by a click on another's ×.
    page.focus(".chips li:nth-child(1) select")
    page.keyboard.press("ArrowDown")
    page.click(".chips li:nth-child(4) .chip-remove")
    page.wait_for_function(f"document.querySelector('{said}').textContent.startsWith('Card 1 is the ')"
                           f" && document.querySelector('{said}').textContent.includes('Removed the king of spades.')")


def test_a_game_deleted_by_mistake_comes_back_with_one_tap(page: Any, live_server: Any) -> None:
    game_url = _start_game(page, live_server, ["Ann", "Bo", "Cy"])
    _save_points(page, game_url, "Bo", 25)
    page.goto(game_url)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("form.delete-game button")
    page.wait_for_selector(".undo-form")
    shoot(page, "23-game-deleted")
    page.click(".undo-form button")
    page.wait_for_selector("table.sheet")
    assert page.url.rstrip("/") == game_url
    assert "is back in the book." in page.inner_text(".flash-ok")
    assert "25" in page.locator("table.sheet tbody tr").first.inner_text()


def test_a_score_typed_over_by_mistake_comes_back_with_one_tap(page: Any, live_server: Any) -> None:
    game_url = _start_game(page, live_server, ["Ann", "Bo", "Cy"])
    page.goto(game_url + "/hands/1/players/2")
    page.fill("input.cards-text", "QH 7S 8D")
    page.click("button:has-text(\"Save Bo's score\")")
    page.wait_for_selector(".flash-ok")
    page.goto(game_url + "/hands/1")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.fill("input[aria-label='Points for Bo']", "5")
    page.click("button[aria-label=\"Save Bo's points\"]")
    page.wait_for_selector(".undo-form")
    assert asked == ["Replace Bo's 3 cards (25) with a typed score?"]
    assert "(it was 25 with Q\u2665 7\u2660 8\u2666)" in page.inner_text(".flash-ok")
    shoot(page, "23b-score-replaced-undo")
    page.click(".undo-form button")
    page.wait_for_selector(".flash-ok")
    assert "Bo's score for hand 1 is back: 25 with Q\u2665 7\u2660 8\u2666." in page.inner_text(".flash-ok")
    assert _api(live_server, game_url.replace(live_server.url, "/api"))["hands"][0]["scores"][1]["cards"] == ["QH", "7S", "8D"]


def _typed_cards_page(page: Any, live_server: Any) -> None:
    """A new game's hand 1, Bo's page, at phone width: where the cards are typed."""
    page.set_viewport_size({"width": 390, "height": 844})
    game_url = _start_game(page, live_server, ["Nia", "Oto"])
    page.goto(game_url + "/hands/1/players/2")
    page.wait_for_selector(".chips")


def test_the_chips_and_points_follow_the_typing_so_one_tap_saves(page: Any, live_server: Any) -> None:
    _typed_cards_page(page, live_server)
    page.click("input.cards-text")
    page.keyboard.type("qh 7s 9d")
    # The points are there before the box is left; the code still being typed ("9d")
    # counts once it names a card, and nothing is written over what is being typed.
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '26'")
    assert page.locator(".chips li").count() == 3 and page.input_value(".cards-text") == "qh 7s 9d"
    page.keyboard.type(" 1")            # half a code: not a chip, not an error
    assert page.locator(".chips li").count() == 3 and not page.locator(".editor-error").is_visible()
    page.keyboard.type("0h")
    save = page.locator(".save-btn")
    before = save.bounding_box()
    # Straight from the box to Save: the button is where it was, and the one tap saves.
    save.click(no_wait_after=True)
    page.wait_for_selector(".flash-ok")
    assert before is not None and "Saved Oto's score for hand 1." in page.inner_text(".flash-ok")
    game_id = page.url.split("/games/")[1].split("/")[0]
    score = _api(live_server, f"/api/games/{game_id}")["hands"][0]["scores"][1]
    assert score["cards"] == ["QH", "7S", "9D", "10H"] and score["points"] == 36


def test_the_sheets_own_scripts_run_under_its_content_security_policy(browser: Any, live_server: Any) -> None:
    # A phone's browser, the policy kept: the live points and chips are the card editor's
    # script at work, and the browser reports no script, frame or form it refused.
    context = browser.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    refused: list[str] = []
    phone.on("console", lambda message: refused.append(message.text)
             if "Content Security Policy" in message.text else None)
    phone.on("pageerror", lambda error: refused.append(str(error)))
    try:
        game_url = _start_game(phone, live_server, ["Pia", "Quin"])
        phone.goto(game_url + "/hands/1/players/2")
        phone.click("input.cards-text")
        phone.keyboard.type("qh 7s 9d")
        phone.wait_for_selector(".points-total:text-is('26')")   # a selector, not code the policy forbids
        assert phone.locator(".chips li").count() == 3
        phone.click(".save-btn")
        phone.wait_for_selector(".flash-ok")
        for url in ("/", "/history", "/godown", "/rules"):
            phone.goto(live_server.url + url)
        assert refused == []
        policy = phone.goto(live_server.url + "/").headers["content-security-policy"]
        assert "script-src 'self'" in policy
    finally:
        context.close()


def test_enter_in_the_card_box_saves_a_good_list_and_says_a_bad_one_once(page: Any, live_server: Any) -> None:
    _typed_cards_page(page, live_server)
    page.fill("input.cards-text", "QH ZZ 7S")
    page.press("input.cards-text", "Enter")
    page.wait_for_selector(".editor-error:not([hidden])")
    assert "'ZZ'" in page.inner_text(".editor-error")
    assert page.locator(".flash-error:visible").count() == 0  # not sent, so said once
    page.fill("input.cards-text", "QH 8S 7S")
    page.press("input.cards-text", "Enter")
    page.wait_for_selector(".flash-ok")
    game_id = page.url.split("/games/")[1].split("/")[0]
    assert _api(live_server, f"/api/games/{game_id}")["hands"][0]["scores"][1]["points"] == 25


def test_the_chips_drawn_while_typing_take_the_first_tap_and_the_tab_key(page: Any, live_server: Any) -> None:
    _typed_cards_page(page, live_server)
    page.click("input.cards-text")
    page.keyboard.type("10c kc qs qd")
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '40'")
    # Straight from the box to a chip's remove button: the chip is still there to take the tap.
    page.click("button[aria-label='Remove king of clubs']")
    assert page.locator(".chips li").count() == 3 and page.input_value(".cards-text") == "10C QS QD"
    page.click("input.cards-text")
    page.keyboard.press("Tab")     # and the Tab key reaches the first chip, not the page's top
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Card 1, 10 of clubs: change it"
    # Back to this page must not have the browser put an old page's choice into a chip.
    assert page.get_attribute(".chips li select", "autocomplete") == "off"


def test_one_bad_code_is_the_only_chip_marked_and_common_spellings_count_while_typing(
    page: Any, live_server: Any
) -> None:
    _typed_cards_page(page, live_server)
    page.click("input.cards-text")
    page.keyboard.type("qh 7d zz 10s")
    page.keyboard.press("Tab")
    page.wait_for_selector(".editor-error:not([hidden])")
    assert page.locator(".chips li.card-bad").count() == 1
    assert page.locator(".chips li.card-bad select").input_value() == "zz"
    assert page.get_attribute("input.cards-text", "aria-invalid") == "true"
    # Mended, the error goes at once: Save is free before the server has answered.
    page.fill("input.cards-text", "")
    page.click("input.cards-text")
    page.keyboard.type("qh ts 9♦")
    assert page.get_attribute(".save-btn", "aria-disabled") == "false"
    page.wait_for_function("document.querySelector('.points-total').textContent.trim() === '29'")
    assert [page.locator(".chips li select").nth(i).input_value() for i in range(3)] == ["QH", "10S", "9D"]


def test_points_typed_while_the_book_is_read_only_are_sent_again_with_one_tap(
        page: Any, live_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from webapp import db as book

    game_url = _start_game(page, live_server, ["Ann", "Bo"])
    page.goto(game_url + "/hands/1")
    page.fill("input[aria-label='Points for Bo']", "37")
    connect = book.connect

    def read_only(path: str) -> Any:
        connection = connect(path)
        connection.execute("PRAGMA query_only = ON")  # as a read-only file answers
        return connection

    monkeypatch.setattr(book, "connect", read_only)
    page.click("button[aria-label=\"Save Bo's points\"]")
    page.wait_for_selector("h1:has-text('The book cannot be used now')")
    assert "cannot be written: the file or its folder is read-only, so nothing was saved" in page.inner_text("[role=alert]")
    assert "37" in page.inner_text("dl.sent")
    shoot(page, "24-book-read-only")
    monkeypatch.undo()                       # the file made writable again
    page.click("button:has-text('Send it again')")
    page.wait_for_selector(".flash-ok")
    assert _api(live_server, "/api/games/" + game_url.rsplit("/", 1)[1])["hands"][0]["scores"][1]["points"] == 37


def test_a_book_of_many_games_shows_its_history_a_page_at_a_time(page: Any, tmp_path: Path) -> None:
    from http.cookiejar import CookieJar

    from .conftest import LiveServer

    server = LiveServer(tmp_path / "many-games.sqlite")
    try:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        with opener.open(server.url + "/api/csrf", timeout=30) as response:
            token = json.loads(response.read())["token"]
        for number in range(1, 23):
            request = urllib.request.Request(
                server.url + "/api/games", data=json.dumps({"variant": "once", "players": ["Ann", f"Guest {number}"]}).encode(),
                headers={"Content-Type": "application/json", "X-CSRF-Token": token})
            opener.open(request, timeout=30).close()
        page.goto(server.url + "/history")
        assert page.locator("article.history-game").count() == 20
        assert "games 1-20 of 22 · page 1 of 2" in page.inner_text("nav.pager >> nth=0")
        shoot(page, "25-history-pages")
        page.click("nav.pager >> nth=0 >> text=Older games")
        page.wait_for_url("**/history?page=2")
        assert page.locator("article.history-game").count() == 2
        assert "Guest 1" in page.inner_text("article.history-game >> nth=1")
    finally:
        server.stop()


@pytest.mark.skipif(not (DATA.parent.parent / "models" / "index_detector.onnx").exists(),
                    reason="needs the shipped model")
def test_a_photo_taken_sideways_is_shown_upright_with_its_boxes_on_the_cards_and_kept_without_location(
        page: Any, live_server: Any, tmp_path: Path) -> None:
    """A phone holds a sideways photo's pixels turned and says so in EXIF (orientation 6),
    beside where it was taken. The kept copy loses the place but not the turn: the photo is
    shown upright, its boxes on the cards read upright (Q♣ 10♠ 9♥)."""
    from PIL import Image

    upright = Image.open(DATA / "web_edje_IMG_2571.jpg")
    exif = Image.Exif()
    exif[0x0112] = 6                                              # turn a quarter clockwise to show
    exif[0x8825] = {1: "N", 2: (48.0, 51.0, 29.5), 3: "E", 4: (2.0, 17.0, 40.2)}
    sideways = tmp_path / "IMG_0007.jpg"
    upright.transpose(Image.Transpose.ROTATE_90).save(sideways, quality=95, exif=exif.tobytes())
    _photo_on_player_page(page, live_server, ["Quin", "Rae"], 1, 2, sideways)
    page.wait_for_selector("figure.photo img")
    assert sorted(page.locator("svg.boxes text").all_text_contents()) == ["10♠", "9♥", "Q♣"]
    # Shown as taken, upright: the browser turns it by the EXIF kept, to the reading's grid.
    shown = page.locator("figure.photo img").evaluate("img => [img.naturalWidth, img.naturalHeight]")
    assert shown == list(upright.size)
    assert page.locator("svg.boxes").get_attribute("viewBox") == f"0 0 {upright.size[0]} {upright.size[1]}"
    src = page.locator("figure.photo img").get_attribute("src")
    with urllib.request.urlopen(live_server.url + src, timeout=30) as response:
        kept = response.read()
    with Image.open(__import__("io").BytesIO(kept)) as image:
        assert dict(image.getexif()) == {0x0112: 6}               # the turn, and nothing else
    shoot(page, "04g-photo-taken-sideways")


@pytest.mark.skipif(not (DATA.parent.parent / "models" / "index_detector.onnx").exists(),
                    reason="needs the shipped model")
def test_an_iphone_heic_is_read_and_shown_as_a_jpeg_any_browser_shows(
        page: Any, live_server: Any, tmp_path: Path) -> None:
    """An iPhone saves HEIC, which Chromium cannot show: the sheet reads it, keeps it as a
    JPEG, and shows that, upright, with its boxes on the cards (Q♣ 10♠ 9♥)."""
    from phone_photos import iphone_heic
    from PIL import Image

    upright = Image.open(DATA / "web_edje_IMG_2571.jpg")
    heic = tmp_path / "IMG_0008.HEIC"
    heic.write_bytes(iphone_heic(upright))           # stored a quarter turned, irot to show upright
    _photo_on_player_page(page, live_server, ["Sol", "Tao"], 1, 2, heic)
    page.wait_for_selector("figure.photo img")
    assert sorted(page.locator("svg.boxes text").all_text_contents()) == ["10♠", "9♥", "Q♣"]
    shown = page.locator("figure.photo img").evaluate(
        "img => img.decode().then(() => [img.naturalWidth, img.naturalHeight])")
    assert shown == list(upright.size)
    src = page.locator("figure.photo img").get_attribute("src")
    with urllib.request.urlopen(live_server.url + src, timeout=30) as response:
        assert response.headers["Content-Type"] == "image/jpeg"
    shoot(page, "04j-photo-heic")


def test_a_players_save_keeps_who_went_out_chosen_above_and_not_saved(page: Any, live_server: Any) -> None:
    # The evening review: "who went out" and the note were lost when a player's points were
    # saved before "Save hand"; on the page they look like one form.
    sheet = _start_game(page, live_server, ["Mum", "Dad", "Zoe"])
    page.goto(sheet + "/hands/1")
    page.check("#hand-form input[name=out][value='1']")
    page.fill("#hand-form textarea[name=note]", "Mum out first")
    page.fill("#player-2 input[name=points]", "12")
    page.click("#player-2 button:has-text('Save')")
    page.wait_for_selector("text=Saved Dad's score for hand 1.")
    hand = _api(live_server, "/api/games/" + sheet.rsplit("/", 1)[1])["hands"][0]
    assert hand["out"] == 1 and hand["note"] == "Mum out first"
    assert [s and s["points"] for s in hand["scores"]] == [0, 12, None]
    # The page lands at the next player still without a score.
    assert page.url.endswith("#player-3")
    assert page.is_checked("#hand-form input[name=out][value='1']")
    # The one who went out: said on their own page before any card is typed.
    page.goto(sheet + "/hands/1/players/1")
    assert "Mum went out in hand 1: the score is 0." in page.inner_text("#went-out")
    shoot(page, "07c-player-went-out")
    # Zoe's score left out, hand 2 scored: the sheet moves on and names what is missing.
    page.goto(sheet + "/hands/2")
    page.check("#hand-form input[name=out][value='2']")
    page.click("#hand-form button:has-text('Save hand')")
    page.wait_for_selector("text=Hand 2 saved.")
    for seat in (1, 3):
        page.fill(f"#player-{seat} input[name=points]", "7")
        page.click(f"#player-{seat} button:has-text('Save')")
        page.wait_for_selector("text=score for hand 2.")
    page.goto(sheet)
    assert "Zoe's score is missing" in page.inner_text(".missing-score")
    assert "Hand 3:" in page.inner_text(".now")
    shoot(page, "07d-sheet-score-missing")


def test_a_rescued_book_says_what_it_lost_until_read(page: Any, tmp_path: Path) -> None:
    from test_web_book_trouble import _rescued_book

    from .conftest import LiveServer

    rescued, lost = _rescued_book(tmp_path)
    server = LiveServer(rescued)
    try:
        page.goto(server.url + "/")
        note = page.inner_text(".rescue-note")
        assert f"Could not be read: {lost['score']} scores." in note
        assert "A game that lost a score shows it missing, to type again." in note
        shoot(page, "26-rescued-book")
        page.click(".rescue-note button:has-text('Got it')")
        page.wait_for_url(server.url + "/")
        assert page.locator(".rescue-note").count() == 0
        page.goto(server.url + "/history")
        assert f"Could not be read: {lost['score']} scores." in page.inner_text(".rescue-note")
    finally:
        server.stop()


def test_a_hand_in_two_photos_is_read_as_one_list(page: Any, live_server: Any) -> None:
    """A player's cards photographed in two goes: the second photo's cards are added to the
    list, both photos are shown with their boxes, and one save scores them all."""
    saved = live_server.app.config["DETECT"]
    live_server.app.config["DETECT"] = StandInDetector()
    try:
        _photo_on_player_page(page, live_server, ["Kim", "Lou"], 1, 2, DATA / "web_edje_IMG_2595.jpg")
        page.wait_for_function("/^[0-9]+$/.test(document.querySelector('.points-total').textContent.trim())")
        first = int(page.inner_text(".points-total"))   # Q♥ A♣ under the default rules
        with page.expect_navigation():
            page.set_input_files("input[name=more_photo]", str(DATA / "web_edje_IMG_2571.jpg"))
        assert page.input_value("input[name=cards]") == "QH AC QC 10S 9H"
        assert "added them to the 2 in the list" in page.inner_text(".flash-ok")
        assert page.locator("figure.photo").count() == 2
        assert page.locator("figure.photo >> nth=0 >> svg.boxes rect:not(.edge)").count() == 3
        assert page.locator("figure.photo >> nth=1 >> svg.boxes rect:not(.edge)").count() == 2
        page.wait_for_function(f"document.querySelector('.points-total').textContent.trim() === '{first + 29}'")
        shoot(page, "27-hand-in-two-photos")
        with page.expect_navigation():
            page.click("button:has-text('Save Lou')")
        game_id = page.url.split("/games/")[1].split("/")[0]
        score = _api(live_server, f"/api/games/{game_id}")["hands"][0]["scores"][1]
        assert (score["cards"], score["points"]) == (["QH", "AC", "QC", "10S", "9H"], first + 29)
    finally:
        live_server.app.config["DETECT"] = saved


def test_a_phone_opens_the_sheet_by_the_code_on_the_laptops_screen(page: Any, live_server: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import cv2
    import numpy as np

    from webapp import phones

    # As `onze-vision serve --host 0.0.0.0` starts it, on a laptop whose Wi-Fi address is 192.0.2.7.
    monkeypatch.setitem(live_server.app.config, phones.LISTEN, ("0.0.0.0", live_server.port))
    monkeypatch.setattr(phones, "_addresses_now", lambda: ["192.0.2.7"])
    page.goto(live_server.url + "/")
    shoot(page, "home-phones")
    # What a camera pointed at the screen reads: the code as the browser drew it, decoded.
    shot = page.locator(".qr-box").screenshot()
    image = cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_GRAYSCALE)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(cv2.copyMakeBorder(image, 20, 20, 20, 20, cv2.BORDER_CONSTANT,
                                                                         value=255))
    assert text == f"http://192.0.2.7:{live_server.port}/"
    assert page.locator(".phone-url").first.inner_text() == text


@pytest.mark.parametrize("width", [320, 375])
def test_a_phone_set_to_large_text_never_scrolls_a_page_sideways(page: Any, live_server: Any, width: int) -> None:
    """A phone's large-text setting, as twice the root font size: the top links wrap, the
    points box's Save goes under it, the seating's names shrink (each scrolled the page sideways,
    the top links by 97-152 px, "Rules" drawn white on the page off the green header)."""
    sheet = _start_game(page, live_server, ["Grandma Ria", "Bo", "Cy", "Dientje"])
    page.set_viewport_size({"width": width, "height": 700})
    for path in ("/", "/games/new", sheet, sheet + "/hands/1", sheet + "/hands/1/players/2", "/history", "/godown",
                 "/rules"):
        page.goto(live_server.url + path if path.startswith("/") else path)
        page.add_style_tag(content="html { font-size: 200% !important; }")
        assert_no_sideways_scroll(page, f"{path} at {width} px, text 200 %")
        nav = page.locator(".topbar nav").bounding_box()
        assert nav is not None and nav["x"] + nav["width"] <= width, path
        if path.endswith("/hands/1"):
            save = page.locator(".typed-score .btn").first   # "Save" on one line, not a letter a line
            assert save.evaluate("b => { const r = document.createRange(); r.selectNodeContents(b); "
                                 "return r.getClientRects().length; }") == 1


def test_the_focus_ring_shows_on_the_green_header(page: Any, live_server: Any) -> None:
    """The gold ring was 1.8:1 on the header's green (1.3:1 on the banner's); WCAG asks 3:1."""
    page.goto(live_server.url + "/")
    page.keyboard.press("Tab")
    ring = page.evaluate("() => { const a = document.activeElement; return [a.closest('.topbar') !== null, "
                         "getComputedStyle(a).outlineColor, getComputedStyle(a).outlineStyle]; }")
    assert ring == [True, "rgb(255, 255, 255)", "solid"]


def test_a_photo_refused_on_the_phone_is_tied_to_its_button(page: Any, live_server: Any) -> None:
    """A screen reader hears the refusal with the photo button, and that the button needs
    another go, until a photo is taken again."""
    sheet = _start_game(page, live_server, ["Ann", "Bo"])
    page.goto(sheet + "/hands/1/players/2")
    page.evaluate("() => { document.querySelector('#photo-input').form.dataset.maxBytes = '10'; }")
    page.set_input_files("#photo-input", str(PHOTO))
    error = page.locator(".upload-error")
    assert error.is_visible() and "too large" in error.inner_text()
    assert page.get_attribute("#photo-input", "aria-invalid") == "true"
    assert error.get_attribute("id") in (page.get_attribute("#photo-input", "aria-describedby") or "").split()


def test_the_points_breakdown_says_its_cards_in_words(page: Any, live_server: Any) -> None:
    sheet = _start_game(page, live_server, ["Ann", "Bo"])
    page.goto(sheet + "/hands/1/players/2")
    page.fill(".add-text", "qh")
    page.press(".add-text", "Enter")
    page.wait_for_selector(".breakdown li")
    item = page.locator(".breakdown li").first
    assert item.locator("[aria-hidden=true]").inner_text().startswith("Q♥ ")
    assert item.locator(".visually-hidden").inner_text().startswith("queen of hearts, ")


def test_a_phone_may_keep_its_sheet_still_while_others_save(browser: Any, live_server: Any) -> None:
    """With the switch off, another phone's save is said, with "Show them", not shown by a
    reload: a screen reader's place in the sheet is not lost. The phone remembers the choice."""
    phones = [browser.new_context(viewport={"width": 390, "height": 844}, **CONTEXT) for _ in range(2)]
    keeper, player = (phone.new_page() for phone in phones)
    game_url = _start_game(player, live_server, ["Ann", "Bo", "Cy"])
    keeper.goto(game_url)
    switch = keeper.get_by_label("Show what other phones save as it comes in")
    assert switch.is_visible() and switch.is_checked()
    switch.uncheck()
    keeper.reload()
    assert not keeper.get_by_label("Show what other phones save as it comes in").is_checked()   # remembered
    keeper.focus("textarea[name=note]")
    _save_points(player, game_url, "Bo", 25)
    keeper.wait_for_selector("#live:not([hidden])")
    assert keeper.inner_text("#live .live-text") == "Something was saved on another device (a score, a name or a note)."
    assert keeper.evaluate("document.getElementById('live').dataset.changes") == "0"   # not reloaded
    assert keeper.evaluate("document.activeElement.name") == "note"
    assert "25" not in keeper.locator("table.sheet tbody tr").first.inner_text()
    keeper.click("#live >> text=Show them")
    keeper.wait_for_function("document.getElementById('live').dataset.changes === '1'")
    assert "25" in keeper.locator("table.sheet tbody tr").first.inner_text()
    for phone in phones:
        phone.close()
