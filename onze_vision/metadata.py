"""A photo file without what it says about who took it, where and when.

A phone writes much besides the pixels into a photo: the GPS position of the table (the
family's home), the time, the phone's make and serial number, a thumbnail, editing
history (XMP), sometimes a second image. The score sheet keeps each photo and hands the
whole book to whoever downloads it, so it keeps only what is needed to show the photo as
it was taken: :func:`without_metadata` copies the compressed image data byte for byte
(no re-encoding: the detector reads the very same pixels) with the colour profile and
the EXIF orientation, and drops everything else.

Kept, per format:

- JPEG: every segment the image data needs (tables, frame, scans), the JFIF header (APP0,
  without its thumbnail), the ICC profile (APP2 ``ICC_PROFILE``) and Adobe's colour
  transform (APP14); the first EXIF block (the one readers take) becomes a minimal block
  holding the orientation alone. Dropped: every other APPn (EXIF's GPS,
  maker notes and thumbnail, XMP, IPTC, MPF), comments, and whatever follows the end of
  the image (the extra images of multi-picture and gain-map JPEGs).
- PNG: the critical chunks and those that shape the pixels' colour or animation
  (:data:`PNG_KEPT_CHUNKS`); the last ``eXIf`` before the image data (the one readers
  take) becomes the orientation alone; text, time and private chunks are dropped.
- WebP: the image, alpha, animation and ICC chunks; the first ``EXIF``, where the
  ``VP8X`` header says there is one (as readers take it), becomes the orientation alone;
  ``XMP`` and unknown chunks are dropped, and the ``VP8X`` flags follow.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

# EXIF's Orientation tag (as onze_vision.imageio reads it; not imported from there, which
# would load OpenCV into the score sheet before any photo comes).
EXIF_ORIENTATION_TAG = 0x0112


class MetadataError(ValueError):
    """The bytes are not a JPEG, PNG or WebP file whose structure can be walked."""


#: PNG chunks kept: the critical ones, colour, transparency, pixel density and animation.
PNG_KEPT_CHUNKS = frozenset({
    b"IHDR", b"PLTE", b"IDAT", b"IEND",
    b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT", b"cICP", b"mDCv", b"cLLi",
    b"pHYs", b"bKGD", b"acTL", b"fcTL", b"fdAT",
})

#: WebP chunks kept: the image, its alpha, animation and colour profile.
WEBP_KEPT_CHUNKS = frozenset({b"VP8X", b"VP8 ", b"VP8L", b"ALPH", b"ANIM", b"ANMF", b"ICCP"})

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_EXIF_HEADER = b"Exif\x00\x00"
# VP8X flag bits (WebP container spec): EXIF and XMP present.
_WEBP_EXIF_FLAG = 0x08
_WEBP_XMP_FLAG = 0x04


def without_metadata(data: bytes) -> bytes:
    """``data`` (a JPEG, PNG or WebP file) with only what shows its pixels as taken.

    Args:
        data: The photo file's bytes.

    Returns:
        The same image, its compressed data untouched, without location, time, device,
        thumbnails, text or editing history (see the module docstring for what is kept).

    Raises:
        MetadataError: ``data`` is none of the three formats, or its structure is broken
            (a segment or chunk runs past the end of the file).
    """
    mime = sniff_mime(data)
    if mime == "image/jpeg":
        return _jpeg_without_metadata(data)
    if mime == "image/png":
        return _png_without_metadata(data)
    if mime == "image/webp":
        return _webp_without_metadata(data)
    raise MetadataError(f"not a JPEG, PNG or WebP file (it starts {data[:8].hex(' ')!r})")


def sniff_mime(data: bytes) -> str:
    """The MIME type of ``data`` among the formats a kept photo has (JPEG, PNG, WebP;
    a HEIC is kept as a JPEG), else ``application/octet-stream``."""
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:8] == _PNG_SIGNATURE:
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


def private_copy(data: bytes) -> bytes:
    """The photo to keep: :func:`without_metadata`, or where its structure cannot be
    walked (a HEIC, which only Safari shows; a damaged segment a decoder skips over), its
    decoded pixels, upright, as a new JPEG (quality 95, colour at full resolution, so a
    small red index stays red when it is read again). Either way it holds nothing but
    the picture.

    Raises:
        onze_vision.imageio.InvalidImageError: ``data`` cannot be walked nor decoded.
    """
    try:
        return without_metadata(data)
    except MetadataError:
        import cv2  # only here: the score sheet loads OpenCV when a photo needs it

        from onze_vision.imageio import load_image

        pixels = load_image(data).image
        ok, encoded = cv2.imencode(".jpg", pixels, [
            cv2.IMWRITE_JPEG_QUALITY, 95,
            cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444])
        if not ok:
            raise MetadataError("the photo could not be encoded again") from None
        return encoded.tobytes()


def orientation_only(exif: bytes) -> bytes | None:
    """A TIFF-format EXIF block holding only ``exif``'s orientation (with the ``Exif``
    header), or None where there is none to keep (upright, absent or unreadable)."""
    try:
        parsed = Image.Exif()
        parsed.load(exif)
        orientation = int(parsed.get(EXIF_ORIENTATION_TAG, 1))
    except Exception:  # noqa: BLE001 - a broken EXIF block is dropped whole, as the detector ignores it
        return None
    if orientation not in range(2, 9):
        return None
    kept = Image.Exif()
    kept[EXIF_ORIENTATION_TAG] = orientation
    block = kept.tobytes()
    return block if block.startswith(_EXIF_HEADER) else _EXIF_HEADER + block


# --- JPEG ---------------------------------------------------------------------------

def _jpeg_keeps(marker: int, payload: bytes) -> bool:
    """Whether a JPEG segment stays as it is: every non-APP segment, and two APPs of colour
    (the JFIF header is cut to its first 14 bytes by the caller)."""
    if marker == 0xFE:  # COM: free text
        return False
    if not 0xE0 <= marker <= 0xEF:  # tables, frames, restart intervals: the image itself
        return True
    return ((marker == 0xE2 and payload.startswith(b"ICC_PROFILE\x00"))
            or (marker == 0xEE and payload.startswith(b"Adobe")))


def _jpeg_segment(marker: int, payload: bytes) -> bytes:
    return bytes((0xFF, marker)) + (len(payload) + 2).to_bytes(2, "big") + payload


def _jpeg_without_metadata(data: bytes) -> bytes:
    kept = [b"\xff\xd8"]
    orientation_written = False
    pos = 2
    size = len(data)
    while True:
        if pos < size and data[pos] != 0xFF:  # stray bytes before a marker: skipped, as libjpeg does
            pos = data.find(b"\xff", pos)
            if pos < 0:
                pos = size
        if pos >= size:
            raise MetadataError("the JPEG ends before its end-of-image marker")
        while pos < size and data[pos] == 0xFF:  # fill bytes before a marker
            pos += 1
        if pos >= size:
            raise MetadataError("the JPEG ends inside a marker")
        marker = data[pos]
        pos += 1
        if marker == 0x00:  # a stuffed zero outside a scan: stray bytes, skipped as libjpeg does
            continue
        if marker == 0xD9:  # EOI: what follows (other images) is left behind
            kept.append(b"\xff\xd9")
            return b"".join(kept)
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers with no length
            kept.append(bytes((0xFF, marker)))
            continue
        if pos + 2 > size:
            raise MetadataError("the JPEG ends inside a segment's length")
        length = int.from_bytes(data[pos:pos + 2], "big")
        end = pos + length
        if length < 2 or end > size:
            raise MetadataError(f"a JPEG segment at byte {pos - 2} runs past the end of the file")
        segment = data[pos - 2:end]
        payload = data[pos + 2:end]
        pos = end
        if marker == 0xDA:  # SOS: its header, then entropy-coded data up to the next marker
            scan_end = _entropy_end(data, pos)
            kept.append(segment)
            kept.append(data[pos:scan_end])
            pos = scan_end
        elif marker == 0xE0 and payload.startswith(b"JFIF\x00") and len(payload) >= 14:
            # The header alone (version, density), its thumbnail said to be 0x0 and left out.
            kept.append(_jpeg_segment(0xE0, payload[:12] + b"\x00\x00"))
        elif _jpeg_keeps(marker, payload):
            kept.append(segment)
        elif marker == 0xE1 and payload.startswith(_EXIF_HEADER) and not orientation_written:
            # The first EXIF block is the one readers take the orientation from.
            orientation_written = True
            block = orientation_only(payload)
            if block is not None:
                kept.append(_jpeg_segment(0xE1, block))


def _entropy_end(data: bytes, pos: int) -> int:
    """Where a scan's entropy-coded data ends: the next 0xFF that starts a real marker
    (not a stuffed 0xFF00, a restart marker or a fill byte)."""
    while True:
        found = data.find(b"\xff", pos)
        if found < 0 or found + 1 >= len(data):
            raise MetadataError("the JPEG ends inside its image data")
        following = data[found + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            pos = found + 1 if following == 0xFF else found + 2
            continue
        return found


# --- PNG ----------------------------------------------------------------------------

def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_without_metadata(data: bytes) -> bytes:
    kept = [_PNG_SIGNATURE]
    pos = len(_PNG_SIGNATURE)
    exif: bytes | None = None  # the last eXIf before the image data: the one readers take
    image_started = False
    while pos < len(data):
        if pos + 8 > len(data):
            raise MetadataError(f"a PNG chunk header at byte {pos} is cut short")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 12 + length
        if end > len(data):
            raise MetadataError(f"the PNG chunk {kind!r} at byte {pos} runs past the end of the file")
        if kind == b"IDAT" and not image_started:
            image_started = True
            block = orientation_only(exif) if exif is not None else None
            if block is not None:
                kept.append(_png_chunk(b"eXIf", block[len(_EXIF_HEADER):]))
        if kind in PNG_KEPT_CHUNKS:
            kept.append(data[pos:end])
        elif kind == b"eXIf" and not image_started:
            exif = data[pos + 8:pos + 8 + length]
        pos = end
        if kind == b"IEND":
            return b"".join(kept)
    raise MetadataError("the PNG has no IEND chunk")


# --- WebP ---------------------------------------------------------------------------

def _webp_without_metadata(data: bytes) -> bytes:
    riff_end = min(len(data), 8 + int.from_bytes(data[4:8], "little"))
    chunks: list[tuple[bytes, bytes]] = []
    # Readers take the first EXIF chunk, and only where the extended header says there is one.
    exif_said = data[12:16] == b"VP8X" and len(data) > 20 and bool(data[20] & _WEBP_EXIF_FLAG)
    pos = 12
    while pos + 8 <= riff_end:
        kind = data[pos:pos + 4]
        length = int.from_bytes(data[pos + 4:pos + 8], "little")
        body_end = pos + 8 + length
        if body_end > riff_end:
            raise MetadataError(f"the WebP chunk {kind!r} at byte {pos} runs past the end of the file")
        body = data[pos + 8:body_end]
        if kind in WEBP_KEPT_CHUNKS:
            chunks.append((kind, body))
        elif kind == b"EXIF" and exif_said:
            exif_said = False
            block = orientation_only(body)
            if block is not None:
                chunks.append((b"EXIF", block[len(_EXIF_HEADER):]))
        pos = body_end + (length & 1)  # chunks are padded to an even size
    if not chunks:
        raise MetadataError("the WebP holds no image chunk")
    if chunks[0][0] == b"VP8X":  # the extended header says which chunks follow
        has_exif = any(kind == b"EXIF" for kind, _ in chunks)
        flags = chunks[0][1][0] & ~(_WEBP_EXIF_FLAG | _WEBP_XMP_FLAG)
        flags |= _WEBP_EXIF_FLAG if has_exif else 0
        chunks[0] = (b"VP8X", bytes((flags,)) + chunks[0][1][1:])
    body = b"WEBP" + b"".join(
        kind + len(chunk).to_bytes(4, "little") + chunk + (b"\x00" if len(chunk) & 1 else b"")
        for kind, chunk in chunks)
    return b"RIFF" + len(body).to_bytes(4, "little") + body
