"""Golden group: template questions from the filings' own XBRL facts."""

import hashlib

import dagster as dg
import pandas as pd

from edgar_eval.adapters.files import replace_file
from edgar_eval.defs.common import filing_keys, read_partitions, table_head, unpartitioned_result, usable_partitions
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.domain.versioning import content_version
from edgar_eval.golden.freeze import freeze
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


@dg.asset(deps=["golden_questions", "filings"], group_name="golden", code_version="1",
          description="The frozen golden set: a dev/eval split by company fixed by the golden seed, exported as JSON Lines in "
                      "the brief's schema under a version and a content hash. A pinned version is never silently replaced.")
def golden_set(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
    store = settings.store()
    golden = store.read("golden_questions")
    keys, _ = usable_partitions(store, filing_keys(settings), ("filings",))
    filings = read_partitions(store, "filings", keys)
    draft = freeze(golden, dict(zip(filings.filing_id, filings.sha256)), settings.golden_seed)
    version = settings.golden_version or f"{TEMPLATE_VERSION}@{draft.content_hash[:12]}"
    export = store.root / "golden" / f"{version.replace('/', '-')}.jsonl"
    if export.is_file() and hashlib.sha256(export.read_bytes()).hexdigest() != draft.content_hash:
        raise dg.Failure(f"golden set {version!r} is frozen at {export} with other content; name a new golden_version "
                         "to freeze this one")
    replace_file(export, draft.jsonl.encode())
    frame = pd.DataFrame({"question_id": golden.question_id, "split": golden.cik.map(draft.split_of_company), "version": version,
                          "content_hash": draft.content_hash})
    return unpartitioned_result(store, "golden_set", frame, {
        "version": version, "content_hash": draft.content_hash, "export": dg.MetadataValue.path(str(export)),
        "by_split": dg.MetadataValue.json(draft.split_counts)})


ASSETS = [golden_questions, golden_set]
