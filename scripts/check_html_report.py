"""Open a simcli HTML report in headless Chromium and check that it renders, that every
image loads, and that nothing is fetched from the network.

    python scripts/check_html_report.py runs/study-.../report.html [--chromium PATH]

The page is opened from a temporary copy that adds a strict Content-Security-Policy (no
network at all: images only from data: URIs, inline styles) and a small script that
records every policy violation and, once the page has loaded, how many images decoded.
Chromium runs with every host name unresolvable, so a fetch could not succeed anyway.
Prints a JSON verdict; exit code 0 when the report passes, 1 when it does not, 2 when
no browser is available. Chromium comes from the system packages (Debian: `apt-get
install chromium`).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'")
PROBE = """<script>
window.simcliViolations = [];
document.addEventListener('securitypolicyviolation', e => window.simcliViolations.push(
  e.blockedURI + ' (' + e.violatedDirective + ')'));
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const bad = imgs.filter(i => !(i.complete && i.naturalWidth > 0))
    .map(i => i.alt || i.src.slice(0, 40));
  const out = document.createElement('pre');
  out.id = 'simcli-check';
  const widths = Array.from(document.querySelectorAll('table'))
    .map(t => Math.ceil(t.getBoundingClientRect().width));
  out.textContent = JSON.stringify({images: imgs.length, failed: bad,
    violations: window.simcliViolations, title: document.title,
    text: document.body.innerText.length, table_widths: widths,
    window_width: window.innerWidth});
  document.body.appendChild(out);
});
</script>"""
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=10000",
                  "--window-size=1280,900",
                  "--dump-dom"]


class _Refs(HTMLParser):
    """Every URL the page itself refers to (src, href) and every <link>/<script src>."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.refs.append((tag, name, value))


def static_problems(page: str) -> list[str]:
    """References that would make the browser fetch something: remote or local files as
    images, stylesheets or scripts (plain <a href> links to sibling reports are fine)."""
    parser = _Refs()
    parser.feed(page)
    problems = []
    for tag, name, value in parser.refs:
        if tag == "a" and name == "href" and not re.match(r"^[a-z]+://", value):
            continue  # a link to a sibling report, only followed if clicked
        if not value.startswith("data:"):
            problems.append(f"<{tag} {name}={value[:60]!r}>")
    return problems


def find_chromium(given: str | None) -> str | None:
    """The browser to use: --chromium, or chromium / chromium-browser / google-chrome."""
    if given:
        return given
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def check(report: Path, chromium: str) -> dict:
    """The verdict on one report: images, failed images, CSP violations, static refs."""
    page = report.read_text(encoding="utf-8")
    result = {"report": str(report), "static_problems": static_problems(page)}
    head = f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
    probed = page.replace("<head>", "<head>" + head, 1).replace("</body>", PROBE + "</body>", 1)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "report.html"
        copy.write_text(probed, encoding="utf-8")
        proc = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp}/profile",
                               copy.as_uri()], capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="simcli-check">(.*?)</pre>', proc.stdout, re.S)
    if not m:
        result["error"] = "the page did not finish loading in Chromium"
        result["ok"] = False
        return result
    seen = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    result.update(seen)
    result["ok"] = (not result["static_problems"] and not seen["failed"]
                    and not seen["violations"] and seen["images"] > 0 and seen["text"] > 0)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", type=Path)
    ap.add_argument("--chromium", help="path of the browser")
    args = ap.parse_args()
    browser = find_chromium(args.chromium)
    if browser is None:
        print(json.dumps({"error": "no Chromium found (apt-get install chromium)"}))
        return 2
    results = [check(r, browser) for r in args.reports]
    print(json.dumps(results, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
