"""Parse every filing of a corpus folder with our parser and with edgartools, side by side, and
print the time and peak memory of each.

    /work/venv/bin/python bench/parse_vs_edgartools.py [CORPUS_DIR]      (default: ../shared/corpus/edgar)

Each side runs in its own child process (this script re-run with --side), so its peak memory is
its own: the parent takes each child's rusage with os.wait4 and imports neither parser itself.
The files come from CORPUS_DIR/manifest.csv (its `path` and `form` columns); without a manifest,
every .htm/.html/.xhtml file under CORPUS_DIR, its form read from the dei:DocumentType fact.

  ours        edgar_eval.corpus.parse.parse_filing(bytes): clean text, pages, iXBRL facts with
              offsets, Part x Item sections, notes start. FilingError counts as a failed file.
  edgartools  edgar.documents.HTMLParser(ParserConfig(form=FORM)).parse(html), then
              document.text(table_max_col_width=500) and document.sections: the same calls that
              Filing.text() and TenK/TenQ.sections make once a Filing has fetched its HTML, here fed
              the local file instead, so nothing is fetched.

Both children run with sockets disabled (connect and DNS raise and are counted), EDGAR_IDENTITY set
to a dummy value and proxy variables removed; a nonzero "net tries" means some call tried the
network. Seconds are wall time for reading and parsing all files, import time not included (it is
shown apart); peak MB is the child's peak resident set size, imports included.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

SIDES = ("ours", "edgartools")
_DOCUMENT_TYPE = re.compile(rb"name=\"dei:DocumentType\"[^>]*>(?:\s*<[^>]+>)*\s*([0-9A-Za-z/-]+)")


def default_corpus() -> Path:
    return Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "edgar"


def list_corpus(corpus: Path) -> list[tuple[str, str]]:
    """(path relative to corpus, form) for every filing, in path order."""
    manifest = corpus / "manifest.csv"
    if manifest.is_file():
        with manifest.open(newline="") as handle:
            rows = [(row["path"], (row.get("form") or "").strip()) for row in csv.DictReader(handle) if row.get("path")]
    else:
        rows = []
        for path in sorted(corpus.rglob("*")):
            if path.is_file() and path.suffix.lower() in (".htm", ".html", ".xhtml"):
                found = _DOCUMENT_TYPE.search(path.read_bytes())
                rows.append((path.relative_to(corpus).as_posix(), found.group(1).decode() if found else ""))
    return sorted(rows)


# --------------------------------------------------------------------------- child side


_net_tries: list[str] = []


def _block_network() -> None:
    """Make any network call fail at once, and remember that it was tried."""
    import socket

    def refuse(what):
        def _refuse(*args, **kwargs):
            _net_tries.append(f"{what}{args[1:2] if what == 'connect' else args[:1]}")
            raise OSError(f"network disabled by the benchmark ({what})")

        return _refuse

    socket.socket.connect = refuse("connect")
    socket.socket.connect_ex = refuse("connect")
    socket.create_connection = refuse("create_connection")
    socket.getaddrinfo = refuse("getaddrinfo")


def _run_ours(corpus: Path, files: list[tuple[str, str]]) -> dict:
    t0 = time.perf_counter()
    from edgar_eval.corpus.parse import parse_filing
    from edgar_eval.domain.filings import FilingError

    import_s = time.perf_counter() - t0

    ok, failures = 0, []
    facts = sections = pages = chars = 0
    started = time.perf_counter()
    for relative, _form in files:
        data = (corpus / relative).read_bytes()
        try:
            parsed = parse_filing(data)
        except FilingError as exc:
            failures.append(f"{relative}: FilingError: {exc}")
            continue
        ok += 1
        facts += len(parsed.facts)
        sections += len(parsed.sections)
        pages += len(parsed.pages)
        chars += len(parsed.text)
        del parsed
    seconds = time.perf_counter() - started
    return {
        "ok": ok,
        "seconds": seconds,
        "import_s": import_s,
        "failures": failures,
        "did": f"text {chars / 1e6:.1f}M chars, {facts} facts, {sections} sections, {pages} pages",
    }


def _run_edgartools(corpus: Path, files: list[tuple[str, str]]) -> dict:
    t0 = time.perf_counter()
    try:
        import edgar  # pyright: ignore[reportMissingImports]  # optional: edgartools, absent unless installed
        from edgar.documents import HTMLParser, ParserConfig  # pyright: ignore[reportMissingImports]  # likewise
    except ImportError as exc:
        return {"unavailable": f"edgartools is not importable ({exc}); pip install edgartools into this venv"}
    import_s = time.perf_counter() - t0
    version = getattr(edgar, "__version__", "?")

    ok, failures = 0, []
    sections = chars = with_sections = 0
    started = time.perf_counter()
    for relative, form in files:
        data = (corpus / relative).read_bytes()
        try:
            document = HTMLParser(ParserConfig(form=form or None)).parse(data)
            text = document.text(table_max_col_width=500)
            found = len(document.sections)
        except Exception as exc:  # noqa: BLE001 - a library failure on one file is a result, not a crash
            failures.append(f"{relative}: {type(exc).__name__}: {exc}")
            continue
        ok += 1
        chars += len(text)
        sections += found
        with_sections += found > 0
        del document, text
    seconds = time.perf_counter() - started
    return {
        "ok": ok,
        "seconds": seconds,
        "import_s": import_s,
        "failures": failures,
        "did": f"edgartools {version}: text {chars / 1e6:.1f}M chars, {sections} sections "
        f"({with_sections} files with any)",
    }


def child(side: str, corpus: Path, result_path: Path) -> int:
    _block_network()
    files = list_corpus(corpus)
    try:
        result: dict = _run_ours(corpus, files) if side == "ours" else _run_edgartools(corpus, files)
    except Exception:  # noqa: BLE001 - report it to the parent rather than die without a result
        result = {"crashed": traceback.format_exc()}
    result["net_tries"] = _net_tries
    result_path.write_text(json.dumps(result))
    return 0


# --------------------------------------------------------------------------- parent side


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    env.setdefault("EDGAR_IDENTITY", "edgar-eval benchmark bench@example.invalid")
    env["NO_PROXY"] = env["no_proxy"] = "*"
    env["PYTHONWARNINGS"] = "ignore"
    return env


def run_side(side: str, corpus: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="parse_vs_edgartools-") as tmp:
        result_path, log_path = Path(tmp) / "result.json", Path(tmp) / "stderr.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--side", side, str(corpus), str(result_path)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=_child_env(),
            )
            _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not a running max
            proc.returncode = os.waitstatus_to_exitcode(status)
        result: dict = json.loads(result_path.read_text()) if result_path.is_file() else {}
        if proc.returncode != 0 or not result:
            tail = log_path.read_text(errors="replace")[-2000:]
            result = {"crashed": f"child exited {proc.returncode}\n{tail}"}
    result["peak_mb"] = usage.ru_maxrss / 1024  # Linux: kilobytes
    result["cpu_s"] = usage.ru_utime + usage.ru_stime
    return result


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[0] == "--side" and argv[1] in SIDES:
        return child(argv[1], Path(argv[2]), Path(argv[3]))
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python bench/parse_vs_edgartools.py [CORPUS_DIR]", file=sys.stderr)
        return 2
    corpus = Path(argv[0]) if argv else default_corpus()
    files = list_corpus(corpus)
    if not files:
        print(f"no filings found in {corpus}", file=sys.stderr)
        return 1
    print(f"{len(files)} filings in {corpus}, each side in its own process (python {sys.version.split()[0]})")

    results = {side: run_side(side, corpus) for side in SIDES}

    header = (
        f"{'side':10} {'files ok':>9} {'seconds':>8} {'cpu s':>7} {'import s':>8} {'peak MB':>8} "
        f"{'net tries':>9}  what it did"
    )
    print(header)
    print("-" * len(header))
    notes = []
    for side, r in results.items():
        if "unavailable" in r:
            print(f"{side:10} {'-':>9} {'-':>8} {'-':>7} {'-':>8} {'-':>8} {'-':>9}  {r['unavailable']}")
            continue
        if "crashed" in r:
            print(f"{side:10} {'-':>9} {'-':>8} {'-':>7} {'-':>8} {r['peak_mb']:8.0f} {'-':>9}  crashed, see below")
            notes.append(f"{side} crashed:\n{r['crashed']}")
            continue
        ok = f"{r['ok']}/{len(files)}"
        print(
            f"{side:10} {ok:>9} {r['seconds']:8.1f} {r['cpu_s']:7.1f} {r['import_s']:8.1f} "
            f"{r['peak_mb']:8.0f} {len(r['net_tries']):9}  {r['did']}"
        )
        notes += [f"{side} failed  {f}"[:200] for f in r["failures"]]
        notes += [f"{side} tried the network: {t}" for t in r["net_tries"][:5]]
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
