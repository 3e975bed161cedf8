"""Photos as phones write them: location, time, device, XMP, thumbnails and extra images
(for tests/test_metadata.py and the score sheet's tests)."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, PngImagePlugin

#: What a phone writes that must not leave the house, as it shows in the file's bytes.
PRIVATE_TEXT = (b"PhoneMaker", b"SN-4471", b"2026:11:26 19:04:11", b"xmpmeta", b"taken at home")
GPS = {1: "N", 2: (48.0, 51.0, 29.5), 3: "E", 4: (2.0, 17.0, 40.2)}
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/">taken at home</x:xmpmeta>'


def phone_exif(orientation: int) -> bytes:
    """EXIF as a phone writes it: orientation, maker, serial number, time and position."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "PhoneMaker"
    exif[0xA431] = "SN-4471"  # BodySerialNumber
    exif[0x0132] = "2026:11:26 19:04:11"
    exif[0x8825] = GPS
    return exif.tobytes()


def picture() -> Image.Image:
    """A small picture with detail, so that a change of pixels would show."""
    rng = np.random.default_rng(7)
    return Image.fromarray(rng.integers(0, 256, (48, 64, 3), np.uint8))


def jpeg_segment(marker: int, payload: bytes) -> bytes:
    return bytes((0xFF, marker)) + (len(payload) + 2).to_bytes(2, "big") + payload


def phone_jpeg(orientation: int = 6, progressive: bool = False) -> bytes:
    """A JPEG as phones write them: EXIF with a thumbnail, XMP, IPTC, a comment, an ICC
    profile, a multi-picture index and a second image after the end."""
    exif = phone_exif(orientation)
    buffer = io.BytesIO()
    icc = b"\x00" * 128 + b"acsp" + b"\x00" * 16  # only its bytes matter here
    picture().save(buffer, "JPEG", exif=exif, icc_profile=icc, comment=b"taken at home",
                   progressive=progressive, quality=90)
    data = buffer.getvalue()
    extra = (jpeg_segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + XMP)
             + jpeg_segment(0xED, b"Photoshop 3.0\x00taken at home")
             + jpeg_segment(0xE2, b"MPF\x00" + b"\x00" * 16))
    second = io.BytesIO()
    Image.new("RGB", (8, 8)).save(second, "JPEG", exif=exif)  # a gain map or depth image
    return data[:2] + extra + data[2:] + second.getvalue()


def phone_png(orientation: int = 6) -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Location", "taken at home")
    info.add_itxt("XML:com.adobe.xmp", XMP.decode())
    buffer = io.BytesIO()
    picture().save(buffer, "PNG", exif=phone_exif(orientation), pnginfo=info)
    return buffer.getvalue()


def phone_webp(orientation: int = 6) -> bytes:
    buffer = io.BytesIO()
    picture().save(buffer, "WEBP", exif=phone_exif(orientation), xmp=XMP, lossless=True)
    return buffer.getvalue()


def heic(pixels: Image.Image, *, orientation: int = 1, quality: int = 90,
         exif: bytes | None = None, xmp: bytes | None = None) -> bytes:
    """``pixels`` saved as a HEIC, with the test extra's pillow-heif (the runtime's pi-heif
    only decodes). libheif writes ``irot``/``imir`` from the EXIF orientation, so the file
    shows the pixels turned as a JPEG with that orientation does; ``exif`` replaces the
    orientation-only block."""
    import pillow_heif

    if exif is None:
        block = Image.Exif()
        block[0x0112] = orientation
        exif = block.tobytes()
    buffer = io.BytesIO()
    options = {"xmp": xmp} if xmp is not None else {}
    pillow_heif.from_pillow(pixels.convert("RGB")).save(buffer, quality=quality, exif=exif, **options)
    return buffer.getvalue()


def iphone_heic(upright: Image.Image) -> bytes:
    """``upright`` as an iPhone saves it: the pixels as the sensor saw them (a quarter
    turned), and ``irot`` with EXIF orientation 6 to show them upright."""
    return heic(upright.convert("RGB").transpose(Image.Transpose.ROTATE_90), orientation=6)


def phone_heic(orientation: int = 6) -> bytes:
    """A HEIC as iPhones write it: the pixels as the sensor saw them, ``irot`` to show them
    upright, and EXIF (with the orientation again) and XMP beside them."""
    return heic(picture(), exif=phone_exif(orientation), xmp=XMP)


#: The formats whose structure the score sheet walks, keeping the compressed image as is
#: (a HEIC is kept as a new JPEG instead: ``phone_heic``).
PHONE_PHOTOS = {
    "baseline JPEG": lambda: phone_jpeg(),
    "progressive JPEG": lambda: phone_jpeg(progressive=True),
    "PNG": lambda: phone_png(),
    "WebP": lambda: phone_webp(),
}
