"""A kept photo holds its pixels, colour and orientation, and nothing about who took it,
where or when (onze_vision.metadata)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from phone_photos import PHONE_PHOTOS, PRIVATE_TEXT, phone_heic, phone_jpeg, phone_png, phone_webp
from PIL import Image

from onze_vision import metadata
from onze_vision.imageio import load_image
from onze_vision.metadata import MetadataError, private_copy, sniff_mime, without_metadata

DATA = Path(__file__).parent / "data"

# The fixture's multi-picture index points nowhere; Pillow says so and reads the first image.
pytestmark = pytest.mark.filterwarnings("ignore:Image appears to be a malformed MPO file")


def pixels(data: bytes) -> np.ndarray:
    """The decoded pixels as stored, orientation not applied."""
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"))


@pytest.mark.parametrize("kind", PHONE_PHOTOS)
def test_location_time_and_device_do_not_stay(kind: str) -> None:
    data = PHONE_PHOTOS[kind]()
    assert all(text in data for text in PRIVATE_TEXT), "the fixture lost them"
    kept = without_metadata(data)
    for text in PRIVATE_TEXT:
        assert text not in kept, text
    with Image.open(io.BytesIO(kept)) as image:
        assert not image.getexif().get_ifd(0x8825), "GPS kept"
        assert dict(image.getexif()) == {0x0112: 6}


@pytest.mark.parametrize("kind", PHONE_PHOTOS)
def test_the_pixels_and_their_orientation_stay_as_taken(kind: str) -> None:
    data = PHONE_PHOTOS[kind]()
    kept = without_metadata(data)
    assert np.array_equal(pixels(kept), pixels(data))
    before, after = load_image(data), load_image(kept)
    assert after.orientation == before.orientation == 6
    assert np.array_equal(after.image, before.image)
    assert sniff_mime(kept) == sniff_mime(data)


@pytest.mark.parametrize("kind", PHONE_PHOTOS)
def test_a_kept_photo_is_kept_as_it_is(kind: str) -> None:
    kept = without_metadata(PHONE_PHOTOS[kind]())
    assert without_metadata(kept) == kept


@pytest.mark.parametrize("make", [phone_jpeg, phone_png, phone_webp], ids=["JPEG", "PNG", "WebP"])
def test_an_upright_photo_keeps_no_exif_at_all(make: object) -> None:
    kept = without_metadata(make(orientation=1))  # type: ignore[operator]
    with Image.open(io.BytesIO(kept)) as image:
        assert not image.getexif()
        assert "exif" not in image.info


def test_a_jpeg_keeps_its_colour_profile_and_drops_what_follows_its_end() -> None:
    data = phone_jpeg()
    kept = without_metadata(data)
    with Image.open(io.BytesIO(data)) as before, Image.open(io.BytesIO(kept)) as after:
        assert after.info["icc_profile"] == before.info["icc_profile"]
    assert kept.endswith(b"\xff\xd9") and kept.count(b"\xff\xd8") == 1  # the second image is gone
    assert b"MPF\x00" not in kept and b"Photoshop" not in kept


def test_stray_bytes_before_a_marker_are_skipped_as_decoders_do() -> None:
    data = phone_jpeg()
    sos = data.index(b"\xff\xda")
    damaged = data[:sos] + b"\x00\x17" + data[sos:]
    assert np.array_equal(pixels(without_metadata(damaged)), pixels(data))


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.jpg")))
def test_real_photos_keep_every_pixel(name: str) -> None:
    data = (DATA / name).read_bytes()
    kept = without_metadata(data)
    assert np.array_equal(load_image(kept).image, load_image(data).image)
    assert len(kept) <= len(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"GIF89a not a photo", "not a JPEG, PNG or WebP file (it starts '47 49 46 38"),
        (b"", "not a JPEG, PNG or WebP file"),
        (phone_jpeg()[:2000], "the JPEG ends"),
        (phone_png()[:60], "runs past the end of the file"),
        (b"RIFF\x04\x00\x00\x00WEBP", "the WebP holds no image chunk"),
    ],
    ids=["GIF", "empty", "JPEG cut in its data", "PNG cut in a chunk", "WebP with no image"],
)
def test_what_cannot_be_walked_is_refused_by_name(data: bytes, message: str) -> None:
    with pytest.raises(MetadataError, match=message.replace("(", r"\(")):
        without_metadata(data)


def test_where_the_file_cannot_be_walked_its_pixels_are_kept_upright(monkeypatch: pytest.MonkeyPatch) -> None:
    data = phone_jpeg(orientation=6)

    def refuse(_: bytes) -> bytes:
        raise MetadataError("a segment the walker cannot follow")

    monkeypatch.setattr(metadata, "without_metadata", refuse)
    kept = private_copy(data)
    assert sniff_mime(kept) == "image/jpeg"
    assert not any(text in kept for text in PRIVATE_TEXT)
    upright = load_image(kept)
    assert upright.orientation == 1
    assert upright.image.shape == load_image(data).image.shape  # turned as the EXIF said
    assert np.abs(upright.image.astype(int) - load_image(data).image).mean() < 8


def test_a_heic_is_kept_as_an_upright_jpeg_with_nothing_private() -> None:
    # Browsers other than Safari show no HEIC, and its boxes cannot be walked here: its
    # pixels are kept, upright, as a JPEG.
    data = phone_heic(orientation=6)
    assert all(text in data for text in (b"SN-4471", b"taken at home"))   # the phone wrote them
    kept = private_copy(data)
    assert sniff_mime(kept) == "image/jpeg"
    assert not any(text in kept for text in PRIVATE_TEXT)
    upright, sent = load_image(kept), load_image(data)
    assert (upright.orientation, upright.image.shape) == (1, sent.image.shape)
    assert np.abs(upright.image.astype(int) - sent.image).mean() < 8


def _webp_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    chunks, pos = [], 12
    while pos + 8 <= len(data):
        kind, length = data[pos:pos + 4], int.from_bytes(data[pos + 4:pos + 8], "little")
        chunks.append((kind, data[pos + 8:pos + 8 + length]))
        pos += 8 + length + (length & 1)
    return chunks


def _webp(chunks: list[tuple[bytes, bytes]]) -> bytes:
    body = b"WEBP" + b"".join(kind + len(c).to_bytes(4, "little") + c + b"\x00" * (len(c) & 1) for kind, c in chunks)
    return b"RIFF" + len(body).to_bytes(4, "little") + body


def _exif_without_orientation() -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"
    return exif.tobytes()


def webp_exif_unflagged() -> bytes:
    chunks = _webp_chunks(phone_webp())
    header = chunks[0][1]
    chunks[0] = (b"VP8X", bytes((header[0] & ~0x08,)) + header[1:])
    return _webp(chunks)


def webp_two_exif_first_without_orientation() -> bytes:
    chunks = _webp_chunks(phone_webp())
    at = next(i for i, (kind, _) in enumerate(chunks) if kind == b"EXIF")
    chunks.insert(at, (b"EXIF", _exif_without_orientation()[6:]))
    return _webp(chunks)


def png_two_exif_the_last_upright() -> bytes:
    data = phone_png()
    at = data.index(b"IDAT") - 4
    body = Image.Exif()
    body[0x0112] = 1
    chunk = body.tobytes()[6:]
    import struct
    import zlib
    extra = struct.pack(">I", len(chunk)) + b"eXIf" + chunk + struct.pack(">I", zlib.crc32(b"eXIf" + chunk))
    return data[:at] + extra + data[at:]


def jpeg_jfif_with_a_thumbnail() -> bytes:
    data = phone_jpeg()
    app0 = data.index(b"\xff\xe0")
    length = int.from_bytes(data[app0 + 2:app0 + 4], "big")
    payload = data[app0 + 4:app0 + 2 + length]
    thumbnail = bytes(payload[:12]) + b"\x01\x01" + b"taken at home"[:3] * 1  # 1x1 RGB thumbnail
    segment = b"\xff\xe0" + (len(thumbnail) + 2).to_bytes(2, "big") + thumbnail
    return data[:app0] + segment + data[app0 + 2 + length:]


def jpeg_stuffed_zero_before_exif() -> bytes:
    data = phone_jpeg()
    sos = data.index(b"\xff\xda")
    exif = b"Exif\x00\x00" + phone_exif_bytes()
    return data[:sos] + b"\xff\x00" + b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif + data[sos:]


def phone_exif_bytes() -> bytes:
    from phone_photos import phone_exif

    return phone_exif(8)[6:]


@pytest.mark.parametrize("make", [webp_exif_unflagged, webp_two_exif_first_without_orientation,
                                  png_two_exif_the_last_upright, jpeg_jfif_with_a_thumbnail,
                                  jpeg_stuffed_zero_before_exif])
def test_odd_files_keep_the_orientation_readers_take_and_nothing_private(make: Any) -> None:
    data = make()
    kept = without_metadata(data)
    assert load_image(kept).orientation == load_image(data).orientation
    assert np.array_equal(load_image(kept).image, load_image(data).image)
    for text in PRIVATE_TEXT:
        assert text not in kept, text
    assert b"tak" not in kept.split(b"\xff\xda")[0]          # no thumbnail bytes in the JFIF header
