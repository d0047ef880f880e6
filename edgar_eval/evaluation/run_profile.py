"""How the experiment ran: per-stage latency, generator seconds per question per arm, and whether the generator gave
the same text when sent a prompt twice.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from edgar_eval.stats.proportions import wilson


def stage_latency(stages: dict[str, np.ndarray]) -> pd.DataFrame:
    """P50 and P95 per stage in milliseconds; a stage that never ran (e.g. every question gated out) has none."""
    rows = []
    for stage, seconds in stages.items():
        seconds = np.asarray(seconds, dtype=float)
        has = len(seconds) > 0
        rows.append(
            {
                "stage": stage,
                "calls": len(seconds),
                "p50_ms": float(np.percentile(seconds, 50) * 1000) if has else float("nan"),
                "p95_ms": float(np.percentile(seconds, 95) * 1000) if has else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def arm_costs(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Generator seconds per question per arm: a question the arm's gates decline before generation costs none."""
    costs = outcomes.groupby("arm", sort=True).agg(
        questions=("question_id", "size"),
        generated=("generate_seconds", lambda s: int((s > 0).sum())),
        generator_seconds_per_question=("generate_seconds", "mean"),
    )
    return costs.reset_index()


def determinism(generations: pd.DataFrame) -> pd.DataFrame:
    """The share of prompts that gave the same text when sent twice (from a tape: as the two recorded calls compared);
    not applicable to a deterministic generator, which the measurement would only compare with itself."""
    generator = str(generations.generator_id.iloc[0]) if len(generations) else ""
    if "deterministic" in generations and len(generations) and generations.deterministic.all():
        return pd.DataFrame(
            [
                {
                    "generator": generator,
                    "applicable": False,
                    "prompts": 0,
                    "same_text": 0,
                    "share": float("nan"),
                    "low": float("nan"),
                    "high": float("nan"),
                }
            ]
        )
    measured = generations.same_text_again.dropna().astype(bool)
    share = wilson(int(measured.sum()), len(measured))
    return pd.DataFrame(
        [
            {
                "generator": generator,
                "applicable": True,
                "prompts": len(measured),
                "same_text": share.successes,
                "share": share.rate,
                "low": share.low,
                "high": share.high,
            }
        ]
    )
