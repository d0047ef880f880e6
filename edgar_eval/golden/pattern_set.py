"""From gate verdicts to the funnel, the agreement with hand-written verdicts, and the frozen pattern set."""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from dataclasses import dataclass
from typing import cast

import pandas as pd

from edgar_eval.domain.routes import ANSWER, NO_ANSWER, exchange_route
from edgar_eval.golden.admission import FAIL, GATES, NOT_RUN, PASS, GateRun
from edgar_eval.golden.candidates import PATTERNS, Candidate
from edgar_eval.golden.patterns import PATTERN_CONTRACTS, PlacedQuote

PATTERN_SET_VERSION = "pattern-gates/1"
FUNNEL_STAGES = ("proposed", "quotes_verified", "conforming", "supported", "accepted", "selected")


def verdict_frame(candidates: list[Candidate], run: GateRun) -> pd.DataFrame:
    """One row per candidate per gate, in gate order."""
    by_id = {c.candidate_id: c for c in candidates}
    order = {gate: i + 1 for i, gate in enumerate(GATES)}
    return pd.DataFrame(
        [
            {
                "candidate_id": row.candidate_id,
                "pattern": by_id[row.candidate_id].pattern,
                "source": by_id[row.candidate_id].source,
                "gate_order": order[row.gate],
                "gate": row.gate,
                "status": row.status,
                "reason": row.reason,
            }
            for row in run.rows
        ],
        columns=["candidate_id", "pattern", "source", "gate_order", "gate", "status", "reason"],
    )


def candidate_outcomes(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Per candidate: accepted or the first failing gate, and how far it got in the funnel."""
    rows = []
    for candidate_id, gates in verdicts.sort_values(["candidate_id", "gate_order"]).groupby("candidate_id", sort=True):
        status = dict(zip(gates.gate, gates.status))
        failing = next((g for g in gates.gate if status[g] in (FAIL, NOT_RUN)), None)
        rows.append(
            {
                "candidate_id": candidate_id,
                "pattern": gates.pattern.iloc[0],
                "source": gates.source.iloc[0],
                "quotes_verified": status["quote_verification"] == PASS,
                "conforming": status["quote_verification"] == PASS and status["pattern_conformance"] == PASS,
                "supported": status["quote_verification"] == PASS
                and status["pattern_conformance"] == PASS
                and status["answer_support"] == PASS,
                "accepted": failing is None,
                "failing_gate": failing,
                "reason": "" if failing is None else gates[gates.gate == failing].reason.iloc[0],
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "candidate_id",
            "pattern",
            "source",
            "quotes_verified",
            "conforming",
            "supported",
            "accepted",
            "failing_gate",
            "reason",
        ],
    )


UNKNOWN_PATTERN = "?"  # the funnel's row of unreadable proposals that name no pattern it knows


def funnel(outcomes: pd.DataFrame, proposals: pd.DataFrame, selected: set[str]) -> pd.DataFrame:
    """Per pattern: proposed (readable or not) -> quotes verified -> conforming -> supported -> accepted -> selected,
    counted from the stored golden_proposals rows (`proposals`) and the readable ones' gate outcomes. An unreadable
    proposal is counted under the pattern it names, or, when it names none (a line that is not JSON), on a row of
    its own, shown only when there is one: every stored row is counted once."""
    unreadable = proposals[proposals.unreadable_reason != ""].pattern.fillna("")
    unreadable = unreadable.where(unreadable.isin(PATTERNS), UNKNOWN_PATTERN).value_counts()
    rows = []
    for pattern in PATTERNS:
        mine = outcomes[outcomes.pattern == pattern]
        rows.append(
            {
                "pattern": pattern,
                "name": PATTERN_CONTRACTS[pattern].name,
                "proposed": len(mine) + int(cast(int, unreadable.get(pattern, 0))),
                "unreadable": int(cast(int, unreadable.get(pattern, 0))),
                "quotes_verified": int(mine.quotes_verified.sum()),
                "conforming": int(mine.conforming.sum()),
                "supported": int(mine.supported.sum()),
                "accepted": int(mine.accepted.sum()),
                "selected": int(mine.candidate_id.isin(selected).sum()),
            }
        )
    nameless = int(cast(int, unreadable.get(UNKNOWN_PATTERN, 0)))
    if nameless:
        counts = dict.fromkeys(("quotes_verified", "conforming", "supported", "accepted", "selected"), 0)
        rows.append(
            {"pattern": UNKNOWN_PATTERN, "name": "pattern unreadable", "proposed": nameless, "unreadable": nameless}
            | counts
        )
    frame = pd.DataFrame(rows)
    total = frame.drop(columns=["pattern", "name"]).sum()
    return pd.concat([frame, pd.DataFrame([{"pattern": "all", "name": "", **total.to_dict()}])], ignore_index=True)


def agreement(candidates: list[Candidate], outcomes: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Against hand-written verdicts (candidates that carry one): per gate, how many candidates the gate and the
    person judged alike (the gate fails the candidate exactly when the person named it as the failing gate), and
    every candidate whose overall verdict differs."""
    expected = {c.candidate_id: c.expected for c in candidates if c.expected.get("verdict") in ("accept", "reject")}
    if not expected:
        return pd.DataFrame(columns=["gate", "candidates", "agree", "gate_only", "person_only"]), pd.DataFrame(
            columns=["candidate_id", "expected", "got", "why_expected", "gate_reason"]
        )
    got = outcomes.set_index("candidate_id")
    rows = []
    for gate in GATES:
        agree = gate_only = person_only = 0
        for candidate_id, verdict in expected.items():
            person = verdict.get("failing_gate") == gate
            machine = got.loc[candidate_id, "failing_gate"] == gate
            agree += person == machine
            gate_only += machine and not person
            person_only += person and not machine
        rows.append(
            {
                "gate": gate,
                "candidates": len(expected),
                "agree": agree,
                "gate_only": gate_only,
                "person_only": person_only,
            }
        )

    def failing(cid: str) -> str | None:
        gate = got.loc[cid, "failing_gate"]
        return None if pd.isna(gate) else gate

    differences = [
        {
            "candidate_id": cid,
            "expected": v.get("failing_gate") or "accept",
            "got": failing(cid) or "accept",
            "why_expected": v.get("why", ""),
            "gate_reason": got.loc[cid, "reason"],
        }
        for cid, v in sorted(expected.items())
        if (v.get("failing_gate") or None) != failing(cid)
    ]
    return pd.DataFrame(rows), pd.DataFrame(
        differences, columns=["candidate_id", "expected", "got", "why_expected", "gate_reason"]
    )


def select_balanced(candidates: list[Candidate], outcomes: pd.DataFrame, per_pattern: int) -> list[Candidate]:
    """Up to `per_pattern` accepted candidates of each pattern, in proposal order: single-document patterns (D1-D3,
    D8) and two-document ones (D4-D7) get the same share, so the set is half and half when every pattern fills."""
    accepted = set(outcomes.candidate_id[outcomes.accepted.astype(bool)])
    chosen: list[Candidate] = []
    for pattern in PATTERNS:
        chosen += [c for c in candidates if c.pattern == pattern and c.candidate_id in accepted][:per_pattern]
    return chosen


class FreezeRefused(ValueError):
    pass


@dataclass(frozen=True)
class FrozenPatternSet:
    records: list[dict]
    jsonl: str
    content_hash: str


def _page(pages: dict, filing_id: str, offset: int) -> str | None:
    starts, printed = pages.get(filing_id, ([], []))
    at = bisect.bisect_right(starts, offset) - 1
    return printed[at] if 0 <= at < len(printed) and printed[at] else None


def freeze_patterns(
    selected: list[Candidate],
    outcomes: pd.DataFrame,
    placed: dict[str, list[PlacedQuote]],
    filing_sha: dict[str, str],
    chunks: pd.DataFrame,
    pages: dict,
) -> FrozenPatternSet:
    """The frozen set in the brief's schema. Refuses a set holding any case that failed or skipped a gate."""
    status = outcomes.set_index("candidate_id")
    failing = [c.candidate_id for c in selected if not bool(status.loc[c.candidate_id, "accepted"])]
    if failing:
        raise FreezeRefused(
            f"cannot freeze: {len(failing)} case(s) fail a gate: "
            + "; ".join(f"{cid} ({status.loc[cid, 'failing_gate']})" for cid in failing[:5])
        )
    by_filing = {f: g.sort_values("start") for f, g in chunks.groupby("filing_id")}
    records = []
    for case in selected:
        evidence = []
        for quote in placed[case.candidate_id]:
            filing_chunks = by_filing.get(quote.filing_id)
            ids = (
                []
                if filing_chunks is None
                else filing_chunks[
                    (filing_chunks.start < quote.end) & (filing_chunks.end > quote.start)
                ].chunk_id.tolist()
            )
            evidence.append(
                {
                    "document_sha256": filing_sha[quote.filing_id],
                    "filing_id": quote.filing_id,
                    "chunk_ids": ids,
                    "page": _page(pages, quote.filing_id, quote.start),
                    "quote": quote.text,
                    "kind": "table_row" if quote.is_table_row else "prose",
                }
            )
        records.append(
            {
                "id": case.candidate_id,
                "question": case.question,
                "reference_answer": case.gold_answer,
                "expected_route": exchange_route(NO_ANSWER if case.pattern == "D8" else ANSWER),
                "evidence": evidence,
                "question_type": case.answer_type,
                "pattern": case.pattern,
                "difficulty": "two-document" if PATTERN_CONTRACTS[case.pattern].documents == 2 else "single-document",
                "period": ", ".join(sorted(set(re.findall(r"\b(?:19|20)\d{2}\b", case.question)))) or None,
                "provenance": {
                    "source": case.source,
                    "prompt_version": case.prompt_version,
                    "excerpt_ids": list(case.excerpt_ids),
                },
                "notes": "passed all ten gates",
            }
        )
    jsonl = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records)
    return FrozenPatternSet(records, jsonl, hashlib.sha256(jsonl.encode()).hexdigest())
