"""The composing reader on a materialised store's two-document questions, offline: the passages the answerer read
(answerer_retrievals), judged as under arm A (citation check, then every required figure and the direction word), per
two-document kind: right (Wilson 95%), wrong, declined or withheld, beside the table reader on the same passages.
Reads the stored tables only (golden_questions, answerer_retrievals, search_index); writes nothing.
Usage: .venv/bin/python bench/two_document_reader.py [data/edgar-wide] [--kind KIND ...] [--show N]"""

import argparse
import time
from pathlib import Path
from typing import cast

import pandas as pd

from edgar_eval.answering.answerer import ComposingReaderGenerator, TableReaderGenerator
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.evaluation.readers import reader_outcomes, summarise_readers


def _retrievals(root: Path) -> pd.DataFrame:
    """The answerer's retrievals: one table, or the shards of one (a folder of Parquet files read together)."""
    single = root / "answerer_retrievals.parquet"
    paths = [single] if single.exists() else sorted((root / "answerer_retrievals").glob("*.parquet"))
    frames = [pd.read_parquet(p) for p in paths]  # a shard with no question holds no columns
    frame = pd.concat([f[["question_id", "chunk_ids", "chunk_hit"]] for f in frames if "question_id" in f])
    return cast(pd.DataFrame, frame[frame.question_id.notna()]).set_index("question_id")


def main(root: Path, kinds: list[str], show: int) -> None:
    golden = pd.read_parquet(root / "golden_questions.parquet").set_index("question_id")
    two = golden[(golden.expected_route == "answer") & (golden.document_count.fillna(1) > 1)]
    if kinds:
        two = two[two.kind.isin(kinds)]
    cases = cast(pd.DataFrame, two)
    retrieved = _retrievals(root)
    texts = pd.read_parquet(root / "search_index.parquet", columns=["chunk_id", "text"]).set_index("chunk_id").text
    print(f"{root}: {len(cases)} answerable two-document questions ({', '.join(sorted(set(cases.kind)))})")
    if not len(cases):
        return
    started = time.perf_counter()
    outcomes = reader_outcomes(cases, retrieved, texts, (TableReaderGenerator(), ComposingReaderGenerator()))
    seconds = time.perf_counter() - started
    table = summarise_readers(outcomes)
    print(f"read in {seconds:.1f} s ({seconds / len(cases) / 2 * 1000:.1f} ms per question per reader)")
    for row in iter_rows(cast(pd.DataFrame, table[table.kind != ""])):
        print(
            f"  {row.reader:22s} {row.kind:18s} right {row.right}/{row.questions} ({row.right_share:.1%}, Wilson "
            f"{row.right_low:.1%} to {row.right_high:.1%}), wrong {row.wrong}, declined or withheld {row.declined}, "
            f"gold chunk retrieved {row.gold_chunk_retrieved}"
        )
    composed = cast(pd.DataFrame, outcomes[outcomes.reader == ComposingReaderGenerator.generator_id])
    for row in iter_rows(cast(pd.DataFrame, composed[composed.answered]).head(show)):
        verdict = "right" if row.right else "wrong"
        print(f"\n[{verdict}] {cases.question[row.question_id]}\n  gold: {cases.gold_answer[row.question_id]}")
        print(f"  read: {row.answer_text}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=str(__doc__).splitlines()[0])
    parser.add_argument("store", nargs="?", default="data/edgar-wide", type=Path)
    parser.add_argument("--kind", action="append", default=[], help="only this two-document kind (repeatable)")
    parser.add_argument("--show", type=int, default=0, help="print the first N answers the composing reader gave")
    arguments = parser.parse_args()
    main(arguments.store, arguments.kind, arguments.show)
