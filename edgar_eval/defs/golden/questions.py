"""Golden group: template questions from the filings' own XBRL facts."""

from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.adapters.files import PinnedElsewhere, create_file, replace_file
from edgar_eval.corpus.frames import iter_groups
from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.corpus.revisions import current_only, superseded_by
from edgar_eval.defs.common import table_head, table_output
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.source_files import POLICY_FILES, REVIEW_FILES, access_policy
from edgar_eval.golden import audit
from edgar_eval.golden.absence import ReviewFileError, absent_concept_review_sheet, read_absent_concept_reviews
from edgar_eval.golden.case_schema import with_case_fields
from edgar_eval.golden.fairness import PRE_FILTERS
from edgar_eval.golden.freeze import freeze
from edgar_eval.golden.templates import TEMPLATE_OWNER, TEMPLATE_VERSION, build_golden_questions


@dg.multi_asset(
    deps=[REVIEW_FILES.key, POLICY_FILES.key],
    outs={
        "golden_questions": dg.AssetOut(
            group_name="golden",
            description="XBRL-template golden questions that pass the fairness rules: answerable ones from the figures "
            "a 10-K or 10-Q reports for its own periods, gold = every chunk and page of the scope printing the "
            "figure; unanswerable ones of three kinds (other year, other company, absent concept). Each case carries "
            "its owner, version, asking role (setting asking_role), the scope filings that role may read, and "
            "expects deny where the access policy bars the role from every filing of its scope.",
        ),
        "golden_rejections": dg.AssetOut(
            group_name="golden",
            description="Every candidate the fairness rules and quotas turned away, one row each with the rule and its "
            "detail, so the golden set's selection can be audited and counted per rule.",
        ),
        "absence_review_queue": dg.AssetOut(
            group_name="golden",
            description="The absent-concept candidates whose scope's words leave them open (a name of the line item "
            "printed for other periods only, or a row of figures holding most of its words or two of its rare ones): "
            "each with the passages that might answer it, its case sha256 and its status: awaiting review, or a "
            "person's verdict from `reviews/<corpus>/absent-concept-v1.jsonl` (absent admits it, answered rejects it). "
            "The sheet a reviewer reads is written beside the tables (`absent_concept_review.md`).",
        ),
        "gold_by_search_scope": dg.AssetOut(
            group_name="golden",
            description="Each answerable golden question's gold in the wider search scopes the retrieval measurement "
            "also searches: every filing of its company (a comparative year a later report prints is gold too) and the "
            "whole corpus (the company's gold; another company printing the same number is a distractor, counted). "
            "The fairness rules apply again over every filing of the company: a question whose figure is printed with "
            "other meanings there, or restated by another filing of the company, is not measured in the wider scopes "
            "(its rule and detail say why).",
        ),
    },
)
def golden_questions_and_rejections(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    xbrl_facts: PartitionedTable,
    chunks: PartitionedTable,
    filing_text: PartitionedTable,
    sections: PartitionedTable,
    filings: PartitionedTable,
):
    keys, left_out = current_partitions(filings, (filing_text, xbrl_facts, chunks, sections))
    recorded = filings.frame(keys)
    superseded = superseded_by(recorded)  # golden cases are built on current revisions, as searched
    left_out.update({key: f"superseded by the amendment {by}" for key, by in superseded.items()})
    keys = [key for key in keys if key not in superseded]
    recorded = current_only(recorded, superseded)
    review_path = settings.absent_concept_review_path()
    review_file = str(review_path.relative_to(review_path.parents[2]))
    try:
        reviews = (
            read_absent_concept_reviews(review_path.read_text(encoding="utf-8"), review_file)
            if review_path.is_file()
            else {}
        )
    except ReviewFileError as exc:
        raise dg.Failure(str(exc)) from exc
    build = build_golden_questions(
        recorded,
        xbrl_facts.frame(keys),
        chunks.frame(keys),
        filing_text.frame(keys),
        sections.frame(keys),
        seed=settings.golden_seed,
        absence_reviews=reviews,
    )
    golden = with_case_fields(
        build.questions, TEMPLATE_OWNER, access_policy(settings), recorded, role=settings.asking_role
    )
    rejections = build.rejections
    if golden.empty:
        raise dg.Failure(
            "no golden question could be built: no 10-K or 10-Q with located facts among the current filings"
        )
    for filing_id, why in build.statements_elsewhere.items():
        # the run's output names each such filing in one line (the CLI prints step output), and so does the UI's log
        line = f"{filing_id}: statements not in the filing ({why}); no absent-concept question is built from it"
        print(f"  note   {line}", flush=True)
        context.log.warning(line)
    counts = golden.kind.value_counts().sort_index().to_dict()
    by_rule = rejections.groupby(["kind", "rule"]).size()
    yield table_output(
        golden,
        {
            "template_version": TEMPLATE_VERSION,
            "by_kind": dg.MetadataValue.json(counts),
            "companies": int(golden.cik.nunique()),
            "left_out": dg.MetadataValue.json(left_out),
            "statements_elsewhere": dg.MetadataValue.json(build.statements_elsewhere),
            "by_statement_type": dg.MetadataValue.json(
                golden[golden.kind == "answerable"].statement_type.value_counts().sort_index().to_dict()
            ),
            "head": table_head(golden, ["kind", "question", "gold_answer"], rows=8),
        },
        output_name="golden_questions",
    )
    yield table_output(
        rejections,
        {
            "by_rule": dg.MetadataValue.json({"/".join(map(str, key)): int(n) for key, n in by_rule.to_dict().items()}),
            "head": table_head(
                cast(pd.DataFrame, rejections[~rejections.rule.isin(list(PRE_FILTERS))]),
                ["rule", "filing_id", "concept", "detail"],
                rows=8,
            ),
        },
        output_name="golden_rejections",
    )
    queue = build.review_queue
    # its own sheet: absence_review.md is the admission gates' (golden/patterns.py): one must not replace the other
    sheet = settings.store().file("absent_concept_review.md")
    replace_file(sheet, absent_concept_review_sheet(queue, review_file).encode())
    yield table_output(
        queue,
        {
            "by_status": dg.MetadataValue.json(queue.status.value_counts().sort_index().to_dict()),
            "by_rule": dg.MetadataValue.json(queue.rule.value_counts().sort_index().to_dict()),
            "review_file": review_file,
            "sheet": dg.MetadataValue.path(str(sheet)),
            "head": table_head(queue, ["status", "question", "rule"], rows=8),
        },
        output_name="absence_review_queue",
    )
    wider = build.wider_scope_gold
    fair = wider[wider.rule.isna()]
    yield table_output(
        wider,
        {
            "measured_by_scope": dg.MetadataValue.json(fair.search_scope.value_counts().sort_index().to_dict()),
            "not_measured_by_rule": dg.MetadataValue.json(
                {"/".join(key): int(n) for key, n in wider.groupby(["search_scope", "rule"]).size().to_dict().items()}
            ),
        },
        output_name="gold_by_search_scope",
    )


@dg.asset(
    group_name="golden",
    description="The frozen golden set: a dev/eval split by company fixed by the golden seed, exported as JSON Lines "
    "in the brief's schema under a version and a content hash. A pinned version is never silently replaced.",
)
def golden_set(
    context: dg.AssetExecutionContext, settings: EvalSettings, golden_questions: pd.DataFrame, filings: PartitionedTable
) -> dg.Output[pd.DataFrame]:
    store = settings.store()
    golden = golden_questions
    recorded = filings.frame()  # every filing whose `filings` row is materialised
    draft = freeze(golden, dict(zip(recorded.filing_id, recorded.sha256)), settings.golden_seed)
    version = settings.golden_version or f"{TEMPLATE_VERSION}@{draft.content_hash[:12]}"
    export = store.file("golden", f"{version.replace('/', '-')}.jsonl")
    try:
        create_file(export, draft.jsonl.encode())  # a freeze is written once: never replaced, by this run or another
    except PinnedElsewhere:
        raise dg.Failure(
            f"golden set {version!r} is frozen at {export} with other content; name a new golden_version "
            "to freeze this one"
        ) from None
    frame = pd.DataFrame(
        {
            "question_id": golden.question_id,
            "split": golden.cik.map(draft.split_of_company),
            "version": version,
            "content_hash": draft.content_hash,
        }
    )
    return table_output(
        frame,
        {
            "version": version,
            "content_hash": draft.content_hash,
            "export": dg.MetadataValue.path(str(export)),
            "by_split": dg.MetadataValue.json(draft.split_counts),
        },
    )


@dg.asset(
    deps=[REVIEW_FILES.key],
    group_name="golden",
    description="The golden set audited by sample: a seeded sample of the frozen set (per template kind, and every "
    "hard-question case; or as `reviews/<corpus>/audit-plan.toml`, committed before the draw, says: its seed, sizes "
    "and the companies left out), written with its evidence to `data/<corpus>/golden_audit.md`; a person's verdicts "
    "read from `reviews/<corpus>/audit-v2.jsonl`, bound to each case's sha256, each saying who gave it (the rules' "
    "authors or an independent reviewer). Unreviewed cases count as unreviewed, never as correct. Verdicts on cases "
    "no longer in the sample (the rules changed since) are kept as rows with `current` false: the rate before a fix.",
)
def golden_audit(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    golden_questions: pd.DataFrame,
    golden_set: pd.DataFrame,
    golden_patterns: pd.DataFrame,
    golden_proposals: pd.DataFrame,
    filing_text: PartitionedTable,
    filings: PartitionedTable,
) -> dg.Output[pd.DataFrame]:
    store = settings.store()
    keys, _ = current_partitions(filings, (filing_text,))
    texts, recorded = filing_text.frame(keys), filings.frame(keys)
    golden = golden_questions
    frozen = set(golden_set.question_id)
    company_filings = {
        str(cik): sorted(group.filing_id)
        for cik, group in iter_groups(cast(pd.DataFrame, recorded[recorded.form.isin(["10-K", "10-Q"])]).groupby("cik"))
    }
    cases = pd.concat(
        [
            audit.template_cases(
                cast(pd.DataFrame, golden[golden.question_id.isin(frozen)]),
                dict(zip(texts.filing_id, texts.text)),
                company_filings,
            ),
            audit.pattern_cases(golden_patterns, golden_proposals),
        ],
        ignore_index=True,
    )
    path = settings.golden_audit_path()
    review_file = str(path.relative_to(path.parents[2]))
    plan_path = path.parent / "audit-plan.toml"
    if plan_path.is_file():  # committed before the draw: its seed, sizes and the companies left out of it
        try:
            plan = audit.read_audit_plan(
                plan_path.read_text(encoding="utf-8"), str(plan_path.relative_to(path.parents[2]))
            )
        except audit.AuditFileError as exc:
            raise dg.Failure(str(exc)) from exc
        sample = audit.draw_sample(
            audit.held_out_cases(cases, plan), plan.seed, plan.per_kind, plan.sizes, plan.kind_seeds
        )
    else:
        sizes = {"absent_concept": settings.audit_absent_concept}
        sample = audit.draw_sample(cases, settings.golden_seed, settings.audit_per_kind, sizes)
    try:
        verdicts = audit.read_audit_file(path.read_text(encoding="utf-8"), review_file) if path.is_file() else {}
    except audit.AuditFileError as exc:
        raise dg.Failure(str(exc)) from exc
    judged = audit.apply_verdicts(sample, verdicts).assign(current=True)
    sheet = store.file("golden_audit.md")
    replace_file(sheet, audit.review_sheet(judged, review_file).encode())
    summary = audit.audit_summary(judged)
    kept = audit.kept_verdicts(verdicts, judged)
    return table_output(
        pd.concat([judged, kept], ignore_index=True) if len(kept) else judged,
        {
            "kept_verdicts": len(kept),
            "kept_defects": int(kept.status.isin(audit.DEFECTS).sum()),
            "sampled": len(judged),
            "reviewed": int(judged.status.isin(audit.VERDICTS).sum()),
            "defects": int(judged.status.isin(audit.DEFECTS).sum()),
            "by_reviewer_role": dg.MetadataValue.json(
                judged[judged.reviewer_role != ""].reviewer_role.value_counts().sort_index().to_dict()
            ),
            "review_file": review_file,
            "sheet": dg.MetadataValue.path(str(sheet)),
            "per_kind": table_head(summary, ["kind", "sampled", "reviewed", "defects", "awaiting"], rows=12),
        },
    )


ASSETS = [golden_questions_and_rejections, golden_set, golden_audit]
