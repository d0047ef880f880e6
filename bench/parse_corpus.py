"""Parse every filing of a corpus folder and print, per filing, what the parser found and how fast.

    .venv/bin/python bench/parse_corpus.py [CORPUS_DIR]      (default: ../shared/corpus/edgar)

Prints one row per filing (facts, share of numeric facts whose displayed text is at their offset,
pages and pages with a printed number, sections, notes start found, seconds), then the total time
and the process's peak resident memory.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

from edgar_eval.adapters.local_corpus import list_filings
from edgar_eval.corpus.parse import parse_filing
from edgar_eval.domain.filings import FilingError


def main() -> int:
    corpus = Path(
        sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "edgar"
    )
    filings = list_filings(corpus)
    print(
        f"{'filing':34} {'form':7} {'FY':5} {'facts':>6} {'at offset':>10} {'pages':>11} {'sections':>8} {'notes':>5} "
        f"{'s':>6}"
    )
    started = time.perf_counter()
    failures = 0
    totals = {"facts": 0, "pages": 0, "printed": 0, "at_offset": 0, "located": 0}
    for key, relative in sorted(filings.items()):
        data = (corpus / relative).read_bytes()
        t0 = time.perf_counter()
        try:
            parsed = parse_filing(data)
        except FilingError as exc:
            failures += 1
            print(f"{key:34} ERROR {exc}"[:160])
            continue
        seconds = time.perf_counter() - t0
        located = [f for f in parsed.facts if f.is_numeric and f.offset is not None]
        at_offset = sum(parsed.text[f.offset : f.end] == f.displayed for f in located)
        printed = sum(p.printed is not None for p in parsed.pages)
        for name, value in (
            ("facts", len(parsed.facts)),
            ("pages", len(parsed.pages)),
            ("printed", printed),
            ("at_offset", at_offset),
            ("located", len(located)),
        ):
            totals[name] += value
        print(
            f"{key:34} {parsed.meta.form:7} {parsed.meta.fiscal_year:<5} {len(parsed.facts):6} "
            f"{at_offset / len(located) if located else float('nan'):10.1%} {f'{printed}/{len(parsed.pages)}':>11} "
            f"{len(parsed.sections):8} {'yes' if parsed.notes_start is not None else 'no':>5} {seconds:6.2f}"
        )
    total = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(filings)} filings, {failures} failed, {total:.1f} s in all, peak memory {peak_mb:.0f} MB")
    print(
        f"{totals['facts']} facts, {totals['at_offset']}/{totals['located']} located numeric facts at their offset, "
        f"{totals['printed']}/{totals['pages']} pages with a printed number"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
