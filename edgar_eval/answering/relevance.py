"""A simple relevance model: logistic regression on retrieval features, one score per question.

Its features read the question and the passages retrieved for it, nothing else. The name feature in particular shares
no resolver, alias list or column with the golden builder, which names the other company of its other-company twins
through corpus.company_names and the filings' registrant names: a feature that resolved names the same way would
flag those twins by construction. Here a name is what the question prints capitalised (`question_names`), looked
for as a word in the passages: "Amazon" in "Amazon.com, Inc." is found; "P&G" or "J&J" (no capitalised word of two
letters) name nothing to look for; and a passage that prints the name in other words ("International Business
Machines" for IBM) does not count. Those misses are the feature's, and the relevance model's AUROC per kind
reports them."""

from __future__ import annotations

import re

import numpy as np

from edgar_eval.answering.text_tools import asked_years, content_tokens

FEATURES = ("top_score", "margin", "mean_top3", "token_coverage", "year_present", "name_present")

_NAME = re.compile(r"\b[A-Z][A-Za-z\-]+")
# capitalised words a question prints that name no company: calendar words and the template's own
_NOT_NAMES = frozenset(
    "january february march april may june july august september october november december fiscal what how which "
    "the quarter q".split()
)


def question_names(question: str) -> list[str]:
    """The capitalised words (two letters or more) of the question after its first word, lower-cased, months and
    template words aside: "What was Home Depot's net sales for the quarter ended May 4, 2025?" names home and depot,
    "What was IBM's total revenue for fiscal 2024?" ibm."""
    words = (m.group(0).lower() for m in _NAME.finditer(question, len(question.split(" ", 1)[0])))
    return list(dict.fromkeys(w for w in words if w not in _NOT_NAMES))


def _name_present(question: str, top: str) -> float:
    """The share of the question's name words (`question_names`) the top passages print as words; 1.0 when the
    question names nothing."""
    names = question_names(question)
    lowered = top.lower()
    found = [re.search(rf"(?<![a-z]){re.escape(n)}(?![a-z])", lowered) is not None for n in names]
    return sum(found) / len(found) if found else 1.0


def relevance_features(question: str, passage_texts: list[str], scores: list[float]) -> dict[str, float]:
    """Features of one question's retrieval: how close, how sure, and whether its words, years and names are there."""
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
        "name_present": _name_present(question, "\n".join(top)),
    }


class RelevanceModel:
    """L2-regularised logistic regression; deterministic for the same training rows."""

    def __init__(self) -> None:
        # imported here: scikit-learn takes a second to import, and every process that loads the graph (a warm
        # `edgar-eval run`, the UI, each worker) imports this module, while only the gate scores fit the model
        from sklearn.linear_model import LogisticRegression

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

    def parameters(self) -> tuple[float, list[float]]:
        """The fitted model as (intercept, coefficients): the score is the logistic of intercept + coefficients . x.
        A model fitted on one class scores its constant: the constant's logit with zero coefficients."""
        if self._constant is not None:
            constant = min(max(self._constant, 1e-9), 1 - 1e-9)
            return float(np.log(constant / (1 - constant))), [0.0] * len(FEATURES)
        return float(self._model.intercept_[0]), [float(c) for c in self._model.coef_[0]]  # pyright: ignore[reportIndexIssue]  (sklearn types intercept_ loosely)
