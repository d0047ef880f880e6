"""Every command of the benchmark list (docs/benchmarks.md) runs: each bench script as a subprocess, on the demo corpus
and with small parameters, exits 0 and prints its figures. The list is read from the page's ```bash block, so a bench
added there is run here too, and fails until it has a smoke case below. The figures themselves are not judged (speed
on two shared cores says nothing); only that each script still runs end to end and prints them.

The benches that read a materialised store or a run history get one cold `edgar-eval run` of the demo corpus, made
once for the module in a project home of its own."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from edgar_eval.adapters.local_corpus import list_filings, write_demo_corpus
from edgar_eval.report.scale import CorpusScopeCost
from edgar_eval_tests.services import project_copy

pytestmark = [
    pytest.mark.slow(minutes=5),  # cold demo runs: a store, one by bench/deployments.py, one and its re-runs by scale
    pytest.mark.integration,
]

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "docs" / "benchmarks.md"  # the benchmark list: one ```bash block, a bench script per line
SCRIPT = re.compile(r"\bbench/([a-z0-9_]+)\.py\b")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


@functools.cache
def listed_benches() -> dict[str, str]:
    """Script name -> its command line (the comment left off), for every command of docs/benchmarks.md's block."""
    block = re.search(r"```bash\n(.*?)```", BENCHMARKS.read_text(), re.S)
    assert block, "docs/benchmarks.md has no ```bash block"
    commands: dict[str, str] = {}
    for line in block.group(1).splitlines():
        command = re.split(r"\s#\s", line, maxsplit=1)[0].strip()
        if not command:
            continue
        scripts = SCRIPT.findall(command)
        assert len(scripts) == 1, f"a benchmark line should run one bench script: {line!r}"
        assert scripts[0] not in commands, f"bench/{scripts[0]}.py is listed twice"
        commands[scripts[0]] = command
    return commands


@dataclass
class Inputs:
    """What the benches read: the demo corpus, and (once a case needs it) a cold run's project home."""

    corpus: Path  # the demo corpus folder
    scratch: Path  # a folder for what a bench writes
    home: Path | None = None  # EDGAR_EVAL_HOME of a cold `edgar-eval run` over `corpus` (name "demo")

    @property
    def store(self) -> Path:
        assert self.home is not None
        return self.home / "data" / "demo"

    @property
    def dagster_home(self) -> Path:
        assert self.home is not None
        return self.home / ".dagster_home"


@dataclass
class Smoke:
    """One small run of a bench: its arguments, the lines it must print (regular expressions, each searched in its
    stdout, multi-line), and what it needs."""

    args: Callable[[Inputs], list[str]]
    printed: tuple[str, ...]
    cold_run: bool = False  # reads the store or the run history of a cold demo run
    env: Callable[[Inputs], dict[str, str]] = lambda inputs: {}
    # module -> more lines it must print when that module is importable (an optional package: the bench extra)
    printed_if: dict[str, tuple[str, ...]] = field(default_factory=dict)
    check: Callable[[Inputs], None] = lambda inputs: None  # after the run: what it wrote


def _corpus_scope_cost_written(inputs: Inputs) -> None:
    """What the corpus-scope bench wrote is what the night on paper reads: both sizes, and a fit of them."""
    cost = CorpusScopeCost.from_json(json.loads((inputs.scratch / "corpus_scope_cost.json").read_text()))
    assert [size["copies"] for size in cost.sizes] == [1, 2] and cost.sizes[1]["chunks"] == 2 * cost.chunks
    assert cost.fit() is not None and cost.questions_timed == 5 and cost.fair_questions >= 5


def _candidates(inputs: Inputs) -> Path:
    """One hand-written candidate in the shape of ../shared/golden/real_candidates.jsonl, quoting a demo filing."""
    first = sorted(list_filings(inputs.corpus).values())[0]
    path = inputs.scratch / "candidates.jsonl"
    record = {
        "id": "SMOKE-0001",
        "pattern": "D1",
        "question": "What did the company report, and why?",
        "answer_type": "string",
        "gold_answer": "A figure; a reason.",
        "evidence": [{"document": first, "quote": "a sentence the filing does not print"}],
        "requires_documents": 1,
    }
    path.write_text(json.dumps(record) + "\n")
    return path


def _calibration_written(inputs: Inputs) -> None:
    """The calibration names the registered shape (61 companies) and a size row per hypothesis, condition and shape."""
    written = json.loads((inputs.scratch / "calibration.json").read_text())
    assert len(written["shapes"]["registered/absent_concept"]["answerable"]) == 61, written["shapes"]
    assert {(r["hypothesis"], r["shape"]) for r in written["sizes"]} == {
        (h, s) for h in ("H2", "H3") for s in ("registered", "fitting-eval")
    }


def _nightly_written(inputs: Inputs) -> None:
    written = json.loads((inputs.scratch / "nightly_cost.json").read_text())
    assert written["corpus"] == "demo" and written["filings"] > 0, written


NUMBER = r"[\d.,]+"

# Each bench of docs/benchmarks.md: its smoke cases by name. A script listed there without an entry here fails.
SMOKE: dict[str, dict[str, Smoke]] = {
    "parse_corpus": {
        "demo": Smoke(
            args=lambda i: [str(i.corpus)],
            printed=(
                rf"^\d+ filings, \d+ failed, {NUMBER} s in all, peak memory \d+ MB$",
                r"^\d+ facts, \d+/\d+ located numeric facts at their offset",
            ),
        )
    },
    "parse_vs_edgartools": {
        "demo": Smoke(
            args=lambda i: [str(i.corpus)],
            printed=(rf"^ours +\d+/\d+ +{NUMBER} +{NUMBER} +{NUMBER} +\d+ +0  text",),
            # edgartools' side when the bench extra is installed (without it the bench prints it is not importable)
            printed_if={"edgar": (rf"^edgartools +\d+/\d+ +{NUMBER} +{NUMBER} +{NUMBER} +\d+ +0  edgartools",)},
        )
    },
    "retrieval": {
        "demo": Smoke(
            args=lambda i: [str(i.corpus), "--limit-chunks", "24", "--questions", "5", "--runtimes"]
            + ["--store", str(i.store)],
            printed=(
                rf"^embedding: 24 chunks in {NUMBER} s = {NUMBER} chunks/s",
                rf"^index build: dense {NUMBER} ms, bm25 {NUMBER} s",
                rf"^search corpus +hybrid: median {NUMBER} ms, p95 {NUMBER} ms over 10 searches",
                rf"^rerank .*: median {NUMBER} ms",
                rf"^table expansion \(the 15 kept.*median {NUMBER} ms",
                r"^one filing changed \(.+\): corpus job over \d+ partitions in [\d.]+ s, 0 failed; re-embedded 1: "
                r".* \(meets target: only the changed filing\)$",
            ),
            cold_run=True,
            # --runtimes: the ONNX export and both onnxruntime sessions, when the bench extra is installed
            printed_if={
                "onnxruntime": (
                    rf"^onnxruntime {NUMBER} \(as exported\): {NUMBER} chunks/s = {NUMBER}x torch",
                    rf"^onnxruntime {NUMBER} \(BERT fusions\): {NUMBER} chunks/s .* largest difference from torch's",
                )
            },
        )
    },
    "golden_gates": {
        "demo": Smoke(
            args=lambda i: [str(i.corpus), "--candidates", str(_candidates(i)), "--n", "40"],
            printed=(
                r"^candidates: 40 \(0 unreadable\)$",
                rf"^ten gates over 40 candidates: {NUMBER} s",
                rf"^total: {NUMBER} s \(target: under 60 s\)",
                r"^first failing gate: ",
            ),
        )
    },
    "deployments": {
        "in_process": Smoke(  # no services: the SQLite run history and the in-process executor
            args=lambda i: ["--only", "in_process + SQLite", "--cold-only"],
            printed=(
                rf"^\| in_process \+ SQLite \| cold \| {NUMBER} \| \d+ \| \d+/\d+ partitions, evaluation \| 0 \|$",
                r"^reports byte-identical across the 1 deployments: yes$",
            ),
        ),
    },
    "nightly_cost": {
        "demo": Smoke(
            args=lambda i: ["--corpus", str(i.corpus), "--name", "demo", "--filings", "1000"]
            + ["--write", str(i.scratch / "nightly_cost.json")],
            printed=(
                r"^Measured: a cold `edgar-eval run` over the demo corpus \(\d+ filings",
                rf"^\| evaluation run \(wall\) \| {NUMBER} \|",
                r"^A nightly cold run over 1,000 filings",
            ),
            cold_run=True,
            env=lambda i: {"DAGSTER_HOME": str(i.dagster_home)},
            check=_nightly_written,
        )
    },
    "scale": {
        "demo": Smoke(  # the smallest synthetic corpus (the demo's 16 filings), one cold run on one worker, re-run
            args=lambda i: ["--sizes", "16", "--workers", "1", "--work", str(i.scratch / "scale")],
            printed=(
                rf"^16 filings, 1 worker\(s\): {NUMBER} s$",
                rf"^\| 16 \| 1 \|( {NUMBER} (s|min) \|){{5}}$",
                r"^Fewer than two sizes measured on one worker: no night on paper\.$",
            ),
        )
    },
    "scoped_search": {
        "demo": Smoke(
            args=lambda i: ["--store", str(i.store), "--copies", "1", "2", "--questions", "5"],
            printed=(
                r"^.+: \d+ chunks of \d+ filings; 5 golden questions, K=30$",
                rf"^\| 2 \| \d+ \| \d+ \| {NUMBER} / {NUMBER} \| {NUMBER} / {NUMBER} \|$",
            ),
            cold_run=True,
        )
    },
    "corpus_scope": {
        "demo": Smoke(
            args=lambda i: [
                "--store",
                str(i.store),
                "--copies",
                "1",
                "2",
                "--questions",
                "5",
                "--write",
                str(i.scratch / "corpus_scope_cost.json"),
            ],
            printed=(
                r"^.+: \d+ chunks of \d+ filings; \d+ of \d+ golden questions fair in the corpus scope, 5 timed; .+; "
                r"the noise bands searched \d+ and \d+ there$",
                rf"^\| 2 \| \d+ \| \d+ \| {NUMBER} \| {NUMBER} \|$",
            ),
            cold_run=True,
            check=_corpus_scope_cost_written,
        )
    },
    "shard_bm25": {
        "demo": Smoke(
            args=lambda i: ["--store", str(i.store)],
            printed=(
                r"^.+: \d+ chunks, \d+ filings of \d+ companies; the questions the evaluation measured",
                rf"^\| bm25 \| company_year \| 30 \| \d+ \| {NUMBER} \|( \d+/\d+ \({NUMBER}%\) \|){{4}} \d+ / \d+ \|$",
                r"^\| hybrid \| company \| 50 \| ",
                # the corpus-wide side is the search the evaluation made (the script exits 1 where it is not)
                r"^own-index rankings and chunk hits equal to the evaluation's \(retriever_rankings\): "
                r"([1-9]\d*)/\1$",
                r"^bm25 company_year, the company's name taken out of each of \d+ questions: gold in first 5 \d+",
            ),
            cold_run=True,
        )
    },
    "absence_yield": {
        "demo": Smoke(
            args=lambda i: [str(i.corpus), "--built-on", str(i.corpus), "--per-filing"],
            printed=(
                r"^.+: \d+ filings parsed in \d+ s, golden set built in \d+ s$",
                r"^review queue: \d+ cases",
                r"^ *built on +10-K +\d+ +\d+ +\d+ +\d+ +\d+ +[\d.]+ +2\.0$",
                r"^held-out target (met|NOT met)$",
            ),
        )
    },
    "calibrate_protocol": {
        "demo": Smoke(
            args=lambda i: [
                str(REPO / "protocol" / "answering-v5.toml"),
                str(i.store),
                "--out",
                str(i.scratch / "calibration.json"),
                "--replicates",
                "40",
                "--power-replicates",
                "10",
            ],
            printed=(r"^wrote .*calibration\.json \(sha256 [0-9a-f]{64}\) in \d+ s$",),
            cold_run=True,
            check=lambda i: _calibration_written(i),
        )
    },
    "interrupts": {
        # one corpus trial: a cold first run of its own (the store it interrupts), the trial, and the rerun
        "corpus": Smoke(
            args=lambda i: ["--trials", "1", "--phases", "corpus", "--work", str(i.scratch / "interrupts")],
            printed=(
                r"^  1 corpus +group .* 130 ",
                r"^summary: 1 trials \(corpus; SIGINT to the group, seed 0\): 1 clean; exit codes 130: 1; "
                r"with a traceback 0; escalated 0;",
            ),
        )
    },
    "shared_work": {
        # warm from the cold run's store (copied), one filing as the second corpus, no --rerun
        "demo": Smoke(
            args=lambda i: [
                *("--corpus", str(i.corpus), "--name", "demo", "--part", "1", "--no-rerun"),
                *("--from-data", str(i.store), "--from-home", str(i.dagster_home)),
                *("--work", str(i.scratch / "shared-work")),
            ],
            printed=(
                r"^2\. table-reader +[\d.]+ s  filings: \d+ current$",
                r"^    evaluation: made again .* as from generation on, inputs changed; every other table was current",
                r"^5\. 1 of its filings as demo-part +[\d.]+ s  filings: 1 ok$",
                r"^6\. eager-reader after demo-part +[\d.]+ s  filings: \d+ current$",
                r"^    evaluation current",
                r"^another system under test: ",
            ),
            cold_run=True,
            env=lambda i: {"EDGAR_EVAL_HOME": str(i.home)},  # the files the cold run read, at the same paths
        )
    },
    "ui_plots": {
        "demo": Smoke(
            args=lambda i: ["--dagster-home", str(i.dagster_home)],
            printed=(
                r"^arm_statistics \(1 materialisations\)$",
                rf"^  recall_cost_arm_E +{NUMBER}$",
                rf"^  page_hit_at_30_hybrid +{NUMBER}$",
                rf"^  reader_accuracy_table_reader +{NUMBER}$",
            ),
            cold_run=True,
        )
    },
    "two_document_reader": {
        "demo": Smoke(
            args=lambda i: [str(i.store), "--show", "1"],
            printed=(
                r"^.+: \d+ answerable two-document questions \(.*cross_company.*\)$",
                r"^  composing-reader/1 +cross_company +right \d+/\d+ \([\d.]+%, Wilson [\d.]+% to [\d.]+%\), "
                r"wrong \d+",
                r"^  table-reader/1 +granularity +right 0/\d+ ",
            ),
            cold_run=True,
        )
    },
    "readers": {
        "demo": Smoke(
            args=lambda i: [str(i.store), "5", "10"],
            printed=(
                r"^hybrid top 5: gold chunk retrieved for [\d.]+% of \d+ answerable questions",
                r"^hybrid top 10: gold chunk retrieved for [\d.]+% of \d+ answerable questions",
                r"^  \S+ +right \d+/\d+ \([\d.]+%, Wilson",
            ),
            cold_run=True,
        )
    },
}


def _cases() -> list:
    cases = []
    for script in listed_benches():
        if script not in SMOKE:
            cases.append(pytest.param(script, "", id=f"{script}-no-smoke-case"))
        for name, smoke in SMOKE.get(script, {}).items():
            cases.append(pytest.param(script, name, id=f"{script}-{name}"))
    return cases


def _environment(**settings: str) -> dict[str, str]:
    """This machine's environment less the caller's project and run-history settings, with this worktree's package
    first on the path (a bench run as `python bench/x.py` has bench/ on its path, not the project)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("EDGAR_EVAL_", "DAGSTER_"))}
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    environment["HF_HUB_OFFLINE"] = environment["TRANSFORMERS_OFFLINE"] = "1"
    return {**environment, **settings}


@pytest.fixture(scope="module")
def demo_inputs(tmp_path_factory) -> Inputs:
    corpus = tmp_path_factory.mktemp("bench_corpus") / "demo_corpus"
    write_demo_corpus(corpus)
    return Inputs(corpus=corpus, scratch=tmp_path_factory.mktemp("bench_scratch"))


@pytest.fixture(scope="module")
def cold_run_home(tmp_path_factory, demo_inputs: Inputs) -> Path:
    """A project home after one cold `edgar-eval run` of the demo corpus (the store data/demo and its run history),
    as docs/benchmarks.md's "after a cold run" means."""
    home = project_copy(tmp_path_factory.mktemp("bench_home") / "home")
    result = subprocess.run(
        [sys.executable, "-m", "edgar_eval", "run"],
        env=_environment(
            EDGAR_EVAL_HOME=str(home),
            DAGSTER_HOME=str(home / ".dagster_home"),
            EDGAR_EVAL_DEMO_CORPUS=str(demo_inputs.corpus),
        ),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert (home / "data" / "demo" / "search_index.parquet").is_file(), sorted((home / "data").rglob("*"))[:20]
    return home


def test_every_bench_script_is_in_the_benchmark_list():
    """The other way round: a bench script nobody lists is a bench nobody runs."""
    scripts = {path.stem for path in (REPO / "bench").glob("*.py") if not path.name.startswith("_")}
    assert scripts == set(listed_benches()), "list every bench/*.py in docs/benchmarks.md's block"


@pytest.mark.parametrize("script", list(listed_benches()))
def test_the_benchmark_list_names_only_flags_the_script_takes(script):
    """A flag the list's line names is one the script's source defines (argparse or its own reading of argv)."""
    path = REPO / "bench" / f"{script}.py"
    assert path.is_file(), f"docs/benchmarks.md lists bench/{script}.py, which does not exist"
    source = path.read_text()
    for flag in FLAG.findall(listed_benches()[script]):
        assert f'"{flag}"' in source, f"docs/benchmarks.md: bench/{script}.py {flag}, which the script does not take"


@pytest.mark.parametrize(("script", "case"), _cases())
def test_bench_runs_and_prints_its_figures(script, case, request, demo_inputs: Inputs):
    if script not in SMOKE:
        pytest.fail(f"bench/{script}.py is in docs/benchmarks.md without a smoke case: add one to SMOKE")
    smoke = SMOKE[script][case]
    inputs = demo_inputs
    if smoke.cold_run:
        inputs = Inputs(inputs.corpus, inputs.scratch, request.getfixturevalue("cold_run_home"))
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / f"{script}.py"), *smoke.args(inputs)],
        env=_environment(**smoke.env(inputs)),
        cwd=inputs.scratch,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    seconds = time.perf_counter() - started
    said = f"bench/{script}.py ({seconds:.0f} s) exited {result.returncode}:\n{result.stdout[-4000:]}"
    said += f"\n{result.stderr[-4000:]}"
    assert result.returncode == 0, said
    assert "Traceback" not in result.stdout + result.stderr, said
    expected = list(smoke.printed)
    for module, lines in smoke.printed_if.items():
        if importlib.util.find_spec(module) is not None:
            expected += lines
    missing = [pattern for pattern in expected if not re.search(pattern, result.stdout, re.M)]
    assert not missing, f"not printed: {missing}\n{said}"
    smoke.check(inputs)
