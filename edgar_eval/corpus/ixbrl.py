"""Inline XBRL: contexts, units, and facts with scale, sign and format transforms applied."""

from __future__ import annotations

import re
from datetime import date

import lxml.etree as etree

from edgar_eval.corpus.number_words import TEN_WORDS, UNIT_WORDS
from edgar_eval.corpus.text import IX_NS, is_ix
from edgar_eval.domain.calendar import MONTH_NAMES
from edgar_eval.domain.filings import Context, Fact, FactRejection

XBRLI_NS = "http://www.xbrl.org/2003/instance"
XBRLDI_NS = "http://xbrl.org/2006/xbrldi"
REJECTED_DISPLAYED_CHARACTERS = 200  # of a dropped fact's displayed text, kept with its reason

# ixt-sec:numwordsen: "no", "none" and "nil" are 0
_NUMBER_WORDS = {
    "no": 0,
    "none": 0,
    "nil": 0,
    **UNIT_WORDS,
    **TEN_WORDS,
}
_MAGNITUDE_WORDS = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_ZERO_FORMATS = {"fixed-zero", "zerodash", "zero-dash", "fixedzero"}


class TransformError(ValueError):
    pass


def _format_name(fmt: str | None) -> str:
    return (fmt or "").split(":", 1)[-1].lower()


def _words_to_number(text: str) -> float:
    total, current = 0, 0
    tokens = re.findall(r"[a-z]+", text.lower())
    if not tokens:
        raise TransformError(f"no number words in {text!r}")
    for token in tokens:
        if token == "and":
            continue
        if token in _NUMBER_WORDS:
            current += _NUMBER_WORDS[token]
        elif token == "hundred":
            current *= 100
        elif token in _MAGNITUDE_WORDS:
            total += current * _MAGNITUDE_WORDS[token]
            current = 0
        else:
            raise TransformError(f"not a number word: {token!r} in {text!r}")
    return float(total + current)


def transform_number(displayed: str, fmt: str | None) -> float:
    """The number a reader sees in `displayed`, read by the iXBRL transformation `fmt`."""
    name = _format_name(fmt)
    text = displayed.strip()
    if name in _ZERO_FORMATS:
        return 0.0
    if name in ("numwordsen", "num-words-en"):
        return _words_to_number(text)
    if name in ("num-comma-decimal", "numcommadecimal", "numdotcomma", "numspacecomma"):
        cleaned = re.sub(r"[ .\u00a0']", "", text).replace(",", ".")
    elif name in ("", "num-dot-decimal", "numdotdecimal", "numcommadot", "numspacedot", "numcomma"):
        cleaned = re.sub(r"[ ,\u00a0']", "", text)
    elif name in ("fixed-empty", "fixedempty"):
        raise TransformError("fixed-empty carries no number")
    else:
        raise TransformError(f"unsupported number format {fmt!r}")
    if cleaned in ("", "-", "—", "–"):
        raise TransformError(f"no digits in {displayed!r} (format {fmt!r})")
    try:
        return float(cleaned)
    except ValueError as exc:
        raise TransformError(f"cannot read {displayed!r} as {fmt or 'a number'}") from exc


_MONTHS = {name: i for i, name in enumerate(MONTH_NAMES, 1)}
_MONTHS.update({name[:3]: i for name, i in list(_MONTHS.items())})
_DURATION_UNITS = {"duryear": "Y", "durmonth": "M", "durday": "D", "durweek": "W"}
_DURATION_WORDS = {
    "year": "Y",
    "years": "Y",
    "month": "M",
    "months": "M",
    "day": "D",
    "days": "D",
    "week": "W",
    "weeks": "W",
}


def _month(word: str) -> int:
    month = _MONTHS.get(word.lower().rstrip("."))
    if month is None:
        raise TransformError(f"not a month name: {word!r}")
    return month


def transform_text(displayed: str, fmt: str | None) -> str:
    """The value of an ix:nonNumeric fact: dates as ISO 8601, booleans, durations; other text as shown."""
    name = _format_name(fmt)
    text = displayed.strip()
    if not name:
        return text
    if name in ("fixed-true", "fixedtrue"):
        return "true"
    if name in ("fixed-false", "fixedfalse"):
        return "false"
    if name == "boolballotbox":
        return "true" if "\u2612" in text or "\u2611" in text else "false"
    if name in _DURATION_UNITS:
        return f"P{transform_number(text, None):g}{_DURATION_UNITS[name]}"
    if name == "durwordsen":
        words = re.findall(r"[a-z]+", text.lower())
        units = [w for w in words if w in _DURATION_WORDS]
        if not units:
            raise TransformError(f"no duration unit in {text!r}")
        amount = _words_to_number(" ".join(w for w in words if w not in _DURATION_WORDS))
        return f"P{amount:g}{_DURATION_WORDS[units[0]]}"
    if name in ("numwordsen", "num-words-en"):
        return f"{_words_to_number(text):g}"
    words = re.findall(r"[A-Za-z]+|\d+", text)
    if name in ("date-monthname-day-year-en", "datemonthnamedayyearen") and len(words) >= 3:
        return date(int(words[2]), _month(words[0]), int(words[1])).isoformat()
    if name in ("date-monthname-day-en", "datemonthnamedayen") and len(words) >= 2:
        return f"--{_month(words[0]):02d}-{int(words[1]):02d}"
    if name in ("date-monthname-year-en", "datemonthnameyearen") and len(words) >= 2:
        return f"{int(words[1]):04d}-{_month(words[0]):02d}"
    if name in ("date-month-day", "datemonthday") and len(words) >= 2:
        return f"--{int(words[0]):02d}-{int(words[1]):02d}"
    if name in ("date-day-monthname-year-en", "datedaymonthnameyearen") and len(words) >= 3:
        return date(int(words[2]), _month(words[1]), int(words[0])).isoformat()
    return text  # name-to-code formats (exchanges, states, filer categories) keep what the reader sees


def fact_value(displayed: str, fmt: str | None, scale: int, negative: bool) -> float:
    """Displayed number x 10^scale, with the sign attribute applied."""
    try:
        factor = 10.0**scale
    except OverflowError as exc:
        raise TransformError(f"scale {scale} is out of range") from exc
    value = transform_number(displayed, fmt) * factor
    value = round(value, max(0, -scale) + 6)
    return -value if negative else value


def _parse_date(text: str | None, context_id: str) -> date:
    try:
        return date.fromisoformat((text or "").strip()[:10])
    except ValueError as exc:
        raise TransformError(f"context {context_id!r} has an unreadable date {text!r}") from exc


def parse_contexts(root: etree._Element) -> tuple[dict[str, Context], dict[str, str]]:
    """The dated contexts by id, and why each context that cannot be read was not: its facts are dropped with that
    reason, the rest of the filing is read. A forever period is neither: it carries no date a question could ask
    about, and its facts are left out without a word."""
    contexts: dict[str, Context] = {}
    unreadable: dict[str, str] = {}
    for element in root.iter(f"{{{XBRLI_NS}}}context"):
        context_id = element.get("id")
        if context_id is None:
            continue  # no fact can refer to it
        period = element.find(f"{{{XBRLI_NS}}}period")
        if period is None:
            unreadable[context_id] = f"context {context_id!r} has no period"
            continue
        instant = period.find(f"{{{XBRLI_NS}}}instant")
        try:
            if instant is not None and instant.text:
                start, end, is_instant = None, _parse_date(instant.text, context_id), True
            else:
                start_el = period.find(f"{{{XBRLI_NS}}}startDate")
                end_el = period.find(f"{{{XBRLI_NS}}}endDate")
                if start_el is None or end_el is None or not end_el.text:
                    continue  # forever periods carry no date a question could ask about
                start, end = _parse_date(start_el.text, context_id), _parse_date(end_el.text, context_id)
                is_instant = False
        except TransformError as exc:
            unreadable[context_id] = str(exc)
            continue
        dimensions = tuple(
            sorted(
                (member.get("dimension", ""), (member.text or "").strip())
                for member in element.iter(f"{{{XBRLDI_NS}}}explicitMember")
            )
        )
        contexts[context_id] = Context(context_id, start, end, is_instant, dimensions)
    return contexts, unreadable


def parse_units(root: etree._Element) -> dict[str, str]:
    units: dict[str, str] = {}
    for element in root.iter(f"{{{XBRLI_NS}}}unit"):
        measures = [m.text.strip() for m in element.iter(f"{{{XBRLI_NS}}}measure") if m.text]
        divide = element.find(f"{{{XBRLI_NS}}}divide")
        if divide is not None and len(measures) == 2:
            label = f"{measures[0].split(':')[-1]}/{measures[1].split(':')[-1]}"
        else:
            label = "*".join(m.split(":")[-1] for m in measures)
        units[element.get("id", "")] = label
    return units


def _displayed(element: etree._Element) -> str:
    return re.sub(r"\s+", " ", "".join(element.itertext()).replace("\u00a0", " ")).strip()


def _rejection(element: etree._Element, displayed: str, reason: str) -> FactRejection:
    return FactRejection(
        concept=element.get("name", ""),
        fact_id=element.get("id", ""),
        context_id=element.get("contextRef", ""),
        displayed=displayed[:REJECTED_DISPLAYED_CHARACTERS],
        format=element.get("format", ""),
        reason=reason,
    )


def _scale(element: etree._Element) -> int:
    shown = element.get("scale") or "0"
    try:
        return int(shown)
    except ValueError as exc:
        raise TransformError(f"unreadable scale {shown!r}") from exc


def parse_facts(root: etree._Element, anchors: dict) -> tuple[list[Fact], list[FactRejection]]:
    """Every ix:nonFraction and ix:nonNumeric, located in the clean text through `anchors`; and every fact that
    cannot be read (its number, scale or context), dropped with the reason so that one such fact costs the filing
    only itself."""
    contexts, unreadable_contexts = parse_contexts(root)
    declared = {element.get("id") for element in root.iter(f"{{{XBRLI_NS}}}context")}
    units = parse_units(root)
    facts: list[Fact] = []
    rejected: list[FactRejection] = []
    for element in root.iter(f"{{{IX_NS}}}nonFraction", f"{{{IX_NS}}}nonNumeric"):
        numeric = is_ix(element, "nonFraction")
        if numeric and element.get("{http://www.w3.org/2001/XMLSchema-instance}nil") == "true":
            continue  # reported as nil: no figure to read
        displayed = _displayed(element)
        context_id = element.get("contextRef", "")
        context = contexts.get(context_id)
        if context is None:
            if context_id in unreadable_contexts:
                rejected.append(_rejection(element, displayed, unreadable_contexts[context_id]))
            elif context_id not in declared:
                rejected.append(_rejection(element, displayed, f"no context {context_id!r} in the document"))
            continue  # a fact without a dated context cannot be asked about
        span = anchors.get(element)
        value = None
        try:
            scale = _scale(element)
            if numeric:
                value = fact_value(displayed, element.get("format"), scale, element.get("sign") == "-")
        except TransformError as exc:
            rejected.append(_rejection(element, displayed, str(exc)))
            continue
        facts.append(
            Fact(
                concept=element.get("name", ""),
                value=value,
                text_value=None if numeric else _text_value(displayed, element.get("format"))[:2000],
                displayed=displayed[:2000],
                unit=units.get(element.get("unitRef", "")) if numeric else None,
                decimals=element.get("decimals"),
                scale=scale,
                context=context,
                is_numeric=numeric,
                offset=span[0] if span else None,
                end=span[1] if span else None,
            )
        )
    return facts, rejected


def _text_value(displayed: str, fmt: str | None) -> str:
    try:
        return transform_text(displayed, fmt)
    except (TransformError, ValueError):
        return displayed  # a text fact that does not read as its format is still the text shown


def has_inline_xbrl(root: etree._Element) -> bool:
    return next(root.iter(f"{{{IX_NS}}}header"), None) is not None
