"""Phones at the table: the address a phone opens the score sheet at, as a link and a QR code.

Typing ``http://192.168.1.23:5000/`` into each phone is where a family's first evening
stalls. A phone's camera reads a QR code off the laptop's screen, or off another phone that
has the sheet open, and opens the page. The addresses are this machine's own: nothing is
asked of the network to find them.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from dataclasses import dataclass

from flask import current_app, request
from markupsafe import Markup

from .guard import host_name

#: ``app.config`` key: the (host, port) ``onze-vision serve`` listens on. Absent where the app
#: is served some other way (a test client, another WSGI server): then the laptop's own view
#: says nothing of phones, as it cannot know what they can reach.
LISTEN = "LISTEN"

#: Hosts that mean "every address of this machine": phones reach it at its network addresses.
ALL_ADDRESSES = ("0.0.0.0", "::", "")

#: Seconds this machine's addresses are kept before they are looked up again (a laptop that
#: joins another Wi-Fi gets another address; a page drawn for every phone need not ask each time).
ADDRESSES_KEPT_SECONDS = 30.0

_kept: tuple[float, list[str]] | None = None
_kept_lock = threading.Lock()


def network_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, the ones a phone on the same
    network can reach, each once, the one its packets out leave by first (the home Wi-Fi's,
    not a VPN's or a container bridge's its name may also resolve to); empty when it has none."""
    return list(dict.fromkeys(address for address in _candidate_addresses() if not address.startswith(("127.", "0."))))


def _candidate_addresses() -> list[str]:
    """The address of the interface a packet out would leave by (a UDP socket's connect
    picks it and sends nothing), and those the host name resolves to."""
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
            found.append(probe.getsockname()[0])
        except OSError:
            pass
    try:
        found += socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        pass
    return found


def _addresses_now() -> list[str]:
    """:func:`network_addresses`, looked up at most every :data:`ADDRESSES_KEPT_SECONDS` while
    there are some (none found is looked up again next time: the page asks for a reload once
    the computer has joined the Wi-Fi)."""
    global _kept
    with _kept_lock:
        if _kept is not None and time.monotonic() - _kept[0] <= ADDRESSES_KEPT_SECONDS:
            return list(_kept[1])
    found = network_addresses()   # outside the lock: a slow name lookup holds no other page
    with _kept_lock:
        _kept = (time.monotonic(), found) if found else None
    return found


def is_loopback(host: str) -> bool:
    """True for an address only this computer reaches (127.x, ::1, localhost); ``host`` as
    given to ``--host`` or as a Host header names it, without its port."""
    name = host.strip().lower().strip("[]").rstrip(".")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class PhoneWay:
    """How a phone at the table opens a page of the sheet.

    Attributes:
        urls: the addresses it opens the page at, the first drawn as a QR code; empty
            where there is none (see the flags).
        from_phone: the page is seen over the network already (on a phone, or a laptop
            that opened it by its network address): another phone opens it the same way.
        this_computer_only: the sheet listens on this computer only (``serve`` without
            ``--host 0.0.0.0``): no phone can reach it until it is started again.
    """

    urls: tuple[str, ...]
    from_phone: bool = False
    this_computer_only: bool = False


def phone_way(path: str) -> PhoneWay | None:
    """How a phone opens ``path`` (a path of this sheet, e.g. ``/games/7``) on this sheet,
    for the page being drawn; None where it cannot be known (not served by ``serve``)."""
    if not is_loopback(host_name(request.host)):
        return PhoneWay((request.host_url.rstrip("/") + path,), from_phone=True)
    listening = current_app.config.get(LISTEN)
    if listening is None:
        return None
    host, port = listening
    if host not in ALL_ADDRESSES:
        # Loopback (the default): phones cannot reach it. A named address is reached
        # by that address, so the page seen here by loopback names it.
        if is_loopback(host):
            return PhoneWay((), this_computer_only=True)
        shown = f"[{host}]" if ":" in host else host
        return PhoneWay((f"http://{shown}:{port}{path}",))
    return PhoneWay(tuple(f"http://{address}:{port}{path}" for address in _addresses_now()))


def qr_svg(url: str) -> Markup:
    """``url`` as a QR code, an inline SVG (black on white whatever the page's colours, as a
    camera reads it best), hidden from screen readers: the page writes the address beside it."""
    import segno   # only where a page shows one

    svg = segno.make(url, error="m").svg_inline(scale=1, border=4, dark="#000", light="#fff",
                                                 omitsize=True, svgclass="qr", lineclass=None)
    return Markup(svg.replace("<svg ", '<svg aria-hidden="true" focusable="false" ', 1))
