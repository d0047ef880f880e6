"""A corpus folder's pins checked before any work: each manifest.csv row pins a document of the folder by its byte
count and sha256, and no filing is there twice (byte-identical documents under two names). Kept apart from
`local_corpus`, which the corpus assets read their filings through: a check added here moves no corpus asset's code
version, so no stored corpus is made again for it."""

from __future__ import annotations

import csv
import datetime
import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from edgar_eval.adapters.local_corpus import MANIFEST_FILE
from edgar_eval.synthetic.demo import demo_corpus_files

DOCUMENT_SUFFIXES = (".htm", ".html", ".xhtml")  # the documents `local_corpus.list_filings` takes as filings

# The columns every manifest row needs: the document it pins, by bytes and sha256, and its filing date (the one column
# the graph reads from it). ticker, cik, company and form are written by `fetch` and the demo too, for people: the graph
# reads them from each document's own dei: facts, so they are not required.
REQUIRED_MANIFEST_COLUMNS = ("path", "filed", "bytes", "sha256")


_SHA256 = re.compile(r"[0-9a-f]{64}")


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Document:
    """A filing document of a corpus folder, as its bytes are now."""

    relative: str  # its path in the corpus folder
    sha256: str
    size: int  # bytes


def read_documents(corpus_dir: str | os.PathLike, listed: Mapping[str, str]) -> dict[str, Document]:
    """Each listed document (partition key -> relative path) with its sha256 and byte count, read once."""
    root, found = Path(corpus_dir), {}
    for key, relative in listed.items():
        data = (root / relative).read_bytes()
        found[key] = Document(relative, hashlib.sha256(data).hexdigest(), len(data))
    return found


def check_pins(corpus_dir: str | os.PathLike, documents: Mapping[str, Document]) -> None:
    """Refuse, in one line (ValueError), a corpus that is not what it says it is: a manifest.csv without a required
    column, with a row that does not parse, names no document of the folder or pins one at other bytes or another
    sha256 than the file has; or two documents with the same bytes under two names (one filing counted twice). A
    document the manifest does not list is taken as it is, without a filing date, as in a folder with no manifest."""
    rows = _manifest_rows(Path(corpus_dir) / MANIFEST_FILE)
    by_path = {document.relative: document for document in documents.values()}
    for line, row in rows:
        where = f"{MANIFEST_FILE} line {line}"
        document = by_path.get(row["path"])
        if document is None:
            raise ValueError(
                f"{where} pins {row['path']}, which is not a filing document of the folder "
                f"({', '.join(DOCUMENT_SUFFIXES)}): the corpus lacks a filing its manifest names"
            )
        pinned, size = row["sha256"].lower(), int(row["bytes"])
        if (pinned, size) != (document.sha256, document.size):
            raise ValueError(
                f"{document.relative} is not the file its manifest pins: {where} says sha256 {pinned} ({size} "
                f"bytes), the file has sha256 {document.sha256} ({document.size} bytes)"
            )
    same: dict[str, list[str]] = {}
    for document in documents.values():
        same.setdefault(document.sha256, []).append(document.relative)
    for sha256, paths in same.items():
        if len(paths) > 1:
            named = ", ".join(sorted(paths)[:-1]) + f" and {sorted(paths)[-1]}"
            raise ValueError(
                f"{named} are byte-identical (sha256 {sha256}): one filing under {len(paths)} names would be counted "
                f"{'twice' if len(paths) == 2 else f'{len(paths)} times'}; keep one of them"
            )


def _manifest_rows(manifest: Path) -> list[tuple[int, dict[str, str]]]:
    """The rows of a manifest.csv with their line numbers, each checked for its required cells; none without one."""
    if not manifest.is_file():
        return []
    try:
        with manifest.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = [name.strip() for name in reader.fieldnames or []]
            missing = [name for name in REQUIRED_MANIFEST_COLUMNS if name not in columns]
            if missing:
                raise ValueError(
                    f"{MANIFEST_FILE} has no {', '.join(missing)} column{'s' if len(missing) > 1 else ''} (its "
                    f"columns: {', '.join(columns) or 'none'}); a manifest needs {', '.join(REQUIRED_MANIFEST_COLUMNS)}"
                )
            rows = []
            for row in reader:
                if None in row:  # more cells than the header has columns
                    raise ValueError(f"{MANIFEST_FILE} line {reader.line_num} has more cells than its header")
                rows.append((reader.line_num, {str(k).strip(): (v or "").strip() for k, v in row.items()}))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{MANIFEST_FILE} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except csv.Error as exc:
        raise ValueError(f"{MANIFEST_FILE} is not CSV: {exc}") from None
    seen: dict[str, int] = {}
    for line, row in rows:
        problem = _row_problem(row)
        if problem:
            raise ValueError(f"{MANIFEST_FILE} line {line}: {problem}")
        if row["path"] in seen:
            raise ValueError(f"{MANIFEST_FILE} lines {seen[row['path']]} and {line} both pin {row['path']}")
        seen[row["path"]] = line
    return rows


def _row_problem(row: dict[str, str]) -> str | None:
    if not row.get("path"):
        return "no path"
    if not _SHA256.fullmatch(row.get("sha256", "").lower()):
        return f"sha256 {row.get('sha256')!r} of {row['path']} is not 64 hexadecimal digits"
    if not row.get("bytes", "").isdigit():
        return f"bytes {row.get('bytes')!r} of {row['path']} is not a whole number"
    filed = row.get("filed", "")
    try:
        datetime.date.fromisoformat(filed if _DATE.fullmatch(filed) else "")
    except ValueError:
        return f"filed {filed!r} of {row['path']} is not a date (YYYY-MM-DD)"
    return None


def stray_demo_documents(listed: Mapping[str, str]) -> list[str]:
    """The documents of a demo corpus folder (partition key -> relative path) that the demo generator does not write."""
    generated = demo_corpus_files()
    return sorted(relative for relative in listed.values() if relative not in generated)
