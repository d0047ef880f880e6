"""The release fixture: a must-pass set of cases read from `fixtures/<corpus>/<release_fixture>.jsonl`, its stale
cases listed and re-verified before scoring, and each case run through the reference system route by route."""

from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.answering.routing import route_before_retrieval
from edgar_eval.corpus.company_names import aliases_by_company
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.corpus.revisions import superseded_by
from edgar_eval.defs.answering.generations import generation_row
from edgar_eval.defs.common import checked_index, table_head, table_output
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource
from edgar_eval.defs.source_files import FIXTURE_FILES, POLICY_FILES, TAPE_FILES, access_policy
from edgar_eval.evaluation.release_fixture import FixtureError, case_row, read_fixture, score_case, staleness
from edgar_eval.golden.case_schema import permitted, scope_filings
from edgar_eval.retrieval.searches import searches

CASE_COLUMNS = [
    "case_id",
    "question",
    "expected_route",
    "role",
    "cik",
    "fiscal_year",
    "recorded_scope_filing_ids",
    "scope_filing_ids",
    "permitted_filing_ids",
    "evidence_filing_id",
    "stale",
    "stale_status",
    "stale_reason",
    "current_filing_id",
    "old_value",
    "new_value",
    "gold_value",
    "gold_answer",
    "gold_displayed",
    "review_note",
    "provenance",
]


@dg.asset(
    deps=[FIXTURE_FILES.key, POLICY_FILES.key],
    group_name="golden",
    description="The release fixture's cases (`fixtures/<corpus>/<release_fixture>.jsonl`, a hand-picked must-pass "
    "set): each case's recorded scope mapped to the current revisions, the filings its role may read, and, before "
    "anything is scored, whether its source changed since it was written (evidence superseded by an amendment, "
    "another sha256, or gone), with the figure re-verified in the current revision (old and new value). Empty when "
    "the corpus has no fixture.",
)
def release_fixture_cases(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    filings: PartitionedTable,
    xbrl_facts: PartitionedTable,
) -> dg.Output[pd.DataFrame]:
    path = settings.release_fixture_path()
    where = str(path.relative_to(path.parents[2]))
    if not path.is_file():
        return table_output(pd.DataFrame(columns=CASE_COLUMNS), {"fixture": f"none ({where} does not exist)"})
    try:
        cases = read_fixture(path.read_text(encoding="utf-8"), where)
    except FixtureError as exc:
        raise dg.Failure(str(exc)) from exc
    keys, _ = current_partitions(filings, (xbrl_facts,))
    recorded = filings.frame(keys)
    facts = xbrl_facts.frame(keys)
    superseded = superseded_by(recorded)
    sha_of = dict(zip(recorded.filing_id, recorded.sha256))
    known = scope_filings(recorded)
    policy = access_policy(settings)
    rows = []
    for case in cases:
        row = case_row(case, staleness(case, sha_of, superseded, facts))
        # the recorded scope read as it stands now: a superseded filing's place taken by its current revision
        row["scope_filing_ids"] = sorted({superseded.get(f, f) for f in case.scope_filing_ids if f in known})
        row["permitted_filing_ids"] = permitted(row["scope_filing_ids"], row["role"], policy, known)
        rows.append(row)
    frame = pd.DataFrame(rows, columns=CASE_COLUMNS)
    stale_rows = cast(pd.DataFrame, frame[frame.stale])
    context.log.info(f"release fixture: {len(stale_rows)} of {len(frame)} cases stale: {', '.join(stale_rows.case_id)}")
    return table_output(
        frame,
        {
            "fixture": where,
            "cases_by_route": dg.MetadataValue.json(frame.expected_route.value_counts().sort_index().to_dict()),
            "stale": table_head(stale_rows, ["case_id", "stale_status", "stale_reason"], rows=20),
        },
    )


@dg.asset(
    deps=[POLICY_FILES.key, TAPE_FILES.key],
    group_name="runs",
    pool=MODEL_ENDPOINT_POOL,
    description="Each release-fixture case run through the reference system: the router (deny, clarify, review "
    "before retrieval), else retrieval over the filings its role may read (current revisions only: the index holds "
    "no superseded filing) and the generator, exiting by a route. A case passes when it exits by its declared route "
    "and, for an answer, states the current figure citing only permitted, current filings; for a changed source, the "
    "old figure is neither retrieved nor repeated and the current revision is cited. Stale cases are scored like the "
    "others and flagged.",
)
def release_fixture_results(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    generator: GeneratorResource,
    release_fixture_cases: pd.DataFrame,
    search_index: pd.DataFrame,
    filings: PartitionedTable,
) -> dg.Output[pd.DataFrame]:
    cases = release_fixture_cases
    if cases.empty:
        return table_output(pd.DataFrame(), {"cases": 0})
    recorded = filings.frame()
    aliases, known, policy = aliases_by_company(recorded), scope_filings(recorded), access_policy(settings)
    index, embed_model = checked_index(settings, embedder, search_index)
    retriever = settings.answer_search()
    search = searches(search_index, index, settings.rrf_k, (retriever,))[retriever]
    texts = search_index.set_index("chunk_id").text
    filing_of = dict(zip(search_index.chunk_id, search_index.filing_id))
    indexed = set(search_index.filing_id)
    model = generator.adapter(settings)
    rows = []
    for case, query in zip(iter_rows(cases), embed_model.embed(cases.question.tolist())):
        scope = [known[f] for f in case.scope_filing_ids]
        decision = route_before_retrieval(case.question, scope, aliases, case.role, policy)
        readable_current = set(case.permitted_filing_ids) & indexed
        if decision:
            chunk_ids, taken, reason, answer, cited = [], decision.route, decision.reason, "", []
        else:
            hits = search(query, case.question, sorted(readable_current), settings.top_k)
            chunk_ids = search_index.iloc[[h.row for h in hits]].chunk_id.tolist()
            _, _, generated = generation_row(model, case, chunk_ids, texts)
            taken, reason = generated["route"], generated["route_reason"]
            answer, cited = generated["answer_text"], generated["cited_chunk_ids"]
        rows.append(
            {
                **score_case(
                    case._asdict(),
                    taken,
                    reason,
                    answer,
                    {c: texts[c] for c in chunk_ids},
                    cited,
                    filing_of,
                    readable_current,
                ),
                "retrieved_filing_ids": sorted({filing_of[c] for c in chunk_ids}),
            }
        )
    frame = pd.DataFrame(rows)
    failed = cast(pd.DataFrame, frame[~frame.passed])
    return table_output(
        frame,
        {
            "cases": len(frame),
            "passed": int(frame.passed.sum()),
            "stale": int(frame.stale.sum()),
            "failed": table_head(failed, ["case_id", "expected_route", "taken_route", "failures"], rows=12),
        },
    )


ASSETS = [release_fixture_cases, release_fixture_results]
