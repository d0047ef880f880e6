"""The golden set's sections: its make-up and rejections, absence candidates per filing, the two-document supply,
the hard-question funnel, the frozen pattern set and its baseline, and the golden set audit."""

from __future__ import annotations

from collections import Counter
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import ANSWER
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.summaries import golden_mix
from edgar_eval.golden.audit import RULES_AUTHOR, audit_summary, reviewer_summary
from edgar_eval.golden.fairness import AWAITING_REVIEW, RULES
from edgar_eval.golden.patterns import PATTERN_CONTRACTS
from edgar_eval.golden.two_documents import (
    CHANGE_OVER_TIME,
    CROSS_COMPANY,
    GRANULARITY,
    RESTATEMENT,
    TWO_DOCUMENT_KINDS,
)
from edgar_eval.report.inputs import ReportInputs
from edgar_eval.report.markdown import Provenance, ReportTable, _ratio, interval, percent


def absence_by_filing(golden: pd.DataFrame, rejections: pd.DataFrame) -> pd.DataFrame:
    """Per 10-K and 10-Q: the absent-concept candidates (common line items the scope neither tags nor the company
    reports), how many are admitted, how many await a person's review, and the rest by the rule that rejected them."""
    absent = golden[golden.kind == "absent_concept"]
    rejected = cast(pd.DataFrame, rejections[(rejections.kind == "absent_concept") & (rejections.concept != "")])
    filings = sorted(set(absent.source_filing_id) | set(rejected.filing_id))
    rows = []
    for filing_id in filings:
        mine = cast(pd.DataFrame, rejected[rejected.filing_id == filing_id])
        admitted = int((absent.source_filing_id == filing_id).sum())
        by_rule = mine.rule.value_counts().to_dict()
        awaiting = int(by_rule.pop(AWAITING_REVIEW, 0))
        order = {rule: i for i, rule in enumerate(RULES)}
        rows.append(
            {
                "filing": filing_id,
                "candidates": admitted + len(mine),
                "admitted": admitted,
                "awaiting review": awaiting,
                "rejected, by rule": "; ".join(
                    f"{rule} {n}" for rule, n in sorted(by_rule.items(), key=lambda kv: (order.get(kv[0], 99), kv[0]))
                )
                or "none",
            }
        )
    return pd.DataFrame(rows, columns=["filing", "candidates", "admitted", "awaiting review", "rejected, by rule"])


def _companies_phrase(n: int) -> str:
    return f"{n} {'company' if n == 1 else 'companies'}"


def two_document_supply(golden: pd.DataFrame, rejections: pd.DataFrame, filings: pd.DataFrame) -> pd.DataFrame:
    """Per two-document kind: the questions asked, their companies, the pairs tried and why the rest were not asked,
    beside what the corpus holds for the kind (a 10-K and a 10-Q of one fiscal year; two annual reports; a later
    filing printing another value for a period; two companies reporting one fiscal year)."""
    periodic = cast(pd.DataFrame, filings[filings.form.isin(["10-K", "10-Q"])])
    annual = cast(pd.DataFrame, periodic[periodic.form == "10-K"])
    quarterly = cast(pd.DataFrame, periodic[periodic.form == "10-Q"])
    with_quarter = set(zip(quarterly.cik, quarterly.fiscal_year))
    paired = len({c for c, y in zip(annual.cik, annual.fiscal_year) if (c, y) in with_quarter})
    holds = {
        GRANULARITY: f"{_companies_phrase(paired)} with a 10-K and a 10-Q of one fiscal year",
        CHANGE_OVER_TIME: f"{_companies_phrase(sum(n >= 2 for n in annual.cik.value_counts()))} with two or more 10-Ks",
        RESTATEMENT: "the periods a later filing prints with another value",
        CROSS_COMPANY: f"{_companies_phrase(int(annual.cik.nunique()))} with a 10-K",
    }
    rows = []
    for kind in TWO_DOCUMENT_KINDS:
        asked = cast(pd.DataFrame, golden[golden.kind == kind])
        turned = cast(pd.DataFrame, rejections[rejections.kind == kind])
        rows.append(
            {
                "kind": kind,
                "questions": len(asked),
                "companies": int(asked.cik.nunique()),
                "pairs not asked, by rule": "; ".join(
                    f"{rule} {n}" for rule, n in sorted(turned.rule.value_counts().to_dict().items())
                )
                or "none",
                "what the corpus holds": holds[kind],
            }
        )
    columns = ["kind", "questions", "companies", "pairs not asked, by rule", "what the corpus holds"]
    return pd.DataFrame(rows, columns=columns)


def kind_examples(golden: pd.DataFrame) -> pd.DataFrame:
    """One question per kind, the first by question id: what each kind asks, in its own words."""
    first = golden.sort_values("question_id").groupby("kind", sort=True).head(1).sort_values("kind")
    answers = [
        str(r.gold_answer) if r.expected_route == ANSWER else f"route: {r.expected_route}" for r in iter_rows(first)
    ]
    return pd.DataFrame({"kind": list(first.kind), "question": list(first.question), "the right answer": answers})


def golden_tables(
    golden: pd.DataFrame,
    rejections: pd.DataFrame,
    partitions: str,
    review_queue: pd.DataFrame | None = None,
    filings: pd.DataFrame | None = None,
) -> list[ReportTable]:
    """The golden set's make-up and every rule's rejection count; a test rebuilds these from the real filings."""
    source = "xbrl_facts, chunks, filing_text, sections of " + partitions
    by_kind = cast(
        pd.DataFrame,
        golden.groupby(["kind", "expected_route"], sort=True)
        .agg(questions=("question_id", "size"), companies=("cik", "nunique"))
        .reset_index()
        .rename(columns={"expected_route": "expected route"})[["kind", "questions", "companies", "expected route"]],
    )
    answerable = golden[golden.expected_route == ANSWER]
    balance = (
        cast(pd.Series, answerable.groupby(["source_form", "statement_type"], sort=True).size())
        .rename("answerable questions")
        .reset_index()
        .rename(columns={"source_form": "form", "statement_type": "printed in"})
    )
    rejected = (
        cast(pd.Series, rejections.groupby(["kind", "rule"], sort=False).size())
        .rename("rejected")
        .reset_index()
        .assign(order=lambda t: t.rule.map({rule: i for i, rule in enumerate(RULES)}))
        .sort_values(["kind", "order"])
        .drop(columns="order")
        .rename(columns={"kind": "question kind"})
    )
    tables = [
        ReportTable("Golden questions", by_kind, Provenance("golden_questions", content_version(golden), source)),
        ReportTable(
            "One question of each kind",
            kind_examples(golden),
            Provenance("golden_questions", content_version(golden), source),
            note="The first question of each kind by question id, with the answer the judge wants, or the route it "
            "must take instead of an answer (no_answer: declined; review: sent to a person).",
        ),
        ReportTable(
            "Golden questions by form and where the figure is printed",
            balance,
            Provenance("golden_questions", content_version(golden), source),
        ),
        ReportTable(
            "The golden mix: answerable questions per form, statement and page position",
            golden_mix(golden).assign(share=lambda t: t.share.map(percent)),
            Provenance("golden_questions", content_version(golden), source),
            note="Read before any total: a set that over-tests one form, one statement or the cover page (first page) "
            "weighs every total below towards it. Page hit per position is under Retrieval by slice.",
        ),
        ReportTable(
            "Golden candidates rejected, by rule",
            rejected,
            Provenance("golden_rejections", content_version(rejections), source),
            note="Each candidate is counted once, under the first rule it fails, in the order the rules run "
            "(edgar_eval/golden/fairness.py). The absence rule (edgar_eval/golden/might_answer.py) reads no reader's "
            "vocabulary. An absent-concept candidate is rejected only on what a careful reader takes as the filing "
            "printing it: a name of the line item (its label, or a row label at least two other companies print "
            "beside the same concept, never learned from the company asked) with all its distinctive words together "
            "in a row, a heading over rows of figures, or a sentence, with a figure for the asked period beside it "
            "(printed_in_row, heading_over_components, printed_in_sentence), or a sentence saying there is none or "
            "that it is not material (printed_as_none), or that a holding containing it is nil "
            "(wider_holding_said_none: no short-term borrowings for commercial paper). Tag names, extension "
            "concepts and the cover page are not "
            "evidence. A total or computed figure is never asked as absent (cannot_be_shown_absent); nor one from a "
            "filing whose statements are incorporated from an exhibit the corpus lacks (statements_elsewhere, one row "
            "per filing with no concept); nor one whose scope tags an element of its taxonomy family. What the "
            "words leave open (a name printed for other periods only; a row of figures holding most of the label's "
            "words or two of its rare ones) awaits a person's review (awaiting_review) and is never admitted "
            "unreviewed. Blind spots: a line printed under a name no other company of the corpus uses and with none "
            "of the item's rare words, a figure printed only in an image. forward_schedule: an other-year twin whose "
            "year the company's filings print as a row or column of a table under the concept's words (an estimated "
            "amortization, a maturity, a future payment). several_fair_answers: an answerable figure whose scope "
            "prints a second row under the question's own words with another figure is not asked (one fair answer, "
            "or no question).",
        ),
    ]
    if filings is not None and golden.kind.isin(TWO_DOCUMENT_KINDS).any():
        supply = two_document_supply(golden, rejections, filings)
        short = [r.kind for r in iter_rows(supply) if r.questions < 30]
        tables.append(
            ReportTable(
                "Two-document questions: what the corpus allows",
                supply,
                Provenance("golden_questions", content_version(golden), source),
                note="Each kind needs a pair of filings (golden.two_documents): a pair whose later or annual filing "
                "prints the other figure, or a row of the item's words for the other year, is one document "
                "(one_document_suffices), and is not asked; a restatement whose first filing prints the later figure "
                "too is two lines, not a revision (first_prints_later_figure). "
                + (
                    f"Under 30 questions: {', '.join(short)}, because the corpus holds few such pairs (the last "
                    "column), not because the rules reject them."
                    if short
                    else "Every kind holds 30 questions or more."
                ),
            )
        )
    by_filing = absence_by_filing(golden, rejections)
    if len(by_filing):
        queue = review_queue if review_queue is not None else pd.DataFrame(columns=["status"])
        statuses = queue.status.value_counts().to_dict() if len(queue) else {}
        tables.append(
            ReportTable(
                "Absent-concept candidates per filing",
                by_filing,
                Provenance("golden_rejections", content_version(rejections), source),
                note=f"{int(by_filing.admitted.sum())} admitted of {int(by_filing.candidates.sum())} candidates in "
                f"{len(by_filing)} filings; the builder asks up to 4 per filing (quota_per_filing beyond). Review "
                f"queue (asset absence_review_queue, verdicts in reviews/<corpus>/absent-concept-v1.jsonl): "
                + (
                    ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(statuses.items()))
                    if statuses
                    else "empty"
                )
                + ". A candidate is a line item other companies of the corpus report that the filing's scope neither "
                "tags nor its company reports anywhere.",
            )
        )
    return tables


def funnel_table(funnel: pd.DataFrame) -> ReportTable:
    """The funnel per pattern; a test rebuilds it from the real filings and the hand-written candidates."""
    return ReportTable(
        "Hard golden questions: the funnel per dispersion pattern",
        funnel.rename(columns=lambda c: c.replace("_", " ")),
        Provenance("pattern_funnel", content_version(funnel), "admission_verdicts over golden_proposals"),
        note="Proposed (unreadable ones included) -> every quote found verbatim -> the pattern's contract met on "
        "the text -> every answer figure quoted or one step away -> all ten admission gates passed -> selected for the "
        "frozen set (edgar_eval/golden/gates.py).",
    )


def pattern_tables(inputs: ReportInputs) -> list[ReportTable]:
    """The hard-question pipeline: the funnel per pattern, agreement with hand-written verdicts, the frozen set and
    the naive baseline scored on it."""
    funnel, agreement, frozen, baseline = (
        inputs.pattern_funnel,
        inputs.admission_agreement,
        inputs.golden_patterns,
        inputs.pattern_baseline,
    )
    if funnel.empty:
        return []
    source = "admission_verdicts over golden_proposals"
    tables = [funnel_table(funnel)]
    if len(agreement) and int(agreement.candidates.iloc[0]):
        shown = agreement.assign(agreement=[f"{a}/{n}" for a, n in zip(agreement.agree, agreement.candidates)])
        tables.append(
            ReportTable(
                "Gate verdicts against hand-written verdicts",
                cast(pd.DataFrame, shown[["gate", "agreement", "gate_only", "person_only"]]).rename(
                    columns={"gate_only": "failed by the gate only", "person_only": "failed by the person only"}
                ),
                Provenance("admission_agreement", content_version(agreement), source),
                note=f"Over the {int(agreement.candidates.iloc[0])} proposals that carry the verdict a person "
                "expected; "
                f"{int(agreement.differences.iloc[0])} overall verdict(s) differ.",
            )
        )
    if len(frozen):
        made_up = (
            cast(pd.Series, frozen.groupby(["pattern", "difficulty"], sort=True).size()).rename("cases").reset_index()
        )
        per_pattern = int(frozen.per_pattern.iloc[0])
        counts = frozen.pattern.value_counts()
        short = [f"{p} {int(counts.get(p, 0))}" for p in PATTERN_CONTRACTS if counts.get(p, 0) < per_pattern]
        by_difficulty = frozen.difficulty.value_counts()
        balance = (
            f"up to {per_pattern} accepted cases per pattern; {int(by_difficulty.get('single-document', 0))} "
            "single-document "
            f"and {int(by_difficulty.get('two-document', 0))} two-document"
            + (f"; short of {per_pattern}: {', '.join(short)} (not enough accepted proposals)" if short else "")
        )
        tables.append(
            ReportTable(
                f"Frozen pattern set {frozen.version.iloc[0]}",
                made_up,
                Provenance("golden_patterns", content_version(frozen), "admission_verdicts"),
                note=f"Export sha256 `{frozen.content_hash.iloc[0]}`; every case passed all ten admission gates; "
                f"{balance}.",
            )
        )
    if len(baseline):
        rows = []
        for (label, value), group in [(("pattern", p), g) for p, g in baseline.groupby("pattern", sort=True)] + [
            (("difficulty", d), g) for d, g in baseline.groupby("difficulty", sort=True)
        ]:
            recall, quotes = group.document_recall.dropna(), group.quote_recall.dropna()
            rows.append(
                {
                    "slice": label,
                    "value": value,
                    "cases": len(group),
                    "document recall": f"{recall.mean():.2f}" if len(recall) else "n/a",
                    "quote recall": f"{quotes.mean():.2f}" if len(quotes) else "n/a",
                    "correct": _ratio(int(group.correct.sum()), len(group)),
                    "abstained": _ratio(int(group.abstained.sum()), len(group)),
                }
            )
        tables.append(
            ReportTable(
                "Naive baseline on the frozen pattern set",
                pd.DataFrame(rows),
                Provenance("pattern_baseline", content_version(baseline), "golden_patterns x search_index"),
                note="Dense top-k over the company's filings and the extractive reader, through the same citation "
                "check as the arms. Document recall: the share of a case's evidence filings among the "
                "retrieved chunks; quote recall: the share of evidence quotes with a chunk among "
                "them. Correct: a stated figure of the reference answer, or a refusal where "
                "the case expects one.",
            )
        )
    if len(inputs.golden_audit):
        audited = inputs.golden_audit
        current = audited[audited.current.astype(bool)] if "current" in audited else audited
        yields = kind_yields(inputs.golden, inputs.filings)
        tables += [audit_table(cast(pd.DataFrame, current), yields), audit_reviewers_table(cast(pd.DataFrame, current))]
        if "current" in audited and (~audited.current.astype(bool)).any():
            tables.append(audit_kept_table(cast(pd.DataFrame, audited[~audited.current.astype(bool)])))
    return tables


def audit_kept_table(kept: pd.DataFrame) -> ReportTable:
    """Verdicts on cases the sample no longer holds, as given: the audit's defect rate before the rules were fixed."""
    rows = []
    for kind, group in sorted(kept.groupby("kind"), key=lambda pair: str(pair[0])):
        defects = int(group.status.isin(["defect", "computable"]).sum())
        rows.append(
            {
                "kind": kind,
                "verdicts": len(group),
                "defects": defects,
                "defect rate": percent(defects / len(group)),
                "reviewers": ", ".join(sorted(set(group.reviewer_role))),
                "defects found": "; ".join(
                    f"{r.case_id}: {r.reason}"[:240] for r in iter_rows(group) if r.status in ("defect", "computable")
                )
                or "none",
            }
        )
    return ReportTable(
        "Golden set audit: verdicts kept from earlier rules",
        pd.DataFrame(rows, columns=["kind", "verdicts", "defects", "defect rate", "reviewers", "defects found"]),
        Provenance("golden_audit", content_version(kept), "reviews"),
        note="Verdicts on record whose case the current sample no longer holds: the rules changed after them (a defect "
        "found becomes a constructed test and a rule change, and its case leaves the set) or the case's evidence did. "
        "Kept as given, so the rate before a fix stays readable beside the rate after it (the audit table above).",
    )


def kind_yields(golden: pd.DataFrame, filings: pd.DataFrame) -> dict[str, dict[str, str]]:
    """Per kind, its questions per 10-K and per 10-Q of the run (by the form of the filing each is built from), to
    two decimals: how much of a kind the rules yield, printed beside how often it is wrong."""
    if not len(golden) or "source_form" not in golden or "form" not in filings:
        return {}
    per_form = {form: int((filings.form == form).sum()) for form in ("10-K", "10-Q")}
    counts = Counter(zip(golden.kind.astype(str), golden.source_form.astype(str)))
    return {
        str(kind): {form: f"{counts.get((str(kind), form), 0) / n:.2f}" if n else "n/a" for form, n in per_form.items()}
        for kind in sorted(set(golden.kind))
    }


def audit_table(judged: pd.DataFrame, yields: dict[str, dict[str, str]] | None = None) -> ReportTable:
    summary = audit_summary(judged)
    yields = yields or {}
    frame = pd.DataFrame(
        {
            "kind": summary.kind,
            "questions per 10-K": [yields.get(kind, {}).get("10-K", "") for kind in summary.kind],
            "questions per 10-Q": [yields.get(kind, {}).get("10-Q", "") for kind in summary.kind],
            "sampled": summary.sampled,
            "reviewed": summary.reviewed,
            "defects": summary.defects,
            "of them computable": summary.computable,
            "audited defect rate": [percent(r) if n else "n/a" for r, n in zip(summary.defect_rate, summary.reviewed)],
            "Wilson 95%": [
                interval(lo, hi) if n else "n/a" for lo, hi, n in zip(summary.low, summary.high, summary.reviewed)
            ],
            "awaiting review": summary.awaiting,
        }
    )
    return ReportTable(
        "Golden set audit",
        frame,
        Provenance("golden_audit", content_version(judged), "golden_set, golden_patterns, reviews"),
        note="A seeded sample of the frozen set (per template kind, absent-concept deepest, and every hard-question "
        "case) read against the filings; verdicts in reviews/<corpus>/, each bound to its case's sha256. A defect is "
        "a wrong route or gold, or, for an unanswerable case, a scope that answers it by one computation from printed "
        "lines (computable). The defect rate is over reviewed cases; a case awaiting review is counted as awaiting, "
        "never as correct. Beside it, the kind's yield: its golden questions per 10-K and per 10-Q of this corpus (by "
        "the form of the filing each is built from; a hard-question pattern has none). Who gave the verdicts is the "
        "next table.",
    )


def audit_reviewers_table(judged: pd.DataFrame) -> ReportTable:
    summary = reviewer_summary(judged)
    by_authors = int(summary[summary.reviewer_role == RULES_AUTHOR].verdicts.sum())
    total = int(summary.verdicts.sum())
    if not total:
        plainly = "No verdict is recorded for this sample yet."
    elif by_authors:
        plainly = (
            f"{by_authors} of the {total} verdicts come from the team that wrote the golden rules: those are not an "
            "independent audit."
        )
    else:
        plainly = f"None of the {total} verdicts comes from the team that wrote the golden rules."
    return ReportTable(
        "Golden set audit: who gave the verdicts",
        summary.rename(columns={"reviewer_role": "role"}),
        Provenance("golden_audit", content_version(judged), "reviews"),
        note=f"{plainly} independent: a reviewer who did not write the rules, briefed to find fault and reading the "
        "filings' text rather than the rules; rules_author: the team that wrote them.",
    )
