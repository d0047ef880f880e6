"""The command line as a user meets it, run as a subprocess: bad input gets one clear line and a non-zero exit, no
traceback; Ctrl-C stops the run with exit 130, runs no further partition and writes no report."""

import contextlib
import datetime
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, cast

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import write_demo_corpus

pytestmark = [
    pytest.mark.slow(minutes=2),  # whole-graph runs: scheduled with the longest first
    pytest.mark.integration,
]

PROJECT = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path):
    """A project home of its own (data/, reports/, run history), with the protocols a run reads."""
    shutil.copytree(PROJECT / "protocol", tmp_path / "protocol")
    return tmp_path


def _cli(home: Path, *args: str, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "EDGAR_EVAL_HOME": str(home),
        "DAGSTER_HOME": str(home / ".dagster_home"),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "edgar_eval", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
        cwd=home,
    )


def _one_line_no_traceback(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_a_missing_folder_is_refused_in_one_line(home):
    result = _cli(home, "run", "--corpus", str(home / "nowhere"), "--name", "x")
    assert result.returncode == 2
    assert (
        _one_line_no_traceback(result)
        == f"edgar-eval: corpus folder {home / 'nowhere'} (--corpus, EDGAR_EVAL_CORPUS_DIR) does not exist"
    )


def test_an_empty_folder_is_refused_in_one_line(home):
    (home / "empty").mkdir()
    (home / "empty" / "notes.txt").write_text("no filing here")
    result = _cli(home, "run", "--corpus", str(home / "empty"), "--name", "x")
    assert result.returncode == 2
    assert (
        _one_line_no_traceback(result)
        == f"edgar-eval: corpus folder {home / 'empty'} (--corpus, EDGAR_EVAL_CORPUS_DIR) holds no .htm filing"
    )


def test_a_corpus_of_garbage_fails_each_filing_for_its_own_reason_and_evaluates_nothing(home):
    garbage = home / "garbage"
    garbage.mkdir()
    (garbage / "binary.htm").write_bytes(b"\x00\x01\x02 not a document")
    (garbage / "prose.htm").write_text("A letter to shareholders, in plain text, with no markup at all.\n")
    (garbage / "cut.htm").write_text("<html><body><p>Revenue was $1.2 billion and")
    result = _cli(home, "run", "--corpus", str(garbage), "--name", "garbage")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    assert "binary: FilingError: binary content" in result.stdout
    assert "prose: FilingError: not an HTML document" in result.stdout  # plain text is not called truncated
    assert "cut: FilingError: truncated document" in result.stdout
    assert (
        _one_line_no_traceback(result)
        == "evaluation FAILED: none of the 3 filings could be materialised; the evaluation did not run"
    )
    assert not (home / "reports" / "garbage").exists()


@pytest.mark.parametrize(
    "variable,value,expected",
    [
        (
            "EDGAR_EVAL_GENERATOR",
            "tabel-reader",
            "edgar-eval: unknown generator 'tabel-reader' (EDGAR_EVAL_GENERATOR); choose one of extractive, "
            "table-reader, eager-reader, composing-reader, openai-compatible-chat, external-rag",
        ),
        (
            "EDGAR_EVAL_EMBEDDER",
            "minlm",
            "edgar-eval: unknown embedder 'minlm' (EDGAR_EVAL_EMBEDDER); choose one of minilm, openai-compatible",
        ),
        (
            "EDGAR_EVAL_PARALLEL_RUNS",
            "two",
            "edgar-eval: EDGAR_EVAL_PARALLEL_RUNS must be a whole number of runs, got 'two'",
        ),
        (
            "EDGAR_EVAL_TAPE",
            "replya",
            "edgar-eval: unknown tape_mode 'replya' (EDGAR_EVAL_TAPE); choose one of off, record, replay, fill",
        ),
    ],
)
def test_a_misspelled_setting_is_refused_before_any_partition_runs(home, variable, value, expected):
    result = _cli(home, "run", env={variable: value})
    assert result.returncode == 2
    assert _one_line_no_traceback(result) == expected
    assert not (home / "data" / "demo" / "filings").exists()  # nothing ran


@pytest.mark.parametrize(
    "arguments,variables",
    [
        (("--name", "../../escape"), {}),
        ((), {"EDGAR_EVAL_CORPUS_NAME": "../../escape"}),
    ],
    ids=["--name", "EDGAR_EVAL_CORPUS_NAME"],
)
def test_a_name_that_leaves_the_data_and_reports_folders_is_refused_before_any_work(home, arguments, variables):
    corpus = home / "corpus"
    write_demo_corpus(str(corpus / "filings"))
    result = _cli(home, "run", "--corpus", str(corpus / "filings"), *arguments, env=variables)
    assert result.returncode == 2
    assert _one_line_no_traceback(result) == (
        "edgar-eval: --name (EDGAR_EVAL_CORPUS_NAME) '../../escape' is not a plain folder name (letters, digits, '-', "
        "'_' and '.', a dot not first)"
    )
    assert not (home / "data").exists() and not (home / "reports").exists()
    assert not (home.parent.parent / "escape").exists() and not (home.parent / "escape").exists()


@pytest.mark.parametrize(
    "arguments,variables,expected",
    [
        # /proc refuses new folders: a path no machine has (a CI image may well have /nonexistent)
        (
            (),
            {"EDGAR_EVAL_HOME": "/proc/no-such-edgar-home"},
            "edgar-eval: EDGAR_EVAL_HOME=/proc/no-such-edgar-home is not a folder",
        ),
        ((), {"DAGSTER_HOME": "/proc/no-such-home"}, "edgar-eval: DAGSTER_HOME=/proc/no-such-home: No such file"),
        ((), {"EDGAR_EVAL_EXECUTOR": "bogus"}, "edgar-eval: unknown EDGAR_EVAL_EXECUTOR 'bogus'; choose one of"),
        ((), {"EDGAR_EVAL_DATA": "nosuch://bucket/data"}, "edgar-eval: EDGAR_EVAL_DATA='nosuch://bucket/data' is not"),
        ((), {"EDGAR_EVAL_REPORTS": "nosuch://bucket/r"}, "edgar-eval: EDGAR_EVAL_REPORTS='nosuch://bucket/r' is not"),
        (("--proposals", "/no/such.jsonl"), {}, "edgar-eval: proposals file /no/such.jsonl (--proposals, "),
        (
            (),
            {"EDGAR_EVAL_EMBEDDER": "openai-compatible"},
            "edgar-eval: EDGAR_EVAL_EMBEDDER=openai-compatible needs EDGAR_EVAL_EMBEDDINGS_MODEL and "
            "EDGAR_EVAL_EMBEDDINGS_BASE_URL set",
        ),
        (
            (),
            {"EDGAR_EVAL_GENERATOR": "openai-compatible-chat", "EDGAR_EVAL_GENERATOR_URL": "http://127.0.0.1:9"},
            "edgar-eval: EDGAR_EVAL_GENERATOR=openai-compatible-chat needs EDGAR_EVAL_GENERATOR_MODEL set",
        ),
        (("--parallel", "0"), {}, "edgar-eval: --parallel (EDGAR_EVAL_PARALLEL_RUNS) must be at least 1 run at once"),
        ((), {"EDGAR_EVAL_MAX_CONCURRENT": "-1"}, "edgar-eval: EDGAR_EVAL_MAX_CONCURRENT must be 0"),
        ((), {"EDGAR_EVAL_ROLE": "nobody"}, "edgar-eval: EDGAR_EVAL_ROLE 'nobody': corpus 'demo' has no access policy"),
        ((), {"EDGAR_EVAL_ROLE": "../up"}, "edgar-eval: EDGAR_EVAL_ROLE '../up' is not a plain folder name"),
        (
            (),
            {"EDGAR_EVAL_REPORTS": "/proc/edgar-reports"},
            "edgar-eval: EDGAR_EVAL_REPORTS='/proc/edgar-reports': nothing",
        ),
        ((), {"EDGAR_EVAL_DATA": "/proc/edgar-data"}, "edgar-eval: EDGAR_EVAL_DATA='/proc/edgar-data': nothing can be"),
        ((), {"EDGAR_EVAL_GENERATOR_TIMEOUT": "soon"}, "edgar-eval: EDGAR_EVAL_GENERATOR_TIMEOUT must be a number of"),
        ((), {"EDGAR_EVAL_GENERATOR_TIMEOUT": "0"}, "edgar-eval: EDGAR_EVAL_GENERATOR_TIMEOUT must be more than 0"),
        ((), {"EDGAR_EVAL_GENERATOR_ATTEMPTS": "0"}, "edgar-eval: EDGAR_EVAL_GENERATOR_ATTEMPTS must be at least 1"),
        ((), {"EDGAR_EVAL_GENERATOR_ATTEMPTS": "x"}, "edgar-eval: EDGAR_EVAL_GENERATOR_ATTEMPTS must be a whole"),
    ],
    ids=lambda value: next(iter(value), "") if isinstance(value, (tuple, dict)) else None,
)
def test_every_refusal_names_the_setting_or_flag_it_refuses(home, arguments, variables, expected):
    result = _cli(home, "run", *arguments, env=variables)
    assert result.returncode == 2
    assert _one_line_no_traceback(result).startswith(expected)
    assert not (home / "data").exists(), "refused before any work: not even the demo corpus is written"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("chunk_sizes = 600\n", "chunk_sizes is not a run parameter"),
        ("data_dir = '/elsewhere'\n", "data_dir is not a run parameter (locations have their own options)"),
        ("chunk_size = 'big'\n", "settings chunk_size: Input should be a valid integer"),
        ("chunk_size = 600\nchunk_overlap = 600\n", "need chunk_size > chunk_overlap"),
        ("chunk_size = \n", "is not TOML"),
        (None, "No such file or directory"),
    ],
    ids=["unknown key", "a location", "wrong type", "a bad combination", "not TOML", "missing"],
)
def test_a_bad_settings_file_is_refused_in_one_line_before_any_partition_runs(home, content, expected):
    settings = home / "experiment.toml"
    if content is not None:
        settings.write_text(content)
    result = _cli(home, "run", "--settings", str(settings))
    assert result.returncode == 2
    line = _one_line_no_traceback(result)
    assert line.startswith("edgar-eval: ") and expected in line
    assert not (home / "data" / "demo" / "filings").exists()


def test_a_settings_file_sets_the_runs_parameters(monkeypatch, tmp_path):
    from edgar_eval.defs.settings import SETTINGS_FILE_ENV, EvalSettings

    (tmp_path / "experiment.toml").write_text("chunk_size = 600\nchunk_overlap = 100\nsearch_scopes = ['corpus']\n")
    monkeypatch.setenv(SETTINGS_FILE_ENV, str(tmp_path / "experiment.toml"))
    settings = EvalSettings.from_env()
    assert (settings.chunk_size, settings.chunk_overlap, settings.search_scopes) == (600, 100, ["corpus"])
    assert settings.fingerprint("e").chunk_size == 600, "the index is built, and checked, at the file's size"


@pytest.mark.parametrize("side_by_side", [(), ("--parallel", "2")], ids=["one run at a time", "two at once"])
def test_ctrl_c_stops_the_run_writes_no_report_and_exits_130(home, side_by_side):
    corpus = home / "corpus"
    write_demo_corpus(str(corpus))
    environment = {**os.environ, "EDGAR_EVAL_HOME": str(home), "DAGSTER_HOME": str(home / ".dagster_home")}
    # As in a terminal's foreground: a shell running this suite in the background (CI) ignores SIGINT, and a child
    # inherits that, so the child gets back the default disposition first.
    process = subprocess.Popen(
        [sys.executable, "-m", "edgar_eval", "run", "--corpus", str(corpus), "--name", "stopped", *side_by_side],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=home,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen = []
    for line in cast(IO[str], process.stdout):  # wait for the first partition, then press Ctrl-C
        seen.append(line)
        if line.strip().startswith("ok"):
            process.send_signal(signal.SIGINT)
            break
    out, err = process.communicate(timeout=300)
    seen.extend(out.splitlines(keepends=True))
    assert process.returncode == 130, err
    assert "edgar-eval: interrupted; no further partition ran and no report was written" in err
    finished = [line for line in seen if line.strip().startswith(("ok", "FAILED"))]
    assert len(finished) < 16, "the run carried on after Ctrl-C"
    assert not (home / "reports" / "stopped").exists()
    assert (home / "data" / "stopped" / "filings").is_dir()  # what was materialised before stays
    with dg.DagsterInstance.from_config(str(home / ".dagster_home")) as instance:
        unfinished = [run.tags.get("dagster/partition") for run in instance.get_runs() if not run.is_finished]
        failed = [run.tags.get("dagster/partition") for run in instance.get_runs() if run.is_failure]
    assert unfinished == [], "a run was left going or never ended"
    assert failed == [], "a run Ctrl-C stopped is recorded as canceled, not failed"
    assert "Traceback" not in err, err


def test_a_corpus_with_one_unreadable_filing_reports_the_rest_and_exits_3(home):
    corpus = home / "corpus"
    write_demo_corpus(str(corpus))
    (corpus / "cut.htm").write_text("<html><body><p>Revenue was $1.2 billion and")
    result = _cli(home, "run", "--corpus", str(corpus), "--name", "partial", timeout=900)
    assert result.returncode == 3, result.stderr[-2000:]
    failed = [line for line in result.stdout.splitlines() if line.startswith("  FAILED")]
    assert failed and failed[0].startswith("  FAILED  cut: FilingError: truncated document"), failed  # key said once
    assert failed[0].endswith("/17, +" + failed[0].rsplit("+", 1)[1]) and "cut: cut:" not in failed[0], failed
    counted = [line.rsplit("[", 1)[1].split(",")[0] for line in result.stdout.splitlines() if line.startswith("  ok")]
    assert len(counted) == 16 and all(count.endswith("/17") for count in counted), "each filing's line counts it"
    assert "evaluation ran: its tables had not been made in this run history before (" in result.stdout
    assert "16/17 filing partitions materialised" in result.stdout
    shown = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("  done   ")]
    assert "report" in shown and len(shown) == len(set(shown)), "each evaluation step once, as it finishes"
    report = (home / "reports" / "partial" / "report.md").read_text()
    left_out = next(line for line in report.splitlines() if line.startswith("- Filings left out of this run: cut ("))
    # the report says why, as the run printed it: the parse error, not the filing's absence
    assert left_out.startswith("- Filings left out of this run: cut (its last corpus run failed: ")
    assert "FilingError: truncated document" in left_out, left_out


def test_a_report_of_your_own_corpus_leaves_the_readme_alone(home):
    from edgar_eval.report.readme import COMMITTED_CORPORA

    for name in COMMITTED_CORPORA:
        shutil.copytree(PROJECT / "reports" / name, home / "reports" / name)
    shutil.copy(PROJECT / "reports" / "nightly_cost.json", home / "reports" / "nightly_cost.json")
    shutil.copy(PROJECT / "README.md", home / "README.md")
    (home / "docs").mkdir()
    shutil.copy(PROJECT / "docs" / "deployment.md", home / "docs" / "deployment.md")  # its nightly cost block
    (home / "reports" / "mine").mkdir()
    (home / "reports" / "mine" / "report.md").write_text(
        "# edgar-eval report: mine\n\nnot one of the committed corpora\n"
    )
    result = _cli(home, "readme")
    said = result.stdout + result.stderr
    sources = "from demo, edgar, edgar-wide and reports/nightly_cost.json"
    assert result.returncode == 0 and f"{sources}: unchanged" in said, said
    assert (home / "README.md").read_bytes() == (PROJECT / "README.md").read_bytes()
    assert (home / "docs" / "deployment.md").read_bytes() == (PROJECT / "docs" / "deployment.md").read_bytes()


def test_readme_without_a_committed_report_says_which_is_missing(home):
    shutil.copytree(PROJECT / "reports" / "demo", home / "reports" / "demo")
    shutil.copy(PROJECT / "README.md", home / "README.md")
    result = _cli(home, "readme")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "no report for edgar, edgar-wide" in result.stderr, result.stderr
    assert (home / "README.md").read_bytes() == (PROJECT / "README.md").read_bytes()


def test_an_interrupt_that_a_handler_swallows_is_still_seen():
    """Dagster's handler records a Ctrl-C that comes after a run's last step and then forgets it; the watch sees it."""
    from edgar_eval.defs.runner import InterruptWatch

    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)  # a handler that swallows it, as Dagster's does
    watch = InterruptWatch()
    try:
        assert not watch.arrived()
        os.kill(os.getpid(), signal.SIGINT)
        assert watch.arrived()
        assert not watch.arrived()  # read once
    finally:
        watch.close()
        signal.signal(signal.SIGINT, previous)


def test_partitions_adds_the_folders_filings_to_the_run_history(home):
    import dagster as dg

    result = _cli(home, "partitions")
    assert result.returncode == 0, result.stderr
    keys = result.stdout.split()
    assert len(keys) == 16 and keys == sorted(keys)
    with dg.DagsterInstance.from_config(str(home / ".dagster_home")) as instance:
        assert instance.get_dynamic_partitions("filings") == keys
    empty = home / "empty"
    empty.mkdir()
    refused = _cli(home, "partitions", "--corpus", str(empty), "--name", "x")
    assert refused.returncode == 2
    assert (
        _one_line_no_traceback(refused)
        == f"edgar-eval: corpus folder {empty} (--corpus, EDGAR_EVAL_CORPUS_DIR) holds no .htm filing"
    )


def test_a_new_run_history_echoes_no_step_worker_debug_lines_and_keeps_every_event(tmp_path, monkeypatch):
    """The step worker's start is logged through the instance's Python log level (Dagster's context-free log
    manager), not the run's console logger: the home the CLI makes sets it to INFO, so the console logger drops the
    DEBUG line while the event log keeps every Dagster event and every message an asset logs at INFO."""
    import logging

    from dagster._loggers import default_system_loggers

    from edgar_eval.cli import _ensure_dagster_home

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    _ensure_dagster_home()

    @dg.asset
    def noted(context: dg.AssetExecutionContext) -> int:
        context.log.info("an asset's own message")
        return 1

    with dg.DagsterInstance.from_config(str(tmp_path / "home")) as instance:
        assert instance.python_log_level == "INFO"
        console = default_system_loggers(instance)[0][1]
        assert logging.getLevelName(str(console["log_level"])) > logging.DEBUG, (
            "the step worker's DEBUG line is dropped"
        )
        result = dg.materialize([noted], instance=instance)
        logs = instance.all_logs(result.run_id)
    assert "an asset's own message" in [entry.user_message for entry in logs]
    stored = {entry.dagster_event.event_type_value for entry in logs if entry.dagster_event is not None}
    assert {"STEP_START", "ASSET_MATERIALIZATION", "STEP_SUCCESS", "PIPELINE_SUCCESS"} <= stored, (
        "DEBUG events are kept"
    )


def test_demo_corpus_writes_a_synthetic_corpus_of_about_the_filings_asked(home):
    result = _cli(home, "demo-corpus", str(home / "scaled"), "--filings", "30")
    assert result.returncode == 0 and "31 filings of 6 companies: 33 files written" in result.stdout, result.stderr
    assert len(list((home / "scaled").rglob("*.htm"))) == 31
    again = _cli(home, "demo-corpus", str(home / "scaled"), "--filings", "30")
    assert "is already up to date" in again.stdout


def _interrupted(
    home: Path, corpus: Path, phase: str, delay: float, second: int | None = None
) -> tuple[int, float, str]:
    """Start `edgar-eval run` as a terminal's foreground job (a session and process group of its own), wait for the
    phase (corpus: its `corpus` line; evaluation: the last filing's line), `delay` seconds more, then Ctrl-C the whole
    group as a terminal does; `second`: half a second later send the CLI that signal too. Its exit code, the seconds
    from the first signal to its exit, and all it printed."""
    environment = {**os.environ, "EDGAR_EVAL_HOME": str(home), "DAGSTER_HOME": str(home / ".dagster_home")}
    process = subprocess.Popen(
        [sys.executable, "-m", "edgar_eval", "run", "--corpus", str(corpus), "--name", "stopped"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
        cwd=home,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen: list[str] = []
    lines = iter(cast(IO[str], process.stdout))
    for line in lines:
        seen.append(line)
        started = line.startswith("corpus '") if phase == "corpus" else "[16/16," in line
        if started:
            break
    # The delay counts from the phase's first finished work, as the CLI prints it (a filing's run: `  ok`; an
    # evaluation step: `  done`), not from the phase's first line: on a busy machine the first run may come seconds
    # later, and a signal before it tests nothing of the runs. Read from the output, not the run history, which the
    # CLI is writing.
    for line in lines:
        seen.append(line)
        if line.startswith("  ok " if phase == "corpus" else "  done "):
            break
    time.sleep(delay)
    signalled = time.monotonic()
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        if second is not None:
            time.sleep(0.5)
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, second)
    try:
        out, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        raise AssertionError(f"{phase} + {delay} s: still going 60 s after Ctrl-C:\n{''.join(seen)}{out}") from None
    return process.returncode, time.monotonic() - signalled, "".join(seen) + out


def test_ctrl_c_of_the_terminal_at_any_moment_of_either_phase_ends_cleanly(home):
    """Issue 59: a terminal's Ctrl-C (SIGINT to the whole process group) at several moments of the corpus phase (cold
    partitions' runs in the CLI's process) and of the evaluation (the multiprocess executor's step processes): each
    time exit 130 within seconds, no traceback from any process (the compute-log mirrors, the fork server and the
    step processes are out of the terminal's process group), and every run it created recorded canceled or
    successful; a second Ctrl-C, or a SIGTERM, soon after the first ends it as cleanly."""
    corpus = home / "corpus"
    write_demo_corpus(str(corpus))
    trials = [("corpus", 2.0, None), ("corpus", 6.0, None), ("corpus", 12.0, signal.SIGTERM)]
    trials += [("evaluation", 1.0, None), ("evaluation", 5.0, None), ("evaluation", 12.0, None)]
    trials += [("evaluation", 3.0, signal.SIGINT)]
    for phase, delay, second in trials:
        since = datetime.datetime.now(datetime.timezone.utc)
        code, seconds, said = _interrupted(home, corpus, phase, delay, second)
        what = f"{phase} + {delay} s{' and a second signal' if second else ''}"
        assert code == 130, f"{what}: exit {code}\n{said[-3000:]}"
        assert "Traceback" not in said, f"{what}: a traceback\n{said}"
        assert seconds < 30, f"{what}: {seconds:.0f} s to exit"
        with dg.DagsterInstance.from_config(str(home / ".dagster_home")) as instance:
            statuses = [run.status for run in instance.get_runs(dg.RunsFilter(created_after=since))]
        assert statuses, f"{what}: no run was created"
        assert set(statuses) <= {dg.DagsterRunStatus.CANCELED, dg.DagsterRunStatus.SUCCESS}, f"{what}: {statuses}"
