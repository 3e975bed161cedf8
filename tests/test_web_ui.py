"""Template helpers: which part of a photo the page shows."""

from __future__ import annotations

import pytest

from webapp.ui import cards_region


def photo(width: int, height: int, *boxes: tuple[float, float, float, float], maybe: tuple = ()) -> dict:
    return {"width": width, "height": height, "cards": [{"box": list(b)} for b in boxes],
            "maybe": [{"box": list(b)} for b in maybe]}


@pytest.mark.parametrize(("name", "shown", "region"), [
    ("a hand filling the photo is shown whole", photo(1000, 750, (100, 100, 900, 650)), None),
    ("no card read: the whole photo", photo(4000, 3000), None),
    ("a far shot: the cards grown by a quarter of their span",
     photo(4000, 3000, (1800, 1400, 2000, 1500), (2100, 1400, 2200, 1600)), (1680, 1280, 640, 440)),
    ("cards offered as possibly missed count too",
     photo(4000, 3000, (1800, 1400, 2000, 1500), maybe=((2100, 1400, 2200, 1600),)), (1680, 1280, 640, 440)),
    ("at least 3 % of the photo around a single small card",
     photo(4000, 3000, (2000, 1500, 2040, 1560)), (1880, 1380, 280, 300)),
    ("kept within the photo", photo(4000, 3000, (0, 0, 200, 100)), (0, 0, 320, 220)),
    ("cards spanning more than 0.6 of the long side: the whole photo",
     photo(4000, 3000, (500, 1000, 700, 1200), (2500, 1000, 2700, 1200)), None),
])
def test_the_page_shows_the_part_of_the_photo_the_cards_lie_in(name: str, shown: dict, region: tuple | None) -> None:
    result = cards_region(shown)
    if region is None:
        assert result is None, name
    else:
        assert result == pytest.approx(region), name

