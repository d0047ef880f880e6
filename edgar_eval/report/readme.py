"""The README's figures, read from the committed reports, never typed: `edgar-eval readme` writes them between
the markers, and a test fails when the README and the reports disagree."""

from __future__ import annotations

import re

from edgar_eval.retrieval.scope import COMPANY_YEAR

# The corpora whose reports are committed and whose figures the README prints. A report of any other corpus
# (reports/<name>/ of your own folder) is yours: it never edits the README nor breaks the test suite.
COMMITTED_CORPORA = ("demo", "edgar", "edgar-wide")

START, END = "<!-- figures:start (edgar-eval readme writes this block) -->", "<!-- figures:end -->"


def report_table(markdown: str, title: str) -> list[dict[str, str]]:
    """The rows of the report table under `## title` (or `## title (the split it reads)`), as dicts of the cells as
    printed."""
    section = re.search(rf"^## {re.escape(title)}(?: \([^\n]*\))?\n(.*?)(?=^## |\Z)", markdown, re.M | re.S)
    if section is None:
        raise ValueError(f"the report has no table {title!r}")
    lines = [line for line in section.group(1).splitlines() if line.startswith("|")]
    split = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    header, rows = split[0], split[2:]
    return [dict(zip(header, row)) for row in rows]


def readme_figures(reports: dict[str, str]) -> str:
    """One row per corpus: golden questions, page hit at each depth per retriever and a random ranking's, the reader's
    accuracy on answerable questions (all of them, arm A), the false-answer rate on absent-concept questions (the
    protocol's primary endpoint, never a pooled rate) of arm A (no gate) against arm E (period guard + relevance
    model) on the eval split, the primary hypothesis's decision, and the hard questions the ten admission gates
    accepted."""
    lines = [
        START,
        "",
        "| corpus | golden questions (answerable) | page hit@30 / @50: dense, bm25, hybrid | page hit@30 / @50 by "
        "chance | reader right on answerable "
        "| absent-concept FAR arm A / arm E (eval) | primary hypothesis | hard questions accepted / proposed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for corpus, markdown in sorted(reports.items()):
        kinds = {row["kind"]: int(row["questions"]) for row in report_table(markdown, "Golden questions")}
        answerer_scope = [row for row in report_table(markdown, "Retrieval") if row["scope"] == COMPANY_YEAR]
        hits = {(row["retriever"], row["K"]): row["page hit"].split(" ")[0] for row in answerer_scope}
        # a random ranking of one scope is one figure whatever the retriever
        chance = {row["K"]: row["page hit by chance"] for row in answerer_scope}
        absent = {row["arm"]: _rate(_cell(row, "absent_concept")) for row in report_table(markdown, FAR_BY_KIND)}
        primary = _primary_decision(markdown)
        reader = next(
            row
            for row in report_table(markdown, "Readers")
            if row["reader"].endswith("(the arms read this one)") and row.get("documents", "all") == "all"
        )
        retrieval = ", ".join(f"{hits[(r, '30')]} / {hits[(r, '50')]}" for r in ("dense", "bm25", "hybrid"))
        funnel = next(
            row
            for row in report_table(markdown, "Hard golden questions: the funnel per dispersion pattern")
            if row["pattern"] == "all"
        )
        lines.append(
            f"| `reports/{corpus}/report.md` | {sum(kinds.values())} ({kinds.get('answerable', 0)}) | {retrieval} "
            f"| {chance['30']} / {chance['50']} | {reader['right']} ({reader['reader'].split(' ')[0]}"
            f"{', in-sample' if '(in-sample' in reader['reader'] else ''}) "
            f"| {absent['A']} / {absent['E']} | {PRIMARY}: {primary} | "
            f"{funnel['accepted']} / {funnel['proposed']} |"
        )
    return "\n".join([*lines, "", END])


KINDS_START = "<!-- kinds:start (edgar-eval readme writes this block) -->"
KINDS_END = "<!-- kinds:end -->"
KINDS_FROM = "edgar"  # the committed report whose examples the README prints: real filings, every kind


def readme_kinds(markdown: str) -> str:
    """The report's "One question of each kind" table as the README prints it."""
    rows = report_table(markdown, "One question of each kind")
    lines = [KINDS_START, "", "| kind | example | the right answer |", "|---|---|---|"]
    lines += [f"| `{row['kind']}` | {row['question']} | {row['the right answer']} |" for row in rows]
    return "\n".join([*lines, "", KINDS_END])


FAR_BY_KIND = "False-answer rate per unanswerable kind"
EXACT_DECISIONS = "Confirmatory decisions"  # protocol v5's table


def _primary_decision(markdown: str) -> str:
    """The primary hypothesis's decision as the report states it: v5's (the decision its data give, with whether the
    run is the registered one), else the paired table's (confirmatory, or exploratory where the protocol registers
    another run)."""
    if f"## {EXACT_DECISIONS}" in markdown:
        row = next(r for r in report_table(markdown, EXACT_DECISIONS) if r["hypothesis"] == PRIMARY)
        here = "" if row["here"] == "confirmatory" else " (exploratory here: not the registered run)"
        return f"{row['decision its data give']}{here}"
    return next(r for r in report_table(markdown, "Paired arm comparisons") if r["hypothesis"] == PRIMARY)["decision"]


PRIMARY = "H2"  # protocol/answering-v4.toml and v5: the primary endpoint's hypothesis


def _cell(row: dict[str, str], kind: str) -> str:
    """The cell of the column headed by the kind (its header also names how many companies hold it)."""
    return next(value for header, value in row.items() if header.split(" ")[0] == kind)


def _rate(cell: str) -> str:
    """ "0/15 (0.0%; 0.0% to 20.4%)" as the README prints it: "0.0% (0/15)"."""
    count, rest = cell.split(" ", 1)
    return f"{rest[1:].split(';')[0]} ({count})"


def replace_block(readme: str, block: str, start: str = START, end: str = END) -> str:
    """The README with the block between `start` and `end` (markers included) replaced by `block`."""
    if start not in readme or end not in readme:
        raise ValueError(f"the README has no block markers {start!r} ... {end!r}")
    before, rest = readme.split(start, 1)
    return before + block + rest.split(end, 1)[1]
