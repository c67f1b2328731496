"""Look at the site as a reader does: build it, serve it on loopback, and take screenshots of
the pages a newcomer opens first (the quick start, a metric page, an API page) in headless
Chromium (Debian's ``chromium`` package), at a desktop and a phone width.

    python3 docs/screenshots.py [--out build/screenshots] [--site DIR] [--pages PATH ...]

The PNGs go to ``--out`` (under build/, which git ignores: screenshots are looked at, not
committed). ``--site DIR`` serves an already built site instead of building one.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = ("quickstart/", "metrics/bleu/", "api/scoring-and-results/")
# The first screen a reader sees, on a desktop and a phone, and the whole of a long page.
WIDTHS = {"desktop": (1280, 1600), "phone": (412, 1600), "desktop-long": (1280, 6000)}


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("docs/screenshots.py: no Chromium found (apt-get install chromium)")


def build_site(out: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=REPO, env=env,
                   check=True)


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """The site on a free loopback port, in a thread (quiet: no request log)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def screenshot(browser: str, url: str, png: Path, size: tuple[int, int]) -> None:
    with tempfile.TemporaryDirectory(prefix="fastamfm-chromium-") as profile:
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
                        f"--screenshot={png}", url], check=True, capture_output=True, timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "build" / "screenshots")
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    parser.add_argument("--pages", nargs="+", default=list(PAGES), help="paths under the site root")
    args = parser.parse_args()
    browser = chromium()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fastamfm-site-") as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            build_site(site)
        server, root = serve(site)
        try:
            for page in args.pages:
                for label, size in WIDTHS.items():
                    png = args.out / f"{page.strip('/').replace('/', '_') or 'index'}-{label}.png"
                    screenshot(browser, root + page, png, size)
                    print(png)
        finally:
            server.shutdown()


if __name__ == "__main__":
    main()
