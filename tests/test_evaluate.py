"""The evaluation's maths (AP, matching) and a full run on tiny data sets with fake models."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from fake_models import make_fake_models

from onze_vision.detections import Detections
from onze_vision.detector import CARD_CODES, CardDetector, DetectedCard, DetectorConfig
from onze_vision.evaluate import (
    average_precision,
    evaluate_real_photos,
    evaluate_synthetic,
    format_summary,
    fullest_scenes,
    label_readings,
    make_speed_photos,
    match_predictions,
    match_with_ignored,
    named_as_labelled,
    offered_fixes,
    read_yolo_labels,
    run_evaluation,
)


def test_average_precision_perfect_and_empty() -> None:
    assert average_precision(np.array([0.9, 0.8]), np.array([True, True]), 2) == pytest.approx(1.0)
    assert average_precision(np.zeros(0), np.zeros(0, bool), 3) == 0.0
    assert np.isnan(average_precision(np.array([0.5]), np.array([False]), 0))


def test_average_precision_101_point() -> None:
    # Ranked: hit, miss, hit; 4 ground truths. Recall 0.25 @ P 1, 0.5 @ P 2/3.
    ap = average_precision(np.array([0.9, 0.8, 0.7]), np.array([True, False, True]), 4)
    expected = (26 * 1.0 + 25 * (2 / 3)) / 101  # r in [0, .25] -> 1; (.25, .5] -> 2/3; above -> 0
    assert ap == pytest.approx(expected)


def test_average_precision_uses_precision_envelope() -> None:
    # miss then hit: precision at recall 1 is 0.5, and the envelope carries it down to r = 0.
    ap = average_precision(np.array([0.9, 0.1]), np.array([False, True]), 1)
    assert ap == pytest.approx(0.5)


def test_match_predictions_greedy_by_score_and_class() -> None:
    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32)
    preds = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10]], np.float32)
    tp = match_predictions(preds, np.array([0.5, 0.9, 0.8]), np.array([0, 0, 1]), gt, np.array([0, 0]), [0.5, 0.95])
    # At 0.5 the best-scoring near duplicate takes the first box and the exact one comes too late;
    # at 0.95 the duplicate (IoU 0.82) misses, so the exact one matches. Class 1 has no box.
    assert tp[:, 0].tolist() == [False, True, False]
    assert tp[:, 1].tolist() == [True, False, False]


def test_read_yolo_labels(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("3 0.5 0.5 0.1 0.2\n52 0.25 0.75 0.5 0.5\n")
    xyxy, classes = read_yolo_labels(path, 200, 100)
    np.testing.assert_allclose(xyxy, [[90, 40, 110, 60], [0, 50, 100, 100]])
    assert classes.tolist() == [3, 52]
    assert read_yolo_labels(tmp_path / "missing.txt", 10, 10)[0].shape == (0, 4)


def one_real_photo(folder: Path) -> Path:
    """A real-photo set of one grey 320x320 photo labelled with a 10 (60-160, 60-200) and a K
    in its bottom-left corner (0-50, 250-320)."""
    folder.mkdir()
    cv2.imwrite(str(folder / "p.jpg"), np.full((320, 320, 3), 90, np.uint8))
    (folder / "manifest.json").write_text(json.dumps([
        {"image": "p.jpg", "width": 320, "height": 320,
         "cards": [{"rank": "10", "box": [60, 60, 160, 200]}, {"rank": "K", "box": [0, 250, 50, 320]}]}]))
    return folder


def test_full_run_on_tiny_sets(tmp_path: Path) -> None:
    # Fake models: two "10S" index boxes at fixed places of a 320x320 input.
    boxes = [[100, 100, 20, 30, 0.9], [220, 200, 20, 30, 0.8]]
    models = tmp_path / "models"
    models.mkdir()
    make_fake_models(models, boxes, 320, "10S")
    detector = CardDetector(models)

    # Synthetic: labels exactly where the fake detector looks, one of them with another code.
    synthetic = tmp_path / "val"
    (synthetic / "images").mkdir(parents=True)
    (synthetic / "labels").mkdir()
    for name in ("a", "b"):
        cv2.imwrite(str(synthetic / "images" / f"{name}.jpg"), np.full((320, 320, 3), 128, np.uint8))
    ten_s, nine_s = CARD_CODES.index("10S"), CARD_CODES.index("9S")
    (synthetic / "labels" / "a.txt").write_text(
        f"{ten_s} {100 / 320} {100 / 320} {20 / 320} {30 / 320}\n{ten_s} {220 / 320} {200 / 320} {20 / 320} {30 / 320}\n")
    (synthetic / "labels" / "b.txt").write_text(
        f"{ten_s} {100 / 320} {100 / 320} {20 / 320} {30 / 320}\n{nine_s} {220 / 320} {200 / 320} {20 / 320} {30 / 320}\n")

    # The generator's scene records: in each scene two cards, one corner index each.
    (synthetic / "meta").mkdir()

    def label(code: str, card_id: int, cx: float, cy: float) -> dict:
        return {"code": code, "card_id": card_id, "corner": "tl", "box": [cx - 10, cy - 15, cx + 10, cy + 15],
                "visible": 1.0, "down": [0.0, 1.0]}

    def cards(deck: str, *codes: str) -> list[dict]:
        return [{"card_id": i, "code": code, "deck": deck} for i, code in enumerate(codes)]

    (synthetic / "meta" / "val.jsonl").write_text("\n".join(json.dumps(record) for record in [
        {"image": "images/a.jpg", "cards": cards("alpha", "10S", "10S"),
         "labels": [label("10S", 0, 100, 100), label("10S", 1, 220, 200)]},
        {"image": "images/b.jpg", "cards": cards("beta", "10S", "9S"),
         "labels": [label("10S", 0, 100, 100), label("9S", 1, 220, 200)]},
    ]) + "\n")

    # Real: one photo whose labelled 10 lies under the first box; the second box invents a card.
    real = one_real_photo(tmp_path / "real")

    # Two speed photos asked for, but the set has only one.
    # The same scenes stand in for the held-out set drawn at the product's reading resolution
    # and for the far shots.
    results = run_evaluation(detector, tmp_path / "report", real, synthetic, speed_photos=2,
                             synthetic_product=synthetic, synthetic_far=synthetic, synthetic_four=synthetic,
                             ultralytics=False, progress=lambda line: None)

    r = results["real"]
    assert r["labelled_cards"] == 2 and r["rank_recall"] == pytest.approx(0.5)
    assert r["invented"] == 1 and r["invented_per_photo"] == pytest.approx(1.0)
    assert r["per_rank_recall"] == {"10": 1.0, "K": 0.0}
    assert r["worst_photos"][0]["missed"] == ["K"] and r["worst_photos"][0]["invented"] == ["10S"]

    s = results["synthetic"]
    assert s["images"] == 2 and s["index_boxes"] == 4
    assert s["ap50_per_class"]["10S"] == pytest.approx(1.0) and s["ap50_per_class"]["9S"] == 0.0
    assert s["map50"] == pytest.approx(0.5)
    # A classifier sure of one code: scoring every code of a box changes nothing.
    assert s["map50_every_code"] == pytest.approx(0.5)
    # Every index was boxed: named as labelled, nothing would be lost.
    assert s["map50_named_right"] == pytest.approx(1.0)
    assert s["recall_per_class"] == {"10S": 1.0, "9S": 0.0}
    # Per design: alpha's two 10S are read; beta's 9S is read as a 10S.
    assert s["per_design"]["alpha"] == {"scenes": 1, "index_boxes": 2, "map50": 1.0, "recall": 1.0, "located": 1.0}
    assert s["per_design"]["beta"]["map50"] == pytest.approx(0.5)
    assert (s["per_design"]["beta"]["recall"], s["per_design"]["beta"]["located"]) == (0.5, 1.0)
    confusion = np.array(s["confusion"])
    assert confusion[nine_s, ten_s] == 1 and confusion[ten_s, ten_s] == 3

    cards = s["cards"]
    assert (cards["scenes"], cards["cards"]) == (2, 4)
    assert cards["recall"] == pytest.approx(0.75) and cards["exact_scene_rate"] == pytest.approx(0.5)
    assert cards["pairing_on_true_indices"]["card_accuracy"] == 1.0
    # The 9S read as a 10S is the one wrong reading; the fake classifier is sure of it.
    assert cards["alternatives"]["wrong"] == 1 and cards["alternatives"]["fixed_share"] == 0.0
    assert cards["alternatives"]["recall_after_fixes"] == pytest.approx(0.75)

    speed = results["speed"]
    assert speed["photos"] == 1 and speed["median_ms"] > 0
    assert set(speed["stage_mean_ms"]) == {"decode", "preprocess", "detector", "classifier", "postprocess"}
    assert 0 <= speed["outside_networks_share"] <= 1

    report = tmp_path / "report"
    assert (report / "report.md").read_text().startswith("# Onze Vision: detector evaluation")
    assert json.loads((report / "report.json").read_text())["synthetic"]["map50"] == pytest.approx(0.5)
    for plot in results["plots"]:
        assert (report / plot).stat().st_size > 1000
    summary = format_summary(results)
    assert "real-photo rank recall" in summary and "0.500" in summary

    # The product-resolution set is scored like the bar's set and reported beside it, never judged.
    assert results["synthetic_product"]["map50"] == pytest.approx(s["map50"])
    rows = {row["name"]: row for row in results["summary"]}
    product_row = rows["synthetic mAP50 at the product's reading resolution (3x)"]
    assert (product_row["value"], product_row["bar"], product_row["ok"]) == (pytest.approx(0.5), "(reported)", None)
    assert rows["synthetic mAP50"]["ok"] is False
    # Two scenes drawn again: b (its 9S read 10S) at least once reads 0.5 as both do; a twice
    # (a quarter of the draws) has no 9S to miss and reads 1.0.
    spread = rows["synthetic mAP50 on another draw of as many scenes (95 % of resampled scenes)"]
    assert (spread["text"], spread["bar"], spread["ok"]) == ("0.500-1.000", "(reported)", None)
    text = (report / "report.md").read_text()
    assert "mAP50 of 95 % of the scenes resampled" in text
    assert "## Synthetic held-out decks" in text and "## The same held-out decks at the product's reading" in text

    # Far shots are scored the same way and timed, never judged.
    far = results["synthetic_far"]
    assert far["map50"] == pytest.approx(s["map50"]) and far["cards"]["recall"] == pytest.approx(0.75)
    assert far["speed"]["photos"] == 2 and far["speed"]["p95_ms"] >= far["speed"]["median_ms"] > 0
    far_rows = [row for row in results["summary"] if row["name"].startswith("far shots")]
    assert [row["value"] for row in far_rows[:2]] == [pytest.approx(0.5), pytest.approx(0.75)]
    assert all(row["bar"] == "(reported)" and row["ok"] is None for row in far_rows)
    assert "## Far shots (4000-px photos, 40-120 px indices)" in text and "ms p95" in text

    # Full hands: the product-scale set's scenes with the most cards, timed, never judged
    # (two asked for: both scenes, each showing two cards, read as two).
    hands = results["synthetic_product"]["speed_full_hands"]
    assert (hands["photos"], hands["cards_shown_mean"], hands["cards_read_mean"]) == (2, 2.0, 2.0)
    assert hands["p95_ms"] >= hands["median_ms"] > 0 and hands["stage_mean_ms"]["classifier"] > 0
    hand_rows = [row for row in results["summary"] if row["name"].startswith("full hands")]
    assert [row["value"] for row in hand_rows] == [hands["median_ms"], hands["p95_ms"]]
    assert all(row["bar"] == "(reported)" and row["ok"] is None for row in hand_rows)
    assert "Full hands: its 2 scenes showing the most cards (2.0 on average" in text

    # Four-corner decks: cards counted once is what is reported, never judged.
    four_rows = {row["name"].split(": ", 1)[-1]: row for row in results["summary"]
                 if row["name"].startswith("four-corner decks")}
    assert four_rows["card recall"]["value"] == pytest.approx(0.75)
    assert four_rows["scenes read exactly"]["value"] == pytest.approx(0.5)
    assert all(row["bar"] == "(reported)" and row["ok"] is None for row in four_rows.values())
    assert "## Four-corner decks" in text
    assert results["synthetic_four"]["located_by_corner"] == {"tl": {"labels": 4, "located": 1.0}}

    # The real photo read again grey and in bad light: the fake detector sees the same two
    # 10S wherever it looks, so each is found and read as taken; in the grey copy each also
    # offers its red twin. Reported, never judged.
    conditions = results["conditions"]
    assert conditions["photos"] == 1
    grey = conditions["grey"]
    assert (grey["cards"], grey["found"], grey["black: read right"], grey["judged colourless"]) == (2, 2, 2, 1)
    assert grey["read_or_offered_right_share"] == 1.0
    assert {name: shares["found_share"] for name, shares in conditions["light"].items()} == {
        "very warm": 1.0, "dim": 1.0, "dark": 1.0}
    condition_rows = [row for row in results["summary"] if row["name"].startswith("real photos made grey")
                      or row["name"].startswith("real photos in bad light")]
    assert [(row["value"], row["ok"]) for row in condition_rows] == [(1.0, None), (1.0, None)]
    assert {name: shares["found_share"] for name, shares in conditions["blur"].items()} == {
        "out of focus": 1.0, "shaken": 1.0, "shaken on a curve": 1.0}
    # A tilt moves the cards and the fake's boxes stay put: the reference boxes are followed
    # to where the tilt carried them, and nothing is found there.
    assert {name: shares["found_share"] for name, shares in conditions["tilt"].items()} == {
        "tilted": 0.0, "steeply tilted": 0.0}
    assert "## Real photos without colour, in bad light, blurred, tilted, mirrored and covered" in text
    # So does a mirror: the reference boxes are followed to the other side.
    assert conditions["mirrored"]["found_share"] == 0.0 and conditions["mirrored"]["read mirrored"] == 0
    assert "- Mirrored left to right (as a selfie camera or a webcam may save the photo): cards found 0.000" in text
    # A corner covered: the fake still sees its two 10S where they were, found by their centres.
    assert {name: shares["found_share"] for name, shares in conditions["covered"].items()} == {
        "glare": 1.0, "thumb": 1.0}
    assert "| glare (blown out to white) | 1.000 | 1.000 |" in text
    covered_row = next(row for row in results["summary"] if row["name"].startswith("real photos with a corner"))
    assert (covered_row["bar"], covered_row["ok"]) == ("(reported)", None)
    # These models have no blur gauge: no photo is reported blurred, and that is no figure, so
    # the report says it was not measured rather than 0.000 (which read as a gauge that failed).
    assert "| steeply tilted (0.5) | 0.000 | 0.000 | 0.000 | n/a |" in text
    assert conditions["as taken"]["warned_share"] is None and conditions["blur"]["shaken"]["warned_share"] is None
    assert conditions["blur"]["shaken"]["warned blurred"] == 0
    assert "| shaken (motion, 0.018) | 1.000 | 1.000 | n/a |" in text
    blur_rows = {row["name"]: row["text"] for row in results["summary"] if "reported blurred" in row["name"]}
    assert blur_rows == {"real photos as taken reported blurred (a warning where none is due)": "not measured",
                         "real photos out of focus: reported blurred": "not measured",
                         "real photos shaken: reported blurred": "not measured",
                         "real photos shaken on a curve: reported blurred": "not measured"}
    assert "| dark (0.2, 0.2, 0.2; 4) | 1.000 |" in text and "| shaken (motion, 0.018) | 1.000 |" in text


def test_real_photos_count_the_cards_offered_as_possibly_missed(tmp_path: Path) -> None:
    # A sure 10S on the labelled 10, and two indices under the operating point: one on the
    # labelled K (an offer to take), one on the table (an offer to decline).
    models = tmp_path / "models"
    models.mkdir()
    make_fake_models(models, [[100, 100, 20, 30, 0.9], [25, 285, 20, 30, 0.4], [280, 60, 20, 30, 0.4]], 320, "10S")
    config = DetectorConfig(conf_threshold=0.5, maybe_conf=0.3, maybe_prob=0.2)
    real = one_real_photo(tmp_path / "real")

    r = evaluate_real_photos(CardDetector(models, config=config), real, progress=lambda line: None)
    assert (r["rank_recall"], r["invented"]) == (pytest.approx(0.5), 0)       # offers are never counted
    assert (r["offered_per_photo"], r["offered_off_cards_per_photo"]) == (2.0, 1.0)
    assert r["worst_photos"][0]["offered_off_cards"] == ["10S"]
    # A reader of its own gives cards only: nothing is known of offers.
    read = evaluate_real_photos(None, real, progress=lambda line: None, reader=lambda path: [])
    assert read["offered_per_photo"] is None and read["offered_off_cards_per_photo"] is None


def test_every_code_map_scores_a_boxs_runner_up_as_ultralytics_does(tmp_path: Path) -> None:
    # Two boxes read 10S at 0.731 with 9S runner-up at 0.269; the second is in truth a 9S.
    models = tmp_path / "models"
    models.mkdir()
    make_fake_models(models, [[100, 100, 20, 30, 0.9], [220, 200, 20, 30, 0.8]], 320, "10S", runner_up="9S")
    synthetic = tmp_path / "val"
    (synthetic / "images").mkdir(parents=True)
    (synthetic / "labels").mkdir()
    cv2.imwrite(str(synthetic / "images" / "b.jpg"), np.full((320, 320, 3), 128, np.uint8))
    ten_s, nine_s = CARD_CODES.index("10S"), CARD_CODES.index("9S")
    (synthetic / "labels" / "b.txt").write_text(
        f"{ten_s} {100 / 320} {100 / 320} {20 / 320} {30 / 320}\n{nine_s} {220 / 320} {200 / 320} {20 / 320} {30 / 320}\n")

    s = evaluate_synthetic(CardDetector(models), synthetic, progress=lambda line: None)
    # One code per box: the 10S is found (AP 1), the 9S never (AP 0).
    assert s["map50"] == pytest.approx(0.5)
    assert s["map50_interval"] == pytest.approx([0.5, 0.5])   # one scene drawn again is that scene
    # Every code scored: 10S still AP 1; 9S is found by the second box's runner-up, ranked
    # below the first box's (a false 9S at 0.9 x 0.269): precision 1/2, AP 0.5.
    assert s["map50_every_code"] == pytest.approx(0.75)


BOX_A, BOX_B = [0, 0, 10, 10], [50, 50, 60, 60]


@pytest.mark.parametrize(
    ("box", "expected_code", "expected_confidence"),
    [
        ([0, 0, 10, 20], "9S", 0.8),  # on the 9S index, read 10S: named 9S, scored by the detector alone
        ([1, 1, 11, 21], "9S", 0.8),  # a little off, still on it (IoU >= 0.5)
        ([50, 50, 60, 70], "10S", 0.4),  # on no index: keeps its reading
    ],
)
def test_named_as_labelled_gives_each_box_on_an_index_its_label(
    box: list[int], expected_code: str, expected_confidence: float
) -> None:
    reading = Detections(np.array([box], np.float32), np.array([0.4], np.float32),
                         np.array([CARD_CODES.index("10S")]), {"det_score": np.array([0.8], np.float32)})
    named = named_as_labelled(reading, np.array([[0, 0, 10, 20]], np.float32), np.array([CARD_CODES.index("9S")]))
    assert CARD_CODES[int(named.class_id[0])] == expected_code
    assert named.confidence[0] == pytest.approx(expected_confidence)


NINE_S, TEN_S = CARD_CODES.index("9S"), CARD_CODES.index("10S")


@pytest.mark.parametrize(
    ("case", "boxes", "confidences", "codes", "expected"),
    [
        ("a box on the label with its code reads it right", [[0, 0, 10, 20]], [0.9], [NINE_S], ["right"]),
        ("a box on the label with another code reads it wrong", [[0, 0, 10, 20]], [0.9], [TEN_S], ["wrong"]),
        ("a box beside the label (IoU < 0.5) misses it", [[6, 0, 16, 20]], [0.9], [NINE_S], ["missed"]),
        ("no box misses it", [], [], [], ["missed"]),
        ("of two boxes on it, the surer one reads it", [[0, 0, 10, 20], [1, 1, 11, 21]], [0.3, 0.8], [NINE_S, TEN_S],
         ["wrong"]),
    ],
)
def test_label_readings_take_the_surest_box_on_each_label(
    case: str, boxes: list[list[int]], confidences: list[float], codes: list[int], expected: list[str]
) -> None:
    indices = Detections(np.array(boxes, np.float32).reshape(-1, 4), np.array(confidences, np.float32),
                         np.array(codes, np.int64))
    assert label_readings(indices, np.array([[0, 0, 10, 20]], np.float32), np.array([NINE_S])) == expected


@pytest.mark.parametrize(
    "case, gt_ignored, pred_class, out_of_range, expected_tp, expected_ignored",
    [
        ("a prediction on a counted label is right", [False], [0], [False], [True], [False]),
        ("a prediction on an ignored label is neither right nor wrong", [True], [0], [False], [False], [True]),
        ("a wrong code on an ignored label is still wrong", [True], [1], [False], [False], [False]),
        ("a prediction outside the size band that matches nothing is left out", [False], [1], [True], [False], [True]),
        ("a prediction outside the size band on a counted label still counts", [False], [0], [True], [True], [False]),
    ],
)
def test_matching_with_ignored_labels(case, gt_ignored, pred_class, out_of_range, expected_tp, expected_ignored) -> None:
    tp, ignored = match_with_ignored(np.array([BOX_A], np.float32), np.array([0.9]), np.array(pred_class),
                                     np.array([BOX_A], np.float32), np.array([0]), [0.5],
                                     np.array(gt_ignored), np.array(out_of_range))
    assert tp[:, 0].tolist() == expected_tp, case
    assert ignored[:, 0].tolist() == expected_ignored, case


def test_a_counted_label_is_taken_before_an_ignored_one_under_the_same_prediction() -> None:
    gt = np.array([BOX_A, BOX_A], np.float32)  # an ignored and a counted label on one spot
    tp, ignored = match_with_ignored(np.array([BOX_A, BOX_A], np.float32), np.array([0.9, 0.8]), np.array([0, 0]),
                                     gt, np.array([0, 0]), [0.5], np.array([True, False]))
    assert tp[:, 0].tolist() == [True, False]  # the best prediction takes the counted label
    assert ignored[:, 0].tolist() == [False, True]  # the second lands on the ignored one
    assert match_predictions(np.array([BOX_B], np.float32), np.array([0.5]), None, gt, None, [0.5]).tolist() == [[False]]


def test_breakdown_ignores_labels_whose_rank_is_covered(tmp_path: Path) -> None:
    # Two boxes read 10S; the second is in truth a 9S whose rank is mostly covered.
    models = tmp_path / "models"
    models.mkdir()
    make_fake_models(models, [[100, 100, 30, 40, 0.9], [220, 200, 30, 40, 0.8]], 320, "10S", runner_up="9S")
    synthetic = tmp_path / "val"
    for folder in ("images/val", "labels/val", "meta"):
        (synthetic / folder).mkdir(parents=True)
    cv2.imwrite(str(synthetic / "images" / "val" / "b.jpg"), np.full((320, 320, 3), 128, np.uint8))
    ten_s, nine_s = CARD_CODES.index("10S"), CARD_CODES.index("9S")
    (synthetic / "labels" / "val" / "b.txt").write_text(
        f"{ten_s} {100 / 320} {100 / 320} {30 / 320} {40 / 320}\n{nine_s} {220 / 320} {200 / 320} {30 / 320} {40 / 320}\n")
    labels = [{"code": "10S", "card_id": 0, "corner": "tl", "box": [85, 80, 115, 120], "down": [0, 1], "rank_visible": 1.0},
              {"code": "9S", "card_id": 1, "corner": "tl", "box": [205, 180, 235, 220], "down": [0, 1], "rank_visible": 0.3}]
    record = {"image": "images/val/b.jpg", "cards": [{"card_id": 0, "code": "10S", "deck": "d"},
                                                     {"card_id": 1, "code": "9S", "deck": "d"}], "labels": labels}
    (synthetic / "meta" / "val.jsonl").write_text(json.dumps(record) + "\n")

    s = evaluate_synthetic(CardDetector(models), synthetic, progress=lambda line: None)
    every, showing = s["map50_breakdown"]["every label"], s["map50_breakdown"]["rank showing"]
    assert every["all sizes"]["map50"] == pytest.approx(s["map50"]) == pytest.approx(0.5)
    assert every["24 px and up"]["index_boxes"] == 2 and every["under 16 px"]["index_boxes"] == 0
    # The covered 9S need not be found, but the second box's 10S reading is still a false
    # 10S: precision 1 then 1/2 at full recall, AP 1.
    assert showing["all sizes"]["index_boxes"] == 1
    assert showing["all sizes"]["map50"] == pytest.approx(1.0)
    # Read label by label: the covered 9S is read as the 10S, the 10S with its rank showing right.
    by_band = s["labels_by_rank_shown"]
    assert by_band["under 0.5"] == {"labels": 1, "right": 0, "wrong": 1, "missed": 0}
    assert by_band["0.9 and more"] == {"labels": 1, "right": 1, "wrong": 0, "missed": 0}
    assert by_band["0.5-0.7"]["labels"] == by_band["0.7-0.9"]["labels"] == 0


def read(*cards: str | tuple[str, str]) -> list[DetectedCard]:
    """Detected cards: "8H" read sure, ("8H", "6H") read unsure with 6H offered."""
    pairs = [c if isinstance(c, tuple) else (c, None) for c in cards]
    return [DetectedCard(code, 0.9, (0, 0, 1, 1), alternative=alternative) for code, alternative in pairs]


@pytest.mark.parametrize(("truth", "cards", "expected"), [
    # Every card right and sure: nothing to check.
    ("8H KS", read("8H", "KS"), dict(read=2, wrong=0, unsure=0, fixed=0, right_unsure=0, right_after_fixes=2)),
    # A 6H read 8H, unsure, with the 6H offered: one tap fixes it.
    ("6H KS", read(("8H", "6H"), "KS"), dict(wrong=1, wrong_unsure=1, fixed=1, right_after_fixes=2)),
    # Offered the wrong alternative: shown unsure, not fixed.
    ("6H KS", read(("8H", "8D"), "KS"), dict(wrong=1, wrong_unsure=1, fixed=0, right_after_fixes=1)),
    # Wrong and sure: neither flagged nor fixed.
    ("6H KS", read("8H", "KS"), dict(wrong=1, wrong_unsure=0, fixed=0, right_after_fixes=1)),
    # A right reading shown unsure is a needless check.
    ("8H KS", read(("8H", "6H"), "KS"), dict(wrong=0, unsure=1, right_unsure=1, right_after_fixes=2)),
    # Two decks: two 8H read, one of them is the 6H; the unsure one is the one to fix.
    ("8H 6H", read("8H", ("8H", "6H")), dict(wrong=1, fixed=1, right_unsure=0, right_after_fixes=2)),
    # One missing 6H cannot be fixed twice.
    ("6H KS", read(("8H", "6H"), ("9H", "6H"), "KS"), dict(read=3, wrong=2, fixed=1, right_after_fixes=2)),
    # A card not read at all stays missing.
    ("6H KS", read("KS"), dict(read=1, true=2, wrong=0, right_after_fixes=1)),
])
def test_offered_alternatives_fix_the_wrong_readings_they_name(truth: str, cards: list, expected: dict) -> None:
    tally = offered_fixes(Counter(truth.split()), cards)
    assert {key: tally[key] for key in expected} == expected


@pytest.mark.parametrize(("truth", "cards", "maybe", "expected"), [
    # A missed 7H offered: one tap adds it.
    ("7H KS", read("KS"), read("7H"), dict(maybe=1, maybe_right=1, right_after_fixes=2)),
    # Offered a card the scene does not have: rejected, nothing gained.
    ("7H KS", read("KS"), read("7D"), dict(maybe=1, maybe_right=0, right_after_fixes=1)),
    # A card already read right is not counted twice.
    ("KS", read("KS"), read("KS"), dict(maybe=1, maybe_right=0, right_after_fixes=1)),
    # The alternative fixes the 6H first; a 6H also offered as missed then gains nothing.
    ("6H KS", read(("8H", "6H"), "KS"), read("6H"), dict(fixed=1, maybe_right=0, right_after_fixes=2)),
])
def test_cards_offered_as_possibly_missed_add_the_ones_the_scene_has(truth: str, cards: list, maybe: list,
                                                                      expected: dict) -> None:
    tally = offered_fixes(Counter(truth.split()), cards, maybe)
    assert {key: tally[key] for key in expected} == expected


def test_full_hands_are_the_scenes_showing_the_most_cards(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "meta").mkdir()
    shown = {"one": 1, "three_b": 3, "three_a": 3, "no_record": None}
    records = []
    for name, count in shown.items():
        cv2.imwrite(str(tmp_path / "images" / f"{name}.jpg"), np.full((8, 8, 3), 128, np.uint8))
        if count is not None:
            records.append({"image": f"images/{name}.jpg", "labels": [
                {"card_id": card, "code": "QH", "corner": "tl"} for card in range(count)]})
    (tmp_path / "meta" / "val.jsonl").write_text("\n".join(json.dumps(record) for record in records) + "\n")

    # Most cards first, ties by name; a scene without its record is never chosen.
    assert [path.stem for path in fullest_scenes(tmp_path, 5)] == ["three_a", "three_b", "one"]
    assert [path.stem for path in fullest_scenes(tmp_path, 1)] == ["three_a"]


@pytest.mark.parametrize(("keep_aspect", "size"), [(False, (4000, 3000)), (True, (3000, 3000))])
def test_speed_photos_are_stretched_to_the_bars_size_unless_their_shape_is_kept(
        tmp_path: Path, keep_aspect: bool, size: tuple[int, int]) -> None:
    square = tmp_path / "square.png"
    cv2.imwrite(str(square), np.full((96, 96, 3), 128, np.uint8))
    (tmp_path / "out").mkdir()
    (photo,) = make_speed_photos([square], tmp_path / "out", keep_aspect=keep_aspect)
    height, width = cv2.imread(str(photo)).shape[:2]
    assert (width, height) == size
