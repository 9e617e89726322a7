"""Article bodies, authors and dates on hand-labelled real pages, and what the body costs.

    python -m bench.bench_articles [--cases fixtures/articles] [--rounds 3] [--jobs 2]

Each case is ``fixtures/articles/<case>/article.json``: the saved page it names (``page``, read
from ``../shared/corpus/pages`` beside the checkout, never copied into the repository: see
``bench/realpages.py``), its ``url`` and the ``expected`` article as a reader reads it on the
page (``articleBody``, ``authors``, ``datePublished``), written by hand.

1. Quality, as a user gets it: ``structcrawl extract FILE --base-url URL --view items --format
   json`` per page; the first item with an ``articleBody`` is the page's article. The body is
   scored by the article-extraction benchmarks' shingle measure
   (:mod:`structcrawl.articles._shingles`: word 4-grams, precision and recall per page; the
   headline F1 is the harmonic mean of the mean precision and the mean recall, as the
   benchmark computes it; ``mean_page_f1`` is the mean of the per-page F1s). ``authors_ok``: the
   share of pages whose authors are the expected ones (each expected name found in one
   predicted name, case-insensitively, and as many names); ``date_ok``: the share whose
   ``datePublished`` starts with the expected date (each over the cases that state one: an
   expectation of ``null`` means the page does not show it). A command that fails counts as an error.
2. Cost, in process: :func:`structcrawl.typed.page_items` on every case page with the body on
   and off (``article_body``), medians over ``--rounds``; ``body_ms`` is the median per-page
   difference, ``ms_per_page`` the median time with the body; the same over all the shared
   real pages (``shared_*``: shops and public sites too, where no body is read;
   ``shared_body_mean_ms`` the mean difference, what a crawl of such pages pays per page).

Ends with one line ``pages= errors= body_f1= body_precision= body_recall= mean_page_f1=
authors_ok= date_ok= ms_per_page= body_ms= body_mean_ms= shared_pages= shared_ms_per_page=
shared_body_ms= shared_body_mean_ms=``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.realpages import corpus_dir
from structcrawl.articles._shingles import f1, scores
from structcrawl.typed import page_items

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "fixtures" / "articles"
CLI = [sys.executable, "-m", "structcrawl.commandline"]


def load_cases(folder: Path) -> list[dict[str, Any]]:
    cases = []
    for path in sorted(folder.glob("*/article.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        case["name"] = path.parent.name
        cases.append(case)
    return cases


def article_of(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first item with an articleBody (the benchmark's reading of a command's output)."""
    return next((i for i in items if isinstance(i, dict) and i.get("articleBody")), None)


def authors_match(got: Any, want: list[str]) -> bool:
    names = [str(a.get("name", "")).casefold() for a in got or [] if isinstance(a, dict)]
    return len(names) == len(want) and all(any(w.casefold() in n for n in names) for w in want)


def run_cli(case: dict[str, Any], pages: Path) -> tuple[list[dict[str, Any]] | None, str]:
    file = pages / case["page"]
    cmd = [*CLI, "extract", str(file), "--base-url", case["url"], "--view", "items"]
    done = subprocess.run(
        [*cmd, "--format", "json"], capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1:][0] if done.stderr.strip() else "exit"
    try:
        return json.loads(done.stdout), ""
    except ValueError as exc:
        return None, f"not JSON: {exc}"


def quality(cases: list[dict[str, Any]], pages: Path, jobs: int) -> dict[str, Any]:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outputs = list(pool.map(lambda c: run_cli(c, pages), cases))
    precisions, recalls, page_f1s, authors, dates, errors = [], [], [], [], [], 0
    for case, (items, error) in zip(cases, outputs, strict=True):
        want = case["expected"]
        if items is None:
            errors += 1
            print(f"  {case['name']}: command failed: {error}")
        article = article_of(items or []) or {}
        p, r = scores(want["articleBody"], article.get("articleBody"))
        precisions.append(p)
        recalls.append(r)
        page_f1s.append(f1(p, r))
        ok_authors = want["authors"] is None or authors_match(
            article.get("authors"), want["authors"]
        )
        ok_date = want["datePublished"] is None or str(
            article.get("datePublished") or ""
        ).startswith(want["datePublished"])
        if want["authors"] is not None:
            authors.append(ok_authors)
        if want["datePublished"] is not None:
            dates.append(ok_date)
        source = (article.get("provenance") or {}).get("articleBody", {}).get("layer")
        print(
            f"  {case['name']:34} f1={f1(p, r):.3f} p={p:.3f} r={r:.3f} body={source} "
            f"authors={'ok' if ok_authors else [a.get('name') for a in article.get('authors') or []]} "
            f"date={'ok' if ok_date else article.get('datePublished')}"
        )
    mp, mr = statistics.mean(precisions), statistics.mean(recalls)
    return {
        "pages": len(cases),
        "errors": errors,
        "body_f1": f1(mp, mr),
        "body_precision": mp,
        "body_recall": mr,
        "mean_page_f1": statistics.mean(page_f1s),
        "authors_ok": sum(authors) / len(authors),
        "date_ok": sum(dates) / len(dates),
    }


def cost(bodies: list[tuple[str, bytes]], rounds: int) -> dict[str, float]:
    page_items(bodies[0][1], bodies[0][0], "text/html")  # imports and caches warmed
    with_body: list[list[float]] = [[] for _ in bodies]
    without: list[list[float]] = [[] for _ in bodies]
    for _ in range(rounds):
        for i, (url, body) in enumerate(bodies):
            for flag, into in ((True, with_body), (False, without)):
                start = time.perf_counter()
                page_items(body, url, "text/html", article_body=flag)
                into[i].append((time.perf_counter() - start) * 1000)
    on = [statistics.median(t) for t in with_body]
    off = [statistics.median(t) for t in without]
    diff = [a - b for a, b in zip(on, off, strict=True)]
    return {
        "ms_per_page": statistics.median(on),
        "body_ms": statistics.median(diff),
        "body_mean_ms": statistics.mean(diff),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    cases = load_cases(args.cases)
    pages = corpus_dir()
    found = quality(cases, pages, args.jobs)
    found.update(cost([(c["url"], (pages / c["page"]).read_bytes()) for c in cases], args.rounds))
    shared = [(f"https://{p.stem}/", p.read_bytes()) for p in sorted(pages.glob("*.html"))]
    every = cost(shared, args.rounds)
    found.update(shared_pages=len(shared), shared_ms_per_page=every["ms_per_page"])
    found.update(shared_body_ms=every["body_ms"], shared_body_mean_ms=every["body_mean_ms"])
    print(
        " ".join(
            f"{k}={v:.3f}" if isinstance(v, float) and not k.endswith("ms_per_page") and "_ms" not in k
            else f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}"
            for k, v in found.items()
        )
    )  # fmt: skip
    return 1 if found["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
