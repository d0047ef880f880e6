"""The golden set audited by sample: a seeded sample of the frozen set, a review sheet a person reads, the person's
verdicts read back from a versioned file, and the audited defect rate per kind.

* The sample: at least `per_kind` cases of each template kind (answerable, other_year, other_company,
  absent_concept), all of a kind when it has fewer, and every case of the frozen hard-question (pattern) set; drawn
  by a seeded hash of each question id, so adding or dropping a question displaces at most one drawn case.
* Each case is bound to a sha256 of what a reviewer judges (question, expected route, gold answer, evidence): a
  verdict recorded for another version of the case does not count, and the case is awaiting review again.
* Verdicts: `correct` (a careful reader agrees with the expected route and the gold answer), `defect` (the reason
  says what is wrong), or `computable` (the scope answers it by one computation from printed lines: a sum, a
  difference, a ratio; a defect for an unanswerable case, which claims the scope does not answer it). A case without a
  current verdict is unreviewed and never counts as correct: the defect rate is over reviewed cases, and the number
  still awaiting review is printed beside it.
* Each verdict says who gave it (`reviewer_role`): `rules_author`, the team that wrote the golden rules, or
  `independent`, a reviewer who did not write them and read the filings, not the rules. The report counts verdicts by
  role and says plainly when they come from the rules' authors: an audit by the people who wrote the rules is not an
  audit.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_groups, iter_rows
from edgar_eval.domain.routes import exchange_route
from edgar_eval.golden.absence import read_decision_lines
from edgar_eval.golden.might_answer import ScopeTexts, evidence_sheet
from edgar_eval.stats.proportions import wilson

AUDIT_VERSION = "golden-audit/2"
CORRECT, DEFECT, COMPUTABLE = "correct", "defect", "computable"
VERDICTS = (CORRECT, DEFECT, COMPUTABLE)
DEFECTS = (DEFECT, COMPUTABLE)
RULES_AUTHOR, INDEPENDENT = "rules_author", "independent"
REVIEWER_ROLES = (RULES_AUTHOR, INDEPENDENT)
TEMPLATE_KINDS = ("answerable", "other_year", "other_company", "absent_concept")
SAMPLE_COLUMNS = ["case_id", "kind", "question", "expected_route", "gold_answer", "evidence", "case_sha256"]


def case_sha256(question: str, expected_route: str, gold_answer: str, evidence: str) -> str:
    """The hash a review is pinned to; the route in the exchange schema's spelling, so a rename leaves reviews valid."""
    payload = json.dumps([question, exchange_route(expected_route), gold_answer or "", evidence], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def _draw_rank(seed: int, case_id: str) -> str:
    """A case's place in the seeded draw: a hash of the seed and its id, so a case added to or dropped from the set
    moves no other case (a reviewed sample stays reviewed when the set changes around it)."""
    return hashlib.sha256(f"{AUDIT_VERSION}:{seed}:{case_id}".encode()).hexdigest()


def draw_sample(
    cases: pd.DataFrame,
    seed: int,
    per_kind: int = 20,
    sizes: dict[str, int] | None = None,
    kind_seeds: dict[str, int] | None = None,
) -> pd.DataFrame:
    """`cases` has case_id, kind and the SAMPLE_COLUMNS' text; pattern cases (kind "pattern:Dn") are all kept.
    `sizes` draws more of a kind than `per_kind` (the absent-concept claim is the hardest, and audited deepest);
    `kind_seeds` draws a kind afresh under a seed of its own (after a rule changed for that kind alone), leaving the
    other kinds' samples, and their verdicts, where they were."""
    picked = []
    for kind, group in sorted(iter_groups(cases.groupby("kind")), key=lambda pair: pair[0]):
        ids = sorted(group.case_id)
        if not kind.startswith("pattern:"):
            size = (sizes or {}).get(kind, per_kind)
            drawn = (kind_seeds or {}).get(kind, seed)
            ids = sorted(ids, key=lambda case_id: _draw_rank(drawn, case_id))[:size]
        picked.append(group[group.case_id.isin(ids)])
    if not picked:
        return pd.DataFrame(columns=SAMPLE_COLUMNS)
    sample = pd.concat(picked, ignore_index=True)
    sample["case_sha256"] = [
        case_sha256(r.question, r.expected_route, r.gold_answer, r.evidence) for r in iter_rows(sample)
    ]
    return cast(pd.DataFrame, sample[SAMPLE_COLUMNS]).sort_values(["kind", "case_id"]).reset_index(drop=True)


@dataclass(frozen=True)
class AuditVerdict:
    case_id: str
    case_sha256: str
    verdict: str
    reason: str
    reviewer: str
    reviewer_role: str
    kind: str = ""  # the case's kind when judged (optional in the file): a kept verdict's case may be gone


class AuditFileError(ValueError):
    pass


def read_audit_file(text: str, where: str) -> dict[str, AuditVerdict]:
    """case id -> verdict; a malformed line stops the read with its line number (a verdict is never guessed)."""
    fields = ("case_id", "case_sha256", "verdict", "reason", "reviewer", "reviewer_role")
    read = read_decision_lines(text, where, fields, "verdict", VERDICTS, AuditFileError, optional=("kind",))
    for record in read.values():
        if record["reviewer_role"] not in REVIEWER_ROLES:
            raise AuditFileError(
                f"{where}: the verdict for {record['case_id']}: reviewer_role must be one of "
                f"{', '.join(REVIEWER_ROLES)}, not {record['reviewer_role']!r}"
            )
    return {
        key: AuditVerdict(*(record[f] for f in fields), kind=record.get("kind", "")) for key, record in read.items()
    }


def apply_verdicts(sample: pd.DataFrame, verdicts: dict[str, AuditVerdict]) -> pd.DataFrame:
    """The sample with each case's status: correct, defect, unreviewed, or stale (a verdict for another version)."""
    status, reasons, reviewers, roles = [], [], [], []
    for case in iter_rows(sample):
        verdict = verdicts.get(case.case_id)
        if verdict is None:
            status.append("unreviewed")
            reasons.append("")
        elif verdict.case_sha256 != case.case_sha256:
            status.append("stale")
            reasons.append("the verdict was given for another version of the case; review it again")
        else:
            status.append(verdict.verdict)
            reasons.append(verdict.reason)
        current = verdict if verdict is not None and verdict.case_sha256 == case.case_sha256 else None
        reviewers.append(current.reviewer if current else "")
        roles.append(current.reviewer_role if current else "")
    return sample.assign(status=status, reason=reasons, reviewer=reviewers, reviewer_role=roles)


def kept_verdicts(verdicts: dict[str, AuditVerdict], judged: pd.DataFrame) -> pd.DataFrame:
    """The verdicts on record that no current case of the sample carries (a case the rules no longer ask, or one whose
    sha256 changed since): kept as given, so an audit's defect rate before the rules were fixed stays in the report.
    One row each, with the verdict as status and `current` False; the sample's rows are `current` True."""
    current = {(r.case_id, r.case_sha256) for r in iter_rows(judged)}
    rows = [
        {
            "case_id": v.case_id,
            "kind": v.kind or "(not recorded)",
            "question": "",
            "expected_route": "",
            "gold_answer": "",
            "evidence": "",
            "case_sha256": v.case_sha256,
            "status": v.verdict,
            "reason": v.reason,
            "reviewer": v.reviewer,
            "reviewer_role": v.reviewer_role,
            "current": False,
        }
        for v in sorted(verdicts.values(), key=lambda v: v.case_id)
        if (v.case_id, v.case_sha256) not in current
    ]
    return pd.DataFrame(rows, columns=[*SAMPLE_COLUMNS, "status", "reason", "reviewer", "reviewer_role", "current"])


def review_sheet(judged: pd.DataFrame, review_file: str) -> str:
    """The review sheet (Markdown): each case with its evidence, fenced (filing text is untrusted), and its status."""
    lines = [
        f"# Golden set audit ({AUDIT_VERSION})",
        "",
        f"Record a verdict per case in `{review_file}`, one JSON object per line: "
        '{"case_id", "case_sha256", "verdict": "correct" | "defect" | "computable", "reason", "reviewer", '
        '"reviewer_role": "rules_author" | "independent"}. `computable`: the scope answers it by one computation from '
        "printed lines (a defect for an unanswerable case). A case whose sha256 changed must be reviewed again. "
        "The evidence below is what the rules saw: read the filings themselves.",
        "",
    ]
    for case in iter_rows(judged):
        lines += [
            f"## {case.kind} {case.case_id}",
            "",
            f"case_sha256 `{case.case_sha256}`; status: {case.status}",
            "",
            "```text",
            f"question: {case.question}",
            f"expected route: {case.expected_route}",
            f"gold answer: {case.gold_answer or '(none)'}",
            "",
            case.evidence.replace("```", "'''"),
            "```",
            "",
        ]
    return "\n".join(lines)


MAX_EVIDENCE_PASSAGES = 8


def template_cases(golden: pd.DataFrame, texts: dict[str, str], company_filings: dict[str, list[str]]) -> pd.DataFrame:
    """The template questions as audit cases, each with the evidence a reviewer reads: for an answerable question the
    printed line that holds its figure, its filing and pages; for an unanswerable one the passages of its scope (the
    company's filings, for another year) that might answer it by the builder's rule (golden.might_answer). The sheet
    shows what the rule saw; a reviewer reads the filings themselves, not only the sheet."""
    rows = []
    read = ScopeTexts(texts)  # one per filing: many questions share a scope
    for q in iter_rows(golden):
        figures = json.loads(getattr(q, "gold_figures", "") or "[]")
        if figures:  # a two-document case: each figure with its filing, page and line
            evidence = "\n".join(
                f"{f['role']}: {f['answer']} ({f['filing_id']}"
                + (f", page {f['page']}" if f["page"] else "")
                + ")"
                + (f"\n  {f['quote']}" if f["quote"] else " (derived)")
                for f in figures
            ) + (f"\ndirection: {q.gold_direction}" if getattr(q, "gold_direction", "") else "")
        elif q.kind == "answerable":
            evidence = f"gold line ({q.source_filing_id}; pages {', '.join(q.gold_pages)}):\n{q.gold_quote}"
        else:
            filings = list(q.scope_filing_ids) or company_filings.get(q.cik, [])
            searched = company_filings.get(q.cik, filings) if q.kind == "other_year" else filings
            year = int(q.fiscal_year) if q.kind == "other_year" else None
            found = evidence_sheet(read.of(searched), q.concept, year, MAX_EVIDENCE_PASSAGES)
            # the passages only, never the rule's search words: the reviewer judges what the filing prints
            head = f"scope: {', '.join(filings) or '(no filing)'}" + (
                f"; asked year: {q.fiscal_year}" if q.kind == "other_year" else ""
            )
            body = (
                "\n".join(f"- [{e.filing_id}] {e.line or e.shown}" for e in found)
                or "(nothing in scope might answer it)"
            )
            evidence = head + "\n" + body
        rows.append(
            {
                "case_id": q.question_id,
                "cik": str(q.cik),
                "kind": q.kind,
                "question": q.question,
                "expected_route": q.expected_route,
                "gold_answer": q.gold_answer if isinstance(q.gold_answer, str) else "",
                "evidence": evidence,
            }
        )
    return pd.DataFrame(
        rows, columns=["case_id", "cik", "kind", "question", "expected_route", "gold_answer", "evidence"]
    )


@dataclass(frozen=True)
class AuditPlan:
    """How the audited sample is drawn, committed before the draw (`reviews/<corpus>/audit-plan.toml`): the seed, the
    cases per kind, and the companies the rules were written on, left out of the draw so the sample measures the rules
    where they were not built."""

    seed: int
    per_kind: int
    sizes: dict[str, int]
    built_on_ciks: frozenset[str]
    note: str = ""
    every_company: frozenset[str] = frozenset()  # kinds drawn from every company (no held-out company holds them)
    kind_seeds: dict[str, int] = field(default_factory=dict)  # kinds drawn afresh under a seed of their own


def read_audit_plan(text: str, where: str) -> AuditPlan:
    """An audit plan from TOML; a missing or mistyped key is refused in one line naming the file."""
    try:
        plan = tomllib.loads(text)
        sizes = {str(k): int(v) for k, v in plan.get("sizes", {}).items()}
        return AuditPlan(
            int(plan["seed"]),
            int(plan["per_kind"]),
            sizes,
            frozenset(str(c).lstrip("0") for c in plan.get("built_on_ciks", [])),
            str(plan.get("note", "")),
            frozenset(str(k) for k in plan.get("every_company", [])),
            {str(k): int(v) for k, v in plan.get("kind_seeds", {}).items()},
        )
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise AuditFileError(f"{where}: not an audit plan (seed, per_kind, sizes, built_on_ciks): {exc}") from None


def held_out_cases(cases: pd.DataFrame, plan: AuditPlan) -> pd.DataFrame:
    """The template cases of companies the rules were not written on, and of the kinds the plan draws from every
    company; every pattern case (they have no company)."""
    company = cases.cik.fillna("").astype(str).str.lstrip("0") if "cik" in cases else pd.Series("", index=cases.index)
    everywhere = cases.kind.isin(list(plan.every_company))
    return cast(pd.DataFrame, cases[(company == "") | ~company.isin(plan.built_on_ciks) | everywhere])


def pattern_cases(patterns: pd.DataFrame, proposals: pd.DataFrame) -> pd.DataFrame:
    """The frozen hard-question cases as audit cases, with the evidence quotes their proposal cites, each with its
    document (what the ten admission gates verified)."""
    evidence_of = dict(zip(proposals.candidate_id, proposals.evidence)) if len(proposals) else {}
    rows = []
    for case in iter_rows(patterns):
        try:
            quotes = json.loads(evidence_of.get(case.case_id) or "[]")
        except json.JSONDecodeError:
            quotes = []
        shown = "\n".join(f"- [{q.get('document', '?')}] {q.get('quote', '')}" for q in quotes if isinstance(q, dict))
        rows.append(
            {
                "case_id": case.case_id,
                "kind": f"pattern:{case.pattern}",
                "question": case.question,
                "expected_route": case.expected_route,
                "gold_answer": case.reference_answer or "",
                "evidence": f"evidence filings: {', '.join(case.evidence_filing_ids)}\n{shown or '(no quote)'}",
            }
        )
    return pd.DataFrame(rows, columns=["case_id", "kind", "question", "expected_route", "gold_answer", "evidence"])


def audit_summary(judged: pd.DataFrame) -> pd.DataFrame:
    """Per kind: sampled, reviewed, defects, the defect rate over reviewed cases with its Wilson 95% interval, and the
    cases still awaiting review (unreviewed or stale)."""
    rows = []
    for kind, group in sorted(iter_groups(judged.groupby("kind")), key=lambda pair: pair[0]):
        reviewed = group[group.status.isin(VERDICTS)]
        defects = int(reviewed.status.isin(DEFECTS).sum())
        rate = wilson(defects, len(reviewed))
        rows.append(
            {
                "kind": kind,
                "sampled": len(group),
                "reviewed": len(reviewed),
                "defects": defects,
                "computable": int((reviewed.status == COMPUTABLE).sum()),
                "defect_rate": rate.rate,
                "low": rate.low,
                "high": rate.high,
                "awaiting": len(group) - len(reviewed),
            }
        )
    return pd.DataFrame(
        rows,
        columns=["kind", "sampled", "reviewed", "defects", "computable", "defect_rate", "low", "high", "awaiting"],
    )


def reviewer_summary(judged: pd.DataFrame) -> pd.DataFrame:
    """Per reviewer role and reviewer: the current verdicts each gave, by verdict."""
    reviewed = cast(pd.DataFrame, judged[judged.status.isin(VERDICTS)])
    rows = []
    for (role, reviewer), group in sorted(iter_groups(reviewed.groupby(["reviewer_role", "reviewer"]))):
        rows.append(
            {
                "reviewer_role": role,
                "reviewer": reviewer,
                "verdicts": len(group),
                **{verdict: int((group.status == verdict).sum()) for verdict in VERDICTS},
            }
        )
    return pd.DataFrame(rows, columns=["reviewer_role", "reviewer", "verdicts", *VERDICTS])
