"""Photo loading: formats, EXIF orientation, reduced decoding and every kind of bad input."""

from __future__ import annotations

import io
import os
import struct
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from onze_vision.shared import real_photos_dir
from phone_photos import heic
from onze_vision.imageio import (
    read_image_file,
    HEIC_BRANDS,
    MAX_FILE_BYTES,
    MAX_PIXELS,
    MIN_SIDE,
    EmptyImageError,
    FileTooLargeError,
    ImageNotFoundError,
    InvalidImageError,
    NotAnImageError,
    TooFewPixelsError,
    TooManyPixelsError,
    TruncatedImageError,
    UnsupportedArrayError,
    UnsupportedSourceError,
    _webp_size,
    decode_finer,
    is_colourless,
    load_image,
)

# Four flat quadrants (BGR): top-left red, top-right green, bottom-left blue, bottom-right white.
QUADRANT_COLOURS = np.array([[[0, 0, 255], [0, 255, 0]], [[255, 0, 0], [255, 255, 255]]], np.uint8)


def quadrants(width: int = 64, height: int = 32) -> np.ndarray:
    """A BGR image of four flat quadrants (JPEG keeps flat colours nearly exact)."""
    return cv2.resize(QUADRANT_COLOURS, (width, height), interpolation=cv2.INTER_NEAREST)


def encode(image_bgr: np.ndarray, ext: str) -> bytes:
    ok, buffer = cv2.imencode(ext, image_bgr)
    assert ok
    return buffer.tobytes()


def jpeg_with_orientation(image_bgr: np.ndarray, orientation: int) -> bytes:
    pil = Image.fromarray(image_bgr[:, :, ::-1])
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    pil.save(out, "JPEG", quality=95, exif=exif.tobytes())
    return out.getvalue()


def heic_with_orientation(image_bgr: np.ndarray, orientation: int = 1, quality: int = 95) -> bytes:
    """A HEIC as a phone writes it: the pixels as the sensor saw them, turned upright by
    the file's own boxes."""
    return heic(Image.fromarray(image_bgr[:, :, ::-1]), orientation=orientation, quality=quality)


def png_header_only(width: int, height: int) -> bytes:
    """A syntactically valid PNG claiming ``width`` x ``height``, a few hundred bytes long."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("ext", [".jpg", ".png", ".webp"])
def test_formats_decode_to_bgr(ext: str, tmp_path: Path) -> None:
    image = quadrants()
    data = encode(image, ext)
    path = tmp_path / f"photo{ext}"
    path.write_bytes(data)
    for src in (data, path, str(path), io.BytesIO(data)):
        loaded = load_image(src)
        assert (loaded.width, loaded.height, loaded.scale) == (64, 32, 1.0)
        assert loaded.image.dtype == np.uint8 and loaded.image.shape == (32, 64, 3)
        assert np.abs(loaded.image.astype(int) - image).mean() < 8
    assert load_image(data).format == {".jpg": "JPEG", ".png": "PNG", ".webp": "WEBP"}[ext]


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_matches_pillow(orientation: int) -> None:
    data = jpeg_with_orientation(quadrants(64, 32), orientation)
    loaded = load_image(data)
    expected = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(data))))[:, :, ::-1]
    assert loaded.orientation == orientation
    assert (loaded.height, loaded.width) == expected.shape[:2]
    assert loaded.image.shape == expected.shape
    assert np.abs(loaded.image.astype(int) - expected).mean() < 4


def test_exif_rotation_places_pixels() -> None:
    # Orientation 6: the camera was turned; shown rotated 90 degrees clockwise.
    loaded = load_image(jpeg_with_orientation(quadrants(64, 32), 6))
    assert (loaded.width, loaded.height) == (32, 64)
    top_left = loaded.image[4, 4].astype(int)
    top_right = loaded.image[4, 27].astype(int)
    assert np.abs(top_left - [255, 0, 0]).max() < 40  # blue: was bottom-left
    assert np.abs(top_right - [0, 0, 255]).max() < 40  # red: was top-left


def test_heic_decodes_with_its_colours() -> None:
    loaded = load_image(heic_with_orientation(quadrants(64, 32)))
    assert (loaded.format, loaded.width, loaded.height, loaded.scale) == ("HEIF", 64, 32, 1.0)
    assert loaded.image.dtype == np.uint8 and loaded.image.flags["C_CONTIGUOUS"]
    assert loaded.image.flags["WRITEABLE"] and loaded.image.flags["OWNDATA"]
    assert np.abs(loaded.image.astype(int) - quadrants(64, 32)).mean() < 6


@pytest.mark.parametrize("orientation", range(1, 9))
def test_heic_is_turned_upright_once(orientation: int) -> None:
    # A HEIC shows upright by its own boxes; the EXIF copy of the orientation is not
    # applied a second time.
    stored = quadrants(64, 32)
    loaded = load_image(heic_with_orientation(stored, orientation))
    shown_as_jpeg = np.asarray(ImageOps.exif_transpose(
        Image.open(io.BytesIO(jpeg_with_orientation(stored, orientation)))))[:, :, ::-1]
    assert loaded.orientation == 1
    assert loaded.image.shape == shown_as_jpeg.shape
    assert (loaded.height, loaded.width) == shown_as_jpeg.shape[:2]
    assert np.abs(loaded.image.astype(int) - shown_as_jpeg).mean() < 6


@pytest.mark.parametrize(("mode", "pixels"), [
    ("RGB;16", np.full((48, 64, 3), 128 * 257, np.uint16)),   # 10-bit (heix), as phones save HDR
    ("L", np.full((48, 64), 128, np.uint8)),                    # grey
    ("RGBA", np.full((48, 64, 4), 128, np.uint8)),              # with an alpha plane
], ids=["10-bit", "grey", "alpha"])
def test_every_kind_of_heic_comes_as_8_bit_bgr(mode: str, pixels: np.ndarray) -> None:
    import pillow_heif  # a mode Pillow has no image for: the encoder's own constructor

    out = io.BytesIO()
    pillow_heif.from_bytes(mode=mode, size=(64, 48), data=pixels.tobytes()).save(out, quality=90)
    assert out.getvalue()[8:12] in HEIC_BRANDS
    loaded = load_image(out.getvalue())
    assert (loaded.image.dtype, loaded.image.shape) == (np.uint8, (48, 64, 3))
    assert np.abs(loaded.image.astype(int) - 128).max() <= 3


def test_heic_too_large_is_refused_from_its_header() -> None:
    data = bytearray(heic_with_orientation(np.full((64, 64, 3), 255, np.uint8)))
    size_box = data.find(b"ispe")  # image spatial extents: version, width, height
    data[size_box + 8:size_box + 16] = struct.pack(">II", 20000, 20000)
    with pytest.raises(TooManyPixelsError, match=r"20000x20000 = 400 MP; the limit is 50 MP"):
        load_image(bytes(data))


@pytest.mark.parametrize("kept", [28, 300, 0.5, -10])
def test_truncated_heic(kept: float) -> None:
    data = heic_with_orientation(quadrants(256, 128), quality=60)
    cut = data[:int(len(data) * kept)] if isinstance(kept, float) else data[:kept]
    with pytest.raises(TruncatedImageError, match=rf"a truncated HEIC file \({len(cut)} bytes\)"):
        load_image(cut)


def _damaged(data: bytes, rng: np.random.Generator) -> bytes:
    """``data`` with 1-16 bytes changed, cut out or put in, mostly in its boxes (the first
    600 bytes), where a decoder's parser is the most exposed."""
    damaged = bytearray(data)
    for _ in range(int(rng.choice([1, 2, 4, 16]))):
        pos = int(rng.integers(min(len(damaged), int(rng.choice([600, len(damaged)])))))
        kind = rng.random()
        if kind < 0.6:
            damaged[pos] = int(rng.integers(256))
        elif kind < 0.8:
            del damaged[pos:pos + int(rng.integers(1, 64))]
        else:
            damaged[pos:pos] = rng.integers(0, 256, int(rng.integers(1, 16)), np.uint8).tobytes()
    return bytes(damaged)


def test_a_damaged_heic_is_read_or_refused_by_name_never_an_other_error() -> None:
    # Fuzzing found pi-heif raising SyntaxError (a feature libheif does not support) and
    # IndexError (a file with no image left in it) besides ValueError.
    data = heic_with_orientation(cv2.resize(quadrants(), (160, 96)), quality=60)
    rng = np.random.default_rng(5)
    outcomes: dict[str, int] = {}
    for _ in range(400):
        try:
            loaded = load_image(_damaged(data, rng))
            assert loaded.image.shape == (loaded.height, loaded.width, 3)
            outcome = "read"
        except InvalidImageError as error:
            assert str(error).startswith("the image data "), error
            outcome = type(error).__name__
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert {"read", "TruncatedImageError", "InvalidImageError"} <= set(outcomes), outcomes


def test_heic_without_its_decoder_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pi_heif", None)  # as if not installed
    with pytest.raises(NotAnImageError, match=r"is a HEIC photo, and the HEIC decoder \(pi-heif\) "
                                              r"is not installed: pip install pi-heif"):
        load_image(heic_with_orientation(quadrants()))


def test_reduced_decode_keeps_long_side(monkeypatch: pytest.MonkeyPatch) -> None:
    # How much faster the reduced decode is, is a benchmark (`onze-vision evaluate` reports
    # decode milliseconds); the test checks that libjpeg is asked for the reduced decode.
    rng = np.random.default_rng(0)
    small = rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)
    ok, buffer = cv2.imencode(".jpg", cv2.resize(small, (4000, 3000)), [cv2.IMWRITE_JPEG_QUALITY, 90])
    data = buffer.tobytes()
    flags_asked: list[int] = []
    real_imdecode = cv2.imdecode

    def recording_imdecode(buf: np.ndarray, flags: int) -> np.ndarray:
        flags_asked.append(flags & ~cv2.IMREAD_IGNORE_ORIENTATION)
        return real_imdecode(buf, flags)

    monkeypatch.setattr(cv2, "imdecode", recording_imdecode)
    loaded = load_image(data, max_side=960)
    assert (loaded.width, loaded.height) == (4000, 3000)
    assert loaded.image.shape == (750, 1000, 3) and loaded.scale == 0.25
    assert load_image(data, max_side=1001).image.shape == (1500, 2000, 3)
    assert load_image(data, max_side=100).image.shape == (375, 500, 3)  # at most 1/8
    assert load_image(data).image.shape == (3000, 4000, 3)
    assert flags_asked == [cv2.IMREAD_REDUCED_COLOR_4, cv2.IMREAD_REDUCED_COLOR_2,
                           cv2.IMREAD_REDUCED_COLOR_8, cv2.IMREAD_COLOR]


def test_reduced_decode_with_rotation_reports_rotated_size() -> None:
    big = cv2.resize(quadrants(), (2000, 1000), interpolation=cv2.INTER_NEAREST)
    loaded = load_image(jpeg_with_orientation(big, 8), max_side=400)
    assert (loaded.width, loaded.height) == (1000, 2000)
    assert loaded.image.shape == (500, 250, 3) and loaded.scale == 0.25


@pytest.mark.parametrize(("scale", "shape"), [
    (0.25, (750, 1000, 3)),    # as fine as it is: the same image
    (0.3, (1500, 2000, 3)),    # the smallest reduction that gives it
    (0.5, (1500, 2000, 3)),
    (0.6, (3000, 4000, 3)),
    (2.0, (3000, 4000, 3)),    # never more than the whole photo
])
def test_a_reduced_decode_can_be_decoded_finer(scale: float, shape: tuple[int, int, int]) -> None:
    ok, buffer = cv2.imencode(".jpg", cv2.resize(quadrants(), (4000, 3000), interpolation=cv2.INTER_NEAREST))
    loaded = load_image(buffer.tobytes(), max_side=960)
    finer = decode_finer(loaded, scale)
    assert finer.image.shape == shape and finer.scale == shape[1] / 4000
    assert (finer.width, finer.height) == (4000, 3000)
    assert finer is loaded if shape == loaded.image.shape else finer.image.mean() == pytest.approx(loaded.image.mean(), abs=2)


def test_a_finer_decode_keeps_the_exif_rotation() -> None:
    big = cv2.resize(quadrants(), (2000, 1000), interpolation=cv2.INTER_NEAREST)
    finer = decode_finer(load_image(jpeg_with_orientation(big, 8), max_side=400), 1.0)
    assert finer.image.shape == (2000, 1000, 3) and (finer.width, finer.height) == (1000, 2000)
    assert finer.image[50, 50].tolist() == pytest.approx(load_image(jpeg_with_orientation(big, 8)).image[50, 50].tolist(), abs=3)


@pytest.mark.parametrize("source", ["png", "array", "small jpeg"])
def test_images_decoded_whole_are_as_fine_as_they_get(source: str) -> None:
    image = quadrants(400, 300)
    src = {"png": encode(image, ".png"), "array": image, "small jpeg": encode(image, ".jpg")}[source]
    loaded = load_image(src, max_side=300)
    assert loaded.data is None and decode_finer(loaded, 1.0) is loaded


def test_zero_byte_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    with pytest.raises(EmptyImageError, match="empty.jpg' is empty"):
        load_image(path)
    with pytest.raises(EmptyImageError, match=r"the image data is empty \(zero bytes\)"):   # no file name to quote
        load_image(b"")


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageNotFoundError, match="no such file: .*nope.jpg"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageNotFoundError, match="directory"):
        load_image(tmp_path)


def test_files_that_are_not_regular_or_too_large_are_refused_unread(tmp_path: Path) -> None:
    fifo = tmp_path / "hand.jpg"
    os.mkfifo(fifo)   # reading it would block for ever
    with pytest.raises(InvalidImageError, match="hand.jpg' is not a regular file"):
        load_image(fifo)
    with pytest.raises(InvalidImageError, match="'/dev/zero' is not a regular file"):
        load_image("/dev/zero")
    huge = tmp_path / "video.jpg"
    with huge.open("wb") as handle:   # sparse: no disk used
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(FileTooLargeError, match="video.jpg' is 200 MiB; a photo file is at most 200 MiB"):
        load_image(huge)


@pytest.mark.parametrize(("path", "message"), [
    ("", "the photo's path is empty"),
    ("hand\0.jpg", "is not a usable path: embedded null byte"),
])
def test_paths_that_name_no_file(path: str, message: str) -> None:
    with pytest.raises(ImageNotFoundError, match=message):
        load_image(path)


def test_text_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "notes.jpg"
    path.write_text("my hand: QH 10S\n")
    with pytest.raises(NotAnImageError, match=r"not a JPEG, PNG, WebP or HEIC image: it looks like text starting 'my hand"):
        load_image(path)


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"%PDF-1.7\n...", "a PDF document"),
        (b"GIF89a\x01\x00\x01\x00", "a GIF image"),
        (b"\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1jpeg", "a HEIF image coded without HEVC"),
        (b"<!DOCTYPE html><html>", "an HTML page"),
        (b"\x00\x00\x00\x1cftypavif" + bytes(20), "an AVIF image"),
        (b"\x00\x00\x00\x1cftypmif1\x00\x00\x00\x00mif1avifmiaf", "an AVIF image"),
        (b"\x00\x00\x00\x20ftypisom" + bytes(20), "an MP4/QuickTime video"),
        (b'{"cards": ["QH", "7S"]}', "JSON text"),
        (b'<svg xmlns="http://www.w3.org/2000/svg"></svg>', "XML/SVG text"),
        (b'<?xml version="1.0"?><hand/>', "XML/SVG text"),
        (bytes(range(200, 232)), "unknown binary data starting c8 c9 ca cb cc cd ce cf"),
    ],
)
def test_other_file_types_are_named(data: bytes, what: str) -> None:
    with pytest.raises(NotAnImageError, match=what):
        load_image(data)


def test_truncated_jpeg_png_webp() -> None:
    rng = np.random.default_rng(1)
    image = rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)
    for ext in (".jpg", ".png", ".webp"):
        data = encode(image, ext)
        with pytest.raises(TruncatedImageError, match="truncated"):
            load_image(data[: len(data) // 2])
    with pytest.raises(TruncatedImageError, match=r"a truncated JPEG file \(20 bytes\)"):
        load_image(encode(image, ".jpg")[:20])


def test_jpeg_with_data_after_the_end_marker_is_fine() -> None:
    # Motion photos append a video after the JPEG's end marker.
    data = encode(quadrants(), ".jpg") + b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 100
    assert load_image(data).width == 64


def test_too_many_pixels_refused_from_header() -> None:
    data = png_header_only(20000, 20000)
    assert len(data) < 200  # nothing like 1.2 GB is ever allocated
    with pytest.raises(TooManyPixelsError, match=r"20000x20000 = 400 MP; the limit is 50 MP"):
        load_image(data)
    assert MAX_PIXELS == 50_000_000


@pytest.mark.parametrize(("width", "height"), [
    pytest.param(1, 1, id="a 1x1 pixel"),
    pytest.param(20000, 10, id="a strip 20000 wide, 10 high"),
    pytest.param(10, 20000, id="a strip 10 wide, 20000 high"),
    pytest.param(MIN_SIDE - 1, 3000, id="one pixel under the least side"),
])
@pytest.mark.parametrize("as_file", [True, False], ids=["file", "array"])
def test_an_image_too_small_to_hold_a_card_is_refused(width: int, height: int, as_file: bool) -> None:
    image = np.full((height, width, 3), 200, np.uint8)
    source = encode(image, ".png") if as_file else image
    with pytest.raises(TooFewPixelsError, match=f"{width}x{height} pixels: too small to hold a card"):
        load_image(source)


def test_the_least_side_is_read() -> None:
    assert load_image(encode(np.full((MIN_SIDE, 3000, 3), 200, np.uint8), ".png")).width == 3000


def test_just_over_the_pixel_limit_says_by_how_much() -> None:
    side = 7072   # 50.01 MP: "50 MP; the limit is 50 MP" would read as no reason at all
    with pytest.raises(TooManyPixelsError, match=r"7072x7072 = 50.0 MP; the limit is 50 MP"):
        load_image(png_header_only(side, side))


def test_too_many_pixels_jpeg_header() -> None:
    # A JPEG whose frame header claims 10000 x 6000: patch SOF0's size fields.
    data = bytearray(encode(quadrants(), ".jpg"))
    sof = data.find(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", 6000, 10000)
    with pytest.raises(TooManyPixelsError, match="10000x6000"):
        load_image(bytes(data))


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.zeros((8, 8, 3), np.float32), "uint8"),
        (np.zeros((8, 8, 2), np.uint8), "shape"),
        (np.zeros((2, 8, 8, 3), np.uint8), "shape"),
        (np.zeros((8,), np.uint8), "shape"),
    ],
)
def test_unsupported_arrays(array: np.ndarray, message: str) -> None:
    with pytest.raises(UnsupportedArrayError, match=message):
        load_image(array)


@pytest.mark.parametrize("shape", [(0, 5, 3), (0, 0), (0, 10), (4, 0, 4), (0, 3, 1)])
def test_arrays_without_pixels_are_empty(shape: tuple[int, ...]) -> None:
    with pytest.raises(EmptyImageError, match="no pixels"):
        load_image(np.zeros(shape, np.uint8))


def test_arrays_grey_bgr_bgra() -> None:
    grey = load_image(np.full((20, 40), 7, np.uint8))
    assert grey.image.shape == (20, 40, 3) and (grey.width, grey.height) == (40, 20)
    bgra = load_image(np.full((20, 40, 4), 9, np.uint8))
    assert bgra.image.shape == (20, 40, 3) and bgra.image.max() == 9


def test_a_one_channel_array_is_grey() -> None:
    loaded = load_image(np.full((20, 40, 1), 7, np.uint8))
    assert loaded.image.shape == (20, 40, 3) and loaded.image.max() == 7


def test_a_damaged_png_header_is_said() -> None:
    ok, encoded = cv2.imencode(".png", np.zeros((20, 30, 3), np.uint8))
    png = encoded.tobytes()
    broken = png[:16] + b"\xff" * 8 + png[24:]   # the size in IHDR, its checksum now wrong
    with pytest.raises(InvalidImageError, match="the image data has a damaged PNG header"):
        load_image(broken)


def test_a_photo_with_a_broken_exif_block_is_read_upright() -> None:
    # A broken EXIF block must not refuse the photo: it is read as taken (orientation 1).
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(buffer, "JPEG", exif=b"Exif\x00\x00not a TIFF block")
    loaded = load_image(buffer.getvalue())
    assert (loaded.width, loaded.height, loaded.orientation) == (40, 30, 1)


def test_a_file_object_that_gives_text_is_refused() -> None:
    with pytest.raises(InvalidImageError, match="expected a binary file object, got one returning str"):
        load_image(io.StringIO("QH 7S"))


@pytest.mark.parametrize(("source", "kind"), [(42, "int"), (None, "NoneType"), ([1, 2], "list")])
def test_wrong_source_type(source: object, kind: str) -> None:
    with pytest.raises(UnsupportedSourceError, match=f"a binary file object or a numpy array, got {kind}$") as error:
        load_image(source)  # type: ignore[arg-type]
    assert isinstance(error.value, TypeError)   # a wrong kind of argument, as Python calls it


def test_a_file_object_is_read_no_further_than_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # /dev/zero as a file object never ends: it is read one byte past the limit, then refused.
    class Endless(io.RawIOBase):
        given = 0

        def read(self, size: int = -1) -> bytes:
            assert size >= 0, "an endless file was asked for all of itself"
            self.given += size
            return b"\0" * size

    monkeypatch.setattr("onze_vision.imageio.MAX_FILE_BYTES", 1000)
    endless = Endless()
    with pytest.raises(FileTooLargeError, match="the uploaded file is over 0 MiB"):
        load_image(endless)  # type: ignore[arg-type]
    assert endless.given == 1001


def test_bytes_over_the_limit_are_refused_before_they_are_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("onze_vision.imageio.MAX_FILE_BYTES", 1000)
    for data in (b"\xff" * 1001, bytearray(1001), memoryview(b"\0" * 1001)):
        with pytest.raises(FileTooLargeError, match="the image data is over"):
            load_image(data)


def test_a_huge_array_is_refused_without_copying_it() -> None:
    # A 400 MP view of one pixel: converting it first took 6 s and 1.1 GB.
    view = np.broadcast_to(np.zeros((1, 1, 3), np.uint8), (20000, 20000, 3))
    grey = np.broadcast_to(np.zeros((1, 1), np.uint8), (20000, 20000))
    for array in (view, grey):
        with pytest.raises(TooManyPixelsError, match="the image array is 20000x20000 = 400 MP"):
            load_image(array)


def webp_header(chunk: bytes, body: bytes) -> bytes:
    """A WebP file's first chunk with nothing after it: enough for its canvas size."""
    data = chunk + len(body).to_bytes(4, "little") + body
    return b"RIFF" + (len(data) + 4).to_bytes(4, "little") + b"WEBP" + data


@pytest.mark.parametrize("kind", ["lossless", "extended"])
def test_a_webp_declaring_too_many_pixels_is_refused_by_name(kind: str) -> None:
    # 16383 x 16383 = 268 MP: Pillow's WebP plugin refuses it with an error of its own, not a ValueError.
    if kind == "lossless":
        bits = 16382 | 16382 << 14
        data = webp_header(b"VP8L", b"\x2f" + bits.to_bytes(4, "little") + bytes(20))
    else:
        data = webp_header(b"VP8X", bytes(4) + (16382).to_bytes(3, "little") * 2)
    with pytest.raises(TooManyPixelsError, match="the image data is 16383x16383 = 268 MP; the limit is 50 MP"):
        load_image(data)


def test_a_real_large_webp_gets_the_same_size_as_pillow_reads() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), "white").save(buffer, "WEBP", lossless=True)
    assert _webp_size(buffer.getvalue()) == (300, 200)
    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), "white").save(buffer, "WEBP", quality=80)
    assert _webp_size(buffer.getvalue()) == (300, 200)


@pytest.mark.parametrize("start", [b"\xff", b"\xff\xd8", b"\x89PN", b"RIF"])
def test_the_first_bytes_of_an_image_are_a_cut_upload(start: bytes) -> None:
    with pytest.raises(TruncatedImageError, match=f"cut off after {len(start)} bytes"):
        load_image(start)


def test_undecodable_bytes_are_not_called_text() -> None:
    with pytest.raises(NotAnImageError, match="unknown binary data starting c3"):
        load_image(b"\xc3")


def test_a_long_path_is_quoted_cut_in_the_middle() -> None:
    # A photo's bytes passed as a path string by mistake: the message stays readable.
    path = "/tmp/" + "x" * 100_000 + ".jpg"
    with pytest.raises(InvalidImageError) as error:
        load_image(path)
    message = str(error.value)
    assert len(message) < 300
    assert message.startswith("cannot read '/tmp/xxx")
    assert message.endswith("xx.jpg (100009 characters)': File name too long")


def test_errors_are_value_errors() -> None:
    assert issubclass(InvalidImageError, ValueError)
    for cls in (EmptyImageError, ImageNotFoundError, NotAnImageError, TruncatedImageError,
                TooManyPixelsError, TooFewPixelsError, FileTooLargeError, UnsupportedArrayError,
                UnsupportedSourceError):
        assert issubclass(cls, InvalidImageError)


# ------------------------------------------ photos without colour

DATA = Path(__file__).parent / "data"
EDJE = real_photos_dir()   # $ONZE_SHARED, else ../shared beside the checkout


def jpeg_of(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


@pytest.mark.parametrize("photo", sorted(p.name for p in DATA.glob("*.jpg")))
@pytest.mark.parametrize(("made", "colourless"), [
    ("as taken", False),
    ("one-channel grey JPEG", True),
    ("grey saved as a colour JPEG", True),
    ("grey array", True),
])
def test_a_photo_without_colour_is_told_from_a_colour_one(photo: str, made: str, colourless: bool) -> None:
    image = load_image(DATA / photo).image
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    source = {"as taken": lambda: DATA / photo,
              "one-channel grey JPEG": lambda: jpeg_of(grey),
              "grey saved as a colour JPEG": lambda: jpeg_of(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)),
              "grey array": lambda: grey}[made]()
    assert is_colourless(load_image(source).image) is colourless


def test_a_slight_tint_or_a_few_coloured_pixels_still_count_as_colour() -> None:
    grey = np.full((300, 400, 3), 128, np.uint8)
    assert is_colourless(grey)
    tinted = grey.copy()
    tinted[:, :, 2] += 20           # a warm cast over the whole photo
    assert not is_colourless(tinted)
    red_index = grey.copy()
    red_index[100:110, 200:210] = (30, 30, 200)   # 0.08 % of the pixels: one small red index
    assert is_colourless(red_index)               # under the 0.1 % that noise may hold
    red_index[100:120, 200:220] = (30, 30, 200)   # 0.3 %: colour
    assert not is_colourless(red_index)


@pytest.mark.skipif(not EDJE.is_dir(), reason="needs ../shared/realphotos/edje")
def test_no_real_photo_is_taken_for_a_colourless_one() -> None:
    photos = sorted(p for p in EDJE.glob("*/*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    assert len(photos) >= 300
    assert [p.name for p in photos if is_colourless(load_image(p, max_side=1920).image)] == []


# -- read_image_file: the tools' reader ------------------------------------------------
def test_the_tools_reader_gives_the_image_opencv_decodes(tmp_path: Path) -> None:
    path = tmp_path / "scene.png"
    cv2.imwrite(str(path), np.full((8, 12, 3), 200, np.uint8))
    assert read_image_file(path).shape == (8, 12, 3)
    assert read_image_file(path, cv2.IMREAD_GRAYSCALE).shape == (8, 12)


@pytest.mark.parametrize(("content", "problem"), [
    (None, "no such file"),
    (b"", "OpenCV cannot decode it"),
    (b"label,box\nQH,1 2 3 4\n", "OpenCV cannot decode it"),
])
def test_the_tools_reader_names_a_file_it_cannot_read(tmp_path: Path, content: bytes | None, problem: str) -> None:
    path = tmp_path / "images" / "train_00042.jpg"
    if content is not None:
        path.parent.mkdir()
        path.write_bytes(content)
    with pytest.raises(InvalidImageError) as error:
        read_image_file(path, what="scene")
    assert str(error.value) == f"cannot read the scene '{path}': {problem}"


@pytest.mark.parametrize("ext", [".png", ".webp"])
def test_a_large_photo_of_a_format_without_reduced_decoding_is_kept_at_4096_px_to_be_read(ext: str) -> None:
    """A 150 KB PNG of 50 megapixels took 1.9 GB and 8 s to read whole."""
    from onze_vision.imageio import UNREDUCED_KEEP_SIDE

    params = [cv2.IMWRITE_WEBP_QUALITY, 101] if ext == ".webp" else []
    ok, encoded = cv2.imencode(ext, np.full((3000, 6000, 3), 90, np.uint8), params)
    assert ok
    read = load_image(encoded.tobytes(), max_side=960)
    assert (read.width, read.height) == (6000, 3000)                  # boxes still in the photo's pixels
    assert read.image.shape[:2] == (2048, UNREDUCED_KEEP_SIDE) == (2048, 4096)
    assert read.scale == pytest.approx(4096 / 6000)
    assert load_image(encoded.tobytes()).image.shape[:2] == (3000, 6000)   # whole when asked whole


def test_a_large_array_is_kept_at_4096_px_to_be_read_as_a_png_is() -> None:
    array = np.full((3000, 6000), 90, np.uint8)   # grey: made BGR too
    read = load_image(array, max_side=960)
    assert (read.width, read.height, read.format) == (6000, 3000, "ARRAY")
    assert read.image.shape == (2048, 4096, 3) and read.scale == pytest.approx(4096 / 6000)
    assert load_image(array).image.shape == (3000, 6000, 3)                # whole when asked whole
    assert load_image(array[:100, :200], max_side=960).image.shape == (100, 200, 3)   # a small one as it is


def test_a_large_heic_is_kept_at_4096_px_to_be_read_and_whole_when_asked_whole() -> None:
    from PIL import Image
    from phone_photos import heic

    from onze_vision.imageio import UNREDUCED_KEEP_SIDE

    data = heic(Image.new("RGB", (5000, 3000), (120, 60, 30)), quality=30)
    read = load_image(data, max_side=960)
    assert (read.width, read.height, read.format) == (5000, 3000, "HEIF")
    assert read.image.shape == (2458, UNREDUCED_KEEP_SIDE, 3) and read.image.flags["C_CONTIGUOUS"]
    assert read.scale == pytest.approx(4096 / 5000)
    assert load_image(data).image.shape == (3000, 5000, 3)


@pytest.mark.parametrize(("image", "size"), [
    pytest.param(np.zeros((0, 5, 3), np.uint8), (5, 1), id="no rows"),
    pytest.param(np.zeros((4, 5), np.uint8), (5, 4), id="grey, two dimensions"),
    pytest.param(np.zeros((4, 5, 4), np.uint8), (5, 4), id="four channels"),
    pytest.param(np.zeros((4, 5, 3), np.float32), (5, 4), id="floats"),
    pytest.param(np.zeros((4, 5, 3), np.uint8), (0, 4), id="no width"),
])
def test_a_loaded_image_built_by_hand_that_is_no_photo_is_refused(image: np.ndarray, size: tuple[int, int]) -> None:
    from onze_vision.imageio import InvalidImageError, LoadedImage

    with pytest.raises(InvalidImageError, match="a LoadedImage"):
        LoadedImage(image, *size)


def test_a_loaded_image_needs_a_positive_scale() -> None:
    from onze_vision.imageio import InvalidImageError, LoadedImage

    with pytest.raises(InvalidImageError, match="positive scale"):
        LoadedImage(np.zeros((4, 5, 3), np.uint8), 5, 4, scale=0.0)
