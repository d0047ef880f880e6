"""How a question exits before any passage is retrieved: deny, review, clarify, or on to retrieval.

A RAG release is judged by how each question exits, not only by whether it answers. Three exits are decided from the
question, the asking role and the scope alone, before retrieval, so no passage of a filing the role may not read can
reach the answer, the trace or a report:

* deny: the role's permitted-source policy bars a company the question names (or the scope's only company), or every
  filing of the scope by its form;
* review: a request for investment advice ("Should I buy ...", "Is ... a good investment?"), however worded, goes to a
  person, never to the model;
* clarify: a material identifier is missing: no company named where the scope holds several companies, or, for a
  question that asks for a figure, no period named where the company's filings report several fiscal years.

Otherwise the question goes on to retrieval (None). The remaining routes are decided later: review when the passages
read disagree on the asked figure, answer or no_answer by the answerer. Whether a company or a period is named is
decided where the admission gates decide it (corpus.company_names, corpus.periods).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from edgar_eval.corpus.company_names import companies_named
from edgar_eval.corpus.periods import named_period
from edgar_eval.domain.routes import (  # noqa: F401  (the route names, re-exported for the answerer's callers)
    ANSWER,
    CLARIFY,
    DENY,
    NO_ANSWER,
    NO_POLICY,
    REVIEW,
    ROUTES,
    AccessPolicy,
    PolicyError,
    RouteDecision,
    ScopeFiling,
)

# ------------------------------------------------------------------------------------------------- advice

_HOLDING = r"(?:stocks?|shares?|equity|position|holdings?|investment)"
_TRADE = (
    r"(?:buy(?:ing)?|sell(?:ing)?|hold(?:ing)?|short(?:ing)?|invest(?:ing)?|purchas(?:e|ing)|dump(?:ing)?|"
    r"trim(?:ming)?)"
)
_ADVICE = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        rf"\bshould\s+(?:i|we|you|one|investors?|my\s+\w+)\b[^?.]*\b{_TRADE}\b",
        rf"\b(?:good|bad|great|smart|wise|safe|risky|sound|better|best|solid)\s+(?:investment|buy|bet|pick|{_HOLDING})\b"
        rf"(?![^?.]*\b(?:income|gains?|losses|securities|portfolio)\b)",
        rf"\b(?:worth|recommend\w*|advis\w*|suggest\w*)\b[^?.]*\b{_TRADE}\b",
        rf"\b(?:is\s+it|is\s+now|now)\s+(?:a\s+)?(?:good|right|bad|the\s+right)\s+time\s+to\s+{_TRADE}\b",
        r"\b(?:over|under)[\s-]?valued\b|\bprice\s+target\b|\b(?:buy|sell|hold)\s+rating\b",
        rf"\b(?:will|would)\s+(?:the\s+)?(?:\w+['\u2019]s\s+)?{_HOLDING}\s+(?:price\s+)?"
        r"(?:go\s+(?:up|down)|rise|fall|drop|climb|recover|outperform|double)\b",
        rf"\b{_HOLDING}\s+(?:(?:will|would|could|is\s+going\s+to)\s+)?(?:going|go)\s+(?:up|down)\b",
    )
)


def advice_request(question: str) -> str | None:
    """The words of a request for investment advice the question makes, or None."""
    for regex in _ADVICE:
        match = regex.search(question)
        if match:
            return match.group(0).strip()
    return None


# ---------------------------------------------------------------------------------------------------- clarify

_RELATIVE_PERIOD = re.compile(
    r"\b(?:most\s+recent|latest|last|current|this|prior|previous)\s+(?:fiscal\s+|reported\s+|full\s+)?"
    r"(?:years?|quarters?|period|annual\s+report|10-[KQ])\b",
    re.I,
)
_FIGURE_QUESTION = re.compile(
    r"\bhow\s+(?:much|many|large|big|high|low)\b|^\s*what\s+(?:was|were|is|are|did)\b|^\s*what\s+[\w&\s-]{1,40}?\s+did\b",
    re.I,
)


def _names_period(question: str) -> bool:
    return named_period(question) is not None or _RELATIVE_PERIOD.search(question) is not None


def route_before_retrieval(
    question: str,
    scope: Sequence[ScopeFiling],
    aliases: Mapping[str, tuple[str, ...]],
    role: str = "",
    policy: AccessPolicy = NO_POLICY,
) -> RouteDecision | None:
    """deny, review or clarify, with the reason; None sends the question on to retrieval.

    `scope`: the filings the question may be answered from; `aliases`: each company's names by cik
    (corpus.company_names.aliases_by_company)."""
    companies = sorted({filing.cik for filing in scope})
    named = [cik for cik in companies_named(question, aliases) if cik in companies]
    asked = named or (companies if len(companies) == 1 else [])
    for cik in asked:
        barred = policy.barred_company(role, cik)
        if barred:
            return RouteDecision(DENY, barred)
    readable = [filing for filing in scope if policy.barred(role, filing) is None]
    if scope and not readable:
        return RouteDecision(DENY, policy.barred(role, scope[0]) or "no filing of the scope may be read")
    advice = advice_request(question)
    if advice:
        return RouteDecision(REVIEW, f"a request for investment advice ({advice!r}) goes to a person")
    if not named and len(companies) > 1:
        return RouteDecision(CLARIFY, f"the question names no company and the scope holds {len(companies)}")
    if _FIGURE_QUESTION.search(question) and not _names_period(question):
        years = sorted({filing.fiscal_year for filing in readable if filing.cik in asked})
        if len(years) > 1:
            shown = ", ".join(str(year) for year in years)
            return RouteDecision(CLARIFY, f"the question names no period and the filings report fiscal {shown}")
    return None
