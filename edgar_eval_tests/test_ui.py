"""What the Dagster UI shows after `edgar-eval run`, read through the UI's own GraphQL API over the code location
of workspace.yaml: the CLI's runs under their jobs, the asset checks with their results, and stale markers that follow
a code edit (the edit made to a copy of the package, loaded as the code location a user would reload)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dagster as dg
import pytest
import yaml
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster._core.workspace.load_target import ModuleTarget
from dagster_graphql.test.utils import execute_dagster_graphql

from edgar_eval.defs.jobs import CODE_LOCATION, CORPUS_JOB, DEFINITIONS_MODULE, EVALUATION_JOB
from edgar_eval.evaluation.shards import shard_of
from edgar_eval_tests.conftest import drifted_report_files
from edgar_eval_tests.package_copies import TABLE_READER, copy_package, table_reader_first_def
from edgar_eval_tests.services import BIN, project_copy, run_environment

pytestmark = [
    pytest.mark.slow(minutes=3.5),  # whole-graph runs: scheduled with the longest first
    pytest.mark.integration,
]

PROJECT = Path(__file__).resolve().parents[1]
THREADS = "OMP_NUM_THREADS"  # the conftest's share of the cores for a test worker: not a user's setting

JOB_RUNS = """
query JobRuns($selector: PipelineSelector!) {
  pipelineOrError(params: $selector) {
    __typename
    ... on Pipeline { name runs { runId status tags { key value } } }
  }
}
"""

ASSETS = """
query {
  assetNodes {
    assetKey { path }
    isPartitioned
    staleStatus
    staleCauses { reason }
    assetChecksOrError { ... on AssetChecks { checks { name blocking executionForLatestMaterialization { status } } } }
  }
}
"""


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """A project home of its own (the files a run reads beside the graph, as in the checkout), after the README's first
    command ran in it: the `edgar-eval` console script, `run` with no setting but the home and its run history (none of
    the caller's EDGAR_EVAL_ or DAGSTER_ settings), and a BLAS and torch thread per core, as a user's shell has them
    (the conftest gives each test worker its share of the cores; the committed reports were made with every core).
    What it leaves out of the README's command: the checkout as the working directory and default home, which a test
    cannot write into."""
    home = project_copy(tmp_path_factory.mktemp("ui"))
    env = {"EDGAR_EVAL_HOME": str(home), "DAGSTER_HOME": str(home / ".dagster_home")}
    shell = run_environment(home, home / ".dagster_home")
    shell.pop(THREADS, None)
    done = subprocess.run(
        [str(BIN / "edgar-eval"), "run"],
        env=shell,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        patch.delenv("EDGAR_EVAL_CORPUS_DIR", raising=False)
        yield home


def _query(home: Path, query: str, variables: dict | None = None, code: Path | None = None) -> Mapping[str, Any]:
    """The answer of the UI's GraphQL API over the code location, loaded from `code` (default: the checkout)."""
    target = ModuleTarget(
        module_name=DEFINITIONS_MODULE, attribute=None, working_directory=str(code or home), location_name=CODE_LOCATION
    )
    with dg.DagsterInstance.get() as instance, WorkspaceProcessContext(instance, target) as process:
        result = execute_dagster_graphql(process.create_request_context(), query, variables)
    assert not result.errors, result.errors
    return result.data


def test_the_workspace_names_the_location_the_cli_launches_into():
    workspace = yaml.safe_load((PROJECT / "workspace.yaml").read_text())
    entry = workspace["load_from"][0]["python_module"]
    assert (entry["module_name"], entry["location_name"]) == (DEFINITIONS_MODULE, CODE_LOCATION)


def test_the_readmes_first_command_writes_the_committed_demo_report(ran):
    """`edgar-eval run` as the README's first command runs it (the defaults: the multiprocess executor, the regression
    gate against the committed baseline, which the fixture's exit status 0 says passed) writes the committed demo
    report, HTML and outcomes byte for byte. `.ci/run` relies on this test rather than running the demo again."""
    drifted = drifted_report_files(ran / "reports" / "demo", PROJECT / "reports" / "demo")
    assert not drifted, f"reports/demo {', '.join(drifted)} differ from what `edgar-eval run` writes: run it and commit"


def test_cli_runs_show_under_their_job_in_the_code_location(ran):
    partitions = len(list((ran / "data" / "demo_corpus").rglob("*.htm")))
    for job, expected in ((CORPUS_JOB, partitions), (EVALUATION_JOB, 1)):
        selector = {"repositoryLocationName": CODE_LOCATION, "repositoryName": "__repository__", "pipelineName": job}
        found = _query(ran, JOB_RUNS, {"selector": selector})["pipelineOrError"]
        assert found["__typename"] == "Pipeline"
        # A job's runs are those tagged with its location's repository (hidden from the run's tags): the CLI's runs
        # are listed here only because they were created with their job's origin in this code location.
        assert [run["status"] for run in found["runs"]] == ["SUCCESS"] * expected, job
    corpus_runs = _query(ran, JOB_RUNS, {"selector": {**selector, "pipelineName": CORPUS_JOB}})["pipelineOrError"]
    keys = {tag["value"] for run in corpus_runs["runs"] for tag in run["tags"] if tag["key"] == "dagster/partition"}
    assert len(keys) == partitions  # one run per filing partition


def test_asset_checks_show_with_their_latest_result(ran):
    nodes = {node["assetKey"]["path"][0]: node for node in _query(ran, ASSETS)["assetNodes"]}
    checks = {
        check["name"]: (check["blocking"], check["executionForLatestMaterialization"]["status"])
        for node in nodes.values()
        for check in node["assetChecksOrError"].get("checks", [])
    }
    assert checks["golden_set_consistent"] == (True, "SUCCEEDED")
    assert checks["search_index_fingerprint"] == (True, "SUCCEEDED")
    assert checks["regression_gate"] == (True, "SUCCEEDED")
    assert checks["report_sources_present"] == (False, "SUCCEEDED")


def test_stale_markers_follow_a_code_edit(ran, tmp_path):
    before = {node["assetKey"]["path"][0]: node for node in _query(ran, ASSETS)["assetNodes"]}
    assert {name for name, node in before.items() if node["staleStatus"] != "FRESH"} == set()

    first_def = table_reader_first_def()
    code = copy_package(tmp_path / "code", TABLE_READER, first_def, f"EDITED = 1\n\n\n{first_def}")
    after = {node["assetKey"]["path"][0]: node for node in _query(ran, ASSETS, code=code)["assetNodes"]}
    stale = {name for name, node in after.items() if node["staleStatus"] == "STALE"}
    assert not stale & {"filings", "chunks", "chunk_embeddings", "search_index", "golden_questions"}
    # a sharded step is stale shard by shard: the shard of a demo company's questions, in each step that reads the
    # table reader (the generator, the offline readers' answers, and the wrong answers' categories of both)
    shard = shard_of("0009000001")
    for asset in ("generations", "reader_answers", "wrong_answers"):
        node = _query(ran, SHARD, {"path": [asset], "partition": shard}, code=code)["assetNodeOrError"]
        assert node["staleStatus"] == "STALE", asset
        assert "has a new code version" in {cause["reason"] for cause in node["staleCauses"]}, asset
    retrievals = _query(ran, SHARD, {"path": ["answerer_retrievals"], "partition": shard}, code=code)
    assert retrievals["assetNodeOrError"]["staleStatus"] == "FRESH"


SHARD = """
query Shard($path: [String!]!, $partition: String!) {
  assetNodeOrError(assetKey: {path: $path}) {
    ... on AssetNode { staleStatus(partition: $partition) staleCauses(partition: $partition) { reason } }
  }
}
"""


PLOTTED = """
query Plotted($key: AssetKeyInput!) {
  assetOrError(assetKey: $key) {
    ... on Asset {
      assetMaterializations(limit: 10) {
        metadataEntries { label __typename ... on FloatMetadataEntry { floatValue } }
      }
    }
  }
}
"""


def test_the_headline_figures_reach_the_ui_as_numbers_its_plots_tab_charts(ran):
    """The Plots tab charts an asset's float and int metadata entries, one point per materialisation: the primary
    endpoint, the recall cost per arm and page hit@30 are there as float entries, not text (no false-answer rate pooled
    over the unanswerable kinds: each kind's is a series of its own)."""
    wanted = {
        "arm_false_answers_by_kind": ("primary_endpoint_arm_A", "primary_endpoint_arm_A_low", "primary_endpoint_arm_E"),
        "arm_statistics": ("recall_cost_arm_E", "recall_cost_arm_E_high", "answer_accuracy_arm_A"),
        "retrieval_metrics": ("page_hit_at_30_hybrid", "page_hit_at_30_bm25", "page_hit_at_30_dense"),
        "reader_accuracy": ("reader_accuracy_table_reader",),
    }
    for asset, labels in wanted.items():
        found = _query(ran, PLOTTED, {"key": {"path": [asset]}})["assetOrError"]["assetMaterializations"]
        assert len(found) == 1, asset  # one run: one point per figure
        floats = {
            entry["label"]: entry["floatValue"]
            for entry in found[0]["metadataEntries"]
            if entry["__typename"] == "FloatMetadataEntry"
        }
        for label in labels:
            assert label in floats and 0.0 <= floats[label] <= 1.0, (asset, label, sorted(floats))
