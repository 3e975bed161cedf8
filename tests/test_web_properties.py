"""Properties of the sheet under any sequence of saves (Hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp import create_app

SAVES = st.lists(
    st.tuples(st.integers(1, 7), st.integers(1, 3), st.one_of(st.integers(0, 120), st.integers(-50, -1),
                                                               st.integers(10_000, 99_999))),
    max_size=15,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(saves=SAVES, out=st.dictionaries(st.integers(1, 7), st.integers(1, 3), max_size=7))
def test_totals_are_the_sum_of_the_saved_scores(tmp_path: Path, saves: list[tuple[int, int, int]],
                                                out: dict[int, int]) -> None:
    # A fresh folder per example: tmp_path is shared by every example of one run, and a name
    # made from id() can come back once its object is freed, so two examples would share a book.
    book = Path(tempfile.mkdtemp(dir=tmp_path)) / "book.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(book), "SECRET_KEY": "t"})
    client = app.test_client()
    headers = {"X-CSRF-Token": client.get("/api/csrf").get_json()["token"]}
    game_id = client.post("/api/games", json={"variant": "onze", "players": ["A", "B", "C"]},
                          headers=headers).get_json()["id"]
    expected: dict[tuple[int, int], int] = {}
    for hand, seat in out.items():
        client.post(f"/api/games/{game_id}/hands/{hand}", json={"out": seat}, headers=headers)
        expected[(hand, seat)] = 0
    for hand, seat, points in saves:
        response = client.post(f"/api/games/{game_id}/hands/{hand}/scores/{seat}", json={"points": points},
                               headers=headers)
        # 0-120 are ordinary scores; the strategy draws nothing between 120 and 10 000.
        accepted = 0 <= points <= 120 and (out.get(hand) != seat or points == 0)
        assert response.status_code == (200 if accepted else 400), (hand, seat, points, response.get_json())
        if accepted:
            expected[(hand, seat)] = points
    game: dict[str, Any] = client.get(f"/api/games/{game_id}").get_json()
    for hand in game["hands"]:
        for seat, score in enumerate(hand["scores"], start=1):
            assert (score and score["points"]) == expected.get((hand["number"], seat))
    assert game["totals"] == [sum(p for (h, s), p in expected.items() if s == seat) for seat in (1, 2, 3)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(marks=st.lists(st.tuples(st.sampled_from(["score", "out", "clear", "end", "play on", "delete"]),
                                st.integers(1, 7), st.integers(1, 3), st.integers(0, 60)), max_size=40))
def test_the_lists_summary_of_a_game_is_what_the_game_says_of_itself(tmp_path: Path,
                                                                      marks: list[tuple[str, int, int, int]]) -> None:
    """The home page, history and standings read ``game_summaries`` (a few queries for the whole
    book), never each game whole: its totals, finished and winners must be load_game's."""
    book = Path(tempfile.mkdtemp(dir=tmp_path)) / "book.sqlite"
    app = create_app({"TESTING": True, "DATABASE": str(book), "SECRET_KEY": "t"})
    client = app.test_client()
    headers = {"X-CSRF-Token": client.get("/api/csrf").get_json()["token"]}
    games = [client.post("/api/games", json={"variant": "llenroc", "players": ["A", "B", "C"]},
                         headers=headers).get_json()["id"] for _ in range(3)]
    for step, (kind, hand, seat, points) in enumerate(marks):
        game = games[step % len(games)]
        if kind == "score":
            client.post(f"/api/games/{game}/hands/{hand}/scores/{seat}", json={"points": points}, headers=headers)
            # Whole hands now and then, so that games finish.
            for other in (1, 2, 3):
                client.post(f"/api/games/{game}/hands/{hand}/scores/{other}", json={"points": points + other},
                            headers=headers)
        elif kind == "out":
            client.post(f"/api/games/{game}/hands/{hand}", json={"out": seat}, headers=headers)
        elif kind == "clear":
            client.delete(f"/api/games/{game}/hands/{hand}/scores/{seat}", headers=headers)
        elif kind == "end":
            client.post(f"/api/games/{game}/end", headers=headers)
        elif kind == "play on":
            client.post(f"/api/games/{game}/play-on", headers=headers)
        elif step % 7 == 0:
            client.delete(f"/api/games/{game}", headers=headers)
    with app.app_context():
        from webapp import model

        summaries = model.game_summaries()
        whole = model.list_games()
        assert [g["id"] for g in summaries] == [g["id"] for g in whole]
        for summary, game in zip(summaries, whole):
            for key in ("players", "ended_after", "totals", "finished", "winners"):
                assert summary[key] == game[key], (key, game["id"])
        assert model.standings(summaries) == model.standings(whole)
