"""The five routes a question can exit by, the router's decision, and the permitted-source policy: values shared by
the router (answering), the golden cases that expect each route (golden) and their measurement (evaluation)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field

ANSWER, CLARIFY, NO_ANSWER, DENY, REVIEW = "answer", "clarify", "no_answer", "deny", "review"
ROUTES = (ANSWER, CLARIFY, NO_ANSWER, DENY, REVIEW)
DEFAULT_ROLE = "analyst"  # the role a case is asked by unless it names one; a policy may bar it from nothing

# The brief's exchange schema (frozen golden sets, hand-written candidates) spells no_answer "no-answer". Exported
# records and the hashes reviews are pinned to keep that spelling, so a review outlives the rename of the route.
_EXCHANGE_SPELLING = {NO_ANSWER: "no-answer"}


def exchange_route(route: str) -> str:
    """The route as the exchange schema spells it."""
    return _EXCHANGE_SPELLING.get(route, route)


def route_from_exchange(spelled: str) -> str:
    """The route an exchange record names ("no-answer" or "no_answer"), or ValueError for a word that is no route."""
    route = {v: k for k, v in _EXCHANGE_SPELLING.items()}.get(spelled, spelled)
    if route not in ROUTES:
        raise ValueError(f"{spelled!r} is not a route; routes are {', '.join(ROUTES)}")
    return route


@dataclass(frozen=True)
class RouteDecision:
    route: str
    reason: str


@dataclass(frozen=True)
class ScopeFiling:
    """What the router knows of a filing in the question's scope: no text, only who filed what for which year."""

    filing_id: str
    cik: str
    form: str
    fiscal_year: int


class PolicyError(ValueError):
    pass


def versioned_toml(text: str, source: str, error: type[ValueError]) -> tuple[dict, str]:
    """A versioned rules file (a policy, release rules): its table and its non-empty `version`, or `error` in one
    line naming the file."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{source}: not TOML ({exc})") from None
    version = data.get("version")
    if not isinstance(version, str) or not version:
        raise error(f"{source}: needs a non-empty version string")
    return data, version


@dataclass(frozen=True)
class RoleRule:
    barred_ciks: frozenset[str] = field(default_factory=frozenset)
    barred_forms: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class AccessPolicy:
    """Which roles may not read which companies' or forms' filings, from a versioned TOML file:

    version = "access-v1"
    [roles.retail-analyst]
    barred_ciks = ["0000320193"]
    barred_forms = ["DEF 14A"]

    A role the file does not name is barred from nothing."""

    version: str
    roles: Mapping[str, RoleRule]

    @classmethod
    def from_toml(cls, text: str, source: str) -> "AccessPolicy":
        data, version = versioned_toml(text, source, PolicyError)
        roles: dict[str, RoleRule] = {}
        for role, rule in (data.get("roles") or {}).items():
            unknown = set(rule) - {"barred_ciks", "barred_forms"}
            if unknown:
                raise PolicyError(f"{source}: role {role!r} has unknown keys {sorted(unknown)}")
            ciks, forms = rule.get("barred_ciks", []), rule.get("barred_forms", [])
            if not all(isinstance(v, str) for v in [*ciks, *forms]):
                raise PolicyError(f"{source}: role {role!r}: barred_ciks and barred_forms are lists of strings")
            roles[role] = RoleRule(frozenset(c.lstrip("0") for c in ciks), frozenset(f.upper() for f in forms))
        return cls(version, roles)

    def barred_company(self, role: str, cik: str) -> str | None:
        """Why `role` may read none of this company's filings, or None."""
        rule = self.roles.get(role)
        if rule is not None and cik.lstrip("0") in rule.barred_ciks:
            return f"role {role!r} may not read company {cik}'s filings (policy {self.version})"
        return None

    def barred(self, role: str, filing: ScopeFiling) -> str | None:
        """Why `role` may not read this filing, or None."""
        rule = self.roles.get(role)
        if rule is None:
            return None
        company = self.barred_company(role, filing.cik)
        if company:
            return company
        if filing.form.upper() in rule.barred_forms:
            return f"role {role!r} may not read {filing.form} filings (policy {self.version})"
        return None


NO_POLICY = AccessPolicy("none", {})
