"""Each asset's code_version is a hash of the code it reaches: an edit marks the assets that run that code, no other.

The edits are made to a copy of the package, loaded in a subprocess, so the versions are those Dagster would show
after the edit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from edgar_eval_tests.package_copies import PACKAGE, TABLE_READER, copy_package, table_reader_first_def

pytestmark = pytest.mark.slow(minutes=0.7)  # whole-graph runs: scheduled with the longest first

_PRINT_VERSIONS = """
import json
import os
import edgar_eval
assert edgar_eval.__file__.startswith(os.getcwd()), edgar_eval.__file__  # the copy, not the checkout
from edgar_eval.definitions import defs
graph = defs().resolve_asset_graph()
print(json.dumps({key.to_user_string(): graph.get(key).code_version for key in graph.get_all_asset_keys()}))
"""


def _versions(root: Path, home: Path) -> dict[str, str]:
    # one instance folder for every copy: each copy's versions are kept there under its own source's hash, so an edit
    # that the kept versions of another source answered would show here as an unchanged version
    env = {
        **os.environ,
        "PYTHONPATH": str(root),
        "EDGAR_EVAL_HOME": str(home),
        "PYTHONWARNINGS": "ignore",
        "DAGSTER_HOME": str(home / "dagster_home"),
    }
    env.pop("EDGAR_EVAL_CORPUS_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", _PRINT_VERSIONS], env=env, cwd=root, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    versions = json.loads(done.stdout.strip().splitlines()[-1])
    assert json.loads(json.dumps(versions)) == versions
    return versions


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """Versions of the package as it is, and after single edits: a comment and reformatting only, one line of the
    store, an asset's description (a module-level asset, and a per-filing one), one line of the table reader, one line
    of the chunker."""
    base = tmp_path_factory.mktemp("code")
    home = base / "home"
    shutil.copytree(PACKAGE.parent / "protocol", home / "protocol")

    def copy(name: str, path: str | None = None, old: str = "", new: str = "") -> dict[str, str]:
        return _versions(copy_package(base / name, path, old, new), home)

    first_def = table_reader_first_def()
    found: dict = {
        "as_is": copy("as_is"),
        "as_is_again": copy("as_is_again"),  # the same source: its kept versions read back
        "cosmetic": copy("cosmetic", TABLE_READER, first_def, f"# a comment\n\n\n{first_def}  "),
        "reader": copy("reader", TABLE_READER, first_def, f"EDITED = 1\n\n\n{first_def}"),
        "store": copy(
            "store",
            "adapters/parquet_store.py",
            "class StoreError(RuntimeError):",
            "EDITED = 1\n\n\nclass StoreError(RuntimeError):",
        ),
        "description": copy(
            "description",
            "defs/answering/generations.py",
            '"check: answered, model_declined',
            '"check (answered, model_declined',
        ),
        "corpus_description": copy(
            "corpus_description",
            "defs/corpus/assets.py",
            '"Clean text of the filing:',
            '"The clean text of the filing:',
        ),
        "chunker": copy(
            "chunker",
            "corpus/chunking.py",
            "from __future__ import annotations\n",
            "from __future__ import annotations\n\nEDITED = 1\n",
        ),
    }
    found["kept"] = sorted(path.name for path in (home / "dagster_home" / "code_versions").iterdir())
    return found


def test_versions_are_hashes_of_code_and_stable(copies):
    from edgar_eval.defs.source_files import SOURCE_FILES

    versions = dict(copies["as_is"])
    assert versions.pop("filing_documents") is None  # the input, observed: no code builds it
    for source in SOURCE_FILES:  # the files beside the graph, observed: versioned by their content, not by code
        assert versions.pop(source.key.to_user_string()) is None
    assert all(len(v) == 16 and int(v, 16) >= 0 for v in versions.values())
    assert len(set(versions.values())) > len(versions) // 2  # assets of one module do not share one version
    from edgar_eval.definitions import defs

    graph = defs().resolve_asset_graph()
    here = {key.to_user_string(): graph.get(key).code_version for key in graph.get_all_asset_keys()}
    assert here == copies["as_is"]  # the same code, loaded from another folder: the same versions


def test_a_comment_or_reformatting_changes_no_version(copies):
    assert copies["cosmetic"] == copies["as_is"]


def test_a_description_shown_in_the_ui_changes_no_version(copies):
    assert copies["description"] == copies["as_is"]
    assert copies["corpus_description"] == copies["as_is"]


def test_how_tables_are_stored_is_no_part_of_any_version(copies):
    assert copies["store"] == copies["as_is"]


def test_an_edit_marks_the_assets_that_run_that_code_and_no_other(copies):
    changed = {name for name, version in copies["reader"].items() if version != copies["as_is"][name]}
    assert "generations" in changed  # the answerer reads passages through the table reader
    assert not changed & {"filings", "filing_text", "xbrl_facts", "sections", "chunks", "chunk_embeddings"}
    assert not changed & {
        "answerer_retrievals",
        "retriever_rankings",
        "search_index",
        "golden_questions",
        "arm_statistics",
    }

    changed = {name for name, version in copies["chunker"].items() if version != copies["as_is"][name]}
    assert "chunks" in changed
    assert not changed & {"filings", "filing_text", "xbrl_facts", "generations", "arm_statistics", "golden_questions"}


def test_versions_are_kept_per_source_and_an_edit_names_another_file(copies):
    """Every copy shares one instance folder, so an edited copy whose versions came from the unedited source's file
    would show as unchanged in the tests above; what is left is the last source's file alone."""
    assert copies["as_is_again"] == copies["as_is"]
    assert len(copies["kept"]) == 1 and copies["kept"][0].endswith(".json")
