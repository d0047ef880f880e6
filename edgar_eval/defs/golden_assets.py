"""Golden group: template questions from the filings' own XBRL facts."""

import dagster as dg

from edgar_eval.defs.common import filing_keys, read_partitions, table_head, unpartitioned_result, usable_partitions
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.domain.versioning import content_version
from edgar_eval.golden.templates import TEMPLATE_VERSION, build_golden_questions


@dg.asset(deps=["xbrl_facts", "chunks", "filing_text", "filings"], group_name="golden",
          code_version="1", description="XBRL-template golden questions: answerable ones with gold chunks and pages located by "
          "their facts' offsets, and unanswerable ones of three kinds (other year, other company, absent concept).")
def golden_questions(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
    store = settings.store()
    keys, left_out = usable_partitions(store, filing_keys(settings), ("filing_text", "xbrl_facts", "chunks"))
    filings = read_partitions(store, "filings", keys)
    text_rows = read_partitions(store, "filing_text", keys)
    texts = dict(zip(text_rows.filing_id, text_rows.text))
    golden = build_golden_questions(filings, read_partitions(store, "xbrl_facts", keys), read_partitions(store, "chunks", keys),
                                    texts, seed=settings.golden_seed)
    if golden.empty:
        raise dg.Failure("no golden question could be built: no annual report with located facts among the current filings")
    counts = golden.kind.value_counts().sort_index().to_dict()
    return unpartitioned_result(store, "golden_questions", golden, {
        "template_version": TEMPLATE_VERSION, "golden_hash": content_version(golden), "by_kind": dg.MetadataValue.json(counts),
        "companies": int(golden.cik.nunique()), "left_out": dg.MetadataValue.json(left_out),
        "head": table_head(golden, ["kind", "question", "gold_answer"], rows=8)})


ASSETS = [golden_questions]
