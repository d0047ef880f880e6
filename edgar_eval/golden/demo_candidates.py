"""The demo corpus's planted proposals: a good candidate per pattern and company, and ones broken on purpose.

The demo generator knows where it planted each dispersion pattern (ground_truth.json). This module turns that
knowledge into proposals in the brief's schema, worded differently per company (a template question asked
three times would share one frame and two of the three would be dropped as near-duplicates), and derives from
them candidates broken in each way a gate exists for, each with the verdict the gates must reach. They feed
the demo's golden_proposals asset and the tests that pin every gate's verdict.
"""

from __future__ import annotations

import re
from typing import Mapping, cast

from edgar_eval.golden.quotes import row_cells

SOURCE = "demo-planted"
ANSWER_TYPES = {
    "D1": "string",
    "D2": "number",
    "D3": "string",
    "D4": "number",
    "D5": "list",
    "D6": "number",
    "D7": "list",
    "D8": "refusal",
}
# One wording per company (by position in the ground truth), so the planted questions share no frame.
_WORDINGS = {
    "D1": (
        "By how much did {short}'s {segment} revenue change in fiscal 2024, and what drove the change?",
        "What explains the movement in {short}'s {segment} revenue during fiscal 2024, and how large was it?",
        "For fiscal 2024, how far did {segment} revenue move at {short}, and for what reason?",
    ),
    "D2": (
        "How much of {short}'s fiscal 2024 restructuring charges was employee severance?",
        "Of the restructuring cost {short} booked in fiscal 2024, what part went to severance pay?",
        "In fiscal 2024, what severance did {short} include within its restructuring charges?",
    ),
    "D3": (
        "What was {short}'s {term} at the end of fiscal 2024, and how does {short} define it?",
        "How does {short} define {term}, and what did it amount to at the end of fiscal 2024?",
        "At the close of fiscal 2024, what {term} did {short} give, and what does the term mean?",
    ),
    "D4": (
        "How much revenue did {short} earn in the fourth quarter of fiscal 2024?",
        "What revenue did {short} bring in during the last quarter of fiscal 2024?",
        "In the final three months of fiscal 2024, how much did {short} sell?",
    ),
    "D5": (
        "How did {short}'s recorded fiscal 2024 restructuring charges through the third quarter compare with the "
        "amount it first estimated?",
        "Against its first estimate, how much restructuring cost had {short} recorded by the end of the third quarter "
        "of fiscal 2024?",
        "What restructuring charges did {short} book in the first nine months of fiscal 2024, and what total had it "
        "expected at the outset?",
    ),
    "D6": (
        "What was {short}'s chief executive's total fiscal 2024 pay as a share of its fiscal 2024 net income?",
        "Measured against fiscal 2024 net income, how large was the total pay of {short}'s chief executive that year?",
        "What percentage of {short}'s fiscal 2024 net income did its CEO's total fiscal 2024 compensation equal?",
    ),
}


def _cells_run(line: str, wanted: list[str]) -> str | None:
    """The contiguous run of a row's cells from the first wanted cell to the last, as a quote; None if absent."""
    cells = row_cells(line)
    wanted_cells = [row_cells(c)[0] for c in wanted if row_cells(c)]
    position, found = 0, []
    for cell in wanted_cells:
        try:
            position = cells.index(cell, position)
        except ValueError:
            return None
        found.append(position)
        position += 1
    return " | ".join(cells[found[0] : found[-1] + 1]) if found else None


def _row_quote(text: str, cells: list[str]) -> str:
    for line in text.splitlines():
        if line.startswith("|"):
            quote = _cells_run(line, cells)
            if quote:
                return quote
    raise ValueError(f"no table row of the planted filing holds the cells {cells}")


def _company_phrase(case: dict, short: str) -> dict:
    question = case["question"]
    segment = re.search(r"'s (.+?) revenue change", question)
    term = re.search(r"'s (.+?) at the end of", question)
    return {"short": short, "segment": segment.group(1) if segment else "", "term": term.group(1) if term else ""}


def planted_candidates(truth: dict, texts_by_path: Mapping[str, str]) -> list[dict]:
    """Good proposals, one per planted pattern case, in the order of the ground truth."""
    records: list[dict] = []
    seen: dict[str, int] = {}
    short_names = {c["key"]: c["name"].split()[0] for c in truth["companies"]}
    for case in truth["patterns"]:
        pattern = case["pattern"]
        index = seen.get(pattern, 0)
        seen[pattern] = index + 1
        evidence = [
            {
                "document": e["document"],
                "quote": _row_quote(texts_by_path[e["document"]], e["cells"])
                if e["kind"] == "table_row"
                else e["quote"],
            }
            for e in case["evidence"]
        ]
        question = case["question"]
        if pattern in _WORDINGS:
            question = _WORDINGS[pattern][index % len(_WORDINGS[pattern])].format(
                **_company_phrase(case, short_names[case["company"]])
            )
        answer = case["answer"] or "The filings do not disclose it; refusing is the right answer."
        records.append(
            {
                "id": f"DEMO-{case['company']}-{pattern}",
                "pattern": pattern,
                "question": question,
                "answer_type": ANSWER_TYPES[pattern],
                "gold_answer": answer,
                "evidence": evidence,
                "requires_documents": case["requires_documents"],
                "expected": {"verdict": "accept", "failing_gate": None, "why": "planted as a good case"},
            }
        )
    return records


def _broken(base: dict, suffix: str, gate: str | None, why: str, **changes) -> dict:
    record = {**base, **changes, "id": f"{base['id']}-{suffix}"}
    record["expected"] = {"verdict": "accept" if gate is None else "reject", "failing_gate": gate, "why": why}
    return record


def _first(records: list[dict], pattern: str) -> dict:
    return next(r for r in records if r["pattern"] == pattern)


def _sentence_near(text: str, anchor: int, low: int, high: int) -> str:
    """A prose sentence of `text` whose gap from `anchor` is between low and high characters."""
    offset = 0
    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        body = line.strip()
        if (
            body
            and not body.startswith("|")
            and len(body) > 60
            and low <= abs(start - anchor) <= high
            and body.endswith(".")
        ):
            return body
    raise ValueError("no prose sentence at that distance")


def broken_candidates(good: list[dict], texts_by_path: Mapping[str, str]) -> list[dict]:
    """Candidates broken in each way a gate exists for (and two that look broken but must pass)."""
    d1, d2, d4, d7, d8 = (_first(good, p) for p in ("D1", "D2", "D4", "D7", "D8"))
    row, prose = d1["evidence"]
    one_word_off = prose["quote"].replace(" and ", " plus ", 1)
    d1_text = texts_by_path[row["document"]]
    row_at = d1_text.find(row["quote"].split(" | ")[0])
    figures = re.findall(r"\d[\d,]*", d4["gold_answer"])
    year, nine = int(figures[1].replace(",", "")), int(figures[2].replace(",", ""))
    d4_quarter = year - nine
    short = cast(re.Match[str], re.match(r"By how much did (\w+)'s", d1["question"])).group(1)  # the demo's D1
    out = [
        _broken(
            d1,
            "one-word-off",
            "quote_verification",
            "one word of the prose quote changed",
            evidence=[row, {**prose, "quote": one_word_off}],
        ),
        _broken(
            d1,
            "paraphrase",
            "quote_verification",
            "the prose quote paraphrases the filing",
            evidence=[
                row,
                {**prose, "quote": "Management said the segment grew because of more volume and new products."},
            ],
        ),
        _broken(
            d1,
            "too-close",
            "pattern_conformance",
            "the row and the prose sit about 3,000 characters apart",
            evidence=[row, {"document": row["document"], "quote": _sentence_near(d1_text, row_at, 2_600, 3_400)}],
        ),
        _broken(
            d2,
            "both-in-notes",
            "pattern_conformance",
            "both quotes sit in the notes",
            evidence=[
                d2["evidence"][1],
                {
                    "document": d2["evidence"][1]["document"],
                    "quote": _notes_sentence(texts_by_path[d2["evidence"][1]["document"]], d2["evidence"][1]["quote"]),
                },
            ],
        ),
        _broken(
            d4,
            "billions",
            None,
            "the annual figure restated in billions (one decimal) is within half its last digit",
            question=f"What were {short}'s total fiscal 2024 revenues in billions, and how much of that came in its "
            "fourth quarter?",
            gold_answer=f"About ${year / 1000:.1f} billion for the year, of which ${d4_quarter:,} million in the "
            "fourth quarter.",
        ),
        _broken(
            d4,
            "miss-2.5pct",
            "answer_support",
            "the quarter figure is 2.5% off with no rounding to excuse it",
            gold_answer=f"${round(d4_quarter * 1.025):,} million (${year:,} million less ${nine:,} million).",
        ),
        _broken(
            d1,
            "wrong-direction",
            "direction",
            "the answer says decreased while the figure rose",
            gold_answer=_wrong_direction(d1["gold_answer"]),
        ),
        _broken(
            d1,
            "names-10k",
            "source_naming",
            "the question names the 10-K",
            question=d1["question"].replace("By how much did", "According to the 10-K, by how much did", 1),
        ),
        _broken(d2, "36-words", "plain_english", "the question runs to 36 words", question=_pad_to(d2["question"], 36)),
        _broken(
            d2,
            "no-period",
            "period",
            "the question names no fiscal year, quarter or date",
            question=re.sub(r"\s*(?:in\s+)?fiscal 2024\s*", " ", d2["question"]).replace("  ", " ").replace(" ?", "?"),
        ),
        _broken(
            d2,
            "no-company",
            "period",
            "the question names no company, the other material identifier",
            question=d2["question"].replace(f"{short}'s", "the company's", 1),
        ),
        _broken(
            d4,
            "idle-document",
            "idle_evidence",
            "the third document repeats words the others bring and no answer figure",
            question=f"For the October to December stretch that closed fiscal 2024, what were {short}'s revenues?",
            evidence=d4["evidence"] + [_earlier_revenue_row(texts_by_path, d7, d4)],
            requires_documents=3,
        ),
        _broken(
            d8,
            "answer-printed",
            "absence_review",
            "the filings print the figure; the review records it",
            question=f"What did {short} spend on research and development in fiscal 2024?",
        ),
        _broken(
            d7,
            "one-filing",
            "pattern_conformance",
            "both quotes come from the later 10-K",
            evidence=[e for e in d7["evidence"] if e["document"] == d7["evidence"][1]["document"]],
            requires_documents=1,
        ),
    ]
    return out


def _wrong_direction(answer: str) -> str:
    figures = re.findall(r"\$([\d,]+) million", answer)
    prior, current = figures[1], figures[2]
    return f"Revenue decreased from ${prior} million to ${current} million, driven by higher volumes and new offerings."


def _pad_to(question: str, words: int) -> str:
    filler = (
        "counting every plan the board approved during that year and all of the employee, facility and contract "
        "costs that the company went on to record under those plans in its accounts for the period"
    )
    stem = question.rstrip("?")
    padded = f"{stem}, {filler}".split()
    while len(padded) > words:
        padded.pop(-2)
    if len(padded) < words:
        raise ValueError("the filler is too short to reach the word count")
    return " ".join(padded) + "?"


def _notes_sentence(text: str, near_quote: str) -> str:
    at = text.find(near_quote)
    offset = 0
    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        body = line.strip()
        if start > at + len(near_quote) and body and not body.startswith("|") and body.endswith(".") and len(body) > 60:
            return body
    raise ValueError("no notes sentence after the quote")


def _earlier_revenue_row(texts_by_path: Mapping[str, str], d7: dict, d4: dict) -> dict:
    """A revenue row of the company's earlier 10-K: the same words as the annual row, no answer figure."""
    document = d7["evidence"][0]["document"]
    label = d4["evidence"][1]["quote"].split(" | ")[0]
    for line in texts_by_path[document].splitlines():
        cells = row_cells(line)
        if line.startswith("|") and cells and cells[0] == label and len(cells) > 1:
            return {"document": document, "quote": " | ".join(cells[:2])}
    raise ValueError("the earlier 10-K prints no revenue row")


def demo_proposals(truth: dict, texts_by_path: Mapping[str, str]) -> list[dict]:
    good = planted_candidates(truth, texts_by_path)
    return good + broken_candidates(good, texts_by_path)
