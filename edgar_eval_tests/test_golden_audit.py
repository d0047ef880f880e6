"""The golden set audited by sample: seeded draws, verdicts bound to each case's hash, unreviewed never correct."""

import json

import pandas as pd
import pytest

from edgar_eval.golden.audit import (
    AuditFileError,
    apply_verdicts,
    audit_summary,
    draw_sample,
    read_audit_file,
    read_audit_plan,
    review_sheet,
    reviewer_summary,
    template_cases,
)


def _cases(n_per_kind=30):
    rows = [
        {
            "case_id": f"{kind[:3]}{k:03d}",
            "kind": kind,
            "question": f"Q {kind} {k}?",
            "expected_route": "answer",
            "gold_answer": "$1",
            "evidence": "line",
        }
        for kind in ("answerable", "other_year")
        for k in range(n_per_kind)
    ]
    rows += [
        {
            "case_id": f"pat{k}",
            "kind": "pattern:D1",
            "question": f"P {k}?",
            "expected_route": "answer",
            "gold_answer": "$2",
            "evidence": "chunks",
        }
        for k in range(3)
    ]
    return pd.DataFrame(rows)


def test_the_sample_takes_twenty_per_kind_and_every_pattern_case_and_is_seeded():
    sample = draw_sample(_cases(), seed=7, per_kind=20)
    assert sample.kind.value_counts().to_dict() == {"answerable": 20, "other_year": 20, "pattern:D1": 3}
    assert sample.equals(draw_sample(_cases(), seed=7, per_kind=20))
    assert not set(sample.case_id) == set(draw_sample(_cases(), seed=8, per_kind=20).case_id)
    # Adding a case displaces at most one drawn case of its kind, and none of another kind.
    more = pd.concat([_cases(), _cases(31).tail(1).assign(kind="answerable", case_id="ans999")], ignore_index=True)
    redrawn = draw_sample(more, 7, 20)
    assert set(redrawn.query("kind == 'other_year'").case_id) == set(sample.query("kind == 'other_year'").case_id)
    assert (
        len(set(redrawn.query("kind == 'answerable'").case_id) - set(sample.query("kind == 'answerable'").case_id)) <= 1
    )


def test_verdicts_bind_to_the_case_hash_and_unreviewed_cases_are_never_correct():
    sample = draw_sample(_cases(5), seed=7, per_kind=20)
    first, second, third = sample.iloc[0], sample.iloc[1], sample.iloc[2]
    lines = [
        {
            "case_id": first.case_id,
            "case_sha256": first.case_sha256,
            "verdict": "correct",
            "reason": "as printed",
            "reviewer": "r",
            "reviewer_role": "rules_author",
        },
        {
            "case_id": second.case_id,
            "case_sha256": second.case_sha256,
            "verdict": "defect",
            "reason": "wrong year",
            "reviewer": "r",
            "reviewer_role": "rules_author",
        },
        {
            "case_id": third.case_id,
            "case_sha256": "0" * 64,
            "verdict": "correct",
            "reason": "old",
            "reviewer": "r",
            "reviewer_role": "independent",
        },
    ]
    judged = apply_verdicts(sample, read_audit_file("\n".join(json.dumps(x) for x in lines), "audit.jsonl"))
    assert judged.set_index("case_id").status[third.case_id] == "stale"
    summary = audit_summary(judged).set_index("kind")
    kind = first.kind
    assert summary.reviewed[kind] == 2 and summary.defects[kind] == 1 and summary.defect_rate[kind] == 0.5
    assert summary.awaiting.sum() == len(sample) - 2
    sheet = review_sheet(judged, "reviews/x/audit-v1.jsonl")
    assert first.case_sha256 in sheet and "status: stale" in sheet


@pytest.mark.parametrize(
    "line,message",
    [
        ("not json", "not JSON"),
        ('{"case_id": "a"}', "needs non-empty"),
        (
            '{"case_id": "a", "case_sha256": "b", "verdict": "maybe", "reason": "c", "reviewer": "d", '
            '"reviewer_role": "independent"}',
            "verdict must be",
        ),
        (
            '{"case_id": "a", "case_sha256": "b", "verdict": "correct", "reason": "c", "reviewer": "d", '
            '"reviewer_role": "me"}',
            "reviewer_role must be",
        ),
    ],
)
def test_a_malformed_verdict_file_is_refused_with_its_line(line, message):
    with pytest.raises(AuditFileError, match=message):
        read_audit_file(line, "audit.jsonl")


def test_a_computable_verdict_is_a_defect_and_verdicts_are_counted_by_who_gave_them():
    sample = draw_sample(_cases(5), seed=7, per_kind=20)
    ids = list(sample.case_id[:3])
    sha = dict(zip(sample.case_id, sample.case_sha256))

    def line(case_id, verdict, role):
        return json.dumps(
            {
                "case_id": case_id,
                "case_sha256": sha[case_id],
                "verdict": verdict,
                "reason": "read the filing",
                "reviewer": f"{role} reviewer",
                "reviewer_role": role,
            }
        )

    text = "\n".join(
        [
            line(ids[0], "computable", "independent"),
            line(ids[1], "correct", "independent"),
            line(ids[2], "correct", "rules_author"),
        ]
    )
    judged = apply_verdicts(sample, read_audit_file(text, "audit.jsonl"))
    summary = audit_summary(judged)
    assert summary.defects.sum() == 1 and summary.computable.sum() == 1
    by = reviewer_summary(judged).set_index("reviewer_role")
    assert by.verdicts["independent"] == 2 and by.computable["independent"] == 1
    assert by.verdicts["rules_author"] == 1


def test_more_of_one_kind_is_drawn_when_asked():
    sample = draw_sample(_cases(), seed=7, per_kind=20, sizes={"other_year": 25})
    assert sample.kind.value_counts().to_dict() == {"answerable": 20, "other_year": 25, "pattern:D1": 3}


def test_a_kind_with_a_seed_of_its_own_is_drawn_afresh_and_the_other_kinds_stay_where_they_were():
    """A rule changed for one kind is audited on a fresh draw of that kind (its seed committed in the plan before the
    draw), while the other kinds keep the sample, and so the verdicts, they had."""
    plan = read_audit_plan(
        "seed = 7\nper_kind = 10\nbuilt_on_ciks = []\n[kind_seeds]\nother_year = 8\n", "audit-plan.toml"
    )
    assert plan.kind_seeds == {"other_year": 8}
    before = draw_sample(_cases(), plan.seed, plan.per_kind)
    after = draw_sample(_cases(), plan.seed, plan.per_kind, kind_seeds=plan.kind_seeds)

    def drawn(sample: pd.DataFrame, kind: str) -> set[str]:
        return set(sample[sample.kind == kind].case_id)

    assert drawn(after, "answerable") == drawn(before, "answerable")
    assert drawn(after, "pattern:D1") == drawn(before, "pattern:D1")
    assert len(drawn(after, "other_year")) == 10 and drawn(after, "other_year") != drawn(before, "other_year")
    assert read_audit_plan("seed = 7\nper_kind = 10\n", "audit-plan.toml").kind_seeds == {}


def test_unanswerable_evidence_shows_the_scope_s_rows_printing_the_concept_s_words():
    golden = pd.DataFrame(
        [
            {
                "question_id": "q1",
                "kind": "absent_concept",
                "question": "What was Acme's share-based compensation for fiscal 2024?",
                "expected_route": "no_answer",
                "gold_answer": None,
                "cik": "1",
                "concept": "us-gaap:ShareBasedCompensation",
                "scope_filing_ids": ["f1"],
                "fiscal_year": 2024,
                "source_filing_id": "f1",
                "gold_pages": [],
                "gold_quote": None,
            }
        ]
    )
    texts = {"f1": "| | 2024 | 2023 |\n| Stock-based compensation expense | 450 | 420 |\nWe grant awards.\n"}
    cases = template_cases(golden, texts, {"1": ["f1"]})
    assert "| Stock-based compensation expense | 450 | 420 |" in cases.evidence.iloc[0]
    assert "We grant awards" not in cases.evidence.iloc[0]


def test_the_audit_table_prints_each_kinds_yield_per_10k_and_per_10q_beside_its_defect_rate():
    """Issue 60: a rule that yields nothing is not sound, it is empty: the audit shows how many questions of a kind
    the rules build per 10-K and per 10-Q beside how often they are wrong."""
    from edgar_eval.report.golden_tables import audit_table, kind_yields

    golden = pd.DataFrame(
        {
            "kind": ["absent_concept"] * 5 + ["granularity"],
            "source_form": ["10-K", "10-K", "10-K", "10-Q", "10-Q", "10-K"],
        }
    )
    filings = pd.DataFrame({"form": ["10-K", "10-K", "10-Q", "8-K"]})
    yields = kind_yields(golden, filings)
    assert yields["absent_concept"] == {"10-K": "1.50", "10-Q": "2.00"}
    assert yields["granularity"] == {"10-K": "0.50", "10-Q": "0.00"}
    judged = pd.DataFrame(
        {
            "case_id": ["a", "b"],
            "kind": ["absent_concept", "pattern:D1"],
            "status": ["correct", "unreviewed"],
            "reviewer_role": ["independent", ""],
        }
    )
    frame = audit_table(judged, yields).frame.set_index("kind")
    assert frame.loc["absent_concept", "questions per 10-K"] == "1.50"
    assert frame.loc["pattern:D1", "questions per 10-Q"] == ""
