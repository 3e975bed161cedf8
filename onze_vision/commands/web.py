"""``onze-vision serve``: run the score sheet web app on this machine.

Flask's built-in threaded server is enough for a table-side tool (a handful of
phones on the home Wi-Fi); there is no account and no internet access needed.
"""

from __future__ import annotations

import argparse
import os
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="run the score sheet web app",
        description="Run the score sheet web app (games, photo scoring, go-down checks).",
        epilog="examples:\n"
               "  onze-vision serve                                   # http://127.0.0.1:5000\n"
               "  onze-vision serve --host 0.0.0.0 --port 8000        # phones on the home Wi-Fi",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (0.0.0.0 lets phones on the same network in; default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument("--database", metavar="PATH", default=None,
                        help="SQLite file (default: $ONZE_DATABASE, else instance/onze.sqlite); created if missing")
    parser.add_argument("--debug", action="store_true", help="Flask debug mode (never on a shared network)")
    parser.set_defaults(handler=serve)


def serve(args: argparse.Namespace) -> int:
    """Create the database if needed and serve until interrupted."""
    from webapp import create_app
    from webapp.db import ensure_schema

    config: dict[str, Any] = {}
    if args.database:
        config["DATABASE"] = os.path.abspath(args.database)
    app = create_app(None)
    app.config.update(config)
    ensure_schema(app.config["DATABASE"])
    print(f"Onze Vision score sheet on http://{args.host}:{args.port}/ (database {app.config['DATABASE']})",
          flush=True)
    app.run(host=args.host, port=args.port, threaded=True, debug=args.debug, use_reloader=False)
    return 0
