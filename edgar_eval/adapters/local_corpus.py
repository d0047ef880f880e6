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
