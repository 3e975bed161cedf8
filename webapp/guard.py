"""What the sheet refuses before any view runs: requests that another web site sends.

The sheet has no login: whoever is on the family's Wi-Fi may keep the score. So what
must be kept out is not a person but a web page that someone at the table opens, which
can make their browser send requests to the sheet's address:

* **DNS rebinding.** A page on ``attacker.example`` re-points that name at the sheet's
  address and becomes, to the browser, the same site as the sheet, token and all. It
  still sends ``Host: attacker.example``; the sheet answers only to the names it is
  reached by (an IP address, ``localhost``, this machine's own name).
* **Cross-site requests.** A page may send a plain form post or load an image from the
  sheet's address. The CSRF token covers every change; the calls that change nothing
  but compute (and so take no token) and the whole-book download are refused when the
  browser says (``Origin``, ``Sec-Fetch-Site``) that another site's page sent them.
  A link followed from elsewhere (a navigation) is still welcome.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from collections.abc import Set as AbstractSet

from flask import Flask, abort, current_app, request

#: Suffixes a home router or the machine itself gives its name (``laptop.local``...).
LOCAL_SUFFIXES = ("", ".local", ".lan", ".home", ".home.arpa", ".localdomain", ".internal", ".fritz.box")


@functools.lru_cache(maxsize=1)
def machine_names() -> frozenset[str]:
    """This machine's own names, lower case, each with the local suffixes.

    Asked once per process: ``getfqdn`` may wait on a DNS lookup, and every app made
    (each test makes one) would wait again.
    """
    names = {"localhost"}
    for name in (socket.gethostname(), socket.getfqdn()):
        short = name.lower().rstrip(".").split(".")[0]
        if short:
            names.update(short + suffix for suffix in LOCAL_SUFFIXES)
            names.add(name.lower().rstrip("."))
    return frozenset(names)


def _host_name(host: str) -> str:
    """The name or address in a Host header, without the port or IPv6 brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]")[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_allowed_host(host: str, names: AbstractSet[str]) -> bool:
    """True for an IP address (no name to re-point), or one of ``names``."""
    name = _host_name(host)
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name.rstrip(".") in names


def _guard() -> None:
    names = current_app.config["ALLOWED_HOSTS"]
    if names is not None and not is_allowed_host(request.host, names):
        abort(400, f"This score sheet answers to an IP address or this machine's own names; {request.host!r} is "
                   "not one of them. Open it by its address (e.g. http://192.168.1.20:5000) or by this machine's name "
                   "(whoever started it can add a name: onze-vision serve --allow-host NAME).")
    site = request.headers.get("Sec-Fetch-Site", "")
    origin = request.headers.get("Origin")
    # "null" is foreign too: a sandboxed frame on another site posts with Origin: null.
    from_elsewhere = site == "cross-site" or (
        origin is not None and origin.split("://", 1)[-1].lower() != request.host.lower())
    # A navigation (a link, a bookmark) may come from anywhere; what a page sends behind it may not.
    followed_link = request.method in ("GET", "HEAD") and request.headers.get("Sec-Fetch-Mode", "navigate") == "navigate"
    if from_elsewhere and not followed_link:
        abort(403, "A request sent by another web site's page is refused: open the score sheet itself.")


def init_app(app: Flask) -> None:
    """Refuse other sites' requests before anything else (and before the CSRF check)."""
    app.config.setdefault("ALLOWED_HOSTS", machine_names())
    app.before_request(_guard)
