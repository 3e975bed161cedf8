"""A deck's own Joker, shown once in a photo: its look, kept as text, and read by it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fake_models import SHIPPED, make_fake_models
from onze_vision.jokers import InvalidJokerLookError, JokerLook, JokerLookMismatchError, NoJokerFoundError
from support import cards_photo, needs_art

REAL = Path(__file__).parent / "data"


def _unit_rows(rng: np.random.Generator, count: int, widths: tuple[int, ...] = (4, 8)) -> np.ndarray:
    """Rows as the classifier gives them: each member's part of length 1."""
    parts = [rng.normal(size=(count, width)) for width in widths]
    return np.concatenate([p / np.linalg.norm(p, axis=1, keepdims=True) for p in parts], axis=1)


@pytest.mark.parametrize(("distance", "classifier"), [(None, ""), (6.62, "3f9a0c21d4e5b687")])
def test_a_look_round_trips_through_its_text(distance: float | None, classifier: str) -> None:
    look = JokerLook.from_features(_unit_rows(np.random.default_rng(0), 3), corner_distance=distance,
                                   classifier=classifier)
    assert look.members == 2 and look.size == 12 and look.classifier == classifier
    again = JokerLook.from_text(look.to_text())
    assert again == look
    assert again.to_text() == look.to_text()


def test_a_look_is_most_alike_to_the_crops_it_was_learned_from() -> None:
    rng = np.random.default_rng(1)
    rows = _unit_rows(rng, 1)
    look = JokerLook.from_features(rows)
    assert look.similarity(rows)[0] == pytest.approx(1.0, abs=2e-3)   # float16 storage
    others = look.similarity(_unit_rows(rng, 50))
    assert others.max() < 0.9 and others.min() >= -1.0


@pytest.mark.parametrize("text", ["", "joker-look/1 - 2 - ", "joker-look/2 - 2 - AAAA", "joker-look/1 - two - AAAA",
                                  "joker-look/1 - 2 - not*base64", "joker-look/1 - 0 - AAAA", "joker-look/1 - 2 -1 AAAA",
                                  "joker-look/1 a/b 2 - AAAA", "joker-look/1 2 - AAAA", "hello"])
def test_text_that_is_no_look_is_refused_quoting_it(text: str) -> None:
    with pytest.raises(InvalidJokerLookError, match="is not a Joker's look"):
        JokerLook.from_text(text)


@pytest.mark.parametrize("features", [np.zeros((0, 4)), np.full((1, 4), np.nan), np.full((2, 4), 3.0),
                                      np.array([[1.0, 0, 0, 0], [1.0, 1.0, 1.0, 1.0]])])
def test_features_not_of_the_classifiers_making_are_refused(features: np.ndarray) -> None:
    with pytest.raises(InvalidJokerLookError):
        JokerLook.from_features(features)


def test_a_look_taken_with_another_classifier_is_refused_when_matched() -> None:
    look = JokerLook.from_features(_unit_rows(np.random.default_rng(2), 1))
    with pytest.raises(JokerLookMismatchError, match="show the app the deck's Joker again"):
        look.similarity(np.ones((3, 5)))


def test_an_export_without_looks_cannot_learn_a_joker(tmp_path: Path) -> None:
    from onze_vision.detector import CardDetector, InvalidModelError

    make_fake_models(tmp_path, [[160, 160, 20, 30, 0.9]], 320, "JK")
    detector = CardDetector(tmp_path)
    assert detector.looks_width == 0
    with pytest.raises(InvalidModelError, match="no looks"):
        detector.learn_joker(np.full((320, 320, 3), 200, np.uint8))
    look = JokerLook.from_features(_unit_rows(np.random.default_rng(3), 1))
    with pytest.raises(JokerLookMismatchError):
        detector.detect_cards(np.full((320, 320, 3), 200, np.uint8), joker=look)


# --- the shipped model ---------------------------------------------------------------------

def _joker_photo(card: np.ndarray, card_height: int, degrees: float, seed: int) -> np.ndarray:
    """One card (BGRA art) alone on a plain generated table, as a player photographs it."""
    return cards_photo([(card, degrees)], card_height, seed)


@pytest.fixture(scope="module")
def tigullio(art_cache: Path) -> Any:
    """A held-out design whose Joker (a ringed star) the networks were never taught."""
    from onze_vision.synth.art import load_decks

    return load_decks(names=["tigullio"], cache=art_cache)[0]


@pytest.fixture(scope="module")
def shipped() -> Any:
    if not SHIPPED:
        pytest.skip("the shipped models are not in models/")
    from onze_vision.detector import CardDetector

    return CardDetector()


@needs_art
def test_a_joker_shown_once_is_read_in_another_photo_of_it(tigullio: Any, shipped: Any) -> None:
    look = shipped.learn_joker(_joker_photo(tigullio.cards["JK"], 420, 0, seed=1))
    assert look.size == shipped.looks_width
    # Both corners in view: the look keeps how far apart they lie, in mark sizes.
    assert look.corner_distance is not None and 4.5 < look.corner_distance < 8
    other = _joker_photo(tigullio.cards["JK"], 520, 12, seed=2)
    cards = shipped.detect_cards(other, joker=look).cards
    # The Joker, and nothing else: its corners read as Jokers, however the networks read them alone.
    assert [card.card for card in cards] and {card.card for card in cards} == {"JK"}
    assert len(cards) <= 2


@needs_art
def test_a_joker_shown_once_changes_no_other_card(tigullio: Any, shipped: Any) -> None:
    look = shipped.learn_joker(_joker_photo(tigullio.cards["JK"], 420, 0, seed=1))
    for name in ("web_edje_IMG_2560.jpg", "web_edje_IMG_2571.jpg", "web_edje_IMG_2595.jpg"):
        photo = (REAL / name).read_bytes()
        assert shipped.detect_cards(photo, joker=look).cards == shipped.detect_cards(photo).cards, name


@needs_art
@pytest.mark.parametrize("degrees", [0.0, 190.0])
def test_a_star_read_the_same_every_way_up_is_one_joker_beside_another_card(tigullio: Any, shipped: Any,
                                                                             degrees: float) -> None:
    # Its corners' ways down are anyone's guess; the 9's two corners say how far apart a card's lie.
    photo = cards_photo([(tigullio.cards["JK"], degrees), (tigullio.cards["9H"], degrees + 5)], 380, seed=0)
    assert sorted(card.card for card in shipped.detect_cards(photo).cards) == ["9H", "JK"]


@needs_art
def test_a_stars_ways_down_are_asked_once_a_photo_as_four_turned_cuts_would_tell(tigullio: Any, ornamental: Any,
                                                                                   shipped: Any,
                                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from onze_vision.detector import ReadingMemo
    from onze_vision.indexcrop import View, crop_index, crop_view, crops_to_tensor, turn_back
    from onze_vision.joker_corners import TELLS_DOWN_MIN
    from onze_vision.pairing import unit_vectors

    photo = cards_photo([(tigullio.cards["JK"], 0.0), (ornamental.cards["JK"], 0.0)], 380, seed=0)
    xyxy = shipped.locate_indices(photo, 0.25).xyxy
    memo = ReadingMemo()
    keys = memo.keys(photo, xyxy)
    tensor = crops_to_tensor([crop_index(photo, box) for box in xyxy])
    shipped._classify_once(tensor, keys, memo.centred)
    agree = shipped._ways_down_agree(tensor, keys, memo)
    # The crops turned in the classifier's input read as the photo cut turned does.
    views = [View(turns=turns) for turns in range(4)]
    _, down, _ = shipped._classify(crops_to_tensor([crop_view(photo, box, view) for box in xyxy for view in views]))
    back = turn_back(down.reshape(len(xyxy), 4, 2), np.arange(4))
    assert np.allclose(agree, np.linalg.norm(unit_vectors(back).mean(axis=1), axis=1), atol=1e-4)
    # The star (left) tells no way down; JOKER spelt down a corner (right) does.
    left = (xyxy[:, 0] + xyxy[:, 2]) / 2 < photo.shape[1] / 2
    assert agree[left].mean() < TELLS_DOWN_MIN <= agree[~left].mean()
    # Named again (a four-corner deck's mirrored look), the photo's marks are not asked again.
    monkeypatch.setattr(shipped, "_classify", lambda tensor: pytest.fail("asked again"))
    assert np.array_equal(shipped._ways_down_agree(tensor, keys, memo), agree)


@needs_art
def test_a_star_alone_is_asked_one_joker_or_two_until_its_look_is_shown(tigullio: Any, shipped: Any,
                                                                        tmp_path: Path) -> None:
    import cv2

    # Nothing in the photo says how far apart a card's corners lie: its two corners read as two
    # Jokers (upright here; turned 190 degrees they happen to pair, one Joker still asked).
    photo = cards_photo([(tigullio.cards["JK"], 0.0)], 300, seed=0)
    cards = shipped.detect_cards(photo).cards
    assert [card.card for card in cards] == ["JK", "JK"] and all(card.count_unsure for card in cards)
    assert all(card.to_dict()["count_unsure"] is True for card in cards)
    path = tmp_path / "star.png"
    cv2.imwrite(str(path), photo)
    said = _cli("detect", str(path)).stdout.splitlines()
    assert [line.split()[0] for line in said[1:]] == ["JK", "JK"]
    assert all("one Joker or two?" in line for line in said[1:])
    noted = _cli("score", "--variant", "once", "--photo", str(path))
    assert "JK (one Joker or two?), JK (one Joker or two?)" in noted.stderr
    look = shipped.learn_joker(_joker_photo(tigullio.cards["JK"], 420, 0, seed=1))
    cards = shipped.detect_cards(photo, joker=look).cards
    assert [card.card for card in cards] == ["JK"] and not cards[0].count_unsure


@needs_art
def test_a_star_beside_a_card_showing_both_corners_is_counted_surely(tigullio: Any, shipped: Any) -> None:
    photo = cards_photo([(tigullio.cards["JK"], 190.0), (tigullio.cards["9H"], 195.0)], 300, seed=0)
    cards = shipped.detect_cards(photo).cards
    assert sorted(card.card for card in cards) == ["9H", "JK"] and not any(card.count_unsure for card in cards)


@pytest.fixture(scope="module")
def ornamental(art_cache: Path) -> Any:
    """A held-out design whose Joker corner spells JOKER, which tells its way down as a rank does."""
    from onze_vision.synth.art import load_decks

    return load_decks(names=["ornamental"], cache=art_cache)[0]


@needs_art
@pytest.mark.parametrize("jokers", [("tigullio", "tigullio"), ("ornamental", "ornamental"), ("tigullio", "ornamental")],
                         ids=["two stars", "two lettered", "two decks' Jokers"])
def test_two_jokers_side_by_side_stay_two(tigullio: Any, ornamental: Any, shipped: Any, jokers: tuple[str, str]) -> None:
    decks = {"tigullio": tigullio, "ornamental": ornamental}
    photo = cards_photo([(decks[jokers[0]].cards["JK"], 0.0), (decks[jokers[1]].cards["JK"], 3.0),
                         (tigullio.cards["9H"], 5.0)], 300, seed=0)
    cards = shipped.detect_cards(photo).cards
    assert sorted(card.card for card in cards) == ["9H", "JK", "JK"] and not any(card.count_unsure for card in cards)


@needs_art
def test_two_stars_alone_are_asked_one_joker_or_two_and_lettered_jokers_are_not(tigullio: Any, ornamental: Any,
                                                                              shipped: Any) -> None:
    stars = shipped.detect_cards(cards_photo([(tigullio.cards["JK"], 0.0), (tigullio.cards["JK"], 3.0)], 300,
                                             seed=0)).cards
    assert {card.card for card in stars} == {"JK"} and all(card.count_unsure for card in stars)
    lettered = shipped.detect_cards(cards_photo([(ornamental.cards["JK"], 0.0), (ornamental.cards["JK"], 3.0)],
                                                300, seed=0)).cards
    assert [card.card for card in lettered] == ["JK", "JK"] and not any(card.count_unsure for card in lettered)


@needs_art
def test_a_look_another_classifier_took_is_refused_even_as_wide(tigullio: Any, shipped: Any) -> None:
    from dataclasses import replace

    look = shipped.learn_joker(_joker_photo(tigullio.cards["JK"], 420, 0, seed=1))
    assert look.classifier == shipped.looks_id and len(look.classifier) == 16
    with pytest.raises(JokerLookMismatchError, match="another classifier"):
        shipped.detect_cards(_joker_photo(tigullio.cards["JK"], 520, 12, seed=2), joker=replace(look, classifier="0" * 16))


def test_a_photo_of_other_cards_teaches_no_joker(shipped: Any) -> None:
    with pytest.raises(NoJokerFoundError, match="no Joker: photograph one Joker alone"):
        shipped.learn_joker((REAL / "web_edje_IMG_2560.jpg").read_bytes())


def test_a_photo_of_no_card_teaches_no_joker(shipped: Any) -> None:
    with pytest.raises(NoJokerFoundError, match="no card corner is found"):
        shipped.learn_joker(np.full((480, 640, 3), (40, 120, 60), np.uint8))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "onze_vision", *args], capture_output=True, text=True, timeout=300)


def test_detect_says_why_a_joker_photo_teaches_nothing(shipped: Any, tmp_path: Path) -> None:
    hand = str(REAL / "web_edje_IMG_2595.jpg")
    result = _cli("detect", hand, "--joker", str(REAL / "web_edje_IMG_2560.jpg"), "--json")
    assert result.returncode == 2
    assert "--joker" in json.loads(result.stdout)["error"] and "no Joker" in result.stderr
    missing = _cli("detect", hand, "--joker", str(tmp_path / "nothing.jpg"))
    assert missing.returncode == 2 and "nothing.jpg" in missing.stderr


def test_score_takes_a_joker_only_with_a_photo() -> None:
    result = _cli("score", "--variant", "once", "QH", "--joker", "joker.jpg")
    assert result.returncode == 2
    assert "give --photo PHOTO too" in result.stderr


@pytest.mark.parametrize("degrees", [0.0, 30.0, 200.0])
@pytest.mark.parametrize("star", [[[1.0, 0.0], [0.6, 0.8]],      # ways down read at random: not a card's
                                  [[0.0, 1.0], [-0.8, -0.6]]])   # opposite, but off the card's diagonal
def test_a_stars_two_corners_are_paired_by_the_distance_its_photo_showed(degrees: float, star: list) -> None:
    from onze_vision.detections import Detections
    from onze_vision.joker_corners import jokers_turned_as_pairs
    from onze_vision.pairing import index_size, pair_groups
    from synthetic_indices import CONFIG, card_indices, detections

    card = detections(card_indices((200, 200), "JK", degrees=degrees))
    apart = float(np.linalg.norm(card.center[1] - card.center[0]) / index_size(card.wh).mean())
    star = np.array(star, np.float32)
    both = np.array([True, True])

    def groups(down: np.ndarray) -> list[tuple[int, ...]]:
        return pair_groups(Detections(card.xyxy, card.confidence, card.class_id, {"down": down}), CONFIG)

    assert groups(star) == [(0,), (1,)]   # a Joker counted twice
    assert groups(jokers_turned_as_pairs(card.xyxy, star, both, apart * 1.2, CONFIG)) == [(0, 1)]
    # Twice as far apart as the photo showed: two Jokers, left as read; so is a look without a distance.
    assert groups(jokers_turned_as_pairs(card.xyxy, star, both, apart * 2, CONFIG)) == [(0,), (1,)]
    assert np.array_equal(jokers_turned_as_pairs(card.xyxy, star, both, None, CONFIG), star)


@pytest.mark.parametrize("learned", [None, 1.0, 6.0], ids=["no look", "a look far off", "a look as far"])
def test_a_stars_two_corners_lie_as_far_apart_as_the_photos_other_cards_corners(learned: float | None) -> None:
    from onze_vision.detections import Detections
    from onze_vision.joker_corners import jokers_turned_as_pairs
    from onze_vision.pairing import pair_groups
    from synthetic_indices import CONFIG, card_indices, detections

    card = detections(card_indices((200, 200), "JK", degrees=30.0))
    pixels = float(np.linalg.norm(card.center[1] - card.center[0]))
    star = np.array([[1.0, 0.0], [0.6, 0.8]], np.float32)
    both = np.array([True, True])

    def groups(down: np.ndarray) -> list[tuple[int, ...]]:
        return pair_groups(Detections(card.xyxy, card.confidence, card.class_id, {"down": down}), CONFIG)

    # The photo's own cards say how far apart a card's corners lie, whatever the look learned.
    assert groups(jokers_turned_as_pairs(card.xyxy, star, both, learned, CONFIG, pixels * 1.1)) == [(0, 1)]
    assert groups(jokers_turned_as_pairs(card.xyxy, star, both, learned, CONFIG, pixels * 2)) == [(0,), (1,)]
    # Corners that may not pair (they look unalike: two decks' Jokers) are left as read.
    apart = np.zeros((2, 2), bool)
    assert groups(jokers_turned_as_pairs(card.xyxy, star, both, learned, CONFIG, pixels, apart)) == [(0,), (1,)]


@pytest.mark.parametrize(("boxes", "mark_sizes"), [
    ([[0, 0, 10, 10]], None),                               # one corner: nothing to measure
    ([[0, 0, 10, 10], [60, 80, 70, 90]], 10.0),             # centres 100 px apart, 10-px marks
    ([[0, 0, 20, 20], [60, 80, 80, 100]], 5.0),             # the same distance, marks twice as large
])
def test_a_jokers_corner_distance_is_counted_in_mark_sizes(boxes: list, mark_sizes: float | None) -> None:
    from onze_vision.joker_corners import corner_distance

    distance = corner_distance(np.array(boxes, np.float32))
    assert distance == (None if mark_sizes is None else pytest.approx(mark_sizes))


def test_corners_that_look_like_the_games_joker_are_read_as_one_as_surely_as_they_look_like_it() -> None:
    from onze_vision.cards import CARD_CODES, JOKER_CODE
    from onze_vision.joker_corners import read_as_the_decks_joker

    rng = np.random.default_rng(3)
    probs = rng.dirichlet(np.ones(len(CARD_CODES) + 1), size=3).astype(np.float32)
    score = np.array([0.2, 0.9, 0.4], np.float32)
    likeness = np.array([0.95, 0.97, 0.3])
    alike = likeness >= 0.85
    before = probs.copy(), score.copy()
    read, raised = read_as_the_decks_joker(probs, score, likeness, alike)
    joker = CARD_CODES.index(JOKER_CODE)
    assert read[:2].argmax(axis=1).tolist() == [joker, joker] and np.allclose(read[:2].sum(axis=1), 1.0)
    assert np.array_equal(read[2], probs[2])                      # one that looks unlike it is read as it was
    assert raised.tolist() == pytest.approx([0.95, 0.97, 0.4])    # a faint mark raised to its likeness, never lowered
    assert np.array_equal(probs, before[0]) and np.array_equal(score, before[1])   # the caller's arrays untouched
