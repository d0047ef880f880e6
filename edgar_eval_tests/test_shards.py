"""The evaluation's shards (evaluation/shards.py, defs/shards.py), on tables built here: the shards read back together
are the table one unsharded step writes, row for row; a shard is kept exactly while what it was built from is the
same; a shard that fails fails alone; shards of two evaluations are never read as one table."""

import random
import shutil
from typing import cast

import dagster as dg
import numpy as np
import pandas as pd
import pytest

from edgar_eval.adapters.chat_generator import GenerationError
from edgar_eval.adapters.parquet_store import ParquetStore, StoreError
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import (
    EVALUATION_RUN_TAGS,
    SHARDS,
    index_version,
    materialize_shards,
    question_stamps,
    read_sharded,
    rows_version,
)
from edgar_eval.defs.source_files import TAPE_FILES
from edgar_eval.evaluation.shards import (
    COMPANY_SHARDS,
    CORPUS_SHARD,
    ORDER_COLUMN,
    SHARD_KEYS,
    case_order,
    in_corpus_order,
    question_order,
    shard_of,
    shard_questions,
    shard_scopes,
)
from edgar_eval.retrieval.scope import CORPUS, SEARCH_SCOPES


def _golden(questions: int = 60, companies: int = 9, seed: int = 3) -> pd.DataFrame:
    """Questions in the golden set's order (cik, kind, question_id), as the golden builder writes them."""
    draw = random.Random(seed)
    ciks = [f"{draw.randrange(10**9):010d}" for _ in range(companies)]
    ids = [f"q{draw.randrange(10**6):06d}" for _ in range(questions)]
    golden = pd.DataFrame(
        {
            "question_id": ids,
            "cik": [draw.choice(ciks) for _ in ids],
            "kind": [draw.choice(["answerable", "absent_concept", "other_year"]) for _ in ids],
        }
    )
    return golden.sort_values(["cik", "kind", "question_id"]).reset_index(drop=True)


def _shard_of_row(golden: pd.DataFrame, frame: pd.DataFrame) -> pd.Series:
    """The shard each row of a per-question table is measured in: the corpus scope's, or its company's."""
    company = frame.question_id.map(dict(zip(golden.question_id, golden.cik.map(shard_of))))
    return company.where(frame.search_scope != CORPUS, CORPUS_SHARD)


def _runs(golden: pd.DataFrame, cuts: int = 2) -> pd.DataFrame:
    """A per-question table in the order an unsharded step writes it: cut by cut, scope by scope, question by question
    (golden order), two rows each; columns a shard can hold none of, or whole numbers of in one shard and fractions in
    another, as the real tables do."""
    rows = []
    for cut in range(cuts):
        for scope in SEARCH_SCOPES:
            for position, question in enumerate(golden.question_id):
                for depth in (5, 30):
                    rows.append(
                        {
                            "question_id": question,
                            "search_scope": scope,
                            "cut": cut,
                            "k": depth,
                            "chunk_ids": [f"{question}-{depth}-{i}" for i in range(depth % 7)],
                            "error": "ValueError: no filing" if position % 17 == 3 else None,
                            "rank": None if position % 5 == 0 else position + depth,
                            "score": 0.5 if position % 9 else 1,
                            "note": None,  # null in every shard: still the type a whole table reads back with
                            "ratio": float("nan"),
                        }
                    )
    return pd.DataFrame(rows)


def _written_whole(tmp_path, frame: pd.DataFrame) -> pd.DataFrame:
    store = ParquetStore(tmp_path / "whole")
    store.write("runs", frame)
    return store.read("runs")


def test_the_shards_read_together_are_the_unsharded_table_row_for_row(tmp_path):
    golden = _golden()
    whole = _runs(golden)
    shard = _shard_of_row(golden, whole)
    store = ParquetStore(tmp_path / "sharded")
    assert shard.nunique() > 3 and shard.nunique() < len(SHARD_KEYS), "some shards hold rows, some none"
    for key in SHARD_KEYS:
        own = cast(pd.DataFrame, whole[(shard == key).to_numpy()])
        questions = shard_questions(golden, key)
        assert set(own.question_id) == set(questions.question_id)
        # a shard's rows as its step builds them: from its own dicts, so a column can be all null in one shard
        built = pd.DataFrame(own.to_dict("records"))
        if len(built):
            built[ORDER_COLUMN] = case_order(golden, built.question_id, built.search_scope, built.cut.to_numpy())
        store.write("runs", built, key)
    together = in_corpus_order(store.read_together("runs", list(SHARD_KEYS)))
    pd.testing.assert_frame_equal(together, _written_whole(tmp_path, whole), check_exact=True)
    # a reader asking for some columns gets those, in the same order
    some = in_corpus_order(store.read_together("runs", list(SHARD_KEYS), ["question_id", "rank", ORDER_COLUMN]))
    expected = cast(pd.DataFrame, _written_whole(tmp_path, whole)[["question_id", "rank"]])
    pd.testing.assert_frame_equal(some, expected, check_exact=True)


def test_a_question_s_shard_is_its_company_s_and_every_shard_can_be_drawn():
    assert shard_of("0000320193") == shard_of("320193"), "leading zeros do not move a company"
    assert shard_of("0000320193") == "02"  # a fixed hash (sha256), the same in every process
    assert {shard_of(str(cik)) for cik in range(400)} == set(COMPANY_SHARDS)
    golden = _golden()
    for key in COMPANY_SHARDS:
        own = shard_questions(golden, key)
        assert own.index.is_monotonic_increasing, "a shard's questions stay in the golden set's order"
        assert {shard_of(cik) for cik in own.cik} <= {key}
    assert shard_questions(golden, CORPUS_SHARD).equals(golden), "the corpus scope's sample is drawn from all"
    assert shard_scopes("03", SEARCH_SCOPES) == ("company_year", "company")
    assert shard_scopes(CORPUS_SHARD, SEARCH_SCOPES) == (CORPUS,)
    assert shard_scopes(CORPUS_SHARD, ("company_year",)) == ()
    with pytest.raises(ValueError, match="'16' is not a shard"):
        shard_questions(golden, "16")


def test_rows_are_placed_by_cut_then_scope_then_the_golden_order_from_their_own_questions():
    golden = pd.DataFrame({"question_id": ["b", "a", "c"], "cik": ["1", "1", "2"], "kind": ["x", "y", "x"]})
    ids, scopes = pd.Series(["a", "c", "b"]), pd.Series([SEARCH_SCOPES[1], SEARCH_SCOPES[0], SEARCH_SCOPES[0]])
    assert np.argsort(case_order(golden, ids, scopes), kind="stable").tolist() == [2, 1, 0]
    cut_first = case_order(golden, ids, scopes, np.array([1, 0, 1]))
    assert np.argsort(cut_first, kind="stable").tolist() == [1, 2, 0]
    assert np.argsort(question_order(golden, pd.Series(["c", "a", "b"])), kind="stable").tolist() == [2, 1, 0]
    # a question's key is its own row's: another company's questions added or gone leave it as it was
    fewer = cast(pd.DataFrame, golden[golden.cik == "1"])
    assert question_order(fewer, pd.Series(["a"])).tolist() == question_order(golden, pd.Series(["a"])).tolist()
    # a key past the tenth cut or a long question id still sorts as the parts do
    many = case_order(golden, pd.Series(["b", "b"]), pd.Series([SEARCH_SCOPES[0]] * 2), np.array([10, 9]))
    assert many[1] < many[0]
    with pytest.raises(ValueError, match="not in the golden set's order"):
        question_order(golden.iloc[::-1], ids)


def test_a_table_s_version_moves_with_any_column_and_any_item_of_a_list():
    frame = pd.DataFrame(
        {"chunk_id": ["c1", "c2"], "pages": [np.arange(1500), np.array([3])], "embedding": [np.ones(4), np.zeros(4)]}
    )
    moved = frame.assign(pages=[np.append(np.arange(1499), 7), np.array([3])])  # one item in the middle of a long one
    assert rows_version(frame) != rows_version(moved)
    assert index_version(frame) != index_version(moved)
    nudged = frame.assign(embedding=[np.ones(4), np.array([0, 0, 0, 1e-7])])
    assert index_version(frame) != index_version(nudged), "a vector is versioned by its bytes"


def _sharded_asset(inputs: dict[str, int], fail: set[str], error: type[RuntimeError] = RuntimeError):
    """A sharded asset whose shard's slice is `inputs[shard]` and that raises `error` in the shards of `fail`."""

    @dg.asset(partitions_def=SHARDS, backfill_policy=dg.BackfillPolicy.single_run())
    def runs(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        def work(shard: str, only) -> pd.DataFrame:
            if shard in fail:
                raise error(f"the endpoint answered 503 for shard {shard}")
            return pd.DataFrame({"question_id": [shard], "value": [inputs[shard]], ORDER_COLUMN: [shard]})

        return materialize_shards(
            context,
            settings,
            "runs",
            work,
            lambda shard: {"golden_questions": pd.DataFrame({"value": [inputs[shard]]})},
            {"search_index": "one index"},
        )

    return runs


def _run(
    settings: EvalSettings,
    instance: dg.DagsterInstance,
    inputs: dict[str, int],
    fail: set[str] = set(),
    error: type[RuntimeError] = RuntimeError,
):
    return dg.materialize(
        [_sharded_asset(inputs, fail, error)],
        instance=instance,
        resources={"settings": settings},
        tags=EVALUATION_RUN_TAGS,
        raise_on_error=False,
    )


def _settings(tmp_path) -> EvalSettings:
    return EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="demo",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )


def _made(result) -> tuple[int, int]:
    [event] = [e for e in result.get_asset_materialization_events()][:1]
    metadata = event.step_materialization_data.materialization.metadata
    return metadata["shards_written"].value, metadata["shards_reused"].value


def test_a_shard_is_kept_while_its_inputs_are_the_same_and_a_failing_one_fails_alone(tmp_path):
    settings = _settings(tmp_path)
    instance = dg.DagsterInstance.ephemeral()
    inputs = {key: 1 for key in SHARD_KEYS}
    assert _made(_run(settings, instance, inputs)) == (17, 0)
    assert _made(_run(settings, instance, inputs)) == (0, 17)
    assert _made(_run(settings, instance, {**inputs, "05": 2})) == (1, 16), "only the shard whose slice changed"
    store = settings.store()
    before = {key: store.path("runs", key).read_bytes() for key in SHARD_KEYS}

    assert read_sharded(store, "runs").value.tolist() == [1] * 5 + [2] + [1] * 11

    failed = _run(settings, instance, {**inputs, "05": 3, "06": 3, "07": 3}, fail={"06"})
    assert not failed.success
    failure = failed.get_step_failure_events()[0].step_failure_data.error
    assert failure is not None and "shard 06: RuntimeError: the endpoint answered 503 for shard 06" in failure.message
    assert store.path("runs", "06").read_bytes() == before["06"], "a failing shard leaves its table as it was"
    for made_again in ("05", "07"):
        assert store.path("runs", made_again).read_bytes() != before[made_again]
    # the shards are now of two evaluations (06 of the one before): nothing reads them as one table
    with pytest.raises(StoreError, match="shards 06 of 'runs' are not those its last runs completed"):
        read_sharded(store, "runs")
    assert _made(_run(settings, instance, {**inputs, "05": 3, "06": 3, "07": 3})) == (1, 16)
    assert read_sharded(store, "runs").value.tolist() == [1] * 5 + [3, 3, 3] + [1] * 9
    # where things are kept is no input of a shard: the reports written elsewhere, the store copied to another folder
    # (its shards are read there, the filings and tapes a shard reads are stamped by their content), all kept
    shutil.copytree(tmp_path / "data", tmp_path / "moved")
    moved = {"reports_dir": str(tmp_path / "other"), "data_dir": str(tmp_path / "moved")}
    elsewhere = EvalSettings(**{**settings.model_dump(), **moved})
    latest = {**inputs, "05": 3, "06": 3, "07": 3}
    assert _made(_run(elsewhere, instance, latest)) == (0, 17)
    # another run parameter (here: the passages the answerer reads) is another evaluation: every shard is made again
    deeper = EvalSettings(**{**elsewhere.model_dump(), "top_k": elsewhere.top_k + 1})
    assert _made(_run(deeper, instance, latest)) == (17, 0)


def test_after_an_endpoint_fails_the_shards_after_it_are_not_attempted(tmp_path):
    """A model or rerank endpoint that failed after its retries would fail every shard after it the same way, each
    after waiting out the retries: they are not attempted, and the step names them."""
    settings = _settings(tmp_path)
    failed = _run(settings, dg.DagsterInstance.ephemeral(), {key: 1 for key in SHARD_KEYS}, {"02"}, GenerationError)
    failure = failed.get_step_failure_events()[0].step_failure_data.error
    assert failure is not None
    assert "shard 02: GenerationError: the endpoint answered 503 for shard 02" in failure.message
    assert "shard 15: not attempted: shard 02's endpoint failed (GenerationError)" in failure.message
    assert "shard corpus: not attempted" in failure.message
    assert [key for key in SHARD_KEYS if settings.store().exists("runs", key)] == ["00", "01"]


def test_a_linked_tapes_folder_is_versioned_by_the_recording_it_links_to(tmp_path):
    """The tapes a run replays are in a generation shard's stamp by their content, the settings' tapes_dir being left
    out of it: a tapes folder that links to a committed recording is read through, so another recording behind the
    same names is another version; a link back up the tree is not followed round."""
    for recording, answer in (("first", "1"), ("second", "2")):
        (tmp_path / recording).mkdir()
        (tmp_path / recording / "call.json").write_text(answer)
    versions = []
    for tapes, recording in (("a", "first"), ("b", "second"), ("c", "first")):
        (tmp_path / tapes / "demo").mkdir(parents=True)
        (tmp_path / tapes / "demo" / "a-model").symlink_to(tmp_path / recording)
        (tmp_path / tapes / "demo" / "round").symlink_to(tmp_path / tapes)
        settings = EvalSettings(**{**_settings(tmp_path).model_dump(), "tapes_dir": str(tmp_path / tapes)})
        assert [name for name, _ in TAPE_FILES.files(settings)] == ["a-model/call.json"]
        versions.append(TAPE_FILES.version(settings))
    assert versions[0] != versions[1] and versions[0] == versions[2]


def _index_rows(golden: pd.DataFrame) -> pd.DataFrame:
    """Two chunks of one filing per company of `golden`, each question permitted its own company's filing."""
    ciks = sorted(set(golden.cik))
    return pd.DataFrame(
        {
            "chunk_id": [f"{cik}-{i}" for cik in ciks for i in range(2)],
            "filing_id": [f"f{cik}" for cik in ciks for _ in range(2)],
            "cik": [cik for cik in ciks for _ in range(2)],
            "text": [f"revenue of {cik} part {i}" for cik in ciks for i in range(2)],
            "embedding": [np.full(4, float(i)) for _ in ciks for i in range(2)],
        }
    )


def _stamped(slices, shard: str) -> dict[str, str]:
    return {name: rows_version(frame) for name, frame in slices(shard).items()}


def test_a_company_shard_is_built_from_its_own_companies_filings_and_the_corpus_shard_from_the_sample():
    """A company shard's inputs are its questions and the index rows of the companies they search (a two-document
    question's other company among them), so another company's filings changing leaves it as it was; the corpus
    scope's sample, drawn from every question, and the whole index are the corpus shard's alone."""
    from edgar_eval.defs.retrieval.runs import shard_slices

    golden = _golden()
    golden["permitted_filing_ids"] = [[f"f{cik}"] for cik in golden.cik]
    rows = _index_rows(golden)
    shard = next(key for key in COMPANY_SHARDS if len(shard_questions(golden, key)))
    own = shard_questions(golden, shard)
    others = [q for q in golden.question_id if q not in set(own.question_id)]
    other_company = next(cik for cik in sorted(set(golden.cik)) if shard_of(cik) != shard)
    sample = frozenset([own.question_id.iloc[0], others[0]])
    before = _stamped(shard_slices(golden, rows, SEARCH_SCOPES, sample), shard)
    assert set(before) == {"golden_questions", "search_index"}
    # another company's chunk edited, the sample moved among other shards' questions: the company shard is the same
    edited = rows.assign(text=rows.text.where(rows.cik != other_company, "edited"))
    assert _stamped(shard_slices(golden, edited, SEARCH_SCOPES, frozenset([others[1]])), shard) == before
    assert _stamped(shard_slices(golden, edited, SEARCH_SCOPES, sample), CORPUS_SHARD) != _stamped(
        shard_slices(golden, rows, SEARCH_SCOPES, sample), CORPUS_SHARD
    ), "the corpus shard reads every chunk"
    assert _stamped(shard_slices(golden, rows, SEARCH_SCOPES, frozenset([others[1]])), CORPUS_SHARD) != _stamped(
        shard_slices(golden, rows, SEARCH_SCOPES, sample), CORPUS_SHARD
    ), "and the sample"
    # a two-document question of this shard that may read the other company's filing: that company is its input
    paired = golden.copy()
    paired.at[own.index[0], "permitted_filing_ids"] = [f"f{own.cik.iloc[0]}", f"f{other_company}"]
    assert _stamped(shard_slices(paired, edited, SEARCH_SCOPES, sample), shard) != _stamped(
        shard_slices(paired, rows, SEARCH_SCOPES, sample), shard
    )
    # a step of the answerer's scope alone has nothing to measure in the corpus shard
    assert shard_slices(golden, rows, ("company_year",), sample)(CORPUS_SHARD) == {}


def test_only_the_question_whose_searched_company_changed_is_stamped_anew():
    """Question by question (question_stamps): a two-document question that may read another company's filing is
    stale when that company's chunks change; its shard's other questions are not."""
    from edgar_eval.defs.retrieval.runs import shard_slices

    golden = _golden()
    golden["permitted_filing_ids"] = [[f"f{cik}"] for cik in golden.cik]
    rows = _index_rows(golden)
    shard = next(key for key in COMPANY_SHARDS if len(shard_questions(golden, key)) > 1)
    own = shard_questions(golden, shard)
    other_company = next(cik for cik in sorted(set(golden.cik)) if shard_of(cik) != shard)
    paired = golden.copy()
    paired.at[own.index[0], "permitted_filing_ids"] = [f"f{own.cik.iloc[0]}", f"f{other_company}"]
    edited = rows.assign(text=rows.text.where(rows.cik != other_company, "edited"))
    before, _ = question_stamps(shard_slices(paired, rows, SEARCH_SCOPES)(shard))
    after, _ = question_stamps(shard_slices(paired, edited, SEARCH_SCOPES)(shard))
    assert set(before) == set(own.question_id.astype(str))
    assert {q for q in before if before[q] != after[q]} == {str(own.question_id.iloc[0])}


def _per_question_asset(values: dict[str, int], asked: list[tuple[str, frozenset | None]]):
    """A sharded asset of three questions in shard 00 (two rows each, their value times ten and a hundred) whose
    slices are each question's value; `asked` records the questions each call of its work measures."""

    @dg.asset(partitions_def=SHARDS, backfill_policy=dg.BackfillPolicy.single_run(), name="runs")
    def runs(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        def questions(shard: str) -> pd.DataFrame:
            ids = sorted(values) if shard == "00" else []
            return pd.DataFrame(
                {"question_id": ids, "value": [values[q] for q in ids]}, columns=["question_id", "value"]
            )

        def work(shard: str, only) -> pd.DataFrame:
            asked.append((shard, None if only is None else frozenset(only)))
            chosen = questions(shard)
            if only is not None:
                chosen = chosen[chosen.question_id.isin(sorted(only))]
            rows = [
                {"question_id": q, "figure": v * scale, "note": None if scale == 10 else "x", ORDER_COLUMN: q}
                for q, v in zip(chosen.question_id, chosen.value)
                for scale in (10, 100)
                if v  # a question of value 0 yields no row, as a question nothing was measured on
            ]
            return pd.DataFrame(rows, columns=["question_id", "figure", "note", ORDER_COLUMN])

        return materialize_shards(context, settings, "runs", work, lambda shard: {"golden": questions(shard)}, {})

    return runs


def _per_question_run(settings: EvalSettings, instance, values: dict[str, int], asked: list):
    result = dg.materialize(
        [_per_question_asset(values, asked)],
        instance=instance,
        resources={"settings": settings},
        tags=EVALUATION_RUN_TAGS,
    )
    [event] = list(result.get_asset_materialization_events())[:1]
    metadata = event.step_materialization_data.materialization.metadata
    return metadata["shards_written"].value, metadata["questions_made_again"].value


def test_a_shard_whose_inputs_changed_for_one_question_measures_that_question_alone(tmp_path):
    """The question whose slice changed is measured again; the shard's other questions' rows are kept, and the
    shard's table is byte for byte the one a cold run of the same inputs writes."""
    settings, instance = _settings(tmp_path), dg.DagsterInstance.ephemeral()
    asked: list[tuple[str, frozenset | None]] = []
    assert _per_question_run(settings, instance, {"a": 1, "b": 2, "c": 3}, asked) == (17, 3)
    asked.clear()
    changed = {"a": 1, "b": 5, "c": 3}
    assert _per_question_run(settings, instance, changed, asked) == (1, 1)
    assert asked == [("00", frozenset({"b"}))], "the other shards are kept, and in shard 00 only b is measured"
    store = settings.store()
    assert read_sharded(store, "runs").figure.tolist() == [10, 100, 50, 500, 30, 300]
    cold = EvalSettings(**{**settings.model_dump(), "data_dir": str(tmp_path / "cold")})
    _per_question_run(cold, dg.DagsterInstance.ephemeral(), changed, [])
    assert store.path("runs", "00").read_bytes() == cold.store().path("runs", "00").read_bytes()
    # a question gone takes its rows with it, measuring nothing; a setting changed measures every question again
    asked.clear()
    assert _per_question_run(settings, instance, {"a": 1, "c": 3}, asked) == (1, 0)
    assert asked == [] and read_sharded(store, "runs").figure.tolist() == [10, 100, 30, 300]
    deeper = EvalSettings(**{**settings.model_dump(), "top_k": settings.top_k + 1})
    assert _per_question_run(deeper, instance, {"a": 1, "c": 3}, asked) == (17, 2)


def test_a_shard_made_again_in_part_with_no_row_left_is_the_table_a_cold_run_writes(tmp_path):
    """A shard whose questions, measured again in part, all yield no row keeps its columns: its file is byte for byte
    a cold run's (it was stored with no columns, which a cold run never writes)."""
    settings, instance = _settings(tmp_path), dg.DagsterInstance.ephemeral()
    assert _per_question_run(settings, instance, {"a": 1}, []) == (17, 1)
    asked: list[tuple[str, frozenset | None]] = []
    assert _per_question_run(settings, instance, {"a": 0}, asked) == (1, 1)
    assert asked == [("00", frozenset({"a"}))], "made again in part, for its one question"
    cold = EvalSettings(**{**settings.model_dump(), "data_dir": str(tmp_path / "cold")})
    _per_question_run(cold, dg.DagsterInstance.ephemeral(), {"a": 0}, [])
    store = settings.store()
    assert store.path("runs", "00").read_bytes() == cold.store().path("runs", "00").read_bytes()
    assert list(read_sharded(store, "runs").columns) == ["question_id", "figure", "note"]


def test_a_shard_s_questions_narrowed_to_some_ids():
    """`only` keeps those of the shard's questions alone, whatever the golden frame's arrays (read-only ones, as
    pandas gives from Parquet, included)."""
    golden = _golden()
    shard = next(key for key in COMPANY_SHARDS if len(shard_questions(golden, key)) > 1)
    own = shard_questions(golden, shard)
    frozen = golden.copy()
    for column in frozen.columns:
        array = frozen[column].to_numpy()
        array.flags.writeable = False
    first = str(own.question_id.iloc[0])
    assert shard_questions(frozen, shard, frozenset({first})).question_id.tolist() == [first]
    assert shard_questions(frozen, CORPUS_SHARD, frozenset({first})).question_id.tolist() == [first]
    assert shard_questions(frozen, shard, frozenset()).empty
