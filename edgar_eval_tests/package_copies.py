"""Copies of the package with one edit, loaded as other code would be: what an asset's code version and the UI's stale
markers see after that edit."""

from __future__ import annotations

import shutil
from pathlib import Path

import edgar_eval

PACKAGE = Path(edgar_eval.__file__).resolve().parent


def copy_package(root: Path, path: str | None = None, old: str = "", new: str = "") -> Path:
    """The package copied to `root`/edgar_eval, with `old` (present exactly once) replaced by `new` in `path`."""
    shutil.copytree(PACKAGE, root / "edgar_eval", ignore=shutil.ignore_patterns("__pycache__"))
    if path:
        target = root / "edgar_eval" / path
        source = target.read_text()
        assert source.count(old) == 1, (path, old)
        target.write_text(source.replace(old, new))
    return root


TABLE_READER = "answering/table_reader.py"


def table_reader_first_def() -> str:
    """The table reader's first top-level function line: an edit placed before it changes the reader's code."""
    reader = (PACKAGE / TABLE_READER).read_text()
    return next(line for line in reader.splitlines() if line.startswith("def "))
