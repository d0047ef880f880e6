"""The regression gate: a change the unit tests accept but that makes the system worse fails the gate."""

import shutil

import dagster as dg
import pandas as pd
import pytest

from edgar_eval.adapters.parquet_store import ParquetStore
from edgar_eval.answering import period_guard as guard_module
from edgar_eval.defs.answering import arms as answering_arms
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_corpus, materialise_evaluation, materialise_graph
from edgar_eval.defs.settings import EvalSettings, GeneratorResource
from edgar_eval.defs.shards import read_sharded
from edgar_eval.evaluation.regression_gate import baseline_json, compare_to_baseline, read_baseline
from edgar_eval_tests import test_answering
from edgar_eval_tests.loopback import LoopbackServer, json_reply

pytestmark = pytest.mark.slow(minutes=5)  # whole-graph runs: scheduled with the longest first


def _cases(correct: list[bool], arm="D", kind="answerable"):
    return pd.DataFrame(
        {"question_id": [f"q{i}" for i in range(len(correct))], "arm": arm, "kind": kind, "correct": correct}
    )


def test_net_worsening_of_three_in_a_group_fails_and_two_passes():
    baseline = _cases([True] * 6)
    assert compare_to_baseline(_cases([False, False] + [True] * 4), baseline).passed
    result = compare_to_baseline(_cases([False, False, False] + [True] * 3), baseline)
    assert not result.passed and "arm D answerable: 3 worse" in result.summary()
    mixed = pd.concat([_cases([False, False, False, True]), _cases([True], kind="other_year")])
    mixed_baseline = pd.concat([_cases([True, True, True, False]), _cases([False], kind="other_year")])
    outcome = compare_to_baseline(mixed, mixed_baseline)
    assert outcome.passed, "3 worse and 1 better in a group is a net worsening of 2"
    assert read_baseline(baseline_json(baseline)).equals(baseline)


def test_a_baseline_case_no_longer_judged_fails_and_a_new_one_is_only_counted():
    baseline = _cases([True] * 4)
    assert not compare_to_baseline(_cases([True] * 3), baseline).passed
    grown = compare_to_baseline(_cases([True] * 5), baseline)
    assert grown.passed and grown.new_cases == 1


def last_passage_only(passages: list[str]) -> set[int]:
    """The planted regression, one character away from the real guard's reading (`years =` for `years |=` in its loop
    over the passages): only the last passage's printed years count. A one-passage unit test cannot see it."""
    return guard_module.printed_years(list(passages)[-1:])


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("gate")
    settings = EvalSettings(
        corpus_dir=str(root / "corpus"),
        corpus_name="demo",
        data_dir=str(root / "data"),
        reports_dir=str(root / "reports"),
    )
    instance = dg.DagsterInstance.ephemeral()
    graph = materialise_graph(build_definitions(settings), instance)
    return root, settings, instance, graph


def _recorded(settings: EvalSettings) -> dg.DagsterInstance:
    """A run history of its own for a copy of the demo store, recording its filing partitions (each table reused as
    stored, not rebuilt): the evaluation reads only the partitions its run history records."""
    instance = dg.DagsterInstance.ephemeral()
    assert materialise_corpus(build_definitions(settings), instance) == {}
    return instance


def _with(settings: EvalSettings, **changes) -> EvalSettings:
    """A new resource (model_copy would keep the old config Dagster resolves at run time)."""
    return EvalSettings(**{**settings.model_dump(), **changes})


def _gate_passed(instance) -> bool:
    evaluation = instance.event_log_storage.get_latest_asset_check_execution_by_key(
        [dg.AssetCheckKey(dg.AssetKey("arm_outcomes"), "regression_gate")]
    )[dg.AssetCheckKey(dg.AssetKey("arm_outcomes"), "regression_gate")]
    return evaluation.evaluation.passed


def test_the_gate_passes_on_the_committed_baseline(demo_store):
    _, _, instance, graph = demo_store
    assert graph.evaluation_succeeded, graph.evaluation_error
    assert _gate_passed(instance)


def test_the_invariant_checks_run_beside_their_assets_and_pass_on_the_demo(demo_store):
    _, _, instance, _ = demo_store
    for asset, check in (
        ("golden_questions", "golden_set_consistent"),
        ("search_index", "search_index_fingerprint"),
        ("report", "report_sources_present"),
    ):
        key = dg.AssetCheckKey(dg.AssetKey(asset), check)
        record = instance.event_log_storage.get_latest_asset_check_execution_by_key([key]).get(key)
        assert record is not None and record.evaluation.passed, (check, record and record.evaluation.description)


def test_a_planted_regression_passes_the_unit_tests_and_fails_the_gate(demo_store, tmp_path, monkeypatch):
    root, settings, _, _ = demo_store
    monkeypatch.setattr(test_answering, "printed_years", last_passage_only)
    test_answering.test_period_guard_declines_years_the_passages_do_not_print()  # the unit test accepts the regression

    shutil.copytree(root / "data", tmp_path / "data")
    regressed = _with(settings, data_dir=str(tmp_path / "data"), reports_dir=str(tmp_path / "reports"))
    instance = _recorded(regressed)
    monkeypatch.setattr(answering_arms, "printed_years", last_passage_only)
    error = materialise_evaluation(build_definitions(regressed), instance)
    assert (
        error is not None
        and error.startswith("regression_gate failed: arm D answerable")
        and not _gate_passed(instance)
    )
    assert not (tmp_path / "reports" / "demo" / "report.md").exists(), "a blocking gate stops the report"


def _same_answer_every_time(path: str, body: dict):
    """An OpenAI-compatible chat endpoint that answers every question the same way, citing the first passage."""
    return json_reply(
        {
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {
                        "role": "assistant",
                        "content": "The passages name the line item but I cannot confirm the amount. [P1]",
                    },
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )


def test_the_graph_records_a_chat_model_through_the_tape_and_replays_it_with_the_server_down(demo_store, tmp_path):
    root, settings, _, _ = demo_store
    server = LoopbackServer(_same_answer_every_time)
    chat = GeneratorResource(kind="openai-compatible-chat", model="fake-chat", url=server.base_url)
    reports = {}
    try:
        for mode in ("record", "replay"):
            if mode == "replay":
                server.stop()
            data = tmp_path / f"data-{mode}"
            shutil.copytree(root / "data", data)
            run = _with(
                settings,
                tapes_dir=str(tmp_path / "tapes"),
                tape_mode=mode,
                data_dir=str(data),
                reports_dir=str(tmp_path / mode),
            )
            defs = build_definitions(run, generator=chat)
            assert materialise_evaluation(defs, _recorded(run)) is None
            generations = read_sharded(ParquetStore(data / "demo"), "generations")
            assert (generations.model_id == "fake-chat").all() and generations.prompt_version.notna().all()
            assert generations.replayed.all() == (mode == "replay") and generations.tape_key.notna().all()
            reports[mode] = (tmp_path / mode / "demo" / "report.md").read_text()
    finally:
        server.stop()
    assert server.received
    replayed_count = len(read_sharded(ParquetStore(tmp_path / "data-replay" / "demo"), "generations"))
    body = {mode: text.split("## Run receipt")[0] for mode, text in reports.items()}
    assert body["replay"] == body["record"], "every figure of the recorded run comes back from the tape"
    assert "generations replayed from a tape | 0 |" in reports["record"]
    assert f"generations replayed from a tape | {replayed_count} |" in reports["replay"]


def test_a_nondeterministic_generator_falls_below_full_determinism_and_the_readers_are_not_measured(
    demo_store, tmp_path
):
    root, settings, _, _ = demo_store
    assert not bool(
        pd.read_parquet(root / "data" / "demo" / "determinism.parquet").applicable.iloc[0]
    )  # the table reader
    calls = iter(range(10**6))

    def sometimes_otherwise(path: str, body: dict):
        """A chat endpoint that words every third answer otherwise: the same prompt sent twice often gives another
        text."""
        wording = "cannot confirm" if next(calls) % 3 else "could not confirm"
        return json_reply(
            {
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {
                            "role": "assistant",
                            "content": f"The passages name the line item but I {wording} the amount. [P1]",
                        },
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    server = LoopbackServer(sometimes_otherwise)
    try:
        shutil.copytree(root / "data", tmp_path / "data")
        run = _with(settings, tape_mode="off", data_dir=str(tmp_path / "data"), reports_dir=str(tmp_path / "reports"))
        flaky = GeneratorResource(kind="openai-compatible-chat", model="flaky-chat", url=server.base_url)
        assert materialise_evaluation(build_definitions(run, generator=flaky), _recorded(run)) is None
    finally:
        server.stop()
    row = pd.read_parquet(tmp_path / "data" / "demo" / "determinism.parquet").iloc[0]
    assert row.applicable and row.prompts > 0 and row.same_text < row.prompts
