"""The starter corpus of ``make bench-render``: application shells from each framework's
real starter output beside real server-rendered pages.

* ``starters/<name>.html``: the 16 pages of ``bench/render_starters`` (their SOURCE.md says
  which npm package and file each comes from and what its build step fills in): Create React
  App, Vue CLI, the Vite templates (React, Vue, Svelte, Preact, Solid, Lit, vanilla), Angular
  CLI (current and the 1.0 beta's ``Loading...``), Ember CLI, a SvelteKit SPA page, Next.js
  client-only pages and a Nuxt ``ssr: false`` page. Each needs the browser: that is what the
  starter is (its content is rendered by its bundle), not what the detector looks for.
* ``pages/<name>.html``: the 109 real pages of ``../shared/corpus/pages`` (news, shops,
  blogs, government sites, as their servers sent them): none needs the browser for its data.

An ``index.html`` links them all; :func:`generate` returns the pages that need the browser.
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["NEGATIVES", "STARTERS", "generate"]

STARTERS = Path(__file__).resolve().parent / "render_starters"
NEGATIVES = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "pages"


def generate(site: Path) -> set[str]:
    """Write the corpus under ``site``; the relative paths of the pages needing the browser."""
    if not NEGATIVES.is_dir():
        raise SystemExit(f"the starter corpus needs the shared pages at {NEGATIVES.resolve()}")
    (site / "starters").mkdir(parents=True, exist_ok=True)
    (site / "pages").mkdir(parents=True, exist_ok=True)
    needs = set()
    for page in sorted(STARTERS.glob("*.html")):
        shutil.copyfile(page, site / "starters" / page.name)
        needs.add(f"starters/{page.name}")
    plain = []
    for page in sorted(NEGATIVES.resolve().glob("*.html")):
        shutil.copyfile(page, site / "pages" / page.name)
        plain.append(f"pages/{page.name}")
    links = "".join(f'<li><a href="/{p}">{p}</a></li>' for p in sorted(needs) + plain)
    (site / "index.html").write_text(
        "<!doctype html><html><head><title>Starter corpus</title></head><body>"
        f"<h1>Starter corpus</h1><ul>{links}</ul></body></html>"
    )
    return needs
