"""The evaluation's results as the summary table, ``report.md`` and its PNG plots
(matplotlib, imported only where plots are drawn)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from onze_vision.conditions import BLURS, COVER_SIZE, COVERS, LIGHTS, TILTS
from onze_vision.detector import TIMING_KEYS
from onze_vision.evaluate.common import (
    BAR_INVENTED_PER_PHOTO,
    BAR_MEDIAN_MS,
    BAR_OUTSIDE_NETWORKS,
    BAR_REAL_RECALL,
    BAR_SYNTHETIC_MAP50,
    FAR_SHOTS,
    FOUR_CORNER_DECKS,
    OPERATING_POINT_EVERY,
    PRODUCT_SCALE,
    RANK_LEGIBLE,
    READINGS,
    SIZE_BANDS,
    SPEED_JPEG_QUALITY,
)
from onze_vision.evaluate.resample import RESAMPLES


def summary_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures with bars: name, value, bar text and ok (None when not measured)."""
    real = results.get("real") or {}
    synthetic = results.get("synthetic") or {}
    product = results.get("synthetic_product") or {}
    far = results.get("synthetic_far") or {}
    four = (results.get("synthetic_four") or {}).get("cards") or {}
    speed = results.get("speed") or {}
    conditions = results.get("conditions") or {}
    lights = conditions.get("light") or {}
    found_in_light = [shares.get("found_share") for shares in lights.values()]
    tilts = conditions.get("tilt") or {}
    twice_when_tilted = [shares.get("read_twice_share") for shares in tilts.values()]
    blurs = conditions.get("blur") or {}
    covers = conditions.get("covered") or {}
    kept_when_covered = [shares.get("two_corners_found_share") for shares in covers.values()]

    def row(name: str, value: float | None, bar: str, ok: Callable[[float], bool], fmt: str) -> dict[str, Any]:
        return {"name": name, "value": value, "text": "not measured" if value is None else format(value, fmt),
                "bar": bar, "ok": None if value is None or bar == "(reported)" else bool(ok(value))}

    def interval_row(name: str, bounds: Sequence[float] | None) -> dict[str, Any]:
        text = "not measured" if not bounds else f"{bounds[0]:.3f}-{bounds[1]:.3f}"
        return {"name": name, "value": list(bounds) if bounds else None, "text": text, "bar": "(reported)", "ok": None}

    return [
        row("real-photo rank recall", real.get("rank_recall"), f">= {BAR_REAL_RECALL}",
            lambda v: v >= BAR_REAL_RECALL, ".3f"),
        row("invented cards per photo", real.get("invented_per_photo"), f"<= {BAR_INVENTED_PER_PHOTO}",
            lambda v: v <= BAR_INVENTED_PER_PHOTO, ".3f"),
        row("rank recall on photos the thresholds were not chosen on",
            (real.get("not_chosen_on") or {}).get("rank_recall"), "(reported)", lambda v: True, ".3f"),
        row("invented per photo there", (real.get("not_chosen_on") or {}).get("invented_per_photo"),
            "(reported)", lambda v: True, ".3f"),
        row("real photos read exactly", real.get("exact_photo_rate"), "(reported)", lambda v: True, ".3f"),
        row("real photos made grey: cards read or offered right", (conditions.get("grey") or {}).get(
            "read_or_offered_right_share"), "(reported)", lambda v: True, ".3f"),
        row(f"real photos in bad light ({', '.join(lights)}): cards found, worst",
            min(found_in_light) if found_in_light and None not in found_in_light else None,
            "(reported)", lambda v: True, ".3f"),
        row(f"real photos seen from lower down ({', '.join(tilts)}): cards read twice, worst",
            max(twice_when_tilted) if twice_when_tilted and None not in twice_when_tilted else None,
            "(reported)", lambda v: True, ".3f"),
        row("real photos mirrored (a selfie camera, a webcam): cards read right",
            (conditions.get("mirrored") or {}).get("read_right_share"), "(reported)", lambda v: True, ".3f"),
        row(f"real photos with a corner index covered ({', '.join(covers)}): cards read from two corners "
            "found, worst", min(kept_when_covered) if kept_when_covered and None not in kept_when_covered else None,
            "(reported)", lambda v: True, ".3f"),
        row("real photos as taken reported blurred (a warning where none is due)",
            (conditions.get("as taken") or {}).get("warned_share"), "(reported)", lambda v: True, ".3f"),
        *(row(f"real photos {name}: reported blurred", shares.get("warned_share"), "(reported)", lambda v: True,
              ".3f") for name, shares in blurs.items()),
        row("synthetic mAP50", synthetic.get("map50"), f">= {BAR_SYNTHETIC_MAP50}",
            lambda v: v >= BAR_SYNTHETIC_MAP50, ".3f"),
        interval_row("synthetic mAP50 on another draw of as many scenes (95 % of resampled scenes)",
                     synthetic.get("map50_interval")),
        row("synthetic mAP50-95", synthetic.get("map50_95"), "(reported)", lambda v: True, ".3f"),
        row("synthetic mAP50, every code of a box scored (Ultralytics)", synthetic.get("map50_every_code"),
            "(reported)", lambda v: True, ".3f"),
        row("synthetic mAP50 if every located index were named right", synthetic.get("map50_named_right"),
            "(reported)", lambda v: True, ".3f"),
        row("synthetic mAP50, rank showing, index 24 px and up",
            _breakdown_map50(synthetic, "rank showing", "24 px and up"), "(reported)", lambda v: True, ".3f"),
        row(f"synthetic mAP50 at the product's reading resolution ({PRODUCT_SCALE}x)", product.get("map50"),
            "(reported)", lambda v: True, ".3f"),
        row("the same, rank showing", _breakdown_map50(product, "rank showing", "all sizes"),
            "(reported)", lambda v: True, ".3f"),
        row("full hands (the product-scale scenes with the most cards, enlarged): median ms per photo",
            (product.get("speed_full_hands") or {}).get("median_ms"), "(reported)", lambda v: True, ".1f"),
        row("full hands: p95 ms per photo", (product.get("speed_full_hands") or {}).get("p95_ms"), "(reported)",
            lambda v: True, ".1f"),
        row(f"far shots ({FAR_SHOTS}): mAP50", far.get("map50"), "(reported)", lambda v: True, ".3f"),
        row("far shots: cards read right (card recall)", (far.get("cards") or {}).get("recall"),
            "(reported)", lambda v: True, ".3f"),
        row("far shots: median ms per photo", (far.get("speed") or {}).get("median_ms"), "(reported)",
            lambda v: True, ".1f"),
        row(f"four-corner decks ({FOUR_CORNER_DECKS}): card recall", four.get("recall"), "(reported)",
            lambda v: True, ".3f"),
        row("four-corner decks: card precision (a card counted twice is one wrong)", four.get("precision"),
            "(reported)", lambda v: True, ".3f"),
        row("four-corner decks: scenes read exactly", four.get("exact_scene_rate"), "(reported)",
            lambda v: True, ".3f"),
        row("median ms per 4000x3000 JPEG", speed.get("median_ms"), f"<= {BAR_MEDIAN_MS:.0f}",
            lambda v: v <= BAR_MEDIAN_MS, ".1f"),
        row("p95 ms per 4000x3000 JPEG", speed.get("p95_ms"), "(reported)", lambda v: True, ".1f"),
        row("share of time outside the networks", speed.get("outside_networks_share"),
            f"< {BAR_OUTSIDE_NETWORKS}", lambda v: v < BAR_OUTSIDE_NETWORKS, ".2f"),
        row("Ultralytics PyTorch / ONNX pipeline (median)", speed.get("ultralytics_over_onnx"), "(reported)",
            lambda v: True, ".2f"),
    ]


def _breakdown_map50(synthetic: dict[str, Any], labels: str, band: str) -> float | None:
    """One cell of :func:`evaluate_synthetic`'s mAP50 breakdown (None when not measured)."""
    return ((synthetic.get("map50_breakdown") or {}).get(labels) or {}).get(band, {}).get("map50")


def format_summary(results: dict[str, Any]) -> str:
    """A plain-text table of the summary rows."""
    rows = results.get("summary") or summary_rows(results)
    width = max(len(r["name"]) for r in rows)
    lines = [f"{'figure':<{width}}  {'value':>12}  {'bar':<8}  ok", "-" * (width + 30)]
    for r in rows:
        mark = "-" if r["ok"] is None else ("yes" if r["ok"] else "NO")
        lines.append(f"{r['name']:<{width}}  {r['text']:>12}  {r['bar']:<8}  {mark}")
    return "\n".join(lines)


def write_report(results: dict[str, Any], report_dir: Path) -> None:
    """Write the plots (their names go into ``results["plots"]``), ``report.json`` and
    ``report.md`` into ``report_dir``."""
    results["plots"] = _write_plots(results, report_dir)
    (report_dir / "report.json").write_text(json.dumps(results, indent=1, default=_json_default), encoding="utf-8")
    (report_dir / "report.md").write_text(format_report(results), encoding="utf-8")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _write_plots(results: dict[str, Any], folder: Path) -> list[str]:
    """Per-rank recall, confusion matrix and speed split as PNGs; [] without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    written = []
    real = results.get("real")
    if real and real["per_rank_recall"]:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ranks = list(real["per_rank_recall"])
        ax.bar(ranks, [real["per_rank_recall"][r] for r in ranks], color="#4477aa")
        ax.axhline(BAR_REAL_RECALL, color="red", linestyle="--", label=f"bar {BAR_REAL_RECALL}")
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("rank recall")
        ax.set_title(f"Real photos ({real['photos']}): recall per rank")
        ax.legend(loc="lower right")
        fig.tight_layout()
        fig.savefig(folder / "real_rank_recall.png", dpi=110)
        plt.close(fig)
        written.append("real_rank_recall.png")
    synthetic = results.get("synthetic")
    if synthetic:
        matrix = np.array(synthetic["confusion"], np.float64)
        rows = matrix.sum(axis=1, keepdims=True)
        normalised = np.divide(matrix, rows, out=np.zeros_like(matrix), where=rows > 0)
        labels = synthetic["confusion_labels"][:-1] + ["none"]
        fig, ax = plt.subplots(figsize=(13, 12))
        ax.imshow(normalised, cmap="Blues", vmin=0, vmax=1)
        ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=6)
        ax.set_yticks(range(len(labels)), labels, fontsize=6)
        ax.set_xlabel("predicted code ('none' column: index missed)")
        ax.set_ylabel("true code ('none' row: nothing there)")
        ax.set_title("Synthetic held-out decks: codes read on matched index boxes (row-normalised)")
        fig.tight_layout()
        fig.savefig(folder / "synthetic_confusion.png", dpi=110)
        plt.close(fig)
        written.append("synthetic_confusion.png")
    speed = results.get("speed")
    if speed and speed.get("photos"):
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
        stages = speed["stage_mean_ms"]
        bottom = 0.0
        for key, colour in zip(TIMING_KEYS, ("#ccbb44", "#66ccee", "#4477aa", "#228833", "#ee6677")):
            left.bar(["ONNX pipeline"], [stages[key]], bottom=bottom, label=key, color=colour)
            bottom += stages[key]
        if "median_ms" in (speed.get("ultralytics") or {}):
            left.bar(["Ultralytics predict"], [speed["ultralytics"]["median_ms"]], color="#bbbbbb",
                     label="PyTorch (detector only)")
        left.set_ylabel("ms per 4000x3000 JPEG")
        left.legend(fontsize=7)
        left.set_title("Where the time goes (mean)")
        right.hist(speed["all_ms"], bins=15, color="#4477aa")
        right.axvline(BAR_MEDIAN_MS, color="red", linestyle="--", label=f"bar {BAR_MEDIAN_MS:.0f} ms")
        right.set_xlabel("ms end to end")
        right.legend(fontsize=7)
        right.set_title(f"{speed['photos']} photos")
        fig.tight_layout()
        fig.savefig(folder / "speed.png", dpi=110)
        plt.close(fig)
        written.append("speed.png")
    return written


def format_report(results: dict[str, Any]) -> str:
    """The Markdown report."""
    lines = ["# Onze Vision: detector evaluation", "",
             f"Models: `{results['models']}`; run {results['date_utc']} UTC.", "",
             "## Summary", "", "| figure | value | bar | ok |", "|---|---|---|---|"]
    for r in results["summary"]:
        mark = "-" if r["ok"] is None else ("yes" if r["ok"] else "**no**")
        lines.append(f"| {r['name']} | {r['text']} | {r['bar']} | {mark} |")
    real = results.get("real")
    if real:
        lines += ["", "## Real photos", "",
                  f"{real['photos']} photos, {real['labelled_cards']} labelled cards (ranks 9-A only, whole-card "
                  "boxes). A card is found when a detected card of its rank has its box centre inside the "
                  "labelled box; a detected card whose centre is inside no labelled box is invented (this also "
                  "counts cards the photo shows but the labels leave out).", "",
                  f"- rank recall: {_fmt(real['rank_recall'])}",
                  f"- invented cards: {real['invented']} ({_fmt(real['invented_per_photo'])} per photo)",
                  f"- photos read exactly: {_fmt(real['exact_photo_rate'])}",
                  *([f"- cards offered as possibly missed (never counted unasked): "
                     f"{_fmt(real['offered_per_photo'])} per photo, "
                     f"{_fmt(real['offered_off_cards_per_photo'])} on no labelled card"]
                    if real.get("offered_per_photo") is not None else []),
                  *([f"- on the {real['not_chosen_on']['photos']} photos the thresholds were not chosen on "
                     f"(all but every {OPERATING_POINT_EVERY}th): rank recall "
                     f"{_fmt(real['not_chosen_on']['rank_recall'])}, invented per photo "
                     f"{_fmt(real['not_chosen_on']['invented_per_photo'])}"] if real.get("not_chosen_on") else []),
                  f"- labelled cards with a detection of another rank but none of theirs: {real['wrong_rank_on_card']}",
                  f"- labelled cards read twice (two detected cards of their rank): {real['cards_read_twice']}", "",
                  "| rank | cards | recall |", "|---|---|---|"]
        for rank, recall in real["per_rank_recall"].items():
            lines.append(f"| {rank} | {real['per_rank_count'][rank]} | {recall:.3f} |")
        lines += ["", "Worst photos:", "", "| photo | labels | detected | missed | invented |", "|---|---|---|---|---|"]
        for p in real["worst_photos"]:
            lines.append(f"| {p['image']} | {' '.join(p['labels'])} | {' '.join(p['detected'])} | "
                         f"{' '.join(p['missed'])} | {' '.join(p['invented'])} |")
        lines += ["", "Photos: EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-"
                  "Windows-10 (commit c1645825822622fc75919b6be253779d49678f55), Apache-2.0."]
    conditions = results.get("conditions")
    if conditions and conditions.get("photos"):
        lines += _conditions_lines(conditions)
    synthetic = results.get("synthetic")
    if synthetic:
        lines += _synthetic_lines(synthetic, "Synthetic held-out decks (corner indices, before pairing)")
    product = results.get("synthetic_product")
    if product:
        lines += _synthetic_lines(
            product, f"The same held-out decks at the product's reading resolution ({PRODUCT_SCALE}x)",
            [f"The held-out scenes drawn {PRODUCT_SCALE} times larger, indices and all, as a phone photo is read "
             "(decoded with its long side >= 960 px): `make-dataset --size 960 --index-px 33 180`. Reported "
             "beside the bar's figure above, which stays on the 320-px scenes.", "", *_full_hands_lines(product)])
    far = results.get("synthetic_far")
    if far:
        far_speed = far.get("speed") or {}
        timed = ([f"Read in {far_speed['median_ms']:.0f} ms median, {far_speed['p95_ms']:.0f} ms p95 "
                  f"(bytes to card list, {far_speed['photos']} photos).", ""] if far_speed.get("photos") else [])
        lines += _synthetic_lines(
            far, f"Far shots ({FAR_SHOTS})",
            ["Held-out decks photographed from far away: 4000x4000 JPEGs whose indices are 40-120 px tall, "
             "10-30 px once the photo is decoded at a quarter for the first look: "
             "`make-dataset --out datasets/far-val --train 0 --val 80 --seed 42 --size 4000 --index-px 40 120`. "
             "Where the indices are small the detector looks again at the cards' part of the photo, decoded "
             "finer (`zoom_*` in `detector.json`).", "", *timed])
    four = results.get("synthetic_four")
    if four:
        lines += _synthetic_lines(
            four, f"Four-corner decks ({FOUR_CORNER_DECKS})",
            ["Decks with an index in every corner, as many Latin American and European decks have: KDE's "
             "dondorf, and the three held-out designs with their index copied into the bare corners; none "
             "trained on. A card shows up to four indices and must be counted once (`four_corners` in "
             "`detector.json`): `make-dataset --out datasets/four-val960 --train 0 --val 300 --seed 51 "
             "--size 960 --index-px 33 180 --val-designs four-corner`.", ""])
    speed = results.get("speed")
    if speed and speed.get("photos"):
        stages = speed["stage_mean_ms"]
        lines += ["", "## Speed", "",
                  f"{speed['photos']} real photos upscaled to {speed['size'][0]}x{speed['size'][1]} JPEG "
                  f"quality {speed['jpeg_quality']}; bytes -> card list; detector input "
                  f"{speed['detector_input'][0]}x{speed['detector_input'][1]}.", "",
                  f"- median {speed['median_ms']:.1f} ms, p95 {speed['p95_ms']:.1f} ms",
                  "- mean split: " + ", ".join(f"{k} {v:.1f} ms" for k, v in stages.items()),
                  f"- outside the networks: {speed['outside_networks_share']:.0%}"]
        ultra = speed.get("ultralytics")
        if ultra:
            if "median_ms" in ultra:
                lines.append(f"- Ultralytics PyTorch predict ({ultra['what']}): median {ultra['median_ms']:.1f} ms, "
                             f"{speed['ultralytics_over_onnx']:.2f}x the ONNX pipeline's time")
            else:
                lines.append(f"- Ultralytics comparison failed: {ultra['error']}")
        lines.append(f"- machine: {speed.get('cpu_count')} CPUs, 1-minute load average {speed.get('load_average_1min')} "
                     "when the timing started (other work, e.g. training, slows every figure here).")
    for plot in results.get("plots", []):
        lines += ["", f"![{plot}]({plot})"]
    return "\n".join(lines) + "\n"


def _full_hands_lines(product: dict[str, Any]) -> list[str]:
    """The timing of the product-scale set's fullest scenes (:func:`~onze_vision.evaluate.speed.time_full_hands`)."""
    hands = product.get("speed_full_hands") or {}
    if not hands.get("photos"):
        return []
    stages = hands.get("stage_mean_ms") or {}
    return [f"Full hands: its {hands['photos']} scenes showing the most cards ({hands['cards_shown_mean']:.1f} on "
            "average; a leftover hand of Onze holds up to 13), enlarged to fit 4000x3000 keeping their shape, as "
            f"JPEG quality {SPEED_JPEG_QUALITY}, read in {hands['median_ms']:.0f} ms median, {hands['p95_ms']:.0f} ms "
            f"p95 (bytes to card list; {hands['cards_read_mean']:.1f} cards read on average; mean split: "
            + ", ".join(f"{k} {v:.0f} ms" for k, v in stages.items()) + "). The bar's speed is timed on the real "
            "photos, of 1-4 cards: each card is one more index to name, and an unsure one is read again from "
            "more views of it (`crop_turns`, `crop_shift`).", ""]


def _synthetic_lines(synthetic: dict[str, Any], heading: str, intro: Sequence[str] = ()) -> list[str]:
    """The report section of one :func:`evaluate_synthetic` result."""
    lines = ["", f"## {heading}", "", *intro,
             f"{synthetic['images']} images, {synthetic['index_boxes']} index boxes.", "",
             f"- mAP50 {_fmt(synthetic['map50'])}, mAP50-95 {_fmt(synthetic['map50_95'])} "
             "(COCO 101-point, detector confidence >= 0.001)",
             *([f"- mAP50 of 95 % of the scenes resampled (drawn again with replacement, as many, "
                f"{RESAMPLES} times): {synthetic['map50_interval'][0]:.3f}-{synthetic['map50_interval'][1]:.3f}, "
                "how far another draw of as many scenes could move the figure"]
               if synthetic.get("map50_interval") else []),
             f"- mAP50 with every code of a box scored, as Ultralytics' val does (`multi_label`): "
             f"{_fmt(synthetic.get('map50_every_code'))}; the bar is judged on the one code each box is read as",
             f"- mAP50 if every reported box on an index were named as its label (scored by the detector "
             f"alone): {_fmt(synthetic.get('map50_named_right'))}, the ceiling the detector and the "
             "post-processing leave to the classifier",
             f"- at the runtime thresholds (conf {synthetic['thresholds']['conf']}, class probability "
             f"{synthetic['thresholds']['min_class_prob']}): recall {_fmt(synthetic['recall'])}, "
             f"precision {_fmt(synthetic['precision'])}, right code on matched boxes "
             f"{_fmt(synthetic['code_accuracy_on_matched_boxes'])}", "",
             *_breakdown_lines(synthetic.get("map50_breakdown")),
             *_rank_shown_lines(synthetic.get("labels_by_rank_shown")),
             "Look-alikes (matched boxes, IoU >= 0.5):", "",
             "| pair | errors | of boxes of those codes | rate | worst (true -> read: n) |", "|---|---|---|---|---|"]
    for item in synthetic["lookalikes"]:
        worst = ", ".join(f"{t}->{p}: {n}" for t, p, n in item["worst"])
        lines.append(f"| {item['pair']} | {item['errors']} | {item['of_matched']} | {_fmt(item['rate'])} | {worst} |")
    if synthetic.get("per_design"):
        lines += ["", "Per held-out design (scenes drawn from one design; \"located\": an index box kept at the "
                  "runtime thresholds, whatever code it got):", "",
                  "| design | scenes | index boxes | mAP50 | recall | located |", "|---|---|---|---|---|---|"]
        for name, item in synthetic["per_design"].items():
            lines.append(f"| {name} | {item['scenes']} | {item['index_boxes']} | {_fmt(item['map50'])} | "
                         f"{_fmt(item['recall'])} | {_fmt(item['located'])} |")
    by_corner = synthetic.get("located_by_corner") or {}
    if len(by_corner) > 2:  # a four-corner deck: the corners the detector was not taught
        lines += ["", "Indices located, by corner: " + ", ".join(
            f"{corner} {_fmt(item['located'])} of {item['labels']}" for corner, item in by_corner.items())]
    recall = sorted(synthetic["recall_per_class"].items(), key=lambda kv: kv[1])
    lines += ["", "Lowest per-class recall: " + ", ".join(f"{c} {v:.2f}" for c, v in recall[:12])]
    cards = synthetic.get("cards")
    if cards:
        pairing = cards["pairing_on_true_indices"]
        lines += ["", "Cards after pairing (what scoring sees), against the generator's scene records:", "",
                  f"- {cards['scenes']} scenes, {cards['cards']} cards with a visible index: card recall "
                  f"{_fmt(cards['recall'])}, precision {_fmt(cards['precision'])}, scenes read exactly "
                  f"{_fmt(cards['exact_scene_rate'])}",
                  *_alternative_lines(cards.get("alternatives")),
                  f"- pairing alone (true index boxes, codes and down vectors): {_fmt(pairing['card_accuracy'])} "
                  f"of cards grouped right, {_fmt(pairing['exact_scene_rate'])} of scenes; "
                  f"{pairing['missed_pairs']} of {pairing['true_pairs']} cards of two or more corners not "
                  f"grouped whole, {pairing['false_pairs']} false groups"]
    return lines


def _alternative_lines(alternatives: dict[str, Any] | None) -> list[str]:
    """The line on unsure cards and their one-tap alternatives (empty without figures)."""
    if not alternatives:
        return []
    return [f"- unsure cards, shown with their next most likely code: {_fmt(alternatives['unsure_share'])} of the "
            f"cards read; of the {alternatives['wrong']} wrong readings {_fmt(alternatives['wrong_unsure_share'])} "
            f"are shown unsure and {_fmt(alternatives['fixed_share'])} have the right code as their alternative; "
            f"{_fmt(alternatives['right_unsure_share'])} of the right readings are shown unsure (a needless check); "
            f"cards possibly missed, offered to add: {_fmt(alternatives.get('maybe_per_scene'))} per scene, "
            f"{_fmt(alternatives.get('maybe_right_share'))} of them right. Taking each right alternative and "
            f"each right card offered: card recall {_fmt(alternatives['recall_after_fixes'])}, scenes read "
            f"exactly {_fmt(alternatives['exact_scene_rate_after_fixes'])}"]


def _breakdown_lines(breakdown: dict[str, dict[str, dict[str, Any]]] | None) -> list[str]:
    """The mAP50 table by label set and index size (empty without one)."""
    if not breakdown:
        return []
    bands = [band for band, _, _ in SIZE_BANDS]
    lines = [f"mAP50 by index size (long side of the label box) and label set, with labels outside a cell "
             "ignored as COCO ignores boxes outside its size ranges. \"rank showing\": labels with less than "
             f"{RANK_LEGIBLE:.0%} of their rank half showing (a covered rank cannot be read for sure) need not "
             "be found; a right reading of one is not counted, a wrong one still counts as wrong. The bar is "
             "judged on every label, all sizes.", "",
             "| labels | " + " | ".join(bands) + " |", "|---|" + "---|" * len(bands)]
    for labels, cells in breakdown.items():
        lines.append(f"| {labels} | " + " | ".join(
            f"{_fmt(cells[band]['map50'])} ({cells[band]['index_boxes']})" for band in bands) + " |")
    return lines + ["", "(index boxes counted in brackets)", ""]


def _rank_shown_lines(by_band: dict[str, dict[str, int]] | None) -> list[str]:
    """How labels are read by how much of their rank shows (empty without the records)."""
    if not by_band:
        return []
    total = sum(cell["labels"] for cell in by_band.values()) or 1
    lines = ["Labels read by the surest reported box on them (IoU >= 0.5, detector confidence >= 0.001), "
             "by how much of their rank half shows:", "",
             "| rank half showing | labels | share | " + " | ".join(READINGS) + " |",
             "|---|---|---|" + "---|" * len(READINGS)]
    for band, cell in by_band.items():
        n = cell["labels"]
        lines.append(f"| {band} | {n} | {n / total:.3f} | "
                     + " | ".join(_fmt(cell[r] / n if n else None) for r in READINGS) + " |")
    return lines + [""]


def _conditions_lines(conditions: dict[str, Any]) -> list[str]:
    """The real photos changed (:mod:`onze_vision.conditions`): grey, in bad light, blurred, tilted, mirrored,
    a corner covered."""
    grey = conditions["grey"]
    lines = ["", "## Real photos without colour, in bad light, blurred, tilted, mirrored and covered", "",
             f"One real photo in {conditions['every']} ({conditions['photos']}) read as taken and changed; the "
             "reading as taken is the reference, card by card (`onze_vision/conditions.py`).", "",
             f"- Black and white (one-channel JPEG): {grey.get('judged colourless', 0)} of {conditions['photos']} "
             f"judged colourless; of {grey['cards']} suited cards {grey.get('found', 0)} found, "
             f"{grey.get('same rank', 0)} with their rank; red cards with their colour kept "
             f"{grey.get('red: colour kept', 0)} of {grey.get('red', 0)}; cards read or offered right "
             f"(the alternative is the other colour) {_fmt(grey['read_or_offered_right_share'])}, read right "
             f"{_fmt(grey['read_right_share'])}; reported blurred {_fmt(grey['warned_share'])}.", "",
             f"- As taken: {_fmt(conditions['as taken']['warned_share'])} of the photos reported "
             "blurred (the blur gauge; a warning where none is due). The last column of each table is the "
             "share of the changed photos reported blurred.", "",
             "| light (channel factors B, G, R; noise) | cards found | read right | reported blurred |",
             "|---|---|---|---|"]
    for name, (factors, noise) in LIGHTS.items():
        shares = conditions["light"][name]
        lines.append(f"| {name} ({', '.join(f'{f:g}' for f in factors)}; {noise:g}) | "
                     f"{_fmt(shares['found_share'])} | {_fmt(shares['read_right_share'])} | "
                     f"{_fmt(shares['warned_share'])} |")
    lines += ["", "| blur (share of the photo's long side) | cards found | read right | reported blurred |",
              "|---|---|---|---|"]
    for name, (kind, share) in BLURS.items():
        shares = conditions["blur"][name]
        lines.append(f"| {name} ({kind}, {share:g}) | {_fmt(shares['found_share'])} | "
                     f"{_fmt(shares['read_right_share'])} | {_fmt(shares['warned_share'])} |")
    lines += ["", "| seen from lower down (far edge over near edge) | cards found | read right | read twice | "
              "reported blurred |", "|---|---|---|---|---|"]
    for name, far_share in TILTS.items():
        shares = conditions["tilt"][name]
        lines.append(f"| {name} ({far_share:g}) | {_fmt(shares['found_share'])} | "
                     f"{_fmt(shares['read_right_share'])} | {_fmt(shares['read_twice_share'])} | "
                     f"{_fmt(shares['warned_share'])} |")
    mirror = conditions.get("mirrored")
    if mirror:   # reports made before this condition have none
        lines += ["", f"- Mirrored left to right (as a selfie camera or a webcam may save the photo): cards found "
                      f"{_fmt(mirror['found_share'])}, read right {_fmt(mirror['read_right_share'])}; "
                      f"{mirror.get('read mirrored', 0)} of {mirror['photos']} photos read mirrored back "
                      f"(`mirror_below`), and {conditions['as taken'].get('read mirrored', 0)} of the photos "
                      "as taken (a needless flip)."]
    covers = conditions.get("covered")
    if covers:   # nor this one
        lines += ["", f"| a corner index covered (an ellipse {COVER_SIZE:g} index sizes long over one index of "
                      "the photo) | cards found | read right | found, of the cards read from two corners / from "
                      "one | reported blurred |", "|---|---|---|---|---|"]
        for name, colour in COVERS.items():
            shares = covers[name]
            what = "blown out to white" if colour is None else f"B, G, R {', '.join(map(str, colour))}"
            lines.append(f"| {name} ({what}) | {_fmt(shares['found_share'])} | {_fmt(shares['read_right_share'])} | "
                         f"{_fmt(shares['two_corners_found_share'])} / {_fmt(shares['one_corner_found_share'])} | "
                         f"{_fmt(shares['warned_share'])} |")
    return lines


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
