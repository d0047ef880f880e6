"""A simple relevance model: logistic regression on retrieval features, one score per question."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from sklearn.linear_model import LogisticRegression

from edgar_eval.answering.text_tools import asked_years, content_tokens, name_tokens
from edgar_eval.corpus.company_names import companies_named, names_company

FEATURES = ("top_score", "margin", "mean_top3", "token_coverage", "year_present", "name_present")


def _name_present(question: str, top: str, aliases: Mapping[str, tuple[str, ...]] | None) -> float:
    """The share of the companies the question names that the top passages name too, by the one name resolver
    ("Amazon" in the question, "Amazon.com" in the passage). Without the corpus's names: its capitalised words."""
    if aliases is not None:
        named = companies_named(question, aliases)
        return sum(names_company(top, aliases[cik]) for cik in named) / len(named) if named else 1.0
    names = set(name_tokens(question))
    lowered = top.lower()
    return sum(n in lowered for n in names) / len(names) if names else 1.0


def relevance_features(
    question: str,
    passage_texts: list[str],
    scores: list[float],
    company_aliases: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, float]:
    """Features of one question's retrieval: how close, how sure, and whether its words and names are there.
    `company_aliases`: cik -> the names people use for it (corpus.company_names.company_aliases)."""
    top = passage_texts[:3]
    joined = "\n".join(top).lower()
    tokens = set(content_tokens(question))
    years = asked_years(question)
    return {
        "top_score": scores[0] if scores else 0.0,
        "margin": (scores[0] - scores[1]) if len(scores) > 1 else 0.0,
        "mean_top3": float(np.mean(scores[:3])) if scores else 0.0,
        "token_coverage": sum(t in joined for t in tokens) / len(tokens) if tokens else 0.0,
        "year_present": float(all(str(y) in joined for y in years)) if years else 1.0,
        "name_present": _name_present(question, "\n".join(top), company_aliases),
    }


class RelevanceModel:
    """L2-regularised logistic regression; deterministic for the same training rows."""

    def __init__(self) -> None:
        self._model = LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000)
        self._constant: float | None = None

    def fit(self, features: np.ndarray, labels: np.ndarray) -> "RelevanceModel":
        if len(np.unique(labels)) < 2:
            self._constant = float(labels.mean()) if len(labels) else 0.5
        else:
            self._model.fit(features, labels)
        return self

    def score(self, features: np.ndarray) -> np.ndarray:
        if self._constant is not None:
            return np.full(len(features), self._constant)
        return self._model.predict_proba(features)[:, 1]
