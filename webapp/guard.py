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
  A link followed from elsewhere (a navigation) is still welcome, but for the book's
  downloads; no page is shown in another site's frame.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from collections.abc import Set as AbstractSet

from flask import Flask, Response, abort, current_app, request

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


def host_name(host: str) -> str:
    """The name or address in a Host header, without the port or IPv6 brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]")[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_allowed_host(host: str, names: AbstractSet[str]) -> bool:
    """True for an IP address (no name to re-point), or one of ``names``."""
    name = host_name(host)
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name.rstrip(".") in names


#: The views that send the whole book (every game and photo).
BOOK_DOWNLOADS = frozenset({"history.export_book", "history.export_rescued"})


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
    # A navigation (a link, a bookmark) may come from anywhere; what a page sends behind it may
    # not, nor a page it loads into a frame of its own (Sec-Fetch-Dest "iframe": the sheet
    # would work inside another site's page, and a frame may start a download of the book).
    followed_link = (request.method in ("GET", "HEAD")
                     and request.headers.get("Sec-Fetch-Mode", "navigate") == "navigate"
                     and request.headers.get("Sec-Fetch-Dest", "document") == "document")
    if from_elsewhere and not followed_link:
        abort(403, "A request sent by another web site's page is refused: open the score sheet itself.")
    # The whole book is never sent for another site, not even behind a link from it.
    if from_elsewhere and request.endpoint in BOOK_DOWNLOADS:
        abort(403, "The whole book is downloaded from the score sheet's own History page, not from a link on "
                   "another site: open the score sheet and download it there.")



#: What a browser may do with the sheet's pages: no frame of another site (it could lead a
#: tap to "End game" unseen), scripts only the app's own files (it has no inline script, so
#: a name or note that slipped past the escaping could not run), no plugins, no base
#: address or form target another page set.
CONTENT_SECURITY_POLICY = ("frame-ancestors 'none'; script-src 'self'; object-src 'none'; base-uri 'none'; "
                           "form-action 'self'")


def _browser_policy(response: Response) -> Response:
    """No page of the sheet is shown inside another site's page, said to browsers old and
    new, with the rest of :data:`CONTENT_SECURITY_POLICY`; no response is taken for another
    type than it says; no address of the sheet (a game's number) goes to another site."""
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def init_app(app: Flask) -> None:
    """Refuse other sites' requests before anything else (and before the CSRF check), and
    keep the sheet out of their frames."""
    app.config.setdefault("ALLOWED_HOSTS", machine_names())
    app.before_request(_guard)
    app.after_request(_browser_policy)
