"""The trends page (`edgar-eval trends`): every headline figure across the runs of the run history, written from the
materialisations of the assets whose metadata holds them (defs/common.figure_metadata), with each interval as a band
and each point coloured by the system its run measured (report/trends.py draws it)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from edgar_eval.adapters.files import replace_file
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.report.trends import Materialization, trend_points, trends_html

# The assets whose materialisations carry headline figures with their bounds (figure_metadata's callers).
FIGURE_ASSETS = ("retrieval_metrics", "reader_accuracy", "arm_statistics", "arm_false_answers_by_kind")
TRENDS_FILE = "trends.html"
MOST_RUNS = 200  # the latest materialisations of each asset read


def figure_history(instance: dg.DagsterInstance, corpus: str) -> list[Materialization]:
    """The materialisations of FIGURE_ASSETS, oldest first; of `corpus`, or naming no corpus (made before runs were
    tagged): one run history may hold several corpora's runs."""
    found = []
    for asset in FIGURE_ASSETS:
        records = instance.fetch_materializations(dg.AssetKey(asset), limit=MOST_RUNS, ascending=False).records
        for record in records:
            materialization = record.asset_materialization
            if materialization is None:
                continue
            metadata = {name: entry.value for name, entry in materialization.metadata.items()}
            if metadata.get("corpus", corpus) != corpus:
                continue
            found.append(Materialization(record.run_id, record.timestamp, metadata))
    return sorted(found, key=lambda made: made.timestamp)


def write_trends(instance: dg.DagsterInstance, settings: EvalSettings, out: Path | None = None) -> tuple[str, int]:
    """Write the trends page (default: `trends.html` in the corpus's report folder); the path and the runs drawn."""
    history = figure_history(instance, settings.corpus_name)
    path = out or settings.report_dir() / TRENDS_FILE
    page = trends_html(trend_points(history), f"edgar-eval trends: {settings.corpus_name}")
    replace_file(path, page.encode())
    return str(path), len({made.run_id for made in history})
