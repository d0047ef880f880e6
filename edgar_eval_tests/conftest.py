import hashlib
import os
import warnings
from pathlib import Path

# Test workers (pytest -n N) share the machine's cores: each worker, and every run it starts, takes its share for the
# BLAS and torch threads, or N workers each start a thread per core that wait on one another (measured on two cores:
# four of the slowest modules took 395 s at -n 2 with a thread per core each, 251 s with one each). Set before numpy
# loads its BLAS. An embedding moves in its last bits with torch's thread count (about 1e-7), so the suite reproduces
# the committed reports (made by `edgar-eval run` with a thread per core) with fewer threads than they were made with;
# it does so byte for byte. Should a reproduction fail here where `edgar-eval run` makes the committed report, two
# chunks tie within 1e-7 and the thread count broke the tie. (The cores are counted as adapters.embedders'
# cores_per_process counts them; importing it would load numpy first.)
if "PYTEST_XDIST_WORKER_COUNT" in os.environ:
    _cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, _cores // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))

import pandas as pd  # noqa: E402
import pytest

warnings.filterwarnings("ignore", module="dagster")

REPO = Path(__file__).resolve().parents[1]
REAL_CORPUS = Path(os.environ.get("EDGAR_EVAL_REAL_CORPUS", REPO.parent / "shared" / "corpus" / "edgar"))
REAL_CANDIDATES = REAL_CORPUS.parents[1] / "golden" / "real_candidates.jsonl"  # the hand-written proposals


REPRODUCED = ("report.md", "report.html", "outcomes.json")  # what a reproduction of a committed report compares


def drifted_report_files(written: Path, committed: Path) -> list[str]:
    """The files of REPRODUCED that differ in any byte between a report folder a run wrote and the committed one."""
    return [name for name in REPRODUCED if (written / name).read_bytes() != (committed / name).read_bytes()]


def _slow_minutes(item: pytest.Item) -> float:
    marker = item.get_closest_marker("slow")
    return float(marker.kwargs.get("minutes", 1)) if marker else 0.0


def pytest_configure(config: pytest.Config) -> None:
    """pytest-xdist hands out modules with the most tests first unless told otherwise, which put the suite's longest
    module (one test: the shared corpus, 16 minutes beside the rest) near the end and left a worker idle for six
    minutes. Unreordered, the workers take the modules in the order sorted below, each the next one as it runs short
    (a worker whose module has two tests or fewer left is queued the next module, which waits behind it: the first
    worker takes the shared corpus and the module after it). Set here, not in addopts, so `-p no:xdist` still runs;
    it overrides an explicit `--loadscope-reorder`."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest modules first (by their `slow(minutes=...)` mark, a stable sort that keeps each module's own order):
    with `-n 2 --dist loadfile` a worker takes a module whole, in this order, so the two workers finish together
    instead of one starting the longest whole-graph run last."""
    items.sort(key=lambda item: -_slow_minutes(item))


@pytest.fixture(scope="session")
def demo_files():
    from edgar_eval.synthetic.demo import demo_corpus_files

    return demo_corpus_files()


@pytest.fixture(scope="session")
def demo_parsed(demo_files):
    from edgar_eval.corpus.parse import parse_filing

    return {path: parse_filing(data) for path, data in demo_files.items() if path.endswith(".htm")}


def xhtml(body: str, resources: str = "", hidden: str = "") -> bytes:
    """A minimal inline-XBRL document around `body`, as EDGAR serves them."""
    return f"""<?xml version='1.0' encoding='utf-8'?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12" xmlns:xbrli="http://www.xbrl.org/2003/instance"
 xmlns:xbrldi="http://xbrl.org/2006/xbrldi" xmlns:us-gaap="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024"
 xmlns:iso4217="http://www.xbrl.org/2003/iso4217" xmlns:acme="http://acme.example/2024">
<head><title>t</title></head><body>
<div style="display:none"><ix:header><ix:hidden>{hidden}</ix:hidden><ix:resources>
<xbrli:context id="FY24"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000042</xbrli:identifier></xbrli:entity>
<xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:context id="I24"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000042</xbrli:identifier></xbrli:entity>
<xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>
<xbrli:context id="FY24seg"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000042</xbrli:identifier>
<xbrli:segment><xbrldi:explicitMember dimension="us-gaap:StatementBusinessSegmentsAxis">acme:WidgetsMember</xbrldi:explicitMember></xbrli:segment></xbrli:entity>
<xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
{resources}</ix:resources></ix:header></div>
{body}
</body></html>
""".encode()  # noqa: E501  (inline-XBRL contexts as EDGAR prints them)


def dei_cover(form: str = "10-K") -> str:
    return (
        f'<p>FORM <ix:nonNumeric name="dei:DocumentType" contextRef="FY24">{form}</ix:nonNumeric></p>'
        '<p><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="FY24">Acme Widgets Inc.</ix:nonNumeric></p>'
    )


DEI_HIDDEN = (
    '<ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="FY24">0000000042</ix:nonNumeric>'
    '<ix:nonNumeric name="dei:CurrentFiscalYearEndDate" contextRef="FY24">--12-31</ix:nonNumeric>'
)


def corpus_tables(files: dict[str, bytes], parsed: dict) -> tuple[pd.DataFrame, ...]:
    """The five tables the golden_questions asset reads, built in memory from parsed filings."""
    from edgar_eval.adapters.local_corpus import partition_key
    from edgar_eval.corpus.tables import chunks_frame, facts_frame, filing_frame, sections_frame, text_frame

    frames: dict[str, list[pd.DataFrame]] = {name: [] for name in ("filings", "facts", "chunks", "texts", "sections")}
    for path, filing in sorted(parsed.items()):
        key, sha = partition_key(path), hashlib.sha256(files[path]).hexdigest()
        frames["filings"].append(filing_frame(key, path, sha, len(files[path]), filing, None))
        frames["facts"].append(facts_frame(key, sha, filing))
        frames["chunks"].append(chunks_frame(key, sha, filing, 1000, 200))
        frames["texts"].append(text_frame(key, sha, filing))
        frames["sections"].append(sections_frame(key, sha, filing))
    return tuple(
        pd.concat(frames[name], ignore_index=True) for name in ("filings", "facts", "chunks", "texts", "sections")
    )


@pytest.fixture(scope="session")
def golden_inputs(demo_files, demo_parsed):
    """The demo corpus's tables, as the golden_questions asset reads them: current revisions only."""
    from edgar_eval.corpus.revisions import current_only, superseded_by

    tables = corpus_tables(demo_files, demo_parsed)
    superseded = superseded_by(tables[0])
    return tuple(current_only(table, superseded) for table in tables)


@pytest.fixture(scope="module")
def demo_definitions(tmp_path_factory):
    """The code location's definitions for the demo corpus, with folders of the test's own (nothing is read)."""
    from edgar_eval.defs.factory import build_definitions
    from edgar_eval.defs.settings import EvalSettings

    root = tmp_path_factory.mktemp("defs")
    return build_definitions(
        EvalSettings(
            corpus_dir=str(root / "corpus"),
            corpus_name="demo",
            data_dir=str(root / "data"),
            reports_dir=str(root / "reports"),
        )
    )
