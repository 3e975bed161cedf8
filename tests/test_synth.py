"""The synthetic dataset generator: format, labels, occlusion, duplicates, determinism."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from onze_vision.cards import CARD_CODES as RULES_CARD_CODES
from onze_vision.synth.art import (DECKS, GLYPH_DECKS, INDEX_FINDER_VERSION, KDE_DIR, NPM_CARD_FILES, NPM_VERSIONS,
                                   ArtNotInstalledError, DeckSource, add_corner_indices, find_index_box,
                                   four_cornered, glyph_codepoint, load_deck, load_decks)
from onze_vision.synth.backgrounds import BackgroundBank, generated_surface, read_gimp_pattern
from onze_vision.synth.codes import CARD_CODES
from onze_vision.synth.dataset import deck_names, make_dataset
from onze_vision.synth.scenes import MIN_VISIBLE, compose_scene, place_card
from support import needs_art

pytestmark = needs_art

SIZE = (320, 320)



@pytest.fixture(scope="module")
def tiny_dataset(tmp_path_factory: pytest.TempPathFactory, art_cache: Path) -> Path:
    out = tmp_path_factory.mktemp("dataset")
    make_dataset(out, train_images=12, val_images=4, seed=7, workers=1, art_cache=art_cache,
                 train_decks=["anglo"], val_decks=["paris"], progress=False)
    return out


def plain_scene(placements):
    """Cards on a flat background, no camera effects: labels follow the geometry exactly."""
    return compose_scene(np.random.default_rng(0), placements, BackgroundBank([]), SIZE, camera_effects=False)


def test_class_list_is_the_rules_engine_card_list():
    assert CARD_CODES == tuple(RULES_CARD_CODES)


def test_held_out_designs_never_train():
    train = {d.name for d in DECKS if d.split == "train"}
    val = {d.name for d in DECKS if d.split == "val"}
    assert len(val) >= 2 and not train & val


def test_validation_scenes_can_draw_on_either_side_of_the_design_split():
    held_out, training, four = deck_names("held-out"), deck_names("training"), deck_names("four-corner")
    numbers, glyphs = deck_names("number-cards"), deck_names("glyph-cards")
    assert set(held_out) == {"tigullio", "ornamental", "heruka-2color-bf"}
    assert set(four) == {"kde-dondorf", "tigullio-four", "ornamental-four", "heruka-2color-bf-four"}
    assert set(numbers) == {"berlin", "rheinland", "lattmann", "tarocco", "guyenne-classic", "slavic_costumes",
                            "ancient_french"}
    assert set(glyphs) == {"glyph-symbola", "glyph-noto-symbols2"}
    assert set(training) == {d.name for d in DECKS} - set(held_out) - set(four) - set(numbers) - set(glyphs)
    with pytest.raises(ValueError, match="'test'"):
        deck_names("test")


@pytest.mark.parametrize(
    ("naming", "code", "file"),
    [
        ("heruka", "AS", "AS.svg"),
        ("heruka", "10H", "TH.svg"),
        ("heruka", "JK", "2J.svg"),
        ("numeric", "AS", "1s.svg"),
        ("numeric", "10D", "10d.svg"),
        ("numeric", "QH", "12h.svg"),
        ("numeric", "KC", "13c.svg"),
        ("numeric", "JK", "joker.svg"),
    ],
)
def test_npm_card_files_are_named_per_package(naming: str, code: str, file: str):
    assert NPM_CARD_FILES[naming](code) == file


def test_every_npm_deck_is_cut_from_a_pinned_release():
    # A new release upstream would change what a dataset's seed draws.
    packages = {deck.origin.split(":")[0] for deck in DECKS if deck.kind == "npm"}
    assert packages == set(NPM_VERSIONS)
    assert all(version.count(".") == 2 for version in NPM_VERSIONS.values())


@pytest.mark.skipif(not (KDE_DIR / "svg-standard").exists(), reason="apt-get install kdegames-card-data-kf5")
def test_a_kde_deck_renders_each_card_element_with_its_index(art_cache: Path):
    deck = load_decks(names=["kde-standard"], cache=art_cache)[0]
    assert len(deck.cards) == 52 and "JK" not in deck.cards
    heights = {card.shape[0] for card in deck.cards.values()}
    assert heights == {360}
    assert set(deck.index_boxes) == set(deck.cards)   # every card's index was found: the loop sees them all
    for code, (x1, y1, x2, y2) in deck.index_boxes.items():
        h, w = deck.cards[code].shape[:2]
        assert 1.3 < h / w < 1.45, code  # a whole card, not a squashed element box
        assert 0 <= x1 < x2 <= 0.3 * w and 0 <= y1 < y2 <= 0.45 * h, code


def test_every_card_of_a_design_has_an_index_near_its_top_left_corner(anglo):
    assert len(anglo.cards) == 53
    assert set(anglo.index_boxes) == set(anglo.cards)   # every card's index was found: the loop sees them all
    for code, (x1, y1, x2, y2) in anglo.index_boxes.items():
        h, w = anglo.cards[code].shape[:2]
        assert 0 <= x1 < x2 <= 0.3 * w, code
        assert 0 <= y1 < y2 <= 0.45 * h, code


@pytest.mark.parametrize("design", ["anglo", "ornamental"])
def test_an_index_is_the_rank_glyph_with_the_pip_under_it(design: str, art_cache: Path):
    # Ornamental's pip reaches 0.43 of the card height: a tighter corner region cut it
    # off, and its labels were the rank glyph alone (about as tall as wide).
    deck = load_decks(names=[design], cache=art_cache)[0]
    assert set(deck.index_boxes) >= set(deck.cards) - {"JK"}   # every index is looked at
    for code, (x1, y1, x2, y2) in deck.index_boxes.items():
        if code != "JK":
            assert (y2 - y1) / (x2 - x1) > 1.8, code


@pytest.mark.parametrize(
    ("design", "code", "drawn"),
    [
        ("anglo", "QH", True),  # an English deck: every card
        ("berlin", "10H", True),  # courts lettered D K B: the number cards
        ("berlin", "AS", True),  # and its Aces, printed "A"
        ("berlin", "QH", False),  # but not its Queen, printed "D"
        ("berlin", "JK", True),  # its Joker's corner star
        ("slavic_costumes", "AS", False),  # an Ace printed "T"
        ("ancient_french", "JK", False),  # a "JOKER" longer than the corner
    ],
)
def test_a_design_draws_the_cards_whose_index_is_english(design: str, code: str, drawn: bool):
    (source,) = [deck for deck in DECKS if deck.name == design]
    assert source.shows(code) is drawn


@pytest.mark.skipif(not Path("/usr/share/aisleriot/cards/berlin.svgz").exists(), reason="apt-get install gnome-cards-data")
def test_a_number_card_deck_renders_only_its_english_indices(art_cache: Path):
    (berlin,) = load_decks(names=["berlin"], cache=art_cache)
    ranks = {code[:-1] for code in berlin.codes if code != "JK"}
    assert ranks == {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10"} and "JK" in berlin.codes
    assert len(berlin.codes) == 41
    # Read again from the cache: the same cards.
    assert load_decks(names=["berlin"], cache=art_cache)[0].codes == berlin.codes


@pytest.mark.parametrize(
    ("code", "codepoint"),
    [
        ("AS", 0x1F0A1),  # the block starts with the spades
        ("10H", 0x1F0BA),
        ("JD", 0x1F0CB),
        ("QC", 0x1F0DD),  # the Knight (U+1F0DC) lies between the Jack and the Queen
        ("KS", 0x1F0AE),
        ("JK", 0x1F0CF),  # the black Joker
    ],
)
def test_a_card_code_names_its_unicode_playing_card(code: str, codepoint: int):
    assert glyph_codepoint(code) == codepoint


@pytest.mark.parametrize("source", GLYPH_DECKS, ids=lambda source: source.name)
def test_a_glyph_deck_draws_whole_cards_with_their_index_in_the_corner(source, art_cache: Path):
    if not Path(source.origin).exists():
        pytest.skip(f"{source.origin} is not installed ({source.licence})")
    (deck,) = load_decks(names=[source.name], cache=art_cache)
    assert {code for code in deck.codes if code != "JK"} == set(CARD_CODES) - {"JK"}
    # Symbola rings a star in its Joker's corners; Noto's Joker has no corner mark and is left out.
    assert ("JK" in deck.codes) is (source.name == "glyph-symbola")
    for code, card in deck.cards.items():
        height, width = card.shape[:2]
        assert 0.6 < width / height < 0.75, code  # a card's shape, not a glyph's box
        assert card[height // 2, width // 2, 3] == 255, code  # paper inside the outline
        x1, y1, x2, y2 = deck.index_boxes[code]
        assert x2 < 0.3 * width and y2 < 0.4 * height, code
    red, black = deck.cards["QH"], deck.cards["QS"]
    (rx1, ry1, rx2, ry2), (bx1, by1, bx2, by2) = deck.index_boxes["QH"], deck.index_boxes["QS"]
    red_ink, black_ink = red[ry1:ry2, rx1:rx2, :3].reshape(-1, 3), black[by1:by2, bx1:bx2, :3].reshape(-1, 3)
    assert red_ink[:, 2].astype(int).min() > red_ink[:, 0].astype(int).min() + 100  # BGR: hearts in red ink
    assert black_ink.max(axis=1).min() < 60  # spades in black


@pytest.mark.parametrize(
    ("font", "says"),
    [
        ("/nonexistent/Symbola.ttf", "is missing"),  # the package is not installed
        ("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", None),  # installed, without the card block
    ],
)
def test_a_glyph_deck_without_its_typeface_says_what_is_missing(tmp_path: Path, font: str, says: str | None):
    if says is None and not Path(font).exists():
        pytest.skip("apt-get install fonts-dejavu-core")
    source = DeckSource("glyph-test", "glyph", font, "test (fonts-test)", "glyphs")
    with pytest.raises(ArtNotInstalledError, match=says or "has no playing card") as raised:
        load_deck(source, tmp_path)
    assert font in str(raised.value)


def test_a_glyph_deck_cached_by_an_older_drawing_is_drawn_again(tmp_path: Path):
    (source,) = [deck for deck in GLYPH_DECKS if deck.name == "glyph-symbola"]
    if not Path(source.origin).exists():
        pytest.skip("apt-get install fonts-symbola")
    stale = np.zeros((10, 7, 4), np.uint8)
    (tmp_path / "decks").mkdir()
    np.savez(tmp_path / "decks" / f"{source.name}.npz", codes=np.array(["AS"]), boxes=np.array([[0, 0, 2, 3]]),
             finder=np.array(INDEX_FINDER_VERSION), drawing=np.array(0), card_0=stale)  # only the drawing is old
    (deck,) = load_decks(names=[source.name], cache=tmp_path)
    assert len(deck.codes) == 53 and deck.cards["AS"].shape[0] == 360


def test_index_finder_ignores_a_blank_card():
    blank = np.full((360, 250, 4), 255, np.uint8)
    assert find_index_box(blank) is None


def test_a_lone_card_shows_both_corners_as_one_card(anglo):
    scene = plain_scene([place_card(anglo, "QH", (160, 160), 0, 200)])
    assert [(l.code, l.card_id, l.corner) for l in scene.labels] == [("QH", 0, "tl"), ("QH", 0, "br")]
    tl, br = scene.labels
    assert tl.down == pytest.approx((0.0, 1.0), abs=1e-6)
    assert br.down == pytest.approx((0.0, -1.0), abs=1e-6)
    assert scene.cards[0].labelled_corners == 2


def test_a_lone_four_corner_card_shows_all_four_corners_as_one_card(anglo):
    four = four_cornered(anglo)
    scene = plain_scene([place_card(four, "QH", (160, 160), 0, 200)])
    labels = {l.corner: l for l in scene.labels}
    assert sorted(labels) == ["bl", "br", "tl", "tr"] and {l.card_id for l in scene.labels} == {0}
    assert labels["tr"].down == pytest.approx((0.0, 1.0), abs=1e-6)
    assert labels["bl"].down == pytest.approx((0.0, -1.0), abs=1e-6)
    # Top right mirrors top left across the card's middle; bottom left is its half turn.
    (x1, y1, x2, y2), (u1, v1, u2, v2) = labels["tl"].box, labels["tr"].box
    assert (v1, v2) == pytest.approx((y1, y2)) and (u1 + u2) / 2 == pytest.approx(320 - (x1 + x2) / 2)
    assert labels["bl"].box == pytest.approx((320 - u2, 320 - v2, 320 - u1, 320 - v1))  # turned about the centre
    assert scene.cards[0].labelled_corners == 4


def test_a_copied_index_lies_in_the_bare_corners(anglo):
    card, box = anglo.cards["7C"], anglo.index_boxes["7C"]
    four = add_corner_indices(card, box)
    h, w = card.shape[:2]
    x1, y1, x2, y2 = box
    assert np.array_equal(four[y1:y2, w - x2:w - x1], card[y1:y2, x1:x2])
    assert np.array_equal(four[h - y2:h - y1, x1:x2], card[h - y2:h - y1, w - x2:w - x1])
    assert np.array_equal(four[y2 + 10:h - y2 - 10], card[y2 + 10:h - y2 - 10])  # the middle is untouched


def test_the_four_corner_designs_have_an_index_in_every_corner(art_cache: Path):
    dondorf = load_decks(names=["kde-dondorf"], cache=art_cache)[0]
    assert dondorf.corners == 4 and len(dondorf.cards) == 52
    card, (x1, y1, x2, y2) = dondorf.cards["KS"], dondorf.index_boxes["KS"]
    w = card.shape[1]
    # Drawn by the art itself: ink in the top-right corner where the top-left index is mirrored.
    mirrored = card[y1:y2, w - x2:w - x1, :3].astype(int)
    assert (np.abs(mirrored - 255).max(axis=2) > 70).mean() > 0.1


def test_a_corner_covered_by_another_card_carries_no_label(anglo):
    under = place_card(anglo, "QH", (160, 160), 0, 200)
    over = place_card(anglo, "7S", (120, 110), 0, 200)  # lies on QH's top-left corner
    scene = plain_scene([under, over])
    corners = {(l.code, l.corner) for l in scene.labels}
    assert ("QH", "tl") not in corners
    assert {("QH", "br"), ("7S", "tl"), ("7S", "br")} <= corners


def test_a_corner_half_visible_is_labelled_only_above_the_threshold(anglo):
    scene = plain_scene([place_card(anglo, "9C", (160, 160), 0, 200)])
    tl = scene.labels[0]
    x1, _, x2, _ = tl.box
    # Slide a second card over the index from the left by a growing share of its width.
    for share in (0.2, 0.8):
        cover_right = x1 + share * (x2 - x1)
        art_h, art_w = anglo.cards["2D"].shape[:2]
        cover_w = 200 * art_w / art_h
        cover = place_card(anglo, "2D", (cover_right - cover_w / 2, 60), 0, 200)
        labels = plain_scene([place_card(anglo, "9C", (160, 160), 0, 200), cover]).labels
        shown = [l for l in labels if l.code == "9C" and l.corner == "tl"]
        if share < 1 - MIN_VISIBLE:
            assert shown, f"{share:.0%} covered must stay labelled"
        else:
            assert not shown, f"{share:.0%} covered must lose its label"


@pytest.mark.parametrize(
    "corner, covered, rank_shows",
    [
        ("tl", "rank", False),  # the top-left index reads downwards: its rank is on top
        ("tl", "pip", True),
        ("br", "rank", False),  # the turned copy reads upwards: its rank is at the bottom
        ("br", "pip", True),
    ],
)
def test_a_label_records_how_much_of_its_rank_shows(anglo, corner: str, covered: str, rank_shows: bool):
    card = place_card(anglo, "9C", (160, 160), 0, 200)
    label = next(l for l in plain_scene([card]).labels if l.corner == corner)
    assert label.rank_visible == pytest.approx(1.0, abs=0.02)
    x1, y1, x2, y2 = label.box
    rank_on_top = corner == "tl"
    cover_top = (covered == "rank") == rank_on_top  # cover the index's upper 40 % or its lower 40 %
    art_h, art_w = anglo.cards["2D"].shape[:2]
    edge = y1 + 0.4 * (y2 - y1) if cover_top else y2 - 0.4 * (y2 - y1)
    cover = place_card(anglo, "2D", ((x1 + x2) / 2, edge - 100 if cover_top else edge + 100), 0, 200)
    assert 200 * art_w / art_h > 2 * (x2 - x1)  # the cover spans the index sideways
    shown = next(l for l in plain_scene([card, cover]).labels if l.code == "9C" and l.corner == corner)
    assert shown.visible >= MIN_VISIBLE  # still labelled: the evaluation decides what a covered rank counts for
    assert (shown.rank_visible > 0.9) == rank_shows, f"{covered} covered: rank_visible {shown.rank_visible:.2f}"


def test_two_identical_cards_from_two_decks_are_two_cards(anglo):
    scene = plain_scene([
        place_card(anglo, "7H", (90, 160), 0, 160),
        place_card(anglo, "7H", (230, 160), 0, 160),
    ])
    assert [l.code for l in scene.labels] == ["7H"] * 4
    assert sorted({l.card_id for l in scene.labels}) == [0, 1]
    assert all(card.labelled_corners == 2 for card in scene.cards)


def test_labels_follow_a_turned_card(anglo):
    scene = plain_scene([place_card(anglo, "KS", (160, 160), 90, 200)])
    downs = sorted(l.down for l in scene.labels)
    # Turned a quarter clockwise on screen, the card's down points left.
    assert downs[0] == pytest.approx((-1.0, 0.0), abs=1e-6)
    assert downs[1] == pytest.approx((1.0, 0.0), abs=1e-6)


def test_dataset_is_valid_ultralytics_format(tiny_dataset: Path):
    yaml_text = (tiny_dataset / "data.yaml").read_text()
    assert "train: images/train" in yaml_text and "val: images/val" in yaml_text
    assert yaml_text.count("\n  ") == 53 and "  52: JK" in yaml_text
    for split, count in (("train", 12), ("val", 4)):
        images = sorted((tiny_dataset / "images" / split).glob("*.jpg"))
        labels = sorted((tiny_dataset / "labels" / split).glob("*.txt"))
        assert len(images) == len(labels) == count
        assert [p.stem for p in images] == [p.stem for p in labels]
    assert (tiny_dataset / "contact_sheet_train.png").stat().st_size > 10_000


def test_a_dataset_says_which_table_photos_its_scenes_were_drawn_with(tiny_dataset: Path):
    # A seed draws other scenes with other photos installed: the summary tells two datasets apart.
    from onze_vision.synth.backgrounds import find_background_files

    summary = json.loads((tiny_dataset / "summary.json").read_text())
    assert summary["backgrounds"] == len(find_background_files())
    assert (summary["backgrounds_digest"] == "") == (summary["backgrounds"] == 0)


def test_every_label_lies_inside_its_image(tiny_dataset: Path):
    lines = [
        line.split()
        for path in (tiny_dataset / "labels").rglob("*.txt")
        for line in path.read_text().splitlines()
    ]
    assert len(lines) > 20
    for cls, cx, cy, w, h in lines:
        assert 0 <= int(cls) < 53
        cx, cy, w, h = map(float, (cx, cy, w, h))
        assert 0 < w <= 1 and 0 < h <= 1
        assert cx - w / 2 >= -1e-6 and cx + w / 2 <= 1 + 1e-6
        assert cy - h / 2 >= -1e-6 and cy + h / 2 <= 1 + 1e-6


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in {".jpg", ".txt", ".jsonl"}:
            digest.update(path.relative_to(folder).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_the_same_seed_gives_the_same_bytes_whatever_the_worker_count(tmp_path: Path, art_cache: Path, tiny_dataset: Path):
    again = tmp_path / "again"
    make_dataset(again, train_images=12, val_images=4, seed=7, workers=2, art_cache=art_cache,
                 train_decks=["anglo"], val_decks=["paris"], progress=False)
    assert _digest(again) == _digest(tiny_dataset)


def test_generated_surfaces_are_images():
    rng = np.random.default_rng(3)
    for _ in range(6):
        surface = generated_surface(rng, (64, 48))
        assert surface.shape == (48, 64, 3) and surface.dtype == np.uint8 and surface.std() > 1


def test_gimp_patterns_decode(tmp_path: Path):
    import struct

    pixels = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    name = b"test\x00"
    header = struct.pack(">5I", 24 + len(name), 1, 3, 2, 3) + b"GPAT" + name
    path = tmp_path / "tiny.pat"
    path.write_bytes(header + pixels.tobytes())
    decoded = read_gimp_pattern(path)
    assert decoded.shape == (2, 3, 3)
    assert (decoded[..., ::-1] == pixels).all()


def test_a_drawn_card_keeps_the_detail_of_its_art(anglo):
    # Drawn a quarter of its art size, the card must look like the art shrunk directly,
    # not like a thumbnail blown up again (a blurred blob teaches nothing).
    import cv2

    art = anglo.cards["10S"]
    height = art.shape[0] / 4
    scene = plain_scene([place_card(anglo, "10S", (160, 160), 0, height)])
    expected = cv2.resize(art[:, :, :3], None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    eh, ew = expected.shape[:2]
    drawn = scene.image[round(160 - eh / 2) : round(160 - eh / 2) + eh, round(160 - ew / 2) : round(160 - ew / 2) + ew]
    sharpness = cv2.Laplacian(cv2.cvtColor(drawn, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
    reference = cv2.Laplacian(cv2.cvtColor(expected, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
    assert sharpness > 0.5 * reference


def anglo_scenes_with_and_without(tmp_path: Path, art_cache: Path, scenes: int,
                                  **option: float) -> tuple[list[dict], list[dict]]:
    """The scene records of one seed's anglo scenes drawn plain and with ``option``."""
    common = dict(train_images=scenes, val_images=0, seed=5, workers=1, art_cache=art_cache,
                  train_decks=["anglo"], val_decks=["paris"], progress=False)
    make_dataset(tmp_path / "plain", **common)
    make_dataset(tmp_path / "with", **option, **common)
    plain, with_option = ([json.loads(line) for line in (tmp_path / name / "meta/train.jsonl").read_text().splitlines()]
                          for name in ("plain", "with"))
    return plain, with_option


@pytest.mark.parametrize(
    ("option", "split", "flag"),
    [
        ("number_decks", "number-cards", "--number-decks"),  # courts lettered in another language
        ("glyph_decks", "glyph-cards", "--glyph-decks"),  # typefaces' playing cards
    ],
)
def test_more_decks_join_the_training_scenes_only_when_asked(tmp_path: Path, art_cache: Path, option: str,
                                                              split: str, flag: str):
    if split == "glyph-cards" and not all(Path(source.origin).exists() for source in GLYPH_DECKS):
        pytest.skip("apt-get install fonts-symbola fonts-noto-core")
    common = dict(train_images=12, val_images=0, seed=5, workers=1, art_cache=art_cache, train_decks=["anglo"],
                  progress=False)
    plain = make_dataset(tmp_path / "plain", **common)
    more = make_dataset(tmp_path / "more", **{option: True}, **common)
    assert plain.decks["train"] == ["anglo"]
    assert more.decks["train"] == ["anglo", *deck_names(split)]
    drawn = {card["deck"] for line in (tmp_path / "more/meta/train.jsonl").read_text().splitlines()
             for card in json.loads(line)["cards"]}
    assert drawn & set(deck_names(split))
    assert flag in (tmp_path / "more/data.yaml").read_text()
    assert flag not in (tmp_path / "plain/data.yaml").read_text()


def test_four_corner_scenes_are_the_same_scenes_with_two_more_corners_a_card(tmp_path: Path, art_cache: Path):
    two, four = anglo_scenes_with_and_without(tmp_path, art_cache, 4, four_corner_share=1.0)
    for plain, more in zip(two, four):
        assert [(c["code"], c["center"]) for c in plain["cards"]] == [(c["code"], c["center"]) for c in more["cards"]]
        assert {c["deck"] for c in more["cards"]} == {"anglo-four"}
        # Every corner labelled before is labelled again (uncovered by the copied indices).
        before = {(label["card_id"], label["corner"]) for label in plain["labels"]}
        after = {(label["card_id"], label["corner"]) for label in more["labels"]}
        assert before <= after
    assert any(label["corner"] in ("tr", "bl") for meta in four for label in meta["labels"])
    assert "--four-corners 1" in (tmp_path / "with/data.yaml").read_text()


def test_a_four_corner_share_outside_0_to_1_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="four_corner_share.*1.5"):
        make_dataset(tmp_path, train_images=1, val_images=0, four_corner_share=1.5, progress=False)


def test_joker_scenes_are_the_same_scenes_with_some_cards_dealt_as_jokers(tmp_path: Path, art_cache: Path):
    plain, jokers = anglo_scenes_with_and_without(tmp_path, art_cache, 6, joker_share=1.0)
    for before, after in zip(plain, jokers):
        # The same layout of as many cards; some of them are Jokers now (placed by their own
        # index size, so the cards may lie a little elsewhere).
        assert after["layout"] == before["layout"] and len(after["cards"]) == len(before["cards"])
        changed = [a["code"] for b, a in zip(before["cards"], after["cards"]) if b["code"] != a["code"]]
        assert set(changed) <= {"JK"} and len(changed) <= 3
        assert any(c["code"] == "JK" for c in after["cards"])  # anglo has a Joker: every scene deals one
    assert "--jokers 1" in (tmp_path / "with/data.yaml").read_text()


def test_a_deck_without_a_joker_keeps_its_cards_when_jokers_are_dealt(art_cache: Path):
    from onze_vision.synth.scenes import deal_jokers

    (kde,) = load_decks(names=["kde-standard"], cache=art_cache)
    picks = [("QH", kde), ("2C", kde), ("AS", kde)]
    assert deal_jokers(np.random.default_rng(0), picks) == picks


def test_a_joker_share_outside_0_to_1_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="joker_share.*2"):
        make_dataset(tmp_path, train_images=1, val_images=0, joker_share=2.0, progress=False)


@pytest.mark.parametrize("option", ["--printed", "--four-corners", "--jokers"])
def test_the_command_line_refuses_a_share_of_scenes_over_1(tmp_path: Path, option: str):
    result = subprocess.run([sys.executable, "-m", "onze_vision", "make-dataset", "--out", str(tmp_path / "d"),
                             "--train", "1", "--val", "0", option, "1.5"], capture_output=True, text=True)
    assert result.returncode == 2
    assert f"{option} is a share of scenes from 0 to 1, not 1.5" in result.stderr
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("content", [None, b"not a png", "grey"])
def test_a_render_that_is_missing_broken_or_without_alpha_is_art_not_installed(tmp_path, content) -> None:
    import cv2

    from onze_vision.synth.art import ArtNotInstalledError, _rendered

    png = tmp_path / "QH.png"
    if content == "grey":
        cv2.imwrite(str(png), np.full((10, 7), 128, np.uint8))   # rendered, but with no alpha channel
    elif content is not None:
        png.write_bytes(content)
    with pytest.raises(ArtNotInstalledError, match="could not render queen_heart of svg-standard"):
        _rendered(png, "queen_heart of svg-standard")
