"""A corpus is a folder of EDGAR primary documents (.htm), with an optional manifest.csv."""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

from edgar_eval.adapters.files import replace_file
from edgar_eval.synthetic.demo import COMPANIES, demo_corpus_files

_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def partition_key(relative_path: str) -> str:
    """'aapl/10k_2024-11-01.htm' -> 'aapl-10k_2024-11-01': a stable, readable Dagster partition key."""
    stem = relative_path.rsplit(".", 1)[0]
    return _KEY_UNSAFE.sub("-", stem.replace("/", "-")).strip("-")


def list_filings(corpus_dir: str | os.PathLike) -> dict[str, str]:
    """Partition key -> path relative to the corpus folder, for every .htm/.html document in it."""
    root = Path(corpus_dir)
    if not root.is_dir():
        return {}
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix.lower() in (".htm", ".html", ".xhtml"):
            relative = path.relative_to(root).as_posix()
            key = partition_key(relative)
            if key in found:
                raise ValueError(f"{relative} and {found[key]} map to the same partition key {key!r}")
            found[key] = relative
    return found


def read_manifest(corpus_dir: str | os.PathLike) -> dict[str, dict[str, str]]:
    """Manifest rows by relative path; empty when the folder has no manifest.csv."""
    manifest = Path(corpus_dir) / "manifest.csv"
    if not manifest.is_file():
        return {}
    with manifest.open(newline="") as handle:
        return {row["path"]: row for row in csv.DictReader(handle) if row.get("path")}


def write_demo_corpus(corpus_dir: str | os.PathLike, companies: int = len(COMPANIES)) -> list[str]:
    """Write the generated demo corpus (with more `companies`, a synthetic corpus of that many, the demo's among
    them); files whose bytes already match are left untouched."""
    root = Path(corpus_dir)
    written = []
    for relative, data in sorted(demo_corpus_files(companies=companies).items()):
        if replace_file(root / relative, data):
            written.append(relative)
    return written


MANIFEST_FILE = "manifest.csv"  # a corpus folder's manifest: one row per document (adapters/corpus_pins.py checks it)


# Below the rest on purpose: a statement's place in its module is part of the code version of every asset that
# reaches it, and this (used by the scale bench and the one-filing night's test) is reached by none.
AMENDMENT = b"<p>The company amended this report to correct a typographical error in its exhibit index.</p>"


def amend_filing(corpus_dir: str | os.PathLike, cik: str | None = None) -> str:
    """A paragraph added at the end of a company's last periodic report (its text, so its chunks, change; default: the
    manifest's last periodic report of any company) and its manifest row brought in line, as an amended document
    would be; the filing's path."""
    import hashlib  # here, not above: an import moved the corpus assets' statements (see the note above)

    manifest = Path(corpus_dir) / MANIFEST_FILE
    with manifest.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    row = [r for r in rows if (cik is None or r["cik"] == cik) and r["form"].startswith("10-")][-1]
    document = Path(corpus_dir) / row["path"]
    data = document.read_bytes()
    at = data.rfind(b"</body>") if b"</body>" in data else len(data)
    data = data[:at] + AMENDMENT + data[at:]
    document.write_bytes(data)
    row["bytes"], row["sha256"] = str(len(data)), hashlib.sha256(data).hexdigest()
    with manifest.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return row["path"]
