"""Both offline readers on the answerable template questions of a materialised corpus, from the passages the
answerer read (its retrievals), judged by the one figure policy: accuracy, declines, and the gold-chunk hit at the
answerer's K (the reader's ceiling). Usage: .venv/bin/python bench/readers.py [data/edgar]"""

import sys
import time
from pathlib import Path

import pandas as pd

from edgar_eval.answering.answerer import ANSWERED, ExtractiveGenerator, TableReaderGenerator, check_generation
from edgar_eval.domain.generation import GenerationRequest
from edgar_eval.evaluation.judge import judge_answer


def main(root: Path) -> None:
    golden = pd.read_parquet(root / "golden_questions.parquet").set_index("question_id")
    retrievals = pd.read_parquet(root / "retrievals.parquet").set_index("question_id")
    texts = pd.read_parquet(root / "search_index.parquet", columns=["chunk_id", "text"]).set_index("chunk_id").text
    answerable = golden[golden.kind == "answerable"]
    hit = retrievals.loc[answerable.index].chunk_hit.mean()
    print(f"{len(answerable)} answerable questions; gold chunk in the answerer's top {int(retrievals.k.iloc[0])}: {hit:.1%}")
    for generator in (ExtractiveGenerator(), TableReaderGenerator()):
        right = declined = 0
        started = time.perf_counter()
        for question_id, case in answerable.iterrows():
            chunks = retrievals.chunk_ids[question_id]
            request = GenerationRequest(case.question, tuple((c, texts[c]) for c in chunks), cik=case.cik, fiscal_year=int(case.fiscal_year))
            checked = check_generation(request, generator.generate(request))
            declined += checked.outcome != ANSWERED
            right += checked.outcome == ANSWERED and judge_answer(checked.generation.text, case.gold_value, case.gold_answer, case.label,
                                                                  int(case.fiscal_year)).correct
        seconds = time.perf_counter() - started
        print(f"{generator.generator_id:24s} right {right}/{len(answerable)} ({right / len(answerable):.1%}), "
              f"not answered {declined}, {seconds / len(answerable) * 1000:.2f} ms per question")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "data/edgar"))
