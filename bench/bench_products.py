"""Products on real shop pages (issue "Products right on shops nobody here has seen"): the
benchmark's own scorer (``../shared/corpus/products/score.py``) over the command people run,
``structcrawl extract FILE --base-url URL --view items --format json``, one process per page.

    python -m bench.bench_products [--show N] [--jobs 2] [--out preds.json] [--markup-aside]

The scorer prints the published systems beside the candidate and ends with its headline line
(``price_f1= sku_f1= availability_f1= ...``); this ends with the same line, prefixed with
``products_`` and the run's seconds, so runs compare line to line. The pages are the
benchmark's development half: tuning on them is expected, the held-out half (other shops)
is the measure (docs/items.md). ``--markup-aside`` runs the same command on each page with
its structured markup removed (:mod:`bench.markup_aside`): the visible-page reading alone, as
on shops that write no markup; its line is prefixed ``visible_``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "products"
COMMAND = "{exe} extract {{file}} --base-url {{base_url}} --view items --format json"
ASIDE = "{python} -m bench.markup_aside {{file}} --base-url {{base_url}}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=0, help="print N misses per attribute")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", help="write the predictions here (JSON)")
    parser.add_argument(
        "--markup-aside", action="store_true", help="the pages without their structured markup"
    )
    args = parser.parse_args(argv)
    score = CORPUS / "score.py"
    if not score.exists():
        print(f"no product corpus at {CORPUS} (see its SOURCE.md)", file=sys.stderr)
        return 2
    exe = Path(sys.executable).with_name("structcrawl")
    command = ASIDE.format(python=sys.executable) if args.markup_aside else COMMAND.format(exe=exe)
    cmd = [sys.executable, str(score), "--cmd", command, "--jobs", str(args.jobs)]
    cmd += ["--show", str(args.show)] + (["--out", args.out] if args.out else [])
    started = time.monotonic()
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, cwd=ROOT)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    lines = [line for line in run.stdout.splitlines() if "price_f1=" in line]
    counts = [line for line in run.stdout.splitlines() if line.startswith("pages=")]
    if run.returncode != 0 or not lines:
        print(f"score.py failed (exit {run.returncode})", file=sys.stderr)
        return run.returncode or 1
    pairs = lines[-1].split() + [p for p in (counts[-1].split() if counts else []) if "=" in p]
    prefix = "visible_" if args.markup_aside else "products_"
    fields = " ".join(f"{prefix}{pair}" for pair in pairs)
    print(f"{fields} {prefix}secs={time.monotonic() - started:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
