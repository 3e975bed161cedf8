"""The web app with the shipped card detector on real photos (needs models/)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
MODEL_FILES = [ROOT / "models" / "index_detector.onnx", ROOT / "models" / "index_classifier.onnx"]

pytestmark = pytest.mark.skipif(not all(p.exists() for p in MODEL_FILES),
                                reason="the detector's model files are not in models/ yet")

#: What is really in each photo (read by eye): ranks the detector should find.
PHOTOS = {
    "web_edje_IMG_2560.jpg": ["10C", "QS", "KC", "QD"],
    "web_edje_IMG_2571.jpg": ["QC", "10S", "9H"],
    "web_edje_IMG_2595.jpg": ["QH", "AC"],
}


@pytest.fixture
def real_app(tmp_path: Path) -> Any:
    from webapp import create_app

    return create_app({"TESTING": True, "DATABASE": str(tmp_path / "real.sqlite"), "SECRET_KEY": "t"})


@pytest.mark.parametrize("name", sorted(PHOTOS))
def test_api_detect_passes_the_detectors_reading_through(real_app: Any, name: str) -> None:
    """/api/detect answers exactly what the shipped detector reads, in full-photo pixels.

    How many of the cards it finds is the detector's own measure (its tests and
    models/README.md); here the web layer must neither lose nor invent anything.
    """
    from onze_vision.cards import CARD_CODES
    from onze_vision.detector import detect_cards

    data = (DATA / name).read_bytes()
    response = real_app.test_client().post("/api/detect", data={"photo": (io.BytesIO(data), name)})
    assert response.status_code == 200, response.get_json()
    reading = response.get_json()
    assert (reading["width"], reading["height"]) == (378, 504)
    direct = detect_cards(data)
    assert [c["card"] for c in reading["cards"]] == [c.card for c in direct.cards]
    for card in reading["cards"]:
        assert card["card"] in CARD_CODES
        x1, y1, x2, y2 = card["box"]
        assert 0 <= x1 < x2 <= 378 and 0 <= y1 < y2 <= 504
        assert 0 < card["confidence"] <= 1


def test_api_detect_reads_a_heic_sent_as_it_is(real_app: Any) -> None:
    # What a phone that does not turn HEIC into JPEG sends (Chrome on Android, a laptop).
    from phone_photos import heic
    from PIL import Image

    data = heic(Image.open(DATA / "web_edje_IMG_2560.jpg"))
    client = real_app.test_client()
    for sent in ({"data": {"photo": (io.BytesIO(data), "IMG_0001.HEIC")}},
                 {"data": data, "content_type": "image/heic"}):
        response = client.post("/api/detect", **sent)
        assert response.status_code == 200, response.get_json()
        assert sorted(c["card"] for c in response.get_json()["cards"]) == sorted(PHOTOS["web_edje_IMG_2560.jpg"])


def test_photo_page_with_the_real_detector(real_app: Any) -> None:
    client = real_app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    game = client.post("/api/games", json={"variant": "llenroc", "players": ["Ann", "Bo"]},
                       headers={"X-CSRF-Token": token}).get_json()
    data = (DATA / "web_edje_IMG_2560.jpg").read_bytes()
    response = client.post(f"/games/{game['id']}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(data), "hand.jpg")})
    assert response.status_code == 302
    photo = client.get("/api/photos/1").get_json()
    page = client.get(response.location).get_data(as_text=True)
    assert 'viewBox="0 0 378 504"' in page
    assert page.count("<rect ") == len(photo["cards"])          # every card read is boxed
    assert f'value="{" ".join(c["card"] for c in photo["cards"])}"' in page
    assert client.get("/photos/1").data == data


def test_a_photo_shaken_straight_is_read_with_its_shake_undone_and_still_said_blurred(real_app: Any) -> None:
    from onze_vision.conditions import blurred

    client = real_app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    game = client.post("/api/games", json={"variant": "llenroc", "players": ["Ann", "Bo"]},
                       headers={"X-CSRF-Token": token}).get_json()
    shaken = blurred(DATA / "web_edje_IMG_2560.jpg", "motion", 0.018)
    response = client.post(f"/games/{game['id']}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(shaken), "hand.jpg")})
    assert response.status_code == 302
    photo = client.get("/api/photos/1").get_json()
    assert photo["blurred"] is True and photo["unshaken"] is True
    assert sorted(c["card"] for c in photo["cards"]) == sorted(PHOTOS["web_edje_IMG_2560.jpg"])
    page = client.get(response.location).get_data(as_text=True)
    assert "This photo looks blurred" in page and "read with the shake taken out of the photo" in page


def test_a_photo_saved_mirrored_is_read_flipped_back_and_said_so(real_app: Any) -> None:
    from onze_vision.conditions import mirrored

    client = real_app.test_client()
    token = client.get("/api/csrf").get_json()["token"]
    game = client.post("/api/games", json={"variant": "llenroc", "players": ["Ann", "Bo"]},
                       headers={"X-CSRF-Token": token}).get_json()
    data, _ = mirrored(DATA / "web_edje_IMG_2571.jpg")
    response = client.post(f"/games/{game['id']}/hands/1/players/2/photo",
                           data={"csrf_token": token, "photo": (io.BytesIO(data), "selfie.jpg")})
    assert response.status_code == 302
    photo = client.get("/api/photos/1").get_json()
    assert photo["mirrored"] is True
    assert sorted(c["card"] for c in photo["cards"]) == sorted(PHOTOS["web_edje_IMG_2571.jpg"])
    page = client.get(response.location).get_data(as_text=True)
    assert "the photo was saved mirrored" in page
