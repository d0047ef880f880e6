"""The report's inputs: every asset table the report reads, in one frozen record the section families share."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass(frozen=True)
class ReportInputs:
    """Every asset table the report reads; nothing else reaches it."""

    corpus_name: str
    filings: pd.DataFrame
    left_out: dict[str, str]
    golden: pd.DataFrame
    golden_set: pd.DataFrame
    rejections: pd.DataFrame
    retrieval: pd.DataFrame
    slices: pd.DataFrame
    arms: pd.DataFrame
    comparisons: pd.DataFrame
    gates: pd.DataFrame
    gate_differences: pd.DataFrame
    determinism: pd.DataFrame
    latency: pd.DataFrame
    costs: pd.DataFrame
    mutations: pd.DataFrame
    generations: pd.DataFrame
    risk_curves: dict[str, tuple[list[float], list[float]]]
    index_fingerprint: str
    settings: dict
    pattern_funnel: pd.DataFrame = field(default_factory=pd.DataFrame)
    admission_agreement: pd.DataFrame = field(default_factory=pd.DataFrame)
    golden_patterns: pd.DataFrame = field(default_factory=pd.DataFrame)
    pattern_baseline: pd.DataFrame = field(default_factory=pd.DataFrame)
    gates_by_kind: pd.DataFrame = field(default_factory=pd.DataFrame)
    golden_audit: pd.DataFrame = field(default_factory=pd.DataFrame)
    readers: pd.DataFrame = field(default_factory=pd.DataFrame)
    routes: pd.DataFrame = field(default_factory=pd.DataFrame)
    release: pd.DataFrame = field(default_factory=pd.DataFrame)
    receipts: pd.DataFrame = field(default_factory=pd.DataFrame)
    fixture: pd.DataFrame = field(default_factory=pd.DataFrame)
    scope_gold: pd.DataFrame = field(default_factory=pd.DataFrame)  # gold_by_search_scope
    scope_changes: pd.DataFrame = field(default_factory=pd.DataFrame)  # retrieval_scope_changes
    rerank: pd.DataFrame = field(default_factory=pd.DataFrame)  # rerank_metrics
    expansion: pd.DataFrame = field(default_factory=pd.DataFrame)  # expansion_metrics
    answer_noise_band: pd.DataFrame = field(default_factory=pd.DataFrame)  # answering_noise_band
    rerank_noise_band: pd.DataFrame = field(default_factory=pd.DataFrame)  # rerank_noise_band
    expansion_rows: int = 0  # the table_expansion_rows setting
    noise_band: pd.DataFrame = field(default_factory=pd.DataFrame)  # retrieval_noise_band
    noise: pd.DataFrame = field(default_factory=pd.DataFrame)  # retrieval_noise: the replicas
    decision_simulation: pd.DataFrame = field(default_factory=pd.DataFrame)  # protocol v3
    design_power: pd.DataFrame = field(default_factory=pd.DataFrame)  # protocol v3
    false_answers_by_kind: pd.DataFrame = field(default_factory=pd.DataFrame)  # arm_false_answers_by_kind
    amendments: tuple[tuple[str, str], ...] = ()  # the protocol's amendments (v5): (date, what and why)
    fact_rejections: pd.DataFrame = field(default_factory=pd.DataFrame)  # the facts the parser dropped, per filing
    absence_review: pd.DataFrame = field(default_factory=pd.DataFrame)  # absence_review_queue
    evidence_filings: pd.DataFrame = field(default_factory=pd.DataFrame)  # evidence_filing_hits
    answers_by_kind: pd.DataFrame = field(default_factory=pd.DataFrame)  # arm_answers_by_kind
    wrong_answers: pd.DataFrame = field(default_factory=pd.DataFrame)  # wrong_answers
