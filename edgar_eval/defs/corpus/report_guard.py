"""No run writes over a report made from another corpus.

A report folder's receipt.json names the filings its report was made from, each by partition key and sha256. Before
any work, `edgar-eval run` compares the corpus it is about to evaluate (the sha256 of each document of the checked
corpus folder) with the receipt already in the folder its report would go to, and refuses the run in one line when
they differ, naming `--name` as the way out. One exception: a report this run history wrote itself (its last `report`
materialisation for that folder recorded the very report.md there) may be replaced, so a corpus of your own that
gains, loses or changes a filing is evaluated again under its name; never a committed one (a receipt.json that git
tracks). The demo corpus is the generator's output, checked as such by `partitions.checked_corpus`: its report is
made from the generated filings by construction, and a changed generator rewrites it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Mapping

import dagster as dg

from edgar_eval.adapters.parquet_store import Location, is_local
from edgar_eval.defs.run_tags import DATA_VERSION_TAG
from edgar_eval.defs.settings import CORPUS_NAME_ENV, EvalSettings
from edgar_eval.evaluation.run_comparison import RECEIPT_FILE

REPORT = dg.AssetKey("report")
REPORT_FILE = "report.md"
# How far back the run history is read for the last report written to a folder: a page at a time, newest first.
HISTORY_PAGE, HISTORY_LIMIT = 50, 1000


def report_in_the_way(
    settings: EvalSettings, documents: Mapping[str, str], instance: dg.DagsterInstance | None
) -> str | None:
    """Why this run may not write its report (`documents`: the run's corpus, partition key -> sha256), in one line;
    None when it may: there is no receipt in its report folder, the receipt names the same filings (by sha256), or
    the report there is one this run history wrote and git does not track."""
    if settings.is_demo:
        return None
    folder = settings.report_dir()
    receipt = folder / RECEIPT_FILE
    if not receipt.is_file():
        return None
    committed = is_committed(receipt)
    if not committed and instance is not None and made_here(instance, folder):
        return None
    named_by = "--name or " + CORPUS_NAME_ENV if os.environ.get(CORPUS_NAME_ENV) else "its folder, --corpus"
    way_out = (
        f"give this run's report a folder of its own with {'another ' if os.environ.get(CORPUS_NAME_ENV) else ''}"
        f"--name ({CORPUS_NAME_ENV}), or delete {receipt} to replace that report on purpose"
    )
    try:
        named = json.loads(receipt.read_bytes())["corpus"]
        theirs = {str(sha256) for sha256 in named.values()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return f"{receipt} names no corpus that can be read, so a run cannot tell what it would write over: {way_out}"
    ours = set(documents.values())
    if ours == theirs:
        return None
    return (
        f"{folder} holds a{' committed' if committed else ''} report made from another corpus ({len(theirs)} filings "
        f"by its {RECEIPT_FILE}; this corpus, named {settings.corpus_name!r} by {named_by}, holds {len(ours)}, "
        f"{len(ours - theirs)} of them not among those): {way_out}"
    )


def is_committed(path: Location) -> bool:
    """Does git track this file (a report committed with the project)? False without git, or outside a checkout."""
    git = shutil.which("git")
    if not is_local(path) or git is None:
        return False
    try:
        listed = subprocess.run(
            [git, "-C", str(path.parent), "ls-files", "--error-unmatch", "--", path.name],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return listed.returncode == 0


def made_here(instance: dg.DagsterInstance, folder: Location) -> bool:
    """Did this run history write the report now in `folder`? Its last `report` materialisation for that folder
    recorded the data version of the report.md there (the sha256 of its text, cut to 16 digits)."""
    report = folder / REPORT_FILE
    try:
        written = hashlib.sha256(report.read_bytes()).hexdigest()[:16]
    except OSError:
        return False
    wanted, cursor, read = str(report), None, 0
    while read < HISTORY_LIMIT:
        page = instance.fetch_materializations(REPORT, limit=HISTORY_PAGE, cursor=cursor)
        for record in page.records:
            materialisation = record.asset_materialization
            if materialisation is None:
                continue
            path = materialisation.metadata.get("path")
            if str(getattr(path, "value", path)) == wanted:  # the last report written to this folder
                return (materialisation.tags or {}).get(DATA_VERSION_TAG) == written
        read += len(page.records)
        if not page.has_more:
            return False
        cursor = page.cursor
    return False
