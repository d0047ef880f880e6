"""Shared work: what `edgar-eval run` re-runs when another system under test, or another corpus, comes to a store.

On one corpus (`--corpus`, named `--name`), in a work folder of its own (DAGSTER_HOME, data and reports; copied from
`--from-data`/`--from-home` when given, so a committed store is never touched), runs in turn:

1. the first generator (`--first`): warm when the copied store is current, else its cold run;
2. the second generator (`--second`): another system under test on the same corpus;
3. the second again: nothing changed;
4. the first again: its answers were replaced in the corpus's folder;
5. a corpus holding the first `--part` filings of this one under another name (`<name>-part`), in the same store and
   run history: its filing partitions copy the tables this corpus made;
6. the first generator on this corpus again, after that corpus;
7. the first generator with `--rerun` (every run launched again: what any change of generator cost before the
   evaluation was split at generation); left out with `--no-rerun`.

Prints, for each, the wall seconds and the CLI's line about the evaluation and its corpus phase, then a summary.

    .venv/bin/python bench/shared_work.py --corpus ../shared/corpus/edgar --name edgar \
        [--first eager-reader] [--second table-reader] [--part 2] [--work /tmp/edgar-shared-work] [--no-rerun] \
        [--from-data data/edgar --from-home .dagster_edgar] \
        [--proposals ../shared/golden/real_candidates.jsonl]
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).with_name("edgar-eval")
PROPOSALS: list[str] = []  # `--proposals FILE` for every run, as the copied store was made


def run(label: str, work: Path, corpus: Path, name: str, generator: str, *extra: str) -> dict:
    extra = (*PROPOSALS, *extra)
    environment = {
        **os.environ,
        "DAGSTER_HOME": str(work / "home"),
        "EDGAR_EVAL_DATA": str(work / "data"),
        "EDGAR_EVAL_REPORTS": str(work / "reports"),
        "EDGAR_EVAL_GENERATOR": generator,
    }
    # the demo's name is reserved for the generated demo corpus: its folder is named as the CLI reads it
    where = ["--corpus", str(corpus), "--name", name] if name != "demo" else []
    if name == "demo":
        environment["EDGAR_EVAL_DEMO_CORPUS"] = str(corpus)
    started = time.perf_counter()
    done = subprocess.run(
        [str(CLI), "run", *where, *extra],
        env=environment,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    seconds = time.perf_counter() - started
    lines = done.stdout.splitlines()
    evaluation = next((line for line in lines if line.startswith("evaluation")), "(no evaluation line)")
    filings = [line.split()[0] for line in lines if line.startswith("  ") and line.split()]
    if done.returncode != 0:
        sys.exit(f"{label}: edgar-eval run exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    counts = {word: filings.count(word) for word in sorted(set(filings)) if word in ("ok", "current", "FAILED")}
    return {"label": label, "seconds": seconds, "evaluation": evaluation, "filings": counts}


def part_of(corpus: Path, count: int, folder: Path) -> Path:
    """A corpus of the first `count` filings of `corpus`'s manifest, at the same relative paths."""
    with (corpus / "manifest.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))[:count]
    if folder.exists():
        shutil.rmtree(folder)
    for row in rows:
        (folder / row["path"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus / row["path"], folder / row["path"])
    with (folder / "manifest.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--first", default="eager-reader")
    parser.add_argument("--second", default="table-reader")
    parser.add_argument("--part", type=int, default=2, help="filings of the second corpus (step 5)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/edgar-shared-work"))
    parser.add_argument("--from-data", type=Path, help="a store of this corpus to start from (copied)")
    parser.add_argument("--from-home", type=Path, help="its DAGSTER_HOME (copied)")
    parser.add_argument("--no-rerun", action="store_true", help="leave out step 7")
    parser.add_argument(
        "--proposals", type=Path, action="append", default=[], help="proposal files, as the store was made with them"
    )
    args = parser.parse_args()
    corpus, name, work = args.corpus.resolve(), args.name, args.work
    PROPOSALS.extend(argument for path in args.proposals for argument in ("--proposals", str(path.resolve())))
    if work.exists():
        shutil.rmtree(work)
    (work / "data").mkdir(parents=True)
    if args.from_data:
        shutil.copytree(args.from_data, work / "data" / name)
    if args.from_home:
        shutil.copytree(args.from_home, work / "home", ignore=shutil.ignore_patterns("*.lock", "compute_logs"))
    part = part_of(corpus, args.part, work / "part")
    results = [
        run(f"1. {args.first}", work, corpus, name, args.first),
        run(f"2. {args.second}", work, corpus, name, args.second),
        run(f"3. {args.second} again", work, corpus, name, args.second),
        run(f"4. {args.first} again", work, corpus, name, args.first),
        run(f"5. {args.part} of its filings as {name}-part", work, part, f"{name}-part", args.first),
        run(f"6. {args.first} after {name}-part", work, corpus, name, args.first),
    ]
    if not args.no_rerun:
        results.append(run(f"7. {args.first}, --rerun", work, corpus, name, args.first, "--rerun"))
    print(f"corpus {name} ({corpus}); work folder {work}")
    for result in results:
        filings = ", ".join(f"{count} {word}" for word, count in result["filings"].items())
        print(f"{result['label']:<40} {result['seconds']:7.1f} s  filings: {filings or '-'}")
        print(f"    {result['evaluation'][:200]}")
    by = {result["label"][0]: result["seconds"] for result in results}
    rerun = f", against {by['7']:.1f} s with every run launched again" if "7" in by else ""
    print(
        f"another system under test: {by['2']:.1f} s, and back {by['4']:.1f} s{rerun}; a second corpus of "
        f"{args.part} filings {by['5']:.1f} s, then this corpus {by['6']:.1f} s (nothing changed: {by['3']:.1f} s)"
    )


if __name__ == "__main__":
    main()
