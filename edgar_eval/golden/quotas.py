"""The quotas on answerable template questions: each filing's picks spread over statement types in a seeded order,
capped per concept, cover page, statement and filing, then each company capped across its filings.
"""

from __future__ import annotations

import random

from edgar_eval.golden import fairness as rules
from edgar_eval.golden.fairness import FairnessLimits


def _apply_quotas(fair: list[dict], limits: FairnessLimits, seed: int, reject) -> list[dict]:
    """Pick each filing's questions spread over statement types, in a seeded order per filing (adding a filing
    changes no other filing's picks), then cap each company."""
    by_filing: dict[str, list[dict]] = {}
    for question in fair:
        by_filing.setdefault(question["source_filing_id"], []).append(question)
    picked: dict[str, list[dict]] = {}
    for filing_id in sorted(by_filing):
        pool = by_filing[filing_id]
        random.Random(f"{seed}:{filing_id}").shuffle(pool)
        turn: dict[str, int] = {}
        ranked = []
        for question in pool:
            turn[question["statement_type"]] = turn.get(question["statement_type"], 0) + 1
            ranked.append((turn[question["statement_type"]], question))
        ranked.sort(key=lambda pair: pair[0])  # round-robin across statement types, stable within one
        per_concept: dict[str, int] = {}
        per_statement: dict[str, int] = {}
        cover = 0
        statement_cap = max(1, int(limits.statement_share * limits.per_filing))
        cover_cap = max(1, int(limits.cover_share * limits.per_filing))
        chosen = []
        for _, q in ranked:
            if per_concept.get(q["concept"], 0) >= limits.per_concept_per_filing:
                failed = rules.QUOTA_CONCEPT
            elif q["on_first_page"] and cover >= cover_cap:
                failed = rules.QUOTA_COVER
            elif per_statement.get(q["statement_type"], 0) >= statement_cap:
                failed = rules.QUOTA_STATEMENT
            elif len(chosen) >= limits.per_filing:
                failed = rules.QUOTA_FILING
            else:
                failed = None
            if failed:
                reject("answerable", failed, filing_id, q["cik"], q["concept"], q["period_key"], q["statement_type"])
                continue
            per_concept[q["concept"]] = per_concept.get(q["concept"], 0) + 1
            per_statement[q["statement_type"]] = per_statement.get(q["statement_type"], 0) + 1
            cover += int(q["on_first_page"])
            chosen.append(q)
        picked[filing_id] = chosen
    selected = []
    for cik in sorted({q["cik"] for qs in picked.values() for q in qs}):
        queues = [picked[f] for f in sorted(picked) if picked[f] and picked[f][0]["cik"] == cik]
        order = [q for round_ in _interleave(queues) for q in round_]
        for i, question in enumerate(order):
            if i < limits.per_company:
                selected.append(question)
            else:
                reject(
                    "answerable",
                    rules.QUOTA_COMPANY,
                    question["source_filing_id"],
                    cik,
                    question["concept"],
                    question["period_key"],
                )
    return selected


def _interleave(queues: list[list[dict]]) -> list[list[dict]]:
    longest = max((len(q) for q in queues), default=0)
    return [[q[i] for q in queues if i < len(q)] for i in range(longest)]
