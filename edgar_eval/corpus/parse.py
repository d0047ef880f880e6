"""One entry point from filing bytes to everything the corpus assets hold."""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.etree as etree

from edgar_eval.corpus.fiscal import fiscal_year_of, parse_fiscal_year_end
from edgar_eval.corpus.ixbrl import has_inline_xbrl, parse_facts
from edgar_eval.corpus.pages import build_page_map
from edgar_eval.corpus.sections import find_notes_start, find_sections, resolve_statement_references
from edgar_eval.corpus.text import NestingTooDeep, extract_text
from edgar_eval.domain.filings import SUPPORTED_FORMS, Fact, FactRejection, FilingError, FilingMeta, Page, Section

_PARSER_OPTIONS = dict(huge_tree=True, resolve_entities=False, no_network=True, remove_comments=True)


@dataclass(frozen=True)
class ParsedFiling:
    meta: FilingMeta
    text: str
    pages: list[Page]
    facts: list[Fact]
    sections: list[Section]
    notes_start: int | None
    warnings: tuple[str, ...] = ()
    rejected_facts: tuple[FactRejection, ...] = ()  # facts that could not be read, each with its reason


_TAG_MISMATCH = re.compile(r"Opening and ending tag mismatch: ([\w:.-]+) line \d+ and ([\w:.-]+)")
MAX_TAG_REPAIRS = 200
_INLINE_ELEMENTS = frozenset({"nonNumeric", "continuation", "exclude", "nonFraction", "footnote", "fraction"})


def _repair_inline_tags(data: bytes, error: etree.XMLSyntaxError) -> bytes | None:
    """The document with one mis-nested inline XBRL tag mended, or None when the mismatch is another kind.

    Filers wrap a note's text block in ix:nonNumeric or ix:continuation and sometimes close it inside a div it
    opened outside of. libxml2's recovery then closes the body early and drops the rest of the document (one real
    10-K lost its last 2 MB, the statements and notes with it), so the mismatch is mended here instead: a stray
    closing ix tag is removed, and an ix element left open is closed where its parent closes.
    """
    found = _TAG_MISMATCH.search(str(error.msg))
    if not found or error.position is None:
        return None
    still_open, closing = found.group(1), found.group(2)
    if ":" not in still_open and still_open in _INLINE_ELEMENTS:
        still_open = f"ix:{still_open}"  # libxml2 names a still-open element without its prefix
    if not (closing.startswith("ix:") or still_open.startswith("ix:")):
        return None
    line, column = error.position
    offset = 0
    for _ in range(line - 1):
        offset = data.index(b"\n", offset) + 1
    at = data.rfind(b"</" + closing.encode(), max(0, offset + column - 400), offset + column + 2)
    if at < 0:
        return None
    if closing.startswith("ix:"):
        return data[:at] + data[data.index(b">", at) + 1 :]
    return data[:at] + b"</" + still_open.encode() + b">" + data[at:]


def _root(data: bytes) -> tuple[etree._Element, tuple[str, ...]]:
    """The document tree, and what had to be repaired to build it.

    Real filings are sometimes not well-formed XML (an ix:nonNumeric text block closed outside the div it
    opened in): such mis-nested inline tags are mended and the document read with a recorded warning; any other
    malformation falls back to libxml2's recovery, also on record. A file cut short is refused: recovery would
    hide the loss.
    """
    if not data:
        raise FilingError("empty file (0 bytes)")
    if b"\x00" in data[:4096]:
        raise FilingError("binary content, not an XHTML document")
    if b"<html" not in data.lower():
        raise FilingError("not an HTML document: no <html> element")
    if b"</html>" not in data[-4096:].lower():
        raise FilingError("truncated document: no closing </html> at the end of the file")
    original, repairs, first_error = data, 0, None
    while True:
        try:
            root = etree.fromstring(data, parser=etree.XMLParser(**_PARSER_OPTIONS))
        except etree.XMLSyntaxError as error:
            first_error = first_error or error
            mended = _repair_inline_tags(data, error) if repairs < MAX_TAG_REPAIRS else None
            if mended is None:
                break
            data, repairs = mended, repairs + 1
            continue
        warning = (f"repaired {repairs} mis-nested inline XBRL tag(s); first: {first_error}",) if repairs else ()
        return root, warning
    parser = etree.XMLParser(recover=True, **_PARSER_OPTIONS)
    try:
        root = etree.fromstring(original, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise FilingError(f"malformed XHTML: {exc}") from exc
    if root is None:
        raise FilingError(f"malformed XHTML: {first_error}")
    return root, (f"recovered from malformed XHTML ({len(parser.error_log)} errors; first: {first_error})",)


def _dei(facts: list[Fact], name: str) -> Fact | None:
    return next((f for f in facts if f.concept == f"dei:{name}" and not f.context.dimensions), None)


def _ticker(facts: list[Fact]) -> str:
    symbols = [f for f in facts if f.concept == "dei:TradingSymbol" and f.displayed.strip()]
    return re.sub(r"\s+", "", symbols[0].displayed).upper() if symbols else ""


def _read_meta(facts: list[Fact]) -> FilingMeta:
    document_type = _dei(facts, "DocumentType")
    if document_type is None:
        raise FilingError("no dei:DocumentType fact: cannot tell which form this is")
    shown = re.sub(r"\s+", " ", document_type.displayed).strip().upper()
    form = re.sub(r"\s*/\s*A$", "", shown)  # an amendment is read as the form it amends, flagged as amending it
    if form not in SUPPORTED_FORMS:
        raise FilingError(f"unsupported form {shown!r}; supported: {', '.join(SUPPORTED_FORMS)} and their amendments")
    amendment_flag = _dei(facts, "AmendmentFlag")
    amendment = form != shown or (amendment_flag is not None and amendment_flag.displayed.strip().lower() == "true")
    name = _dei(facts, "EntityRegistrantName")
    cik = _dei(facts, "EntityCentralIndexKey")
    if name is None or cik is None:
        raise FilingError("missing dei:EntityRegistrantName or dei:EntityCentralIndexKey")
    period_end = document_type.context.period_end
    fye_fact = _dei(facts, "CurrentFiscalYearEndDate")
    fiscal_year_end = parse_fiscal_year_end(fye_fact.text_value if fye_fact else None)
    if fiscal_year_end is None:
        # A 10-K's period end is its fiscal year end; other forms without the fact assume calendar years.
        fiscal_year_end = (period_end.month, period_end.day) if form == "10-K" else (12, 31)
    nominal_year = fiscal_year_of(period_end, fiscal_year_end)
    year_fact = _dei(facts, "DocumentFiscalYearFocus")
    focus = int(year_fact.displayed[:4]) if year_fact and year_fact.displayed[:4].isdigit() else nominal_year
    # Only a one-year difference is a naming convention; anything else is a tagging error, and the dates win.
    offset = focus - nominal_year if abs(focus - nominal_year) <= 1 else 0
    period_fact = _dei(facts, "DocumentFiscalPeriodFocus")
    fiscal_period = period_fact.displayed.upper() if period_fact else ("FY" if form == "10-K" else "")
    return FilingMeta(
        company=re.sub(r"\s+", " ", name.displayed).strip(),
        cik=re.sub(r"\D", "", cik.displayed).zfill(10),
        form=form,
        fiscal_year=nominal_year + offset,
        fiscal_period=fiscal_period,
        period_end=period_end,
        fiscal_year_end=f"--{fiscal_year_end[0]:02d}-{fiscal_year_end[1]:02d}",
        fiscal_year_offset=offset,
        ticker=_ticker(facts),
        amendment=amendment,
    )


def parse_filing(data: bytes) -> ParsedFiling:
    """Parse an inline-XBRL EDGAR primary document; FilingError says why one cannot be read.

    A fact that cannot be read (an unknown number word or format, an unreadable context date) costs only itself: it is
    dropped with its reason (`rejected_facts`, and a warning), and the filing is read without it. What says who filed
    which form (the dei facts) cannot be done without: losing it fails the filing, naming the fact dropped.
    """
    root, warnings = _root(data)
    if not has_inline_xbrl(root):
        raise FilingError("no inline XBRL: the document has no ix:header")
    try:
        clean = extract_text(root)
    except NestingTooDeep as exc:
        raise FilingError(f"not a filing's structure: {exc}") from exc
    if not clean.text.strip():
        raise FilingError("the document has no visible text")
    facts, rejected = parse_facts(root, clean.anchors)
    try:
        meta = _read_meta(facts)
    except FilingError as exc:
        lost = [r for r in rejected if r.concept.startswith("dei:")]
        if not lost:
            raise
        because = "; ".join(f"{r.concept}: {r.reason}" for r in lost[:3])
        raise FilingError(f"{exc} (dei facts that could not be read: {because})") from exc
    if rejected:
        first = rejected[0]
        warnings += (
            f"dropped {len(rejected)} fact(s) that could not be read (listed in fact_rejections); "
            f"first: {first.concept}: {first.reason}",
        )
    notes_start = find_notes_start(clean.text)
    sections = resolve_statement_references(find_sections(clean.text, meta.form), notes_start)
    return ParsedFiling(
        meta=meta,
        text=clean.text,
        pages=build_page_map(clean.text, clean.page_breaks),
        facts=facts,
        sections=sections,
        notes_start=notes_start,
        warnings=warnings,
        rejected_facts=tuple(rejected),
    )
