"""The report's Summary: the run's result ahead of the details, each figure the one its detail section prints."""

from __future__ import annotations

import math
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.release import release_decision
from edgar_eval.report.experiment_tables import (
    CLUSTER_WARNING_BELOW,
    _companies,
    comparison_difference,
    comparison_interval,
    decided_exactly,
    kind_rate,
    largest_power,
    metric_name,
    period_guard_idle,
    power_words,
    registered_elsewhere,
    simulated_mde,
)
from edgar_eval.report.inputs import ReportInputs
from edgar_eval.report.markdown import Provenance, ReportTable, _share_cell, interval, md_cell, percent
from edgar_eval.report.reader_tables import _in_sample, _reader_documents, _reader_labels, tuned_extent
from edgar_eval.report.readme import PRIMARY
from edgar_eval.report.release_tables import release_title
from edgar_eval.retrieval.scope import COMPANY_YEAR

SUMMARY = "Summary"


NOT_IN_INPUTS = "none: not in this run's inputs"


def _section(tables: list[ReportTable], name: str) -> str:
    """The title of the detail section called ``name`` (or ``name (...)``, ``name: ...``); "" when there is none."""
    return next(
        (t.title for t in tables if t.title == name or t.title.startswith((f"{name} (", f"{name}: "))),
        "",
    )


def _kinds_no_arm_moves(rates: pd.DataFrame, column: str) -> list[tuple[str, int]]:
    """The kinds on which every arm's `column` counts 0 (none false, or none right), with the kind's questions."""
    found = []
    for kind in sorted(set(rates.kind)) if len(rates) else []:
        kinds = [kind_rate(rates, arm, kind, column) for arm in sorted(set(rates.arm))]
        if all(rate is None or rate.k == 0 for rate in kinds):
            found.append((kind, max((rate.n for rate in kinds if rate is not None), default=0)))
    return found


def summary_table(inputs: ReportInputs, tables: list[ReportTable]) -> ReportTable:
    """The run's result ahead of the details: the release decision and the rules that fired, the confirmatory
    hypotheses, the primary endpoint per arm, reader accuracy and the answerer's page hit at each K, then what the
    figures cannot tell. Every figure is formatted from the same input row by the same helper as in the detail section
    its row names (a test holds the two equal); a figure the inputs lack is said so in words."""
    rows: list[dict[str, str]] = []

    def add(finding: str, figure: str, wilson: str, section: str) -> None:
        rows.append({"finding": finding, "figure": figure, "interval": wilson, "detail": section or NOT_IN_INPUTS})

    cannot: list[str] = []
    checks = inputs.release
    if len(checks):
        section = _section(tables, release_title(checks))
        add("Release decision", release_decision(checks), "", section)
        fired = [r for r in iter_rows(checks) if bool(r.fired)]
        for r in fired:
            add(f"Rule fired: {r.rule} (forces {r.decision})", str(r.evidence), "", section)
        if not fired:
            add("Rules fired", "none", "", section)
    else:
        add("Release decision", "not in this run's inputs (no release checks)", "", "")

    comparisons = inputs.comparisons
    paired = _section(tables, "Paired arm comparisons")
    confirmatory = cast(
        pd.DataFrame,
        comparisons[comparisons.status == "confirmatory"] if "status" in comparisons else comparisons.iloc[0:0],
    )
    primary_kind = ""
    exact = decided_exactly(comparisons)
    if exact:  # v5: every hypothesis with the decision its data give, confirmatory or exploratory
        decided = cast(pd.DataFrame, comparisons[comparisons.effect.astype(str) != ""])
        section = next((t.title for t in tables if t.title.startswith("Confirmatory decisions")), paired)
        for r in iter_rows(decided):
            hypothesis = str(r.hypothesis)
            if hypothesis == PRIMARY:
                primary_kind = _kind(r)
            here = (
                "confirmatory" if r.status == "confirmatory" else "exploratory here: the run is not the registered one"
            )
            add(
                f"{hypothesis}{' (primary)' if hypothesis == PRIMARY else ''}: {r.arm} - {r.baseline}, "
                f"{metric_name(str(r.metric), _kind(r))} ({here}): {r.decision}",
                str(r.effect),
                str(r.recall_cost),
                section,
            )
        confirmatory = confirmatory.iloc[0:0]
    for r in sorted(iter_rows(confirmatory), key=lambda r: (str(r.hypothesis), str(r.metric), _kind(r))):
        hypothesis = str(r.hypothesis)
        if hypothesis == PRIMARY and r.metric == "false_answer_rate":
            primary_kind = _kind(r)
        add(
            f"{hypothesis}{' (primary)' if hypothesis == PRIMARY else ''}: {r.arm} - {r.baseline}, "
            f"{metric_name(str(r.metric), _kind(r))}: {r.decision}",
            comparison_difference(r.difference),
            comparison_interval(r.low, r.high, r.confidence, r.interval_method),
            paired,
        )
        reasons = []
        decision = str(r.decision)
        if not decision.startswith(("confirmed", "refuted")):
            reasons.append(md_cell(decision))
        if "minimum_detectable_effect" in comparisons and math.isnan(r.minimum_detectable_effect):
            # no simulated difference up to the assumed discordance reaches the protocol's power
            powers = [p for p in largest_power(inputs.design_power) if p[0] == hypothesis]
            reasons.append(
                "under-powered, minimum detectable effect "
                + simulated_mde(r.minimum_detectable_effect, r.design_effect, "confirmatory")
                + (f" (power at the largest simulated difference: {power_words(powers[0])})" if powers else "")
            )
        if reasons:
            cannot.append(
                f"- {md_cell(hypothesis)} ({md_cell(r.arm)} - {md_cell(r.baseline)}) is not decided by this run: "
                + "; ".join(reasons)
                + "."
            )
    elsewhere = registered_elsewhere(comparisons)
    if elsewhere and "hypothesis" in comparisons:  # the primary endpoint is still the protocol's, decided or not
        primary = cast(
            pd.DataFrame,
            comparisons[(comparisons.hypothesis == PRIMARY) & (comparisons.metric == "false_answer_rate")],
        )
        primary_kind = str(primary.kind.iloc[0]) if len(primary) else primary_kind
    if exact:
        pass
    elif not len(confirmatory) and elsewhere:
        add("Confirmatory hypotheses", f"none decided by this run: {elsewhere}", "", paired)
    elif not len(confirmatory):
        add("Confirmatory hypotheses", "not in this run's inputs (no confirmatory comparison)", "", paired)

    rates = inputs.false_answers_by_kind
    by_kind = _section(tables, "False-answer rate per unanswerable kind")
    idle = period_guard_idle(comparisons)
    if primary_kind and len(rates):
        if idle:
            note = "equal A, C and B on every question: the period guard withheld no answer"
            add("Arms D, E and F", note, "", _section(tables, "Arms"))
        for arm in sorted(set(rates.arm) - ({"D", "E", "F"} if idle else set())):
            gates = str(rates[rates.arm == arm].gates.iloc[0])
            rate = kind_rate(rates, arm, primary_kind, "false_answer_rate")
            add(
                f"Primary endpoint ({PRIMARY}): false-answer rate on {primary_kind}, arm {arm} ({gates})",
                "n/a: no question of the kind" if rate is None else rate.count,
                "" if rate is None else rate.wilson,
                by_kind,
            )
    else:
        add("Primary endpoint", "not in this run's inputs (no per-kind false-answer rates)", "", by_kind)
    for kind, n in _kinds_no_arm_moves(rates, "false_answer_rate"):
        cannot.append(
            f"- No arm gave a false answer on {md_cell(kind)} ({n} questions): no gate can lower the rate there, "
            "so those questions cannot tell the arms apart."
        )
    for kind, n in _kinds_no_arm_moves(inputs.answers_by_kind, "correct_rate"):
        cannot.append(
            f"- No arm answered a {md_cell(kind)} question right ({n} questions): those questions cannot tell the "
            "arms apart (Right answers per answerable kind)."
        )

    readers = inputs.readers
    if len(readers):
        for label, documents, r in zip(_reader_labels(inputs), _reader_documents(readers), iter_rows(readers)):
            if documents == "all":
                add(
                    f"Reader accuracy on answerable questions: {label}",
                    _share_cell(r.right_share, r.right, r.questions),
                    interval(r.right_low, r.right_high),
                    _section(tables, "Readers"),
                )
    else:
        add("Reader accuracy", "not in this run's inputs (no reader accuracy)", "", "")

    retrieval, retriever = inputs.retrieval, inputs.settings.get("answer_retriever", "")
    own = (
        cast(
            pd.DataFrame, retrieval[(retrieval.search_scope == COMPANY_YEAR) & (retrieval.retriever == retriever)]
        ).sort_values("k")
        if len(retrieval)
        else retrieval
    )
    for r in iter_rows(own):
        add(
            f"Page hit at K = {r.k}: {retriever}, the answerer's scope ({COMPANY_YEAR}); a random ranking "
            f"{percent(r.page_chance)}",
            _share_cell(r.page_hit_rate, r.page_hits, r.questions),
            interval(r.page_low, r.page_high),
            _section(tables, "Retrieval"),
        )
    if not len(own):
        add(
            "Page hit in the answerer's scope",
            f"not in this run's inputs (no {retriever or 'answerer'} retrieval row in {COMPANY_YEAR})",
            "",
            "",
        )

    in_sample = _in_sample(inputs)
    if in_sample:
        cannot.insert(
            0,
            f"- In-sample: the arms read {', '.join(f'`{md_cell(g)}`' for g in in_sample)}, tuned on "
            f"{tuned_extent(inputs, in_sample[0])}: the reader accuracy, the primary endpoint and the hypotheses above "
            "say little of filings the reader was not tuned on.",
        )
    companies = _companies(comparisons)
    if companies is not None and companies < CLUSTER_WARNING_BELOW:
        cannot.insert(
            1 if in_sample else 0,
            f"- The company bootstrap intervals resample {companies} companies, fewer than {CLUSTER_WARNING_BELOW}: "
            "approximations (see the Arms table's warning).",
        )
    frame = pd.DataFrame(rows, columns=["finding", "figure", "interval", "detail"])
    return ReportTable(
        SUMMARY,
        frame,
        Provenance("report", content_version(frame), "the detail section each row names"),
        note="The run's result. Each figure is the one its detail section prints, from the same asset table; the "
        "method, the interval's kind and every caveat are there. Intervals: Wilson 95% for a share; the company "
        "bootstrap (its confidence and method printed) for a paired difference.",
        after=("What this run cannot conclude:", "", *(cannot or ["- Nothing flagged by the checks above."])),
    )


def _kind(row) -> str:
    """A comparison row's question kind ("" for the pooled rate, as the paired table prints it)."""
    kind = getattr(row, "kind", "")
    return kind if isinstance(kind, str) else ""
