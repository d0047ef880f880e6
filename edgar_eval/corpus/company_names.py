"""Company names as people write them: the one resolver behind the questions' wording, the gates (company named,
absence scope, other-company twins), the relevance features and the report.

A registrant name ("AMAZON.COM, INC.", "COCA COLA CO", "INTERNATIONAL BUSINESS MACHINES CORPORATION", "PROCTER &
GAMBLE CO", "Meta Platforms, Inc.") yields:

* `display_name`: the name a question uses and the report prints: legal suffixes (Inc., Corp., Co., Company,
  Corporation, Ltd., plc, L.P., N.V., S.A.) and a leading "The" dropped, an all-capitals name in title case
  (words of three letters or fewer kept in capitals), HTML entities read as text ("Johnson &amp; Johnson" ->
  "Johnson & Johnson").
* `company_aliases`: every form a person may write, derived by rules:
  - the registrant name as filed and the display name;
  - without ".com" ("Amazon");
  - hyphen, space and ampersand variants ("Coca-Cola" / "Coca Cola"; "Procter & Gamble" / "Procter and Gamble");
  - the acronym of a name of three or more words ("IBM"), and of a two-word name joined by "&" ("P&G", "J&J");
  - the first word alone when it has at least five letters and names nothing in particular by itself ("Apple",
    "Procter", "Halvern"; not "International", "Union", "General");
  - the ticker, when the filing tags one (dei:TradingSymbol).
* A short curated table, `SHORT_NAMES`, for the forms no rule derives: "Meta" for Meta Platforms (a four-letter
  first word is too often an ordinary word for the first-word rule), "Home Depot" for THE HOME DEPOT (two words
  whose first alone is an ordinary word).

`companies_named(text, aliases)` finds, by whole words and case-insensitively (a ticker or acronym only in
capitals), which companies a text names.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping

_LEGAL_SUFFIX = re.compile(
    r"(?:,?\s+(?:inc|incorporated|corp|corporation|co|company|ltd|limited|plc|l\.p|lp|n\.v|s\.a|llc)\.?)+$", re.I
)
_GENERIC_FIRST_WORDS = frozenset(
    "first general american united union national international global northern southern western eastern pacific "
    "atlantic central federal consolidated standard home south north east west".split()
)
_MIN_FIRST_WORD = 5
_CONNECTORS = frozenset({"&", "and", "of", "the", "for"})

# Forms of a name that no rule above derives, keyed by the display name in lower case; say why in the module doc.
SHORT_NAMES: dict[str, tuple[str, ...]] = {
    "meta platforms": ("Meta",),
    "home depot": ("Home Depot",),
}


def registrant_text(name: str) -> str:
    """The registrant name as text: entities read ("&amp;" -> "&"), whitespace collapsed."""
    return re.sub(r"\s+", " ", html.unescape(html.unescape(name))).strip()


# EDGAR's marks after a registrant's name: the state of incorporation or a successor ("CORP /DE/", "CORP/OH/",
# "CO/", "CORP /NEW"), not part of anything a person writes.
_EDGAR_MARK = re.compile(r"\s*/(?:[A-Z]{2,3}|NEW)?/?\s*$", re.I)
_COMPANY_SUFFIX = re.compile(r",?\s+(?:inc|incorporated|corp|corporation|ltd|limited|plc|llc)\.?$", re.I)
_LOWER_IN_NAMES = frozenset({"of", "and", "the", "for", "de"})  # "Bank of America", kept lower inside a name


def _name_word(word: str, first: bool) -> str:
    """An all-capitals word of a name as a person writes it: an initialism kept ("IBM", "RTX", "AT&T", "3M"), a
    hyphenated name capitalised part by part ("Bristol-Myers"), "Mc" names as such ("McDonald's")."""
    letters = word.replace("&", "").replace(".", "")
    if any(c.isdigit() for c in word) or ("&" in word and all(len(part) <= 3 for part in word.split("&"))):
        return word  # "3M", "AT&T", "S&P"
    if len(letters) <= 3 and letters.isalpha() and letters not in {"CO", "THE"} and word.lower() not in _LOWER_IN_NAMES:
        return word
    if not first and word.lower() in _LOWER_IN_NAMES:
        return word.lower()
    if re.fullmatch(r"MC[A-Z].*", word, re.I):
        return "Mc" + word[2:].capitalize()
    return "-".join(part.capitalize() for part in word.split("-"))


def display_name(registrant: str) -> str:
    """The name a person would type (module doc): the registrant name less EDGAR's marks and the legal suffixes, a
    name filed in capitals written in the case the company writes itself ("MERCK & CO., INC." -> "Merck & Co.", "AT&T
    INC." -> "AT&T", "CLEVELAND-CLIFFS INC." -> "Cleveland-Cliffs"): never cut at "&", never case-folded inside a
    word it keeps."""
    raw = registrant_text(registrant)
    unmarked = _EDGAR_MARK.sub("", raw)
    name = _LEGAL_SUFFIX.sub("", unmarked).strip(" ,")
    if re.search(r"(?:&|\band)$", name, re.I):  # "Merck & Co.": its "Co." is part of the name, not a suffix
        name = _COMPANY_SUFFIX.sub("", unmarked).strip(" ,")
    name = re.sub(r"^the\s+", "", name, flags=re.I)
    words = name.split()
    filed_in_capitals = [w for w in words if any(c.isalpha() for c in w)]
    if filed_in_capitals and all(w.upper() == w or re.fullmatch(r"Mc[A-Z\W]+", w) for w in filed_in_capitals):
        name = " ".join(_name_word(w, k == 0) for k, w in enumerate(words))
    return re.sub(r"& Co$", "& Co.", name) or raw


def _variants(name: str) -> set[str]:
    out = {name}
    if "-" in name:
        out.add(name.replace("-", " "))
    words = name.split()
    if len(words) == 2 and "&" not in name and "-" not in name:
        out.add("-".join(words))  # "Coca Cola" -> "Coca-Cola"
    if " & " in name:
        out.add(name.replace(" & ", " and "))
    if " and " in name:
        out.add(name.replace(" and ", " & "))
    return out


def _acronym(name: str) -> str | None:
    words = [w for w in re.split(r"[\s-]+", name) if w]
    if "&" in words and len(words) == 3:  # "Procter & Gamble" -> "P&G"
        return f"{words[0][0]}&{words[2][0]}".upper()
    content = [w for w in words if w.lower() not in _CONNECTORS]
    if len(content) >= 3 and all(w[0].isalpha() for w in content):
        return "".join(w[0] for w in content).upper()
    return None


def company_aliases(registrant: str, ticker: str = "") -> tuple[str, ...]:
    """Every name a person may use for the company (module doc), sorted."""
    raw = registrant_text(registrant)
    shown = display_name(registrant)
    spoken = {shown, shown[:-4]} if shown.lower().endswith(".com") else {shown}
    for name in list(spoken):
        spoken |= _variants(name)
    for name in list(spoken):
        acronym = _acronym(name)
        if acronym:
            spoken.add(acronym)
    names = {raw, *spoken}
    first = re.split(r"[\s-]+", shown)[0].removesuffix(".com") if shown else ""
    if len(first) >= _MIN_FIRST_WORD and first.isalpha() and first.lower() not in _GENERIC_FIRST_WORDS:
        names.add(first)
    names.update(SHORT_NAMES.get(shown.lower(), ()))
    if ticker:
        names.add(ticker.upper())
    return tuple(sorted(n for n in names if n))


def aliases_by_company(filings) -> dict[str, tuple[str, ...]]:
    """cik -> every name of the company, from a filings table (company, cik and, when present, ticker): the names of
    all its filings together, however each spelt the registrant."""
    names: dict[str, set[str]] = {}
    for row in filings.itertuples():
        names.setdefault(str(row.cik), set()).update(
            company_aliases(row.company, str(getattr(row, "ticker", "") or ""))
        )
    return {cik: tuple(sorted(found)) for cik, found in names.items()}


def _pattern(alias: str) -> re.Pattern[str]:
    body = re.escape(alias).replace(r"\ ", r"[\s-]+")
    if alias.isupper() and len(alias.replace("&", "")) <= 5:  # a ticker or an acronym counts only in capitals
        return re.compile(rf"(?<![\w&]){body}(?![\w&])")
    return re.compile(rf"(?<![\w&]){body}(?![\w&])", re.I)


def names_company(text: str, aliases: Iterable[str]) -> bool:
    return any(_pattern(alias).search(text) for alias in aliases)


def companies_named(text: str, aliases: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The keys (ciks) of `aliases` whose company `text` names, in key order."""
    return sorted(key for key, names in aliases.items() if names_company(text, names))
