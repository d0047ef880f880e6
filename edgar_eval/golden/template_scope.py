"""What the template builder knows of each filing of the corpus (_Scope): its figures and where each is printed, its
pages, chunks and statement headings, the facts it tags and their values per period, and the filings each search
scope holds. Built once per golden build and read by every kind of question.
"""

from __future__ import annotations

import json
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.corpus.company_names import display_name
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.pages import page_label, stored_pages
from edgar_eval.golden import fairness as rules
from edgar_eval.golden.fairness import FigureIndex
from edgar_eval.golden.might_answer import PrintedNames, ScopeText, ScopeTexts, cover_page_end, statements_elsewhere
from edgar_eval.retrieval.scope import COMPANY, COMPANY_YEAR, ScopedFiling, filings_of_scope


class _Scope:
    """What the builder knows of each filing: its figures, its pages, where its statements and notes are."""

    def __init__(
        self,
        filings: pd.DataFrame,
        texts: pd.DataFrame,
        sections: pd.DataFrame,
        chunks: pd.DataFrame,
        facts: pd.DataFrame,
    ):
        self.scoped = [ScopedFiling(r.filing_id, r.cik, r.form, int(r.fiscal_year)) for r in iter_rows(filings)]
        self.filing = {r.filing_id: r for r in iter_rows(filings)}
        latest = filings.sort_values(["cik", "filed", "filing_id"]).drop_duplicates("cik", keep="last")
        self.company = {r.cik: display_name(r.company) for r in iter_rows(latest)}  # one name however it was spelt
        self.index: dict[str, FigureIndex] = {}
        self.headings: dict[str, list[tuple[int, str]]] = {}
        self.lower_text: dict[str, str] = {}
        for row in iter_rows(texts):
            labels = [page_label(p) for p in stored_pages(row.page_starts, row.page_ends, row.printed_pages)]
            self.index[row.filing_id] = FigureIndex(row.filing_id, row.text, [int(s) for s in row.page_starts], labels)
            self.headings[row.filing_id] = rules.statement_headings(row.text)
            self.lower_text[row.filing_id] = row.text.lower()
        notes = sections.dropna(subset=["notes_start"]).drop_duplicates("filing_id")
        self.notes_start = {r.filing_id: int(r.notes_start) for r in iter_rows(notes)}
        self.chunks = {
            fid: (g.start.to_numpy(), g.end.to_numpy(), g.chunk_id.to_numpy())
            for fid, g in chunks.sort_values(["filing_id", "start"]).groupby("filing_id")
        }
        located = cast(pd.DataFrame, facts[facts.offset.notna()])
        self.tagged_offsets: dict[str, set[tuple[str, int]]] = {}
        # An equity statement tags a balance again under a component member: the same figure, not another meaning.
        self.figure_offsets: dict[tuple[str, str, str, float], set[tuple[str, int]]] = {}
        # Column by column, not a groupby of ~50,000 groups (its per-group cost was a quarter of the golden build);
        # a fact without a value is no figure, as groupby leaves a missing key out.
        # The values each filing tags for one concept and period, undimensioned (a component member's balance is not
        # the total's restatement): two of them that differ in one search scope make its question two questions.
        self.period_values: dict[tuple[str, str, str], set[float]] = {}
        for fid, concept, period_key, value, offset, dimensions in zip(
            located.filing_id,
            located.concept,
            located.period_key,
            located.value,
            located.offset,
            located.dimensions,
            strict=True,
        ):
            where = (fid, int(offset))
            self.tagged_offsets.setdefault(fid, set()).add(where)
            if value == value:  # not NaN
                self.figure_offsets.setdefault((fid, concept, period_key, value), set()).add(where)
                if not dimensions and value is not None:
                    self.period_values.setdefault((fid, concept, period_key), set()).add(float(value))
        self.concepts = facts.groupby("filing_id").concept.agg(set).to_dict()
        self.members = {
            fid: {member for dims in group.dimensions if dims for _, member in json.loads(dims)}
            for fid, group in facts.groupby("filing_id")
        }
        self.texts = {row.filing_id: row.text for row in iter_rows(texts)}
        counted = facts[facts.is_numeric] if "is_numeric" in facts else facts  # a stand-in may hold numbers only
        numeric = counted.groupby("filing_id").size().to_dict()
        annual = [numeric.get(f, 0) for f in self.texts if self.filing[f].form == "10-K"]
        usual = float(np.median(annual)) if len(annual) >= 3 else None  # too few 10-Ks to say what is usual
        self.statements_elsewhere = {
            f: why
            for f in sorted(self.texts)
            if (why := statements_elsewhere(self.filing[f].form, self.texts[f], numeric.get(f, 0), usual))
        }
        body_starts = {row.filing_id: cover_page_end(len(row.text), row.page_ends) for row in iter_rows(texts)}
        self._scope_texts = ScopeTexts(
            self.texts, {f: self.concepts.get(f, set()) | self.members.get(f, set()) for f in self.texts}, body_starts
        )
        kept = (located.dimensions == "") & located.value.notna()
        if "is_numeric" in located:
            kept &= located.is_numeric.astype(bool)
        printed = cast(pd.DataFrame, located[kept])
        cik_of = {f: str(self.filing[f].cik) for f in self.texts if f in self.filing}
        self.printed_names = PrintedNames.read(
            zip(printed.filing_id, printed.concept, printed.offset.astype(int)),
            {f: t for f, t in self.texts.items() if f in cik_of},
            cik_of,
            self.period_values,
        )
        self._printing: dict[str, list[str]] | None = None

    def prints(self, filing_id: str, printed: str) -> bool:
        """Whether the filing prints this figure anywhere (as printed: "47,415")."""
        return filing_id in self.index and bool(self.index[filing_id].offsets(printed))

    def filings_printing(self, printed: str) -> list[str]:
        """The filings that print this figure anywhere (an inverted index, built on first use: a corpus-wide search
        scope asks it of every question, and looking in every filing for every question grows with their product)."""
        if self._printing is None:
            self._printing = {}
            for filing_id in sorted(self.index):
                for figure in self.index[filing_id].figures():
                    self._printing.setdefault(figure, []).append(filing_id)
        return self._printing.get(printed, [])

    def scope_texts(self, filing_ids: list[str]) -> list[ScopeText]:
        """Each filing's rows, headings, sentences and tagged names, read once (golden.might_answer)."""
        return self._scope_texts.of(filing_ids)

    def filings_of(self, search_scope: str, cik: str, fiscal_year: int | None) -> list[str]:
        """The filings with text that a question about `cik` and `fiscal_year` searches in `search_scope`."""
        return [f for f in filings_of_scope(search_scope, self.scoped, cik, fiscal_year) if f in self.index]

    def of_company(self, cik: str) -> list[str]:
        return self.filings_of(COMPANY, cik, None)

    def of(self, cik: str, fiscal_year: int) -> list[str]:
        return self.filings_of(COMPANY_YEAR, cik, fiscal_year)

    def tagged_in(self, filing_ids: list[str]) -> set[str]:
        return set().union(*(self.concepts.get(f, set()) for f in filing_ids)) if filing_ids else set()

    def chunks_holding(self, filing_id: str, start: int, end: int) -> list[str]:
        starts, ends, ids = self.chunks.get(filing_id, (np.array([]), np.array([]), np.array([])))
        return list(ids[(starts <= start) & (ends >= end)])
