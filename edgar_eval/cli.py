"""Command line: run the whole graph through the run history (each run in the code location the UI loads), add the
corpus folder's filings as partitions, fetch filings, write baselines, README figures and the demo corpus."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from edgar_eval.defs.settings import (
    CORPUS_DIR_ENV,
    CORPUS_NAME_ENV,
    PARALLEL_ENV,
    PROPOSALS_ENV,
    RUN_WORKER_ENV,
    SETTINGS_FILE_ENV,
    project_home,
)

# The instance `edgar-eval run` creates. An evaluation harness should not phone home; users can turn telemetry back on
# here. A step's worker process logs its start through the instance's Python log level, not the run's console logger
# (the multiprocess executor's context-free log manager), so DEBUG there would echo a line per step; Dagster's own
# events are stored whatever the level, and INFO keeps every message an asset logs. Run monitoring, in the daemon of
# `dagster dev` or `dagster-daemon run`, frees the pool slots of ended runs (the sensor orphaned_runs, in the same
# daemon, ends the runs whose process was killed); the default launcher cannot resume a run, so none is resumed.
INSTANCE_CONFIG = """telemetry:
  enabled: false
python_logs:
  python_log_level: INFO
run_monitoring:
  enabled: true
  poll_interval_seconds: 30
  max_resume_run_attempts: 0
  free_slots_after_run_end_seconds: 30
"""
# what earlier versions wrote: replaced by the current one, as nobody has edited it
EARLIER_INSTANCE_CONFIGS = ("telemetry:\n  enabled: false\npython_logs:\n  python_log_level: INFO\n",)
EARLIER_INSTANCE_CONFIGS += (
    # named its own run launcher, whose health check told run monitoring a killed run (the sensor orphaned_runs now)
    INSTANCE_CONFIG.replace(
        "run_monitoring:",
        "run_launcher:\n  module: edgar_eval.defs.run_launcher\n  class: LocalRunLauncher\nrun_monitoring:",
    ),
)


def _ensure_dagster_home() -> Path:
    """Runs and lineage persist only with DAGSTER_HOME set; default to .dagster_home in the project. A home that
    cannot be made is refused in one line naming DAGSTER_HOME (ValueError)."""
    home = Path(os.environ.get("DAGSTER_HOME") or project_home() / ".dagster_home").resolve()
    config = home / "dagster.yaml"
    try:
        home.mkdir(parents=True, exist_ok=True)
        if not config.exists() or config.read_text() in EARLIER_INSTANCE_CONFIGS:
            config.write_text(INSTANCE_CONFIG)
    except OSError as exc:
        raise ValueError(f"DAGSTER_HOME={home}: {exc.strerror or exc}") from None
    os.environ["DAGSTER_HOME"] = str(home)
    from edgar_eval.defs.executors import silence_dagster_notices

    silence_dagster_notices()
    return home


def _configure(args: argparse.Namespace) -> None:
    if getattr(args, "corpus", None):
        os.environ[CORPUS_DIR_ENV] = str(Path(args.corpus).resolve())
    if getattr(args, "name", None):
        os.environ[CORPUS_NAME_ENV] = args.name
    if getattr(args, "parallel", None) is not None:
        os.environ[PARALLEL_ENV] = str(args.parallel)
    if getattr(args, "settings", None):
        os.environ[SETTINGS_FILE_ENV] = str(Path(args.settings).resolve())
    if getattr(args, "proposals", None):
        os.environ[PROPOSALS_ENV] = os.pathsep.join(str(Path(p).resolve()) for p in args.proposals)


def _check_corpus_folder(settings) -> None:
    """A missing or non-folder corpus folder is refused in one line; so is a demo corpus folder that cannot be
    written (it is generated: `run_checks.check_demo_folder`); one without a filing, or one that is not what its
    manifest pins, is refused by the corpus listing the partitions are made from (`partitions.checked_corpus`)."""
    if settings.is_demo:
        from edgar_eval.defs.run_checks import check_demo_folder

        check_demo_folder(settings)
        return
    folder = Path(settings.corpus_dir)
    if not folder.exists():
        raise ValueError(f"corpus folder {folder} (--corpus, {CORPUS_DIR_ENV}) does not exist")
    if not folder.is_dir():
        raise ValueError(f"corpus folder {folder} (--corpus, {CORPUS_DIR_ENV}) is not a folder")


# `edgar-eval run`'s exit codes, so a CI gate or a scheduler can tell them apart (the run command's --help lists them).
EXIT_EVALUATION_FAILED = 1  # no filing could be materialised, or an evaluation step failed: no report written
EXIT_REFUSED = 2  # a bad setting, flag or folder, refused in one line before any partition ran
EXIT_SOME_FILINGS_FAILED = 3  # the evaluation ran and wrote its report without the filings that failed (each named)
EXIT_INTERRUPTED = 130  # Ctrl-C: no further partition ran and no report was written
EXIT_CODES = "\n".join(
    (
        "exit codes:",
        "  0    done",
        f"  {EXIT_EVALUATION_FAILED}    the evaluation failed: no report written",
        f"  {EXIT_REFUSED}    a setting, flag or folder refused before any work",
        f"  {EXIT_SOME_FILINGS_FAILED}    some filings failed, each named; the report covers the rest",
        f"  {EXIT_INTERRUPTED}  interrupted (Ctrl-C): no further partition, no report",
    )
)


def _refused(exc: Exception) -> int:
    """A bad setting, flag or folder: one line naming it, exit 2."""
    print(f"edgar-eval: {exc}", file=sys.stderr)
    return EXIT_REFUSED


def _show_step(step: str, seconds: float | None) -> None:
    """Each finished step of the evaluation, one line with its time: progress past the corpus partitions, and where
    the evaluation spends its time (read from the run's events, so under Celery too)."""
    took = f" ({seconds:.1f} s)" if seconds is not None else ""
    print(f"  done   {step}{took}", flush=True)


def run(args: argparse.Namespace) -> int:
    supervisor = os.environ.get(RUN_WORKER_ENV, "")
    if supervisor.isdigit():  # the worker of `supervised_run`: it goes when its supervisor goes
        die_with_the_supervisor(int(supervisor))
    _configure(args)
    try:
        home = _ensure_dagster_home()  # first: it silences Dagster's notices before the graph's modules load
    except ValueError as exc:
        return _refused(exc)
    from dagster import DagsterInstance

    from edgar_eval.defs.executors import quiet_interrupted_finalisers, quiet_interrupted_pool_closes
    from edgar_eval.defs.freshness import NEVER_MATERIALISED
    from edgar_eval.defs.orphaned_runs import end_orphaned_runs
    from edgar_eval.defs.run_checks import check_proposals, dagster_command, unread_environment
    from edgar_eval.defs.runner import (
        CodeLocationLauncher,
        cancel_interrupted_runs,
        materialise_graph,
        quiet_ungated_step_notices,
    )

    quiet_interrupted_pool_closes()  # before the run history is opened
    quiet_interrupted_finalisers()
    quiet_ungated_step_notices()  # the regression gate not applied is said once, below
    from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource, unread_settings

    try:
        settings = EvalSettings.from_env()
        _check_corpus_folder(settings)
        embedder, generator = EmbedderResource.from_env(), GeneratorResource.from_env()
        for configured in (settings, embedder, generator):
            configured.check()
        proposal_notes = check_proposals(settings.proposals)  # every line read, as golden_proposals will
        from edgar_eval.definitions import defs  # the code location the UI loads, from the same environment
        from edgar_eval.defs.corpus.partitions import corpus_documents
        from edgar_eval.defs.corpus.report_guard import report_in_the_way
        from edgar_eval.defs.parallel_runs import ParallelRuns, parallel_runs_from_env

        defs()  # the executor's settings: refused here, in one line
        parallel = parallel_runs_from_env()
        # last: it writes the demo corpus; a folder without a filing, or whose manifest pins other bytes, is refused
        documents = corpus_documents(settings)
        # a report made from another corpus is never written over (a committed one above all)
        history = DagsterInstance.get()
        in_the_way = report_in_the_way(settings, documents, history)
        if in_the_way:
            raise ValueError(in_the_way)
    except ValueError as exc:  # a bad setting or corpus folder: one line, before any partition runs
        return _refused(exc)
    except OSError as exc:  # a folder or file the checks above did not foresee: still one line
        return _refused(ValueError(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")))
    # set, but read by nothing this run uses
    for note in unread_settings(settings, embedder, generator) + unread_environment(settings, embedder, generator):
        print(f"note: {note}; it changes nothing")
    for note in proposal_notes:
        print(f"note: {note}")
    print(f"corpus {settings.corpus_name!r} in {settings.corpus_dir}")
    started = time.perf_counter()
    total, shown, last = len(documents), [0], [started]

    def show(key: str, error: str | None, launched: bool, because: str | None) -> None:
        status = "FAILED" if error else "ok" if launched else "current"
        now = time.perf_counter()
        shown[0] += 1
        # the count, and the time since the line before: a filing's own run, when runs go one at a time
        progress = f"  [{shown[0]}/{total}, +{now - last[0]:.1f} s]"
        last[0] = now
        # why a run made before is made again (a table that cannot be read, changed inputs); a first run needs no why
        again = because and not because.startswith(NEVER_MATERIALISED)
        if error:  # a filing's error may start with its own key: said once
            error = error.removeprefix(f"{key}: ")
        detail = f": {error}" if error else f" (made again: {because})" if again else ""
        print(f"  {status:7} {key}{detail}{progress}", flush=True)

    instance, invoked = None, datetime.datetime.now(datetime.timezone.utc)
    try:
        instance = history
        for run_id, ended_as in end_orphaned_runs(instance):
            print(f"run {run_id} {ended_as}")
        launcher = CodeLocationLauncher.of(
            instance, os.getcwd(), defs(), on_step=_show_step, on_progress=_ProgressLines(settings, generator)
        )
        with contextlib.ExitStack() as stack:
            side_by_side = stack.enter_context(ParallelRuns(parallel, os.getcwd(), defs())) if parallel > 1 else None
            graph = materialise_graph(
                defs(),
                instance,
                on_partition=show,
                launch=launcher.launch,
                skip_current=not args.rerun,
                parallel=side_by_side,
            )
    except KeyboardInterrupt:
        if instance is not None:
            cancel_interrupted_runs(instance, invoked)
        print(
            "edgar-eval: interrupted; no further partition ran and no report was written "
            "(what was materialised before stays, each asset whole or not at all)",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    done = len(graph.partitions) - len(graph.failed_partitions)
    print(
        f"{done}/{len(graph.partitions)} filing partitions materialised ({len(graph.current_partitions)} already "
        f"current); whole graph in "
        f"{time.perf_counter() - started:.1f} s"
    )
    if not graph.evaluation_succeeded:
        print(f"evaluation FAILED: {graph.evaluation_error}", file=sys.stderr)
        return EXIT_EVALUATION_FAILED
    if graph.evaluation_current:
        print("evaluation current: a successful run made every asset from these inputs and all is stored (--rerun)")
    elif graph.evaluation_remade:
        remade, more = graph.evaluation_remade[:4], len(graph.evaluation_remade) - 4
        print(
            f"evaluation: made again {', '.join(remade)}{f' and {more} more' if more > 0 else ''}, as "
            f"{graph.evaluation_stale_because}; every other table was current and is as it was"
        )
    elif graph.evaluation_stale_because and graph.evaluation_stale_because.startswith(NEVER_MATERIALISED):
        # a first run, worded as the reason it is, not as a list that reads like a failure
        made = graph.evaluation_stale_because.removeprefix(NEVER_MATERIALISED).lstrip(": ")
        print(f"evaluation ran: its tables had not been made in this run history before ({made})")
    elif graph.evaluation_stale_because:
        print(f"evaluation ran: {graph.evaluation_stale_because}")
    print(f"report: {settings.report_dir() / 'report.md'}")
    baseline = generator.baseline_path(settings)
    if not graph.evaluation_current and not baseline.is_file():
        print(
            f"regression gate not applied: no baseline at {baseline} for this corpus and generator "
            "(`edgar-eval baseline` writes one from a run you trust)"
        )
    for line in _decision_lines(settings):
        print(line)
    # a command that works as printed: the venv's dagster, which is not on PATH unless the venv is activated
    print(
        f"run history and lineage: DAGSTER_HOME={shlex.quote(str(home))} {dagster_command()} dev  "
        "(then open http://127.0.0.1:3000)"
    )
    return EXIT_SOME_FILINGS_FAILED if graph.failed_partitions else 0


class _ProgressLines:
    """Prints each progress line a step logs while a service works (adapters/service_progress.py). A generator's line
    says the questions done and the seconds each took, not how many there are: for `generations`, about how long is
    left is added from the golden set's size (each question once, the determinism sample twice)."""

    def __init__(self, settings, generator) -> None:
        self.settings, self.generator = settings, generator
        self._asked: int | None = None

    def __call__(self, step: str, line: str) -> None:
        from edgar_eval.adapters.service_progress import counts_in, duration

        counts = counts_in(line)
        if counts is not None and step == "generations" and " left" not in line:
            asked = self.asked()
            if asked:
                done, failed, each = counts
                line += f", about {duration(max(0, asked - done - failed) * each)} left of about {asked}"
        print(f"  ...    {step}: {line}", flush=True)

    def asked(self) -> int:
        """How many questions `generations` asks: the golden set's, each once, and its determinism sample again (0
        while the golden set cannot be read)."""
        if self._asked is None:
            from edgar_eval.adapters.parquet_store import StoreError
            from edgar_eval.defs.answering.generations import DETERMINISM_SAMPLE

            try:
                questions = len(self.settings.store().read("golden_questions", columns=["question_id"]))
            except (StoreError, OSError):
                return 0
            self._asked = questions + min(DETERMINISM_SAMPLE, questions)
        return self._asked


def _decision_lines(settings) -> list[str]:
    """The protocol's decisions as the report states them, one line per hypothesis ("confirmatory" only where the run
    is the one the protocol registers); none where the stored comparisons hold none."""
    from edgar_eval.adapters.parquet_store import StoreError

    try:
        table = settings.store().read("arm_comparisons")
    except (StoreError, OSError):
        return []
    rows = table[table.hypothesis.astype(str) != ""] if "hypothesis" in table else table.iloc[0:0]
    return [
        f"{r.hypothesis} ({r.arm} - {r.baseline}, {r.status}{'' if r.status == 'confirmatory' else ' here'}): "
        f"{r.decision}"
        for r in rows.itertuples()
    ]


def _sync_partitions() -> int:
    """Add the configured corpus folder's filings to the instance as partitions (and drop those that left it)."""
    try:
        _ensure_dagster_home()  # first: it silences Dagster's notices before the graph's modules load
    except ValueError as exc:
        return _refused(exc)
    from dagster import DagsterInstance

    from edgar_eval.defs.corpus.partitions import sync_filings
    from edgar_eval.defs.settings import EvalSettings

    try:
        settings = EvalSettings.from_env()
        _check_corpus_folder(settings)
        with DagsterInstance.get() as instance:
            changes = sync_filings(instance, settings)
    except ValueError as exc:
        print(f"edgar-eval: {exc}", file=sys.stderr)
        return 2
    for key in changes.documents:
        print(key)
    return 0


def partitions(args: argparse.Namespace) -> int:
    _configure(args)
    return _sync_partitions()


def fetch(args: argparse.Namespace) -> int:
    from edgar_eval.adapters.edgar_client import fetch_filings

    try:
        result = fetch_filings(
            args.companies, args.forms, args.years or None, Path(args.cache), contact_email=args.email
        )
    except ValueError as exc:  # no contact email, or a request rate SEC does not allow
        print(f"fetch refused: {exc}", file=sys.stderr)
        return 2
    print(
        f"{len(result.downloaded)} downloaded, {len(result.reused)} already pinned and intact, into {result.cache_dir}"
    )
    for failure in result.failures:
        print(
            f"  FAILED {failure.subject} {failure.accession or ''} [{failure.kind}]: {failure.reason}", file=sys.stderr
        )
    if result.downloaded or result.reused:  # the fetched folder is a corpus: its filings become partitions
        os.environ[CORPUS_DIR_ENV] = str(Path(args.cache).resolve())
        print("partitions of this corpus in the run history:", file=sys.stderr)
        synced = _sync_partitions()
        return synced or (0 if result.ok else 1)
    return 0 if result.ok else 1


def baseline(args: argparse.Namespace) -> int:
    """Write the regression gate's baseline from the current arm_outcomes: do this only from a run you trust."""
    _configure(args)
    from edgar_eval.adapters.files import replace_file
    from edgar_eval.adapters.parquet_store import StoreError
    from edgar_eval.defs.settings import EvalSettings, GeneratorResource
    from edgar_eval.evaluation.regression_gate import baseline_json, dev_cases

    try:
        settings = EvalSettings.from_env()
        generator = GeneratorResource.from_env()
        generator.check()
        store = settings.store()
        cases = dev_cases(store.read("arm_outcomes"), store.read("golden_set"))
    except (ValueError, StoreError) as exc:  # a bad setting, or no run to write it from: one line
        print(f"edgar-eval: {exc}", file=sys.stderr)
        return 2
    path = generator.baseline_path(settings)
    changed = replace_file(path, baseline_json(cases).encode())
    print(f"{len(cases)} dev cases (question x arm) {'written to' if changed else 'unchanged in'} {path}")
    return 0


def trends(args: argparse.Namespace) -> int:
    """Write the trends page: each headline figure across the run history's runs, its interval as a band, each point
    coloured by the system its run measured (defs/report/trends.py)."""
    _configure(args)
    try:
        _ensure_dagster_home()
        from dagster import DagsterInstance

        from edgar_eval.defs.report.trends import write_trends
        from edgar_eval.defs.settings import EvalSettings

        settings = EvalSettings.from_env()
        with DagsterInstance.get() as instance:
            path, runs = write_trends(instance, settings, Path(args.out) if args.out else None)
    except (ValueError, OSError) as exc:  # a bad setting or folder: one line
        print(f"edgar-eval: {exc}", file=sys.stderr)
        return 2
    print(f"{runs} runs with figures of {settings.corpus_name!r} drawn in {path}")
    return 0


def gates(args: argparse.Namespace) -> int:
    """Fit the gates on every question of a stored run's corpus and freeze them in gates/<name>.json: the relevance
    model's coefficients and both thresholds, with the corpus's manifest sha256 and companies (evaluation.frozen_gates).
    Another corpus's run applies the file unchanged with the setting gates_file."""
    _configure(args)
    from edgar_eval.adapters.local_corpus import MANIFEST_FILE, read_manifest
    from edgar_eval.adapters.parquet_store import StoreError
    from edgar_eval.defs.settings import EvalSettings, project_home
    from edgar_eval.defs.statistics.pins import file_sha256
    from edgar_eval.domain.names import check_plain_name
    from edgar_eval.evaluation.frozen_gates import fit_frozen_gates, write_gates

    try:
        name = check_plain_name(args.out_name, "gates name")
        settings = EvalSettings.from_env()
        if settings.gates_file:
            raise ValueError("gates are fitted on a run whose own gates were fitted on its corpus (unset gates_file)")
        scores = settings.store().read("abstention_scores")
        manifest = file_sha256(Path(settings.corpus_dir) / MANIFEST_FILE)
        companies = {row.get("cik", "") for row in read_manifest(settings.corpus_dir).values()} - {""}
        fitted = fit_frozen_gates(scores, manifest, settings.corpus_name, companies)
    except (ValueError, StoreError) as exc:  # a bad setting, or no run to fit on: one line
        print(f"edgar-eval gates fit: {exc}", file=sys.stderr)
        return 2
    path = project_home() / "gates" / f"{name}.json"
    digest = write_gates(fitted, path)
    on = fitted["fitted_on"]
    print(
        f"gates fitted on {on['questions']} questions of {on['corpus']} ({len(on['companies'])} companies): {path} "
        f"(sha256 {digest}); apply them to other companies with gates_file = {name!r}"
    )
    return 0


def pins(args: argparse.Namespace) -> int:
    """Print what a run with these settings would be, by content, for a protocol's [pins] (v5): the corpus manifest's
    sha256, the generator, the code versions of the golden rules, the generations and the gates, the frozen gates
    file's sha256 and the settings' digest. Nothing is run."""
    _configure(args)
    import json

    from edgar_eval.definitions import defs
    from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource
    from edgar_eval.defs.statistics.pins import PinnedCode, run_pins

    try:
        settings = EvalSettings.from_env()
        generator = GeneratorResource.from_env()
        settings.check_gates()
    except ValueError as exc:
        print(f"edgar-eval pins: {exc}", file=sys.stderr)
        return 2
    code = PinnedCode.of(list(defs().get_repository_def().assets_defs_by_key.values()))
    for name, value in run_pins(settings, generator.kind, EmbedderResource.from_env(), code).items():
        print(f"{name} = {json.dumps(value)}")  # a TOML basic string, as [pins] holds it
    return 0


def readme(args: argparse.Namespace) -> int:
    """Rewrite the README's figures block from the committed reports, and the nightly cost estimate and the scale
    measurement of docs/deployment.md from the committed measurements."""
    import json

    from edgar_eval.adapters.files import replace_file
    from edgar_eval.defs.settings import project_home
    from edgar_eval.report import nightly_cost, scale
    from edgar_eval.report.readme import (
        COMMITTED_CORPORA,
        KINDS_END,
        KINDS_FROM,
        KINDS_START,
        readme_figures,
        readme_kinds,
        replace_block,
    )

    home = project_home()
    missing = [name for name in COMMITTED_CORPORA if not (home / "reports" / name / "report.md").is_file()]
    if missing:
        print(
            f"edgar-eval readme: no report for {', '.join(missing)} under {home / 'reports'}; "
            "the README's figures come from every committed corpus's report (run those corpora first)",
            file=sys.stderr,
        )
        return 1
    reports = {name: (home / "reports" / name / "report.md").read_text() for name in COMMITTED_CORPORA}
    target = home / "README.md"
    text = replace_block(target.read_text(), readme_figures(reports))
    text = replace_block(text, readme_kinds(reports[KINDS_FROM]), KINDS_START, KINDS_END)
    changed = replace_file(target, text.encode())
    measurement, scaled = home / "reports" / "nightly_cost.json", home / "reports" / "scale.json"
    if measurement.is_file():
        measured = nightly_cost.Measured.from_json(json.loads(measurement.read_text()))
        page = home / nightly_cost.PAGE
        text = replace_block(
            page.read_text(), nightly_cost.readme_block(measured), nightly_cost.START, nightly_cost.END
        )
        sources = f"{', '.join(sorted(reports))} and reports/nightly_cost.json"
        if scaled.is_file():
            runs = [scale.ScaleRun.from_json(run) for run in json.loads(scaled.read_text())]
            scoped = home / "reports" / "corpus_scope_cost.json"
            cost = scale.CorpusScopeCost.from_json(json.loads(scoped.read_text())) if scoped.is_file() else None
            text = replace_block(text, scale.readme_block(runs, measured, cost), scale.START, scale.END)
            sources += " and reports/scale.json" + (" and reports/corpus_scope_cost.json" if cost else "")
        changed = replace_file(page, text.encode()) or changed
    else:
        sources = f"{', '.join(sorted(reports))} (no reports/nightly_cost.json: the nightly cost left as it was)"
    print(f"README figures from {sources}: {'rewritten' if changed else 'unchanged'}")
    return 0


def compare(args: argparse.Namespace) -> int:
    """Two runs' reports folders compared (evaluation.run_comparison); the report to --out or stdout."""
    from edgar_eval.adapters.files import replace_file
    from edgar_eval.evaluation.run_comparison import (
        OUTCOMES_FILE,
        RECEIPT_FILE,
        ComparisonError,
        check_golden,
        compared_figures,
        pairing,
        read_run,
        receipt_differences,
    )
    from edgar_eval.report.comparison import comparison_markdown

    try:
        runs = []
        for folder in (Path(args.run_a), Path(args.run_b)):
            texts = []
            for name in (RECEIPT_FILE, OUTCOMES_FILE):
                try:
                    texts.append((folder / name).read_text(encoding="utf-8"))
                except OSError as exc:
                    raise ComparisonError(
                        f"{folder / name}: {exc.strerror or exc} (a run's reports folder holds both; "
                        "runs made before compare existed need one more run)"
                    ) from None
            runs.append(read_run(folder.as_posix(), *texts))  # named as given: two runs' folders may share a name
        first, second = runs
        golden_note = check_golden(first, second, args.allow_golden_change)
    except ComparisonError as exc:
        print(f"edgar-eval compare: {exc}", file=sys.stderr)
        return 2
    report = comparison_markdown(
        first,
        second,
        receipt_differences(first.receipt, second.receipt),
        pairing(first, second),
        golden_note,
        compared_figures(first, second),
    )
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        replace_file(out, report.encode())  # whole or not at all: an interrupted write keeps the previous report
        print(f"comparison: {out}")
    else:
        sys.stdout.write(report)
    return 0


def demo_corpus(args: argparse.Namespace) -> int:
    from edgar_eval.adapters.local_corpus import write_demo_corpus
    from edgar_eval.defs.run_checks import folder_problem
    from edgar_eval.synthetic.demo import COMPANIES, FILINGS_PER_COMPANY, companies_for

    companies = len(COMPANIES) if args.filings is None else companies_for(args.filings)
    problem = folder_problem(Path(args.folder))
    if problem:
        print(f"edgar-eval demo-corpus: {args.folder} {problem}", file=sys.stderr)
        return EXIT_REFUSED
    written = write_demo_corpus(args.folder, companies)
    what = f"{companies * FILINGS_PER_COMPANY + 1} filings of {companies} companies"
    print(
        f"{what}: {len(written)} files written to {args.folder}"
        if written
        else f"{what}: {args.folder} is already up to date"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="edgar-eval", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser(
        "run",
        help="materialise every asset: one corpus run per filing, then the evaluation",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    partitions_parser = commands.add_parser(
        "partitions", help="add the corpus folder's filings to the run history as partitions; print their keys"
    )
    baseline_parser = commands.add_parser(
        "baseline", help="write the regression gate's baseline (baselines/<corpus>/<generator>.json) from the last run"
    )
    gates_parser = commands.add_parser(
        "gates",
        help="fit the gates on every question of the corpus's last run and freeze them in gates/<name>.json, for runs "
        "on other companies (setting gates_file)",
    )
    gates_parser.add_argument("out_name", metavar="NAME", help="the file's name under gates/, such as edgar-wide-v1")
    pins_parser = commands.add_parser(
        "pins", help="print what a run with these settings is, by content, as a protocol's [pins] read it"
    )
    pins_parser.add_argument(
        "--settings",
        metavar="TOML",
        help=f"a file of run parameters named as the settings are (env {SETTINGS_FILE_ENV})",
    )
    trends_parser = commands.add_parser(
        "trends",
        help="write reports/<corpus>/trends.html from the run history: each headline figure across runs, its interval "
        "as a band, each point coloured by its system (corpus, generator, settings digest)",
    )
    trends_parser.add_argument("--out", help="write the page here instead")
    for sub in (run_parser, partitions_parser, baseline_parser, gates_parser, pins_parser, trends_parser):
        sub.add_argument(
            "--corpus", help=f"folder of EDGAR .htm filings (default: the demo corpus; env {CORPUS_DIR_ENV})"
        )
        sub.add_argument(
            "--name",
            help=f"corpus name for data/ and reports/ (default: the folder name; env {CORPUS_NAME_ENV}); a report "
            "folder whose receipt.json names other filings is refused, never written over",
        )
    run_parser.add_argument(
        "--settings",
        metavar="TOML",
        help="a file of run parameters named as the settings are, such as chunk_size = 600 (env "
        f"{SETTINGS_FILE_ENV}); pair it with EDGAR_EVAL_DATA and EDGAR_EVAL_REPORTS to keep the run beside others",
    )
    run_parser.add_argument(
        "--rerun",
        action="store_true",
        help="launch every run, even one whose work a successful run already did from the same inputs",
    )
    run_parser.add_argument(
        "--parallel",
        type=int,
        metavar="N",
        help="filing partitions' runs at once, each in a process of its own: as many as the deployment has workers "
        f"(Celery, Kubernetes) or cores to spare (default 1; env {PARALLEL_ENV})",
    )
    run_parser.add_argument(
        "--proposals",
        nargs="+",
        metavar="JSONL",
        help=f"golden-question proposals to run through the ten admission gates (env {PROPOSALS_ENV})",
    )
    fetch_parser = commands.add_parser(
        "fetch", help="download EDGAR filings into a pinned cache folder usable as a corpus"
    )
    fetch_parser.add_argument("companies", nargs="+", help="tickers or CIKs")
    fetch_parser.add_argument(
        "--forms", nargs="+", default=["10-K", "10-Q"], help="forms to fetch (default: 10-K 10-Q)"
    )
    fetch_parser.add_argument("--years", nargs="*", type=int, help="fiscal years (default: every recent filing)")
    fetch_parser.add_argument("--cache", default="data/edgar_cache", help="cache folder (default: data/edgar_cache)")
    fetch_parser.add_argument(
        "--email", help="contact email for SEC's User-Agent (or env EDGAR_EVAL_CONTACT_EMAIL); required"
    )
    compare_parser = commands.add_parser(
        "compare",
        help="compare two runs, question by question, from their reports folders (receipt.json and outcomes.json)",
    )
    compare_parser.add_argument("run_a", help="the first run's reports folder, such as reports/edgar")
    compare_parser.add_argument("run_b", help="the second run's reports folder")
    compare_parser.add_argument(
        "--allow-golden-change",
        action="store_true",
        help="compare runs on different golden versions (as two chunkings are), pairing the questions set with the "
        "same gold in both",
    )
    compare_parser.add_argument("--out", help="write the comparison report here (default: print it)")
    commands.add_parser(
        "readme",
        help="rewrite the README's figures block and docs/deployment.md's nightly cost from the committed reports",
    )
    demo_parser = commands.add_parser("demo-corpus", help="write the generated demo corpus into a folder")
    demo_parser.add_argument("folder")
    demo_parser.add_argument(
        "--filings",
        type=int,
        help="a synthetic corpus of about this many filings (the demo's companies, then copies of them under names of "
        "their own, five filings each), for measuring scale",
    )
    return parser


def supervised_run(argv: list[str], command: list[str] | None = None) -> int:
    """`edgar-eval run` from a terminal: the work is done by a worker process in a session of its own, so a terminal's
    Ctrl-C (sent to its foreground process group) reaches this process alone, never the worker's children (Dagster's
    step processes and fork server, the compute-log mirrors `tail -F` and `watch_orphans.py`, a filing's run process),
    which died of it printing tracebacks. The first Ctrl-C is passed to the worker alone, which stops its runs as
    before (recorded canceled, exit 130); a second Ctrl-C, or SIGTERM, ends the worker's whole session at once (SIGKILL)
    and records canceled the runs it left unfinished. The worker writes to the same terminal. Its exit code is this
    process's; killed, 130. `command`: the worker's (default: this CLI again, with `argv`)."""
    pending: list[int] = []  # signals heard before the worker was started, passed on once it is
    worker: subprocess.Popen | None = None
    heard = [0]

    def on_signal(signum: int, _frame: object) -> None:
        if worker is None:
            pending.append(signum)
            return
        heard[0] += 1
        if heard[0] == 1 and signum == signal.SIGINT:
            os.kill(worker.pid, signal.SIGINT)  # the worker alone: it stops its runs and steps itself
        else:
            try:
                os.killpg(worker.pid, signal.SIGKILL)  # its session's group: every process it started
            except ProcessLookupError:
                pass

    previous = {signum: signal.signal(signum, on_signal) for signum in (signal.SIGINT, signal.SIGTERM)}
    started = datetime.datetime.now(datetime.timezone.utc)
    try:
        worker = subprocess.Popen(
            command or [sys.executable, "-m", "edgar_eval", *argv],
            env={**os.environ, RUN_WORKER_ENV: str(os.getpid())},
            start_new_session=True,
        )
        for signum in pending:  # heard while the worker was being started
            on_signal(signum, None)
        code = worker.wait()  # a handled signal does not end the wait: Python retries it (PEP 475)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if code >= 0:
        return code
    # killed: a second Ctrl-C or SIGTERM; the runs its processes left unfinished are recorded canceled
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a third Ctrl-C while they are recorded changes nothing
    ended = _cancel_runs_left_by_a_killed_worker(started)
    print(
        f"edgar-eval: interrupted again: stopped at once ({ended} run(s) left unfinished recorded canceled); no report "
        "was written (what was materialised before stays, each asset whole or not at all)",
        file=sys.stderr,
    )
    return EXIT_INTERRUPTED


def die_with_the_supervisor(supervisor: int, every: float = 0.2) -> None:
    """In the worker: once the process that started it is gone (SIGKILLed, as a CI job's timeout or `kill -9` of the
    terminal's job does), end the worker's whole session at once, as that kill ended every process of the CLI before
    the worker had a session of its own; what was materialised stays, the runs are ended by the next `edgar-eval run`
    (their process is gone)."""

    def watch() -> None:
        while os.getppid() == supervisor:
            time.sleep(every)
        os.killpg(0, signal.SIGKILL)  # this process's group: the worker, its fork server, step processes and mirrors

    threading.Thread(target=watch, name="supervisor-watch", daemon=True).start()


def _cancel_runs_left_by_a_killed_worker(since: datetime.datetime) -> int:
    """Record canceled the runs a killed worker created since `since` and left unfinished; how many (0 when the run
    history cannot be opened: the next `edgar-eval run` ends them, as it ends every run whose process is gone)."""
    try:
        _ensure_dagster_home()
        from dagster import DagsterInstance

        from edgar_eval.defs.runner import cancel_runs_of_gone_processes

        with DagsterInstance.get() as instance:
            return len(cancel_runs_of_gone_processes(instance, since))
    except Exception:  # noqa: BLE001 - the interrupt's exit must not depend on the run history
        return 0


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["run"] and not os.environ.get(RUN_WORKER_ENV):
        # started from a shell (the console script or `python -m edgar_eval`); a test's main([...]) runs in process
        if "-h" not in sys.argv and "--help" not in sys.argv:
            return supervised_run(sys.argv[1:])
    args = build_parser().parse_args(argv)
    return {
        "run": run,
        "partitions": partitions,
        "baseline": baseline,
        "gates": gates,
        "pins": pins,
        "trends": trends,
        "readme": readme,
        "compare": compare,
        "fetch": fetch,
        "demo-corpus": demo_corpus,
    }[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
