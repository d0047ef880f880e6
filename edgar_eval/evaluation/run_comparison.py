"""Any two runs compared, question by question: what differs between their receipts, and every retrieval and
answering figure they share, paired on the questions both asked with the same gold.

Each run writes its per-question outcomes beside its receipt (`outcomes.json`, `run_outcomes`): for every golden
question its company (the bootstrap's cluster), expected route, gold figure and gold pages per search scope; the
page hit of every retrieval measurement (scope, retriever, depth); each arm's correct and false answer; and the
run's retrieval noise band. Nothing in it is filing text, so it is committed with the report, and a comparison can
be made again from two committed reports folders.

A pair counts only where both runs set the same question with the same gold: the same gold pages in that scope for a
page hit, the same expected route and gold figure for an answer. Two runs on different golden versions are refused
unless the caller allows it (`edgar-eval compare --allow-golden-change`): two chunkings always differ in the golden
version, since the frozen export names the gold chunks, while their questions and gold pages can be the same.

Per figure: both rates, the paired difference with a company-cluster bootstrap interval at the protocol's level,
exact McNemar on the discordant questions, the minimum detectable effect from the observed discordance at the
protocol's level and power, and whether the difference lies beyond the noise band of either run (a difference
inside it is what a live index changes on its own): retrieval's for a page hit, arm A's for an answering figure of
arm A; the gated arms have none (their thresholds are fitted on the measured run and not replicated): said so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.evaluation.noise_band import beyond_band
from edgar_eval.retrieval.scope import COMPANY_YEAR, SEARCH_SCOPES
from edgar_eval.stats.bootstrap import cluster_bootstrap_paired_difference
from edgar_eval.stats.paired import mcnemar_exact, minimum_detectable_effect

# 2: each question carries its kind, so false answers are compared per unanswerable kind, never pooled.
OUTCOMES_FORMAT = "edgar-eval outcomes/2"
OUTCOMES_FILE = "outcomes.json"
RECEIPT_FILE = "receipt.json"


PAGE_HIT, ANSWER_ACCURACY, FALSE_ANSWERS = "page hit", "answer accuracy", "false answers"
ANSWER_FIGURE_NAMES = {"answer_accuracy": ANSWER_ACCURACY, "false_answer_rate": FALSE_ANSWERS}


class ComparisonError(ValueError):
    """Two runs that cannot be compared as asked: said in one line."""


def _measure(search_scope: str, retriever: str, depth: int) -> str:
    return f"{search_scope} {retriever}@{depth}"


def run_outcomes(
    golden: pd.DataFrame,
    scope_gold: pd.DataFrame,
    rankings: pd.DataFrame,
    arms: pd.DataFrame,
    band: pd.DataFrame,
    answer_band: pd.DataFrame,
    statistics: Mapping[str, object],
) -> dict:
    """The run's per-question outcomes (see the module): `golden` golden_questions, `scope_gold`
    gold_by_search_scope, `rankings` retriever_rankings, `arms` arm_outcomes, `band` the retrieval noise band,
    `answer_band` the answering one (noise_band.answer_band);
    `statistics`: the protocol's confidence, power and the interval method the run's coverage check chose."""
    fair = cast(pd.DataFrame, scope_gold[scope_gold.rule.isna()])
    wider = {(r.question_id, r.search_scope): sorted(r.gold_pages) for r in iter_rows(fair)}
    hits: dict[str, dict[str, bool]] = {}
    for run in iter_rows(cast(pd.DataFrame, rankings[rankings.error.isna()])):
        hits.setdefault(run.question_id, {})[_measure(run.search_scope, run.retriever, int(run.k))] = bool(run.page_hit)
    answered: dict[str, dict[str, dict[str, bool]]] = {}
    for row in iter_rows(arms):
        record = answered.setdefault(row.question_id, {"correct": {}, "false_answer": {}})
        record["correct"][row.arm] = bool(row.correct)
        record["false_answer"][row.arm] = bool(row.false_answer)
    questions = []
    for case in iter_rows(golden.sort_values("question_id")):
        gold_pages = {COMPANY_YEAR: sorted(case.gold_pages)}
        gold_pages |= {s: wider[(case.question_id, s)] for s in SEARCH_SCOPES if (case.question_id, s) in wider}
        arm_record = answered.get(case.question_id, {"correct": {}, "false_answer": {}})
        questions.append(
            {
                "question_id": case.question_id,
                "cik": case.cik,
                "expected_route": case.expected_route,
                "kind": case.kind,
                "gold_value": None if pd.isna(case.gold_value) else float(case.gold_value),
                "gold_pages": gold_pages,
                "page_hit": dict(sorted(hits.get(case.question_id, {}).items())),
                "correct": dict(sorted(arm_record["correct"].items())),
                "false_answer": dict(sorted(arm_record["false_answer"].items())),
            }
        )
    return {
        "format": OUTCOMES_FORMAT,
        "statistics": dict(statistics),
        "noise_band": [
            {
                "figure": PAGE_HIT,
                "measure": _measure(r.search_scope, r.retriever, int(r.k)),
                "low": float(r.band_low),
                "high": float(r.band_high),
            }
            for r in iter_rows(band)
        ]
        + [
            {
                "figure": ANSWER_FIGURE_NAMES[r.figure],
                "measure": f"arm {r.arm}",
                "low": float(r.band_low),
                "high": float(r.band_high),
            }
            for r in iter_rows(answer_band)
        ],
        "questions": questions,
    }


def outcomes_json(outcomes: dict) -> str:
    """The outcomes as JSON, one question per line, so two versions of the file diff question by question."""
    head = {key: value for key, value in outcomes.items() if key != "questions"}
    lines = [json.dumps(q, sort_keys=True, allow_nan=False) for q in outcomes["questions"]]
    opening = json.dumps(head, sort_keys=True, allow_nan=False)[:-1] + ', "questions": [\n'
    return opening + ",\n".join(lines) + "\n]}\n"


@dataclass(frozen=True)
class Run:
    name: str  # as the caller named it (its folder)
    receipt: dict
    outcomes: dict


def read_run(name: str, receipt_text: str, outcomes_text: str) -> Run:
    """A run from its receipt and outcomes files' text, refused in one line when either is not what a run writes."""
    try:
        receipt, outcomes = json.loads(receipt_text), json.loads(outcomes_text)
    except json.JSONDecodeError as exc:
        raise ComparisonError(f"run {name}: not JSON ({exc})") from None
    if not isinstance(outcomes, dict) or outcomes.get("format") != OUTCOMES_FORMAT:
        raise ComparisonError(f"run {name}: {OUTCOMES_FILE} is not {OUTCOMES_FORMAT!r} (made by another version?)")
    if not isinstance(receipt, dict) or "golden_set" not in receipt:
        raise ComparisonError(f"run {name}: {RECEIPT_FILE} names no golden set")
    return Run(name, receipt, outcomes)


def _flatten(value: object, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        flat: dict[str, object] = {}
        for key in sorted(value):
            flat |= _flatten(value[key], f"{prefix}.{key}" if prefix else str(key))
        return flat
    return {prefix: value}


def receipt_differences(first: dict, second: dict) -> list[tuple[str, str, str]]:
    """(what, first run's value, second run's value) for every receipt entry that differs; the corpus is summed up
    as filings changed, only in one run, or in the other."""
    rows = []
    corpus_a, corpus_b = first.get("corpus", {}), second.get("corpus", {})
    changed = sorted(k for k in set(corpus_a) & set(corpus_b) if corpus_a[k] != corpus_b[k])
    only_a, only_b = sorted(set(corpus_a) - set(corpus_b)), sorted(set(corpus_b) - set(corpus_a))
    if changed or only_a or only_b:
        rows.append(
            (
                "corpus",
                f"{len(corpus_a)} filings; {len(only_a)} not in the other"
                + (f": {', '.join(only_a)}" if only_a else ""),
                f"{len(corpus_b)} filings; {len(only_b)} not in the other"
                + (f": {', '.join(only_b)}" if only_b else "")
                + f"; {len(changed)} with other bytes",
            )
        )
    flat_a = _flatten({k: v for k, v in first.items() if k != "corpus"})
    flat_b = _flatten({k: v for k, v in second.items() if k != "corpus"})
    for key in sorted(set(flat_a) | set(flat_b)):
        a, b = flat_a.get(key, "(absent)"), flat_b.get(key, "(absent)")
        if a != b:
            rows.append(
                (key, json.dumps(a) if not isinstance(a, str) else a, json.dumps(b) if not isinstance(b, str) else b)
            )
    return rows


@dataclass(frozen=True)
class Pairing:
    shared: int  # questions both runs asked
    only_first: int
    only_second: int
    gold_changed: int  # shared questions whose gold (route, figure or company_year pages) differs: left out


def pairing(first: Run, second: Run) -> Pairing:
    a = {q["question_id"]: q for q in first.outcomes["questions"]}
    b = {q["question_id"]: q for q in second.outcomes["questions"]}
    shared = set(a) & set(b)
    changed = sum(not _same_answer_gold(a[q], b[q]) or not _same_pages(a[q], b[q], COMPANY_YEAR) for q in shared)
    return Pairing(len(shared), len(set(a) - set(b)), len(set(b) - set(a)), changed)


def _same_answer_gold(a: dict, b: dict) -> bool:
    return a["expected_route"] == b["expected_route"] and a["kind"] == b["kind"] and a["gold_value"] == b["gold_value"]


def _same_pages(a: dict, b: dict, scope: str) -> bool:
    return scope in a["gold_pages"] and a["gold_pages"].get(scope) == b["gold_pages"].get(scope)


def check_golden(first: Run, second: Run, allow_change: bool) -> str | None:
    """None when both runs read the same golden version; a sentence for the report when they differ and the caller
    allowed it; a refusal otherwise."""
    version_a, version_b = first.receipt["golden_set"].get("version"), second.receipt["golden_set"].get("version")
    if version_a == version_b:
        return None
    paired = pairing(first, second)
    same = paired.shared - paired.gold_changed
    summary = (
        f"golden versions differ ({version_a} and {version_b}): {paired.shared} questions shared, {same} with the "
        f"same gold, {paired.only_first} only in {first.name}, {paired.only_second} only in {second.name}"
    )
    if not allow_change:
        raise ComparisonError(f"{summary}; compare them anyway with --allow-golden-change")
    return summary


COMPARISON_COLUMNS = [
    "figure",
    "measure",
    "questions",
    "first_hits",
    "second_hits",
    "difference",
    "low",
    "high",
    "first_only",
    "second_only",
    "mcnemar_p",
    "minimum_detectable_effect",
    "beyond_noise_band",
]


def _pairs(first: Run, second: Run) -> Iterable[tuple[dict, dict]]:
    b = {q["question_id"]: q for q in second.outcomes["questions"]}
    for question in first.outcomes["questions"]:
        other = b.get(question["question_id"])
        if other is not None and _same_answer_gold(question, other):
            yield question, other


def compared_figures(first: Run, second: Run, seed: int = 0, resamples: int = 10_000) -> pd.DataFrame:
    """Every figure both runs measured, paired (see the module). Retrieval: page hit per scope, retriever and depth
    over the answerable questions with the same gold pages there. Answering: per arm, answer accuracy over the
    answerable questions and the false-answer rate over each unanswerable kind's questions, with the same gold figure,
    route and kind.
    `difference` is second minus first, as a share."""
    stats = first.outcomes.get("statistics", {})
    confidence = float(stats.get("confidence", 0.95))
    power = float(stats.get("power", 0.8))
    method = str(stats.get("interval_method", "percentile"))
    bands: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for run in (first, second):
        for entry in run.outcomes["noise_band"]:
            key = (entry.get("figure", PAGE_HIT), entry["measure"])
            bands.setdefault(key, []).append((float(entry["low"]), float(entry["high"])))
    collected: dict[tuple[str, str], list[tuple[bool, bool, str]]] = {}
    for a, b in _pairs(first, second):
        if a["expected_route"] == "answer":
            for measure in sorted(set(a["page_hit"]) & set(b["page_hit"])):
                scope = measure.split(" ", 1)[0]
                if _same_pages(a, b, scope):
                    collected.setdefault((PAGE_HIT, measure), []).append(
                        (a["page_hit"][measure], b["page_hit"][measure], a["cik"])
                    )
        # Accuracy over every answerable question; false answers per unanswerable kind, never pooled: a system that
        # errs on other-company twins and one that errs on absent concepts are different systems.
        figure, column, of = (
            (ANSWER_ACCURACY, "correct", "")
            if a["expected_route"] == "answer"
            else (FALSE_ANSWERS, "false_answer", f" ({a['kind']})")
        )
        for arm in sorted(set(a[column]) & set(b[column])):
            collected.setdefault((figure, f"arm {arm}{of}"), []).append((a[column][arm], b[column][arm], a["cik"]))
    rows = []
    for (figure, measure), outcomes in sorted(collected.items(), key=lambda item: _figure_order(*item[0])):
        was = np.array([o[0] for o in outcomes], dtype=bool)
        now = np.array([o[1] for o in outcomes], dtype=bool)
        clusters = np.array([o[2] for o in outcomes])
        interval = cluster_bootstrap_paired_difference(
            now.astype(float),
            was.astype(float),
            clusters,
            confidence=confidence,
            resamples=resamples,
            seed=seed,
            method=method,
        )
        test = mcnemar_exact(now, was)
        mde = minimum_detectable_effect(len(now), test.discordance, alpha=1 - confidence, power=power)
        in_band = bands.get((figure, measure))
        rows.append(
            {
                "figure": figure,
                "measure": measure,
                "questions": len(now),
                "first_hits": int(was.sum()),
                "second_hits": int(now.sum()),
                "difference": interval.estimate,
                "low": interval.low,
                "high": interval.high,
                "first_only": test.c,
                "second_only": test.b,
                "mcnemar_p": test.p_value,
                "minimum_detectable_effect": mde,
                "beyond_noise_band": None if not in_band else bool(beyond_band(100 * interval.estimate, in_band)),
            }
        )
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


_FIGURES = (PAGE_HIT, ANSWER_ACCURACY, FALSE_ANSWERS)


def _figure_order(figure: str, measure: str) -> tuple:
    if figure == PAGE_HIT:
        scope, rest = measure.split(" ", 1)
        retriever, depth = rest.split("@")
        return (0, SEARCH_SCOPES.index(scope) if scope in SEARCH_SCOPES else 99, retriever, int(depth))
    if figure == FALSE_ANSWERS:  # "arm A (other_year)": kind by kind, each kind's arms together
        arm, _, kind = measure.partition(" (")
        return (_FIGURES.index(figure), kind, arm)
    return (_FIGURES.index(figure), measure)
