"""Is a period named? One decision for the admission gates (a golden question must name its period) and the router
(a figure question that names none, over filings of several periods, is sent back to clarify)."""

from __future__ import annotations

import re

_YEAR = r"(?:19|20)\d{2}"
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_PERIODS = (
    re.compile(rf"\bfiscal\s+(?:years?\s+)?{_YEAR}\b", re.I),
    re.compile(r"\bFY\s?['\u2019]?(?:\d{4}|\d{2})\b", re.I),
    re.compile(r"\b(?:Q[1-4]|[1-4]Q)\s?(?:FY\s?)?['\u2019]?(?:\d{4}|\d{2})\b", re.I),
    re.compile(rf"\b{_MONTH}\s+[0-3]?\d,?\s+{_YEAR}\b"),  # case-sensitive: "may 2024" is not a month
    re.compile(rf"\b{_MONTH}\s+{_YEAR}\b"),
    re.compile(
        rf"(?:\b(?:in|for|during|of|through|until|since|by|ended|ending|and|or|to|from|versus|vs\.?|"
        rf"calendar|year)|['\u2019]s)\s+{_YEAR}\b(?!\s+notes\b)",
        re.I,
    ),
)


def named_period(text: str) -> str | None:
    """The first fiscal year, quarter, date or year the text names, as written; None when it names none."""
    for regex in _PERIODS:
        match = regex.search(text)
        if match:
            return match.group(0).strip()
    return None
