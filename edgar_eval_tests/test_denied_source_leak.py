"""No passage of a filing the asking role may not read reaches an answer, a retrieved list, a trace, a receipt or
the report. A distinctive sentence is planted in Maribel Foods' demo filings (the demo policy bars the retail-analyst
role from Maribel); the demo graph runs as retail-analyst, and every output of the run outside the corpus, the index
and the golden set is searched for the sentence. The corpus holds it (it was planted and indexed), and the same
evaluation asked as an analyst, who may read Maribel, retrieves it: so the search could have found it."""

import hashlib
import json
import re
from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from edgar_eval.adapters import local_corpus
from edgar_eval.adapters.parquet_store import ParquetStore
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_evaluation, materialise_graph
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import read_sharded
from edgar_eval.synthetic.demo import demo_corpus_files

pytestmark = pytest.mark.slow(minutes=1.7)  # whole-graph runs: scheduled with the longest first

CANARY = "The quetzal orchid lantern protocol governs every Maribel pantry audit"
DENIED_FILINGS = ("mrbl/10k_2023-08-21.htm", "mrbl/10q_2024-05-06.htm", "mrbl/10k_2024-08-20.htm")
SEARCHED_GROUPS = {"runs", "statistics", "report"}  # what the system under test produced, and its report


def _planted_files(companies: int = 3) -> dict[str, bytes]:
    """The demo corpus with the canary after the first sentence about revenue in each denied filing (where the
    answerer's revenue questions look), and the manifest's sha256 brought in step."""
    files = dict(demo_corpus_files(companies=companies))
    manifest = files["manifest.csv"].decode()
    for path in DENIED_FILINGS:
        text = files[path].decode()
        planted, count = re.subn(r"(<p[^>]*>[^<]*?\brevenue\b[^<]*?\.)", rf"\1 {CANARY}.", text, count=1)
        assert count == 1, f"no paragraph about revenue in {path}"
        old, new = hashlib.sha256(files[path]).hexdigest(), hashlib.sha256(planted.encode()).hexdigest()
        manifest = manifest.replace(old, new).replace(f",{len(files[path])},{new}", f",{len(planted.encode())},{new}")
        files[path] = planted.encode()
    files["manifest.csv"] = manifest.encode()
    return files


def _holding(root: Path, assets: set[str]) -> dict[str, int]:
    """Per output file of the named assets (and every report file): how many cells or lines hold the canary."""
    found = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        asset = relative.split("/", 1)[0].split(".", 1)[0]  # case_receipts.parquet and case_receipts.jsonl alike
        if not path.is_file() or asset not in assets:
            continue
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
            hits = sum(int(frame[name].astype(str).str.contains(CANARY, regex=False).sum()) for name in frame.columns)
        else:
            hits = path.read_text(encoding="utf-8", errors="replace").count(CANARY)
        if hits:
            found[relative] = hits
    return found


def _chunk_ids(data: Path) -> dict[str, set[str]]:
    """Every chunk id a run retrieved or cited, per asset."""
    lists = {
        "answerer_retrievals": "chunk_ids",
        "retriever_rankings": "chunk_ids",
        "generations": "cited_chunk_ids",
    }
    found = {}
    for asset, column in lists.items():
        ids = read_sharded(ParquetStore(data), asset, columns=[column])[column]
        found[asset] = {str(chunk_id) for chunk_ids in ids for chunk_id in chunk_ids}
    receipts = [json.loads(line) for line in (data / "case_receipts.jsonl").read_text().splitlines()]
    found["case_receipts"] = {loc["chunk"] for r in receipts for loc in r["retrieved"] + r["cited"]}
    return found


def _maribel(chunk_ids: set[str]) -> list[str]:
    return sorted(c for c in chunk_ids if c.startswith("mrbl-"))


def test_a_denied_filing_reaches_no_output_of_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr(local_corpus, "demo_corpus_files", _planted_files)

    def settings(role: str) -> EvalSettings:
        return EvalSettings(
            corpus_dir=str(tmp_path / "corpus"),
            corpus_name="demo",
            data_dir=str(tmp_path / "data"),
            reports_dir=str(tmp_path / "reports"),
            asking_role=role,
        )

    defs = build_definitions(settings("retail-analyst"))
    instance = dg.DagsterInstance.ephemeral()
    graph = materialise_graph(defs, instance)
    assert graph.evaluation_succeeded, graph.evaluation_error

    groups = {
        key.to_user_string(): assets.group_names_by_key[key]
        for assets in defs.assets or []
        if isinstance(assets, dg.AssetsDefinition)
        for key in assets.keys
    }
    searched = {asset for asset, group in groups.items() if group in SEARCHED_GROUPS}
    assert {"answerer_retrievals", "generations", "route_outcomes", "pattern_baseline", "case_receipts", "report"} <= (
        searched
    )
    assert (tmp_path / "data" / "demo" / "case_receipts.jsonl").is_file()
    assert _holding(tmp_path / "data" / "demo", {"chunks", "search_index"}), "the canary was planted and indexed"
    assert _holding(tmp_path / "data" / "demo", searched) == {}
    assert _holding(tmp_path / "reports", {"demo"}) == {}
    # Another role's report lies in a folder of its own: the default role's report is never replaced by it.
    assert (tmp_path / "reports" / "demo" / "as-retail-analyst" / "report.md").is_file()
    assert not (tmp_path / "reports" / "demo" / "report.md").exists()

    golden = pd.read_parquet(tmp_path / "data" / "demo" / "golden_questions.parquet")
    maribel = golden[golden.cik == "0009000003"]
    assert len(maribel) and set(maribel.expected_route) == {"deny"} and not any(map(len, maribel.permitted_filing_ids))
    generations = read_sharded(ParquetStore(tmp_path / "data" / "demo"), "generations").set_index("question_id")
    assert set(generations.loc[maribel.question_id].route) == {"deny"}
    # Lists of retrieved or cited passages hold chunk ids, not text: none may name a chunk of a Maribel filing.
    chunks = pd.concat(pd.read_parquet(p) for p in sorted((tmp_path / "data" / "demo" / "chunks").glob("*.parquet")))
    canary = set(chunks[chunks.text.str.contains(CANARY, regex=False)].chunk_id)
    assert len(canary) == len(DENIED_FILINGS)
    assert {asset: _maribel(ids) for asset, ids in _chunk_ids(tmp_path / "data" / "demo").items()} == {
        "answerer_retrievals": [],
        "retriever_rankings": [],
        "generations": [],
        "case_receipts": [],
    }

    # The control: asked as an analyst, who may read Maribel, the same evaluation retrieves the planted passage.
    analyst = build_definitions(settings("analyst"))
    assert materialise_evaluation(analyst, instance) is None
    retrieved = _chunk_ids(tmp_path / "data" / "demo")
    assert canary & retrieved["answerer_retrievals"], "an analyst's retrieval reaches the planted passage"
    assert any(_maribel(ids) for ids in retrieved.values())
