"""The run's release decision from versioned rules (protocol/release-v2.toml): each rule names a condition on the run
and the decision it forces; the strictest forced decision wins, release when none fires."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from edgar_eval.domain.routes import ANSWER, CLARIFY, DENY, REVIEW, ROUTES, versioned_toml

RELEASE, INVESTIGATE, HUMAN_REVIEW, HOLD = "release", "investigate", "human review", "hold"
DECISIONS = (RELEASE, INVESTIGATE, HUMAN_REVIEW, HOLD)  # from the mildest to the strictest
CONDITIONS = (
    "deny_not_denied",
    "review_not_reviewed",
    "clarify_not_clarified",
    "unsupported_claim",
    "exit_share_below",
    "fixture_case_failed",
)
_EXPECTED = {"deny_not_denied": DENY, "review_not_reviewed": REVIEW, "clarify_not_clarified": CLARIFY}


class ReleaseRulesError(ValueError):
    pass


@dataclass(frozen=True)
class Rule:
    when: str
    decision: str
    route: str = ANSWER
    threshold: float = 0.0


@dataclass(frozen=True)
class ReleaseRules:
    version: str
    rules: tuple[Rule, ...]

    @classmethod
    def from_toml(cls, text: str, source: str) -> "ReleaseRules":
        data, version = versioned_toml(text, source, ReleaseRulesError)
        rules = []
        for number, rule in enumerate(data.get("rules") or [], start=1):
            when, decision = rule.get("when"), rule.get("decision")
            if when not in CONDITIONS:
                raise ReleaseRulesError(f"{source}: rule {number}: unknown condition {when!r}; one of {CONDITIONS}")
            if decision not in DECISIONS[1:]:
                raise ReleaseRulesError(
                    f"{source}: rule {number}: unknown decision {decision!r}; one of {DECISIONS[1:]}"
                )
            route = rule.get("route", ANSWER)
            if route not in ROUTES:
                raise ReleaseRulesError(f"{source}: rule {number}: unknown route {route!r}; one of {ROUTES}")
            rules.append(Rule(when, decision, route, float(rule.get("threshold", 0.0))))
        return cls(version, tuple(rules))


def check_release(
    rules: ReleaseRules, outcomes: pd.DataFrame, generations: pd.DataFrame, fixture: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per rule: whether it fired, the decision it forces, and the evidence (counts, or the share).
    `fixture`: the release fixture's results (evaluation.release_fixture.score_case rows), if the corpus has one."""
    rows = []
    for rule in rules.rules:
        if rule.when == "fixture_case_failed":
            if fixture is None or fixture.empty:
                fired, evidence = False, "no release fixture for this corpus"
            else:
                failed = fixture[~fixture.passed.astype(bool)]
                fired = len(failed) > 0
                evidence = f"{len(failed)} of {len(fixture)} fixture cases failed" + (
                    f" ({', '.join(failed.case_id)})" if fired else ""
                )
        elif rule.when in _EXPECTED:
            expected = outcomes[outcomes.expected_route == _EXPECTED[rule.when]]
            missed = expected[expected.taken_route != _EXPECTED[rule.when]]
            fired, evidence = len(missed) > 0, f"{len(missed)} of {len(expected)} cases exited otherwise"
        elif rule.when == "unsupported_claim":
            claims = int((generations.outcome == "unsupported_claim").sum())
            fired, evidence = claims > 0, f"{claims} of {len(generations)} generations"
        else:
            cases = outcomes[outcomes.expected_route == rule.route]
            share = float((cases.taken_route == rule.route).mean()) if len(cases) else float("nan")
            fired = bool(len(cases)) and share < rule.threshold
            evidence = f"{rule.route} exit share {share:.3f} against {rule.threshold:.3f} ({len(cases)} cases)"
        rows.append(
            {
                "version": rules.version,
                "rule": rule.when + (f"({rule.route})" if rule.when == "exit_share_below" else ""),
                "decision": rule.decision,
                "fired": fired,
                "evidence": evidence,
            }
        )
    return pd.DataFrame(rows, columns=["version", "rule", "decision", "fired", "evidence"])


def release_decision(checks: pd.DataFrame) -> str:
    """The strictest decision a fired rule forces; release when none fired."""
    forced = [DECISIONS.index(d) for d in checks[checks.fired].decision]
    return DECISIONS[max(forced)] if forced else RELEASE
