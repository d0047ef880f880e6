"""A seeded sample of golden questions whose membership is each question's own: the questions a costly measurement
reads once there are more of them than a setting allows."""

from __future__ import annotations

import hashlib
from typing import cast

import pandas as pd


def seeded_sample(questions: pd.DataFrame, size: int, seed: int) -> pd.DataFrame:
    """All of `questions` while there are at most `size`, else the `size` whose hash of the seed and their id ranks
    first, in the questions' own order. A question's place in the sample is its own (not its row's), so a night that
    adds or drops questions keeps the rest of the sample. Every capped measurement ranks the questions by the same
    hash, so their samples nest: a sample of part of the questions holds every question of that part that a sample of
    them all no larger holds (with corpus_scope_questions at least noise_questions, the noise band measures the corpus
    scope on every question of its sample that the measurement does, not on the few two independent samples share).
    """
    if len(questions) <= size:
        return questions
    ranks = [hashlib.sha256(f"golden-sample:{seed}:{qid}".encode()).digest() for qid in questions.question_id]
    chosen = sorted(sorted(range(len(ranks)), key=ranks.__getitem__)[:size])
    return cast(pd.DataFrame, questions.iloc[chosen])
