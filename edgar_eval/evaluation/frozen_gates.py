"""Gates fitted on one corpus, frozen in a file, and applied unchanged to another.

Within one corpus the relevance model and both thresholds are fitted on the dev split (`abstention.cross_fit`), so a
confirmatory claim reads the eval split: half the companies. A frozen gates file is the other design: fit on every
company of a development corpus, write the model's coefficients and the thresholds to `gates/<name>.json` (its sha256
is what a protocol pins), and apply them to a corpus of other companies, every company of which is then eval. A corpus
that shares a company (CIK) with the fitting corpus is refused: its questions would have been fitted on.

The file holds nothing of a question or passage: the feature names, the logistic model's intercept and coefficients
(or the constant it falls back to on one-class data), the two admitting thresholds, and what it was fitted on (the
corpus's manifest sha256, its companies' CIKs, the question counts).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from edgar_eval.answering.relevance import FEATURES, RelevanceModel
from edgar_eval.evaluation.abstention import ADMIT_SHARE, SCORE_DECIMALS, admitting_threshold

FORMAT = "edgar-eval gates/1"


def fit_frozen_gates(
    frame: pd.DataFrame, corpus_manifest_sha256: str, corpus_name: str, corpus_companies: Iterable[str] = ()
) -> dict:
    """Fit the relevance model and both thresholds on every row of `frame` (question_id, cik, answerable, the FEATURES
    columns and top_score: the abstention scores of a run) and return the gates file's content. `corpus_companies`:
    the fitting corpus's CIKs as its manifest lists them (a company with no question the gates score is still one the
    file must not be applied to)."""
    if frame.empty or frame.answerable.nunique() < 2:
        raise ValueError("fitting frozen gates needs answerable and unanswerable questions")
    features = frame[list(FEATURES)].to_numpy(float)
    labels = frame.answerable.to_numpy(int)
    model = RelevanceModel().fit(features, labels)
    scores = np.round(model.score(features), SCORE_DECIMALS)
    answerable = frame.answerable.to_numpy(bool)
    intercept, coefficients = model.parameters()
    return {
        "format": FORMAT,
        "features": list(FEATURES),
        "relevance_model": {"intercept": intercept, "coefficients": coefficients},
        "relevance_threshold": admitting_threshold(scores[answerable]),
        "cosine_threshold": admitting_threshold(frame.top_score.to_numpy(float)[answerable]),
        "admit_share": ADMIT_SHARE,
        "fitted_on": {
            "corpus": corpus_name,
            "corpus_manifest_sha256": corpus_manifest_sha256,
            "companies": sorted({cik(c) for c in [*frame.cik.unique(), *corpus_companies]}),
            "questions": int(len(frame)),
            "answerable": int(answerable.sum()),
        },
    }


def write_gates(gates: dict, path: Path) -> str:
    """Write the gates file (sorted keys, one trailing newline: the same fit, the same bytes) and return its sha256."""
    data = (json.dumps(gates, indent=2, sort_keys=True) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def read_gates(path: Path) -> dict:
    """The gates file, refused in one line when it is not one (another format, features this code does not compute)."""
    try:
        gates = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"gates file {path}: cannot be read as JSON ({exc})") from None
    if not isinstance(gates, dict) or gates.get("format") != FORMAT:
        raise ValueError(f"gates file {path}: not a frozen gates file ({FORMAT})")
    if tuple(gates.get("features", ())) != FEATURES:
        raise ValueError(
            f"gates file {path}: fitted on features {gates.get('features')}, this code computes {FEATURES}"
        )
    return gates


def cik(value: object) -> str:
    """A CIK as ten digits: what is not a digit dropped, zero-padded ("320193", "CIK0000320193" -> "0000320193")."""
    return re.sub(r"\D", "", str(value)).zfill(10)


def shared_companies(gates: dict, ciks: Iterable[str]) -> list[str]:
    """The CIKs of `ciks` the gates were fitted on (each side read by `cik`)."""
    fitted = {cik(c) for c in gates["fitted_on"]["companies"]}
    return sorted({cik(c) for c in ciks} & fitted)


def apply_frozen_gates(frame: pd.DataFrame, gates: dict) -> pd.DataFrame:
    """`cross_fit`'s columns from the frozen gates: every question scored by the one model and thresholds, every
    question eval (nothing of this corpus was fitted on)."""
    shared = shared_companies(gates, frame.cik.unique())
    if shared:
        raise ValueError(
            f"the frozen gates were fitted on {len(shared)} of this corpus's companies (CIK {', '.join(shared[:3])}"
            f"{', ...' if len(shared) > 3 else ''}): apply them to other companies only"
        )
    out = frame.copy()
    model = gates["relevance_model"]
    logits = out[list(FEATURES)].to_numpy(float) @ np.asarray(model["coefficients"], dtype=float) + model["intercept"]
    out["split"] = "eval"
    out["fold"] = -1
    out["relevance_score"] = np.round(1 / (1 + np.exp(-logits)), SCORE_DECIMALS)
    out["cosine_threshold"] = float(gates["cosine_threshold"])
    out["relevance_threshold"] = float(gates["relevance_threshold"])
    out["cosine_pass"] = out.top_score >= out.cosine_threshold
    out["relevance_pass"] = out.relevance_score >= out.relevance_threshold
    return out
