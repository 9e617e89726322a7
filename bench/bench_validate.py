"""Validation throughput, side by side in one process: jsonschema alone vs the jsonschema-rs
first pass, over the demo site's entity records (normalized) repeated to --records.

    python -m bench.bench_validate [--records 20000] [--rounds 3]

Ends with one line: ``reference_rps=N fast_rps=N speedup=N``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from pathlib import Path

from structcrawl.extract import extract_payload
from structcrawl.normalize import NormalizeContext, normalize_record
from structcrawl.validate import Validator

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"


def records() -> list[dict]:
    out = []
    for page in sorted(SITE.rglob("*.html")):
        url = f"https://northwind.example/{page.relative_to(SITE)}"
        for rec in extract_payload(page.read_bytes(), url, "text/html").records:
            if rec.kind == "entity":
                out.append(normalize_record(rec.to_dict(), NormalizeContext(page_url=url)))
    return out


def rate(validator: Validator, recs: list[dict]) -> float:
    start = time.perf_counter()
    for rec in recs:
        validator.validate(rec)
    return len(recs) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    base = records()
    recs = (base * (args.records // len(base) + 1))[: args.records]
    fast = Validator.default()
    reference = Validator(
        {
            k: dataclasses.replace(c, errors_ok=None, warnings_ok=None)  # type: ignore[type-var]
            for k, c in fast.checks.items()
        },
        fast.vocabulary,
    )
    ref_r, fast_r = [], []
    for _ in range(args.rounds):
        ref_r.append(rate(reference, recs))
        fast_r.append(rate(fast, recs))
    ref, fst = statistics.median(ref_r), statistics.median(fast_r)
    print(f"reference_rps={ref:.0f} fast_rps={fst:.0f} speedup={fst / ref:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
