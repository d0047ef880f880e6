"""What the Dagster UI's Plots tab would chart across nightly runs: materialises the graph twice into a temporary
DAGSTER_HOME (a persistent SQLite instance, as `dagster dev` reads it), then prints, per unpartitioned asset, every
numeric metadata entry as the series of its values over the materialisations, oldest first. The headline figures
(evaluation.headline_figures: the primary endpoint, the false-answer rate, recall cost and accuracy per arm, page
hit@K per retriever in the answerer's scope, reader accuracy) are among them; a figure whose entry is missing in a run
is printed as a gap ("-"), never as NaN.

    .venv/bin/python bench/ui_plots.py [--corpus CORPUS_DIR --name NAME] [--runs 2] [--only FIGURE_PREFIX ...]
    .venv/bin/python bench/ui_plots.py --dagster-home .dagster_real   # the series a run history already holds

Without --corpus it runs the demo corpus (several minutes a run on two cores). The second and later runs re-run the
evaluation over the unchanged filings, as a nightly run does: the partitions are reused, so the series are flat unless
something changed between runs. On the demo corpus on two cores: about 260 s for the first run, 100 s for the second.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import cast

HEADLINE_ASSETS = ("arm_statistics", "arm_false_answers_by_kind", "retrieval_metrics", "reader_accuracy")


def _series(instance, asset_key) -> dict[str, list[float | int | None]]:
    import dagster as dg

    records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=asset_key), limit=1000).records
    runs = [cast(dg.AssetMaterialization, r.asset_materialization).metadata for r in reversed(records)]  # oldest first
    names = dict.fromkeys(
        name
        for metadata in runs
        for name, value in metadata.items()
        if isinstance(value, (dg.FloatMetadataValue, dg.IntMetadataValue))
    )
    return {name: [_number(metadata.get(name)) for metadata in runs] for name in names}


def _number(value) -> float | int | None:
    if value is None:
        return None
    number = value.value
    if isinstance(number, float) and not math.isfinite(number):
        raise AssertionError(f"a non-finite figure in the event log: {number}")
    return number


def _cell(value: float | int | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", help="a corpus folder (default: the demo corpus)")
    parser.add_argument("--name", default="bench", help="the corpus name of a --corpus run")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=[], help="print only entries starting with these prefixes")
    parser.add_argument("--all-assets", action="store_true", help="every unpartitioned asset, not the headline ones")
    parser.add_argument(
        "--dagster-home", help="print the series an existing run history holds (the headline assets), running nothing"
    )
    args = parser.parse_args()

    if args.dagster_home:
        import dagster as dg

        with dg.DagsterInstance.from_config(args.dagster_home) as instance:
            _print_series(instance, [dg.AssetKey(name) for name in HEADLINE_ASSETS], args.only)
        return 0

    with tempfile.TemporaryDirectory(prefix="edgar-eval-ui-plots-") as tmp:
        work = Path(tmp)
        os.environ["DAGSTER_HOME"] = str(work / "dagster_home")
        (work / "dagster_home").mkdir()
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, not another install
        import dagster as dg

        from edgar_eval.defs.factory import build_definitions
        from edgar_eval.defs.runner import materialise_evaluation, materialise_graph
        from edgar_eval.defs.settings import EvalSettings

        settings = EvalSettings(
            corpus_dir=args.corpus or str(work / "demo_corpus"),
            corpus_name=args.name if args.corpus else "demo",
            data_dir=str(work / "data"),
            reports_dir=str(work / "reports"),
        )
        defs = build_definitions(settings)
        with dg.DagsterInstance.get() as instance:
            for run in range(args.runs):
                started = time.perf_counter()
                if run == 0:
                    graph = materialise_graph(defs, instance)
                    error = graph.evaluation_error if not graph.evaluation_succeeded else None
                    if graph.failed_partitions:
                        error = f"failed partitions: {graph.failed_partitions}"
                else:
                    error = materialise_evaluation(defs, instance)
                print(f"run {run + 1}: {time.perf_counter() - started:.0f} s, {'failed: ' + error if error else 'ok'}")
                if error:
                    return 1
            graph_assets = defs.resolve_asset_graph()
            keys = sorted(
                (k for k in graph_assets.get_all_asset_keys() if graph_assets.get(k).partitions_def is None),
                key=lambda k: k.to_user_string(),
            )
            if not args.all_assets:
                keys = [k for k in keys if k.to_user_string() in HEADLINE_ASSETS]
            _print_series(instance, keys, args.only)
    return 0


def _print_series(instance, keys: list, only: list[str]) -> None:
    """Each asset's numeric entries, a line per entry with its value in every materialisation, oldest first."""
    for key in keys:
        series = _series(instance, key)
        shown = {n: v for n, v in series.items() if not only or n.startswith(tuple(only))}
        if not shown:
            continue
        print(f"\n{key.to_user_string()} ({len(next(iter(series.values())))} materialisations)")
        width = max(len(n) for n in shown)
        for name, values in shown.items():
            print(f"  {name:<{width}}  {'  '.join(_cell(v) for v in values)}")


if __name__ == "__main__":
    sys.exit(main())
