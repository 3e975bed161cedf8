"""Load a photo for the detector: any source, EXIF orientation applied, decoded fast.

The header (format, size, EXIF orientation) is read with Pillow WITHOUT decoding, so a
bad or huge file is refused before any pixel is allocated. Pixels are decoded with
OpenCV, told to ignore EXIF (``cv2.IMREAD_IGNORE_ORIENTATION``), and the rotation is
applied here, so the result does not depend on OpenCV's version. A big phone JPEG is
decoded reduced (libjpeg's DCT scaling, ``cv2.IMREAD_REDUCED_COLOR_2/4/8``), which is
several times faster than a full decode; :attr:`LoadedImage.scale` maps boxes back to
full-photo pixels.

HEIC (what iPhones, and some Android phones, save by default) is decoded with pi-heif
(libheif's HEVC decoder, no encoder), imported only when such a photo comes. libheif
turns the pixels upright itself (the HEIF ``irot``/``imir`` boxes); the copy of the
orientation in a HEIC's EXIF is informational and is not applied a second time.
"""

from __future__ import annotations

import importlib
import io
import math
import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Callable
from types import ModuleType
from typing import BinaryIO, Union

import cv2
import numpy as np
from PIL import Image, ImageFile, JpegImagePlugin, PngImagePlugin, WebPImagePlugin

from onze_vision.metadata import sniff_mime

__all__ = ["ImageSource", "MAX_PIXELS", "MIN_SIDE", "MAX_FILE_BYTES", "InvalidImageError", "ImageNotFoundError", "EmptyImageError",
           "NotAnImageError", "TruncatedImageError", "TooManyPixelsError", "TooFewPixelsError", "FileTooLargeError",
           "UnsupportedArrayError", "UnsupportedSourceError", "LoadedImage", "load_image", "read_image_file",
           "fit_long_side", "decode_finer", "is_colourless"]

#: Photos with more pixels than this are refused from their header (a 200 MP phone
#: photo is 200_000_000; 50 MP covers every common phone camera's default mode).
MAX_PIXELS = 50_000_000

#: The long side a photo whose format cannot be decoded reduced (PNG, WebP, HEIC) keeps when
#: it is loaded to be read (``max_side`` given): a 12-megapixel phone JPEG's. Read whole, a
#: 50-megapixel PNG of 150 KB took 1.9 GB and 8 s; held-out far shots read from copies half
#: this size found as many cards (0.948 against 0.941 as taken).
UNREDUCED_KEEP_SIDE = 4096

#: Photos whose shorter side is under this many pixels are refused: they cannot hold a
#: readable card (a 1x1 tracking pixel, a thin strip cut from a screenshot).
MIN_SIDE = 16

#: Files larger than this are refused before they are read: a 50 MP photo is far smaller
#: as a JPEG, PNG, WebP or HEIC, and reading /dev/zero or a 2 GB video must not fill the memory.
MAX_FILE_BYTES = 200 * 1024 * 1024

#: Image sources :func:`load_image` accepts.
ImageSource = Union[str, os.PathLike, bytes, bytearray, memoryview, np.ndarray, BinaryIO]

EXIF_ORIENTATION_TAG = 0x0112

#: ISO BMFF ``ftyp`` brands of HEIF images coded with HEVC (HEIC), as the major brand or a
#: compatible one: iPhones write ``heic`` (``mif1`` compatible), some Android phones
#: ``mif1`` with ``heic`` compatible; ``heix`` is 10-bit, ``heim``/``heis`` layered.
HEIC_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx"})

# Magic numbers of files people upload by mistake, to name what was sent instead.
_OTHER_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"BM", "a BMP image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!", "a RAR archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"MZ", "a Windows executable"),
    (b"\x00\x00\x00\x0cjP  ", "a JPEG 2000 image"),
    (b"\xff\x0a", "a JPEG XL image"),
    (b"8BPS", "a Photoshop document"),
)


class InvalidImageError(ValueError):
    """The input is not a photo this program can read; the message says why."""


class ImageNotFoundError(InvalidImageError):
    """The path names no file."""


class EmptyImageError(InvalidImageError):
    """The file or buffer holds zero bytes, or the array has no pixels."""


class NotAnImageError(InvalidImageError):
    """The bytes are not a JPEG, PNG, WebP or HEIC image."""


class TruncatedImageError(InvalidImageError):
    """The image data ends early (an interrupted upload or copy)."""


class TooManyPixelsError(InvalidImageError):
    """The image is larger than :data:`MAX_PIXELS`."""


class TooFewPixelsError(InvalidImageError):
    """The image's shorter side is under :data:`MIN_SIDE` pixels."""


class FileTooLargeError(InvalidImageError):
    """The file is larger than :data:`MAX_FILE_BYTES`."""


class UnsupportedArrayError(InvalidImageError):
    """A numpy array that is not an 8-bit grey, BGR or BGRA image."""


class UnsupportedSourceError(InvalidImageError, TypeError):
    """Not a kind of photo source :func:`load_image` takes (None, a number, a list)."""


@dataclass(frozen=True)
class LoadedImage:
    """A decoded photo.

    Attributes:
        image: BGR uint8 pixels, EXIF orientation applied, possibly decoded reduced.
        width: Width of the full photo after rotation, in pixels.
        height: Height of the full photo after rotation, in pixels.
        scale: ``image`` pixels per full-photo pixel (< 1 when decoded reduced); divide
            coordinates measured on ``image`` by it to get full-photo pixels.
        format: "JPEG", "PNG", "WEBP", "HEIF" or "ARRAY".
        orientation: The EXIF orientation that was applied (1 = none; always 1 for a
            HEIF, which libheif turns upright by its own boxes).
        data: The encoded file, kept when it was decoded reduced, so that
            :func:`decode_finer` can decode it again with more pixels.
    """

    image: np.ndarray
    width: int
    height: int
    scale: float = 1.0
    format: str = "ARRAY"
    orientation: int = 1
    data: bytes | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        # One built by hand (the detector takes one) is refused as a bad photo would be,
        # not left to fail deep inside OpenCV or ONNX Runtime.
        image = self.image
        if not (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
                and image.shape[2] == 3 and image.shape[0] >= 1 and image.shape[1] >= 1):
            what = (f"a {image.dtype} array of shape {image.shape}" if isinstance(image, np.ndarray)
                    else type(image).__name__)
            raise InvalidImageError(f"a LoadedImage holds BGR uint8 pixels (height x width x 3), not {what}")
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool)
                      for v in (self.width, self.height, self.scale))
        if not (numbers and self.width >= 1 and self.height >= 1 and math.isfinite(self.scale) and self.scale > 0):
            raise InvalidImageError(f"a LoadedImage needs a size of at least 1x1 and a positive scale, not "
                                    f"{self.width}x{self.height} at scale {self.scale}")


def load_image(src: ImageSource, max_side: int | None = None) -> LoadedImage:
    """Load a photo from a path, bytes, a binary file object or a numpy array.

    Args:
        src: A path, the encoded bytes (JPEG, PNG, WebP or HEIC), a readable binary file
            object, or a uint8 array (HxW grey, HxWx3 BGR or HxWx4 BGRA).
        max_side: When given, the decoder may shrink a JPEG by 2, 4 or 8 as long as the
            decoded long side stays >= ``max_side``, and a photo of another format (or an
            array) is shrunk after decoding to :data:`UNREDUCED_KEEP_SIDE` (or ``max_side``,
            if more).
            ``None`` decodes at full size.

    Returns:
        The decoded photo with its full size and scale.

    Raises:
        InvalidImageError: (a subclass naming the cause) for a missing or empty file,
            bytes that are not a supported image, truncated data, more than
            :data:`MAX_PIXELS` pixels, or an unsupported array.
    """
    if isinstance(src, np.ndarray):
        loaded = _from_array(src)
        # Kept smaller as a PNG of that size is: a 49 MP array read whole took 17 s, the PNG 3 s.
        image = loaded.image if max_side is None else _kept_smaller(loaded.image, max_side)
        return loaded if image is loaded.image else replace(loaded, image=image, scale=image.shape[1] / loaded.width)
    if isinstance(src, (str, os.PathLike)):
        if not os.fspath(src):
            raise ImageNotFoundError("the photo's path is empty: name an image file")
        data, name = _read_file(Path(src)), _quoted(os.fspath(src))
    elif isinstance(src, (bytes, bytearray, memoryview)):
        name = "the image data"
        _check_length(memoryview(src).nbytes, name)  # before bytes() copies it
        data = bytes(src)
    elif hasattr(src, "read"):
        name = "the uploaded file"
        # One byte past the limit tells a file over it; /dev/zero must not fill the memory.
        data = src.read(MAX_FILE_BYTES + 1)
        if not isinstance(data, (bytes, bytearray)):
            raise InvalidImageError(f"expected a binary file object, got one returning {type(data).__name__}")
        _check_length(len(data), name)
        data = bytes(data)
    else:
        raise UnsupportedSourceError(
            f"expected a path, bytes, a binary file object or a numpy array, got {type(src).__name__}"
        )
    return _from_bytes(data, name, max_side)


def read_image_file(path: Path | str, flags: int = cv2.IMREAD_COLOR, *, what: str = "image") -> np.ndarray:
    """``cv2.imread`` for the tools (datasets, training crops, the evaluation's conditions):
    the image, or an error naming the file where OpenCV would return None and leave a
    puzzling failure for later. Photos a player sends go through :func:`load_image`.

    Raises:
        InvalidImageError: the file is missing, unreadable or not an image OpenCV decodes;
            the message names it as ``what``.
    """
    image = cv2.imread(str(path), flags)
    if image is None:
        problem = "no such file" if not Path(path).exists() else "OpenCV cannot decode it"
        raise InvalidImageError(f"cannot read the {what} '{path}': {problem}")
    return image


def _quoted(path: str | bytes) -> str:
    """``path`` quoted for a message, its middle cut when it is long: a photo's bytes
    passed as a path string would otherwise fill the error with a whole JPEG."""
    text = os.fsdecode(path)
    if len(text) > _LONGEST_QUOTED:
        half = _LONGEST_QUOTED // 2
        text = f"{text[:half]}...{text[-half:]} ({len(text)} characters)"
    return f"'{text}'" if text.isprintable() else repr(text)  # a NUL or a newline shown escaped


#: Longest path quoted whole in a message.
_LONGEST_QUOTED = 200


def _check_length(length: int, name: str) -> None:
    if length > MAX_FILE_BYTES:
        raise FileTooLargeError(f"{name} is over {MAX_FILE_BYTES / 2**20:.0f} MiB; "
                                f"a photo file is at most {MAX_FILE_BYTES / 2**20:.0f} MiB")


def _read_file(path: Path) -> bytes:
    quoted = _quoted(os.fspath(path))
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ImageNotFoundError(f"no such file: {quoted}") from None
    except ValueError as error:   # a NUL byte in the path
        raise ImageNotFoundError(f"{quoted} is not a usable path: {error}") from None
    except OSError as error:
        raise InvalidImageError(f"cannot read {quoted}: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ImageNotFoundError(f"{quoted} is a directory, not an image file")
    if not stat.S_ISREG(info.st_mode):
        # A pipe or a device would block or never end.
        raise InvalidImageError(f"{quoted} is not a regular file (a pipe, socket or device)")
    if info.st_size > MAX_FILE_BYTES:
        raise FileTooLargeError(f"{quoted} is {info.st_size / 2**20:.0f} MiB; "
                                f"a photo file is at most {MAX_FILE_BYTES / 2**20:.0f} MiB")
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise InvalidImageError(f"cannot read {quoted}: {error.strerror or error}") from None


def _from_bytes(data: bytes, name: str, max_side: int | None) -> LoadedImage:
    if not data:
        raise EmptyImageError(f"{name} is empty (zero bytes)")
    fmt = _sniff_format(data, name)
    if fmt == "HEIF":
        return _from_heif(data, name, max_side)
    _check_complete(data, fmt, name)
    width, height, orientation = _read_header(data, fmt, name)
    _check_size(width, height, name)

    factor = 1
    if max_side is not None and fmt == "JPEG":
        # Only JPEG decodes faster reduced; other formats are decoded whole anyway.
        while factor < 8 and -(-max(width, height) // (factor * 2)) >= max_side:
            factor *= 2
    flags = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2,
             4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}[factor]
    image = cv2.imdecode(np.frombuffer(data, np.uint8), flags | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None or image.size == 0:
        raise InvalidImageError(f"{name} is a damaged {fmt} file: it could not be decoded")
    if max_side is not None and fmt != "JPEG":
        image = _kept_smaller(image, max_side)
    image = _apply_orientation(image, orientation)
    full_w, full_h = (height, width) if orientation in (5, 6, 7, 8) else (width, height)
    scale = image.shape[1] / full_w
    return LoadedImage(image, full_w, full_h, scale, fmt, orientation, data if factor > 1 else None)


def _kept_smaller(image: np.ndarray, max_side: int) -> np.ndarray:
    """``image`` (decoded whole: its format has no reduced decode) shrunk to a long side of
    :data:`UNREDUCED_KEEP_SIDE` (or ``max_side``, if more) where it is larger."""
    return fit_long_side(image, max(UNREDUCED_KEEP_SIDE, max_side))


def fit_long_side(image: np.ndarray, long_side: int) -> np.ndarray:
    """``image`` shrunk (area-averaged) to a long side of ``long_side`` pixels where it is
    longer; as it is otherwise."""
    longest = max(image.shape[:2])
    if longest <= long_side:
        return image
    scale = long_side / longest
    size = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def decode_finer(loaded: LoadedImage, scale: float) -> LoadedImage:
    """The same photo with at least ``scale`` pixels per full-photo pixel (at most full size),
    where its bytes allow.

    A JPEG decoded reduced is decoded again from its kept bytes at the smallest reduction
    that gives ``scale``; one already that fine (or decoded whole, or given as an array) is
    returned as it is, and so is a photo of another format kept smaller after decoding
    (:data:`UNREDUCED_KEEP_SIDE`), with no finer pixels to give: a caller reads its
    ``scale``. (Read so, edje photos framed in 7200x5400 PNGs kept their rank recall.)
    """
    if loaded.data is None or loaded.scale >= min(scale, 1.0):
        return loaded
    max_side = math.ceil(max(loaded.width, loaded.height) * min(scale, 1.0))
    return _from_bytes(loaded.data, "the photo", max_side)


#: How a JPEG, PNG and WebP file begins: a few bytes of one are an upload cut short.
_IMAGE_STARTS = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"RIFF")

# Pillow's format names of the types metadata.sniff_mime tells apart.
_FORMAT_OF_MIME = {"image/jpeg": "JPEG", "image/png": "PNG", "image/webp": "WEBP"}


def _sniff_format(data: bytes, name: str) -> str:
    if fmt := _FORMAT_OF_MIME.get(sniff_mime(data)):
        return fmt
    if _ftyp_brands(data) & HEIC_BRANDS:
        return "HEIF"
    if any(len(data) < len(magic) and magic.startswith(data) for magic in _IMAGE_STARTS):
        raise TruncatedImageError(f"{name} is the start of an image file cut off after {len(data)} bytes")
    raise NotAnImageError(f"{name} is not a JPEG, PNG, WebP or HEIC image: it looks like {_describe(data)}")


def _ftyp_brands(data: bytes) -> frozenset[bytes]:
    """The major and compatible brands of an ISO BMFF file's leading ``ftyp`` box (HEIF,
    AVIF, MP4, QuickTime), or none."""
    if data[4:8] != b"ftyp":
        return frozenset()
    size = min(int.from_bytes(data[:4], "big"), 4096)
    box = data[8:max(size, 16)]
    # The major brand, then after a 4-byte minor version the compatible brands.
    return frozenset([box[:4]] + [box[i:i + 4] for i in range(8, len(box) - 3, 4)])


def _describe(data: bytes) -> str:
    """Name what a buffer that is not a supported image probably is."""
    head = data[:32]
    for magic, what in _OTHER_SIGNATURES:
        if head.startswith(magic):
            return what
    brands = _ftyp_brands(data)
    if brands:
        if brands & {b"avif", b"avis"}:
            return "an AVIF image (export it as JPEG)"
        if brands & {b"mif1", b"msf1"}:
            return "a HEIF image coded without HEVC (export it as JPEG)"
        return "an MP4/QuickTime video"
    stripped = head.lstrip()
    if stripped[:1] in (b"<",) and b"html" in head.lower():
        return "an HTML page"
    if stripped[:1] in (b"{", b"["):
        return "JSON text"
    if stripped[:5] == b"<?xml" or stripped[:4] == b"<svg":
        return "XML/SVG text"
    for cut in range(4):  # the 32-byte window may split a multi-byte character
        try:
            text = head[: len(head) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text and all(c.isprintable() or c.isspace() for c in text):
            return f"text starting {text[:20]!r}"
        break
    return f"unknown binary data starting {head[:8].hex(' ')}"


def _read_header(data: bytes, fmt: str, name: str) -> tuple[int, int, int]:
    """Return (width, height, EXIF orientation) from the header, decoding no pixels."""
    # The plugin classes are used directly: Image.open() would run Pillow's own
    # decompression-bomb check, which raises or warns before we can say our limit.
    plugins: dict[str, Callable[[BinaryIO], ImageFile.ImageFile]] = {
        "JPEG": JpegImagePlugin.JpegImageFile, "PNG": PngImagePlugin.PngImageFile,
        "WEBP": WebPImagePlugin.WebPImageFile}
    plugin = plugins[fmt]
    try:
        with plugin(io.BytesIO(data)) as header:
            width, height = header.size
            exif_bytes = header.info.get("exif")
    except Image.DecompressionBombError:
        # The WebP plugin runs Pillow's bomb check while it opens (over ~179 MP, far over
        # MAX_PIXELS): the size read from the bitstream gets the refusal any large photo gets.
        size = _webp_size(data)
        if size is None:
            raise TooManyPixelsError(f"{name} declares more pixels than can be opened safely; the limit is "
                                     f"{MAX_PIXELS / 1e6:.0f} MP: send a smaller copy") from None
        width, height, exif_bytes = *size, None
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        if len(data) < 64:
            raise TruncatedImageError(f"{name} is a truncated {fmt} file ({len(data)} bytes)") from None
        raise InvalidImageError(f"{name} has a damaged {fmt} header: {error}") from None
    if width <= 0 or height <= 0:
        raise InvalidImageError(f"{name} has an invalid size {width}x{height}")
    orientation = 1
    if exif_bytes:
        try:
            exif = Image.Exif()
            exif.load(exif_bytes)
            orientation = int(exif.get(EXIF_ORIENTATION_TAG, 1))
        except Exception:  # noqa: BLE001 - a broken EXIF block must not refuse the photo
            orientation = 1
        if orientation not in range(1, 9):
            orientation = 1
    return width, height, orientation


def _from_heif(data: bytes, name: str, max_side: int | None = None) -> LoadedImage:
    """Decode a HEIC's primary image, upright, as BGR (libheif reads its size without
    decoding, so a huge one is refused before any pixel is allocated)."""
    pi_heif = _pi_heif(name)
    try:
        heif = pi_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True, bgr_mode=True)
        width, height = heif.size
    except _HEIF_ERRORS as error:
        raise _heif_error(error, data, name, "header") from None
    _check_size(width, height, name)
    try:
        pixels = np.asarray(heif)
    except _HEIF_ERRORS as error:
        raise _heif_error(error, data, name, "image") from None
    if max_side is not None:
        pixels = _kept_smaller(pixels, max_side)   # from libheif's buffer: no whole copy first
    if pixels.ndim == 2:
        image = cv2.cvtColor(pixels, cv2.COLOR_GRAY2BGR)
    elif pixels.shape[2] == 4:
        image = cv2.cvtColor(pixels, cv2.COLOR_BGRA2BGR)
    else:
        image = np.array(pixels, order="C", copy=True)   # pixels of its own, not libheif's buffer
    return LoadedImage(image, width, height, image.shape[1] / width, "HEIF", 1)


# What pi-heif raises for a broken file (found by fuzzing): ValueError for libheif's
# invalid input, SyntaxError for an unsupported feature, IndexError for a file with no
# image in it.
_HEIF_ERRORS = (ValueError, SyntaxError, IndexError, KeyError, OSError, RuntimeError, EOFError)


def _pi_heif(name: str) -> ModuleType:
    try:
        return importlib.import_module("pi_heif")
    except ImportError:
        raise NotAnImageError(
            f"{name} is a HEIC photo, and the HEIC decoder (pi-heif) is not installed: "
            "pip install pi-heif, or send the photo as JPEG"
        ) from None


def _heif_error(error: Exception, data: bytes, name: str, part: str) -> InvalidImageError:
    """libheif's complaint as this module's errors: a file cut short is truncated."""
    said = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if any(sign in said.lower() for sign in ("end of file", "too small", "no 'meta' box")):
        return TruncatedImageError(
            f"{name} is a truncated HEIC file ({len(data)} bytes): the data ends before the image does")
    if isinstance(error, IndexError):
        return InvalidImageError(f"{name} is a HEIC file with no image in it")
    return InvalidImageError(f"{name} has a damaged HEIC {part}: {said}")


def _check_complete(data: bytes, fmt: str, name: str) -> None:
    """Refuse data that ends early: decoders would return a half-grey image silently."""
    truncated = False
    if fmt == "JPEG":
        truncated = not _jpeg_has_end(data)
    elif fmt == "PNG":
        truncated = data.rfind(b"IEND") < 0
    elif fmt == "WEBP":
        truncated = len(data) < int.from_bytes(data[4:8], "little") + 8
    if truncated:
        raise TruncatedImageError(
            f"{name} is a truncated {fmt} file ({len(data)} bytes): the data ends before the image does"
        )


def _jpeg_has_end(data: bytes) -> bool:
    """True when an end-of-image marker follows the first scan.

    Markers are walked up to the first start-of-scan, so an EXIF thumbnail's own
    end marker does not count; inside scan data 0xFF is always stuffed, so the next
    0xFFD9 is the real end. Data after it (motion photos append a video) is fine.
    """
    pos, size = 2, len(data)
    while pos + 4 <= size:
        if data[pos] != 0xFF:
            return False
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0x00:  # a stuffed zero outside a scan: stray bytes, which libjpeg skips
            pos += 2
            continue
        if marker == 0xDA:  # start of scan
            return data.find(b"\xff\xd9", pos) >= 0
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            pos += 2
            continue
        pos += 2 + int.from_bytes(data[pos + 2:pos + 4], "big")
    return False


def _apply_orientation(image: np.ndarray, orientation: int) -> np.ndarray:
    """Turn decoded pixels the way EXIF orientation 1-8 says (same as Pillow's exif_transpose)."""
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:
        return cv2.transpose(image)
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.rotate(cv2.transpose(image), cv2.ROTATE_180)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """A WebP's canvas size from its first chunk (VP8X, lossless VP8L or lossy VP8), or None."""
    chunk, body = data[12:16], data[20:30]
    if chunk == b"VP8X" and len(body) >= 10:
        return 1 + int.from_bytes(body[4:7], "little"), 1 + int.from_bytes(body[7:10], "little")
    if chunk == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:
        bits = int.from_bytes(body[1:5], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":
        return int.from_bytes(body[6:8], "little") & 0x3FFF, int.from_bytes(body[8:10], "little") & 0x3FFF
    return None


def _megapixels(pixels: int) -> str:
    # One decimal where a whole number would read "50 MP; the limit is 50 MP".
    whole = f"{pixels / 1e6:.0f}"
    return whole if whole != f"{MAX_PIXELS / 1e6:.0f}" else f"{pixels / 1e6:.1f}"


def _check_size(width: int, height: int, name: str) -> None:
    """Refuse an image too large to decode safely or too small to hold a card."""
    if width * height > MAX_PIXELS:
        raise TooManyPixelsError(
            f"{name} is {width}x{height} = {_megapixels(width * height)} MP; "
            f"the limit is {MAX_PIXELS / 1e6:.0f} MP: take the photo in the camera's standard mode, "
            "or send a smaller copy"
        )
    if min(width, height) < MIN_SIDE:
        raise TooFewPixelsError(
            f"{name} is {width}x{height} pixels: too small to hold a card "
            f"(each side needs at least {MIN_SIDE} pixels)"
        )


def _from_array(array: np.ndarray) -> LoadedImage:
    if array.dtype != np.uint8:
        raise UnsupportedArrayError(
            f"expected a uint8 image array, got dtype {array.dtype} (shape {array.shape})"
        )
    if array.ndim in (2, 3) and 0 in array.shape[:2]:
        raise EmptyImageError(f"the image array has no pixels (shape {array.shape})")
    if array.ndim in (2, 3) and array.shape[0] * array.shape[1] > MAX_PIXELS:
        # Before the copy or conversion below: a 400 MP array must cost nothing to refuse.
        _check_size(array.shape[1], array.shape[0], "the image array")
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim == 2:
        image = cv2.cvtColor(array, cv2.COLOR_GRAY2BGR)
    elif array.ndim == 3 and array.shape[2] == 3:
        image = np.ascontiguousarray(array)
    elif array.ndim == 3 and array.shape[2] == 4:
        image = cv2.cvtColor(array, cv2.COLOR_BGRA2BGR)
    else:
        raise UnsupportedArrayError(
            f"expected an HxW, HxWx3 (BGR) or HxWx4 (BGRA) array, got shape {array.shape}"
        )
    height, width = image.shape[:2]  # not 0: an array without pixels was refused above
    _check_size(width, height, "the image array")
    return LoadedImage(image, width, height, 1.0, "ARRAY", 1)


#: A photo whose colour (max - min of its B, G, R) stays at or under this on all but
#: 0.1 % of its pixels has no colour to read suits by: a black-and-white photo, a grey
#: scan, a mono filter. JPEG's rounding leaves a few levels on a grey photo; the least
#: colourful of the 363 real photos reaches 34 (``models/HISTORY.md``), and none of them
#: is judged colourless (``tests/test_imageio.py``).
COLOURLESS_MAX_CHROMA = 12

#: Pixels looked at to judge a whole photo's colour or light: a grid about this many on
#: its short side (under 1 ms where a full pass would take several).
SAMPLE_SHORT_SIDE = 192


def sample_grid(image: np.ndarray, short_side: int = SAMPLE_SHORT_SIDE) -> np.ndarray:
    """Every n-th pixel of every n-th row, n chosen so the short side keeps about ``short_side``."""
    height, width = image.shape[:2]
    step = max(1, min(height, width) // short_side)
    return np.ascontiguousarray(image[::step, ::step])


def is_colourless(image_bgr: np.ndarray) -> bool:
    """True when the photo carries no colour, so red and black suits look alike in it.

    Args:
        image_bgr: The decoded photo, HxWx3 BGR.
    """
    blue, green, red = cv2.split(sample_grid(image_bgr))
    chroma = cv2.subtract(cv2.max(cv2.max(blue, green), red), cv2.min(cv2.min(blue, green), red))
    # "All but 0.1 %": noise and a stray coloured pixel are not colour to read suits by.
    return bool(np.count_nonzero(chroma > COLOURLESS_MAX_CHROMA) <= 0.001 * chroma.size)
