"""A corpus's pins are checked before any work: each manifest.csv row pins a document of the folder at the bytes and
sha256 the file has, a manifest has the columns the graph needs, and one filing under two names is refused (it would be
counted twice). Each refusal is one line naming what is wrong; the demo and both shared corpora pass."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

import pytest

from edgar_eval.adapters.corpus_pins import REQUIRED_MANIFEST_COLUMNS, read_documents
from edgar_eval.adapters.local_corpus import list_filings
from edgar_eval.defs.corpus.partitions import checked_corpus, corpus_documents
from edgar_eval.defs.settings import EvalSettings

from .conftest import REAL_CORPUS

SHARED = {name: REAL_CORPUS.parent / name for name in ("edgar", "edgar-wide")}
PINNED = ("hvrn/10k_2025-02-20.htm", "hvrn/8k_2024-05-14.htm", "hvrn/10q_2024-11-05.htm")


def _settings(tmp_path: Path, corpus: Path, name: str = "pinned") -> EvalSettings:
    return EvalSettings(
        corpus_dir=str(corpus), corpus_name=name, data_dir=str(tmp_path / "data"), reports_dir=str(tmp_path / "r")
    )


def _manifest_rows(demo_files: dict[str, bytes], paths: tuple[str, ...]) -> list[dict[str, str]]:
    rows = csv.DictReader(io.StringIO(demo_files["manifest.csv"].decode()))
    return [row for row in rows if row["path"] in paths]


def _write_manifest(corpus: Path, rows: list[dict[str, str]], columns: list[str] | None = None) -> None:
    columns = columns or list(rows[0])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (corpus / "manifest.csv").write_text(buffer.getvalue())


@pytest.fixture
def pinned(tmp_path, demo_files):
    """Three demo filings with the demo manifest's rows for them."""
    assert all(path in demo_files for path in PINNED)
    corpus = tmp_path / "corpus"
    for path in PINNED:
        (corpus / path).parent.mkdir(parents=True, exist_ok=True)
        (corpus / path).write_bytes(demo_files[path])
    rows = _manifest_rows(demo_files, PINNED)
    assert len(rows) == len(PINNED)
    _write_manifest(corpus, rows)
    return corpus, rows


def _refusal(settings: EvalSettings) -> str:
    with pytest.raises(ValueError) as raised:
        checked_corpus(settings)
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_a_corpus_whose_manifest_pins_each_file_passes(tmp_path, pinned):
    corpus, _ = pinned
    documents = corpus_documents(_settings(tmp_path, corpus))
    assert sorted(documents) == sorted(list_filings(corpus))


def test_the_demo_corpus_passes_its_own_checks(tmp_path, demo_files):
    settings = _settings(tmp_path, tmp_path / "demo_corpus", name="demo")
    documents = corpus_documents(settings)
    assert len(documents) == sum(path.endswith(".htm") for path in demo_files) == 16


@pytest.mark.parametrize("name", sorted(SHARED))
def test_every_manifest_row_of_a_shared_corpus_verifies(tmp_path, name):
    corpus = SHARED[name]
    if not (corpus / "manifest.csv").is_file():
        pytest.skip(f"no shared corpus at {corpus}")
    with (corpus / "manifest.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:  # each row on its own, as the manifest's reader would not see it
        data = (corpus / row["path"]).read_bytes()
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (row["sha256"], int(row["bytes"])), row["path"]
    documents = checked_corpus(_settings(tmp_path, corpus, name=name))
    assert sorted(document.relative for document in documents.values()) == sorted(row["path"] for row in rows)


def test_a_file_that_is_not_what_its_manifest_pins_is_refused_naming_both_hashes(tmp_path, pinned):
    corpus, rows = pinned
    path = PINNED[1]
    changed = (corpus / path).read_bytes().replace(b"</body>", b"<p>amended</p></body>")
    (corpus / path).write_bytes(changed)
    message = _refusal(_settings(tmp_path, corpus))
    pinned_sha = next(row["sha256"] for row in rows if row["path"] == path)
    assert path in message and pinned_sha in message and hashlib.sha256(changed).hexdigest() in message, message
    assert message.startswith(f"corpus folder {corpus} (--corpus, EDGAR_EVAL_CORPUS_DIR): {path} is not the file")


def test_a_manifest_whose_byte_count_disagrees_is_refused(tmp_path, pinned):
    corpus, rows = pinned
    rows[0]["bytes"] = str(int(rows[0]["bytes"]) + 1)
    _write_manifest(corpus, rows)
    message = _refusal(_settings(tmp_path, corpus))
    assert rows[0]["path"] in message and f"({rows[0]['bytes']} bytes)" in message, message


@pytest.mark.parametrize("column", REQUIRED_MANIFEST_COLUMNS)
def test_a_manifest_without_a_required_column_is_refused_naming_it(tmp_path, pinned, column):
    corpus, rows = pinned
    _write_manifest(corpus, rows, [name for name in rows[0] if name != column])
    message = _refusal(_settings(tmp_path, corpus))
    assert f"manifest.csv has no {column} column" in message, message


@pytest.mark.parametrize(
    "cell,value,said",
    [
        ("filed", "", "filed '' of"),
        ("filed", "Nov 1 2024", "is not a date"),
        ("sha256", "abc", "is not 64 hexadecimal digits"),
        ("bytes", "1.5 MB", "is not a whole number"),
    ],
)
def test_a_manifest_row_with_an_unreadable_cell_is_refused_naming_its_line(tmp_path, pinned, cell, value, said):
    corpus, rows = pinned
    rows[1][cell] = value
    _write_manifest(corpus, rows)
    message = _refusal(_settings(tmp_path, corpus))
    assert "manifest.csv line 3: " in message and said in message, message


def test_a_manifest_row_for_a_file_the_folder_lacks_is_refused(tmp_path, pinned):
    corpus, _ = pinned
    (corpus / PINNED[2]).unlink()
    message = _refusal(_settings(tmp_path, corpus))
    assert f"pins {PINNED[2]}, which is not a filing document of the folder" in message, message


def test_two_manifest_rows_for_one_file_are_refused(tmp_path, pinned):
    corpus, rows = pinned
    _write_manifest(corpus, [*rows, rows[0]])
    message = _refusal(_settings(tmp_path, corpus))
    assert f"lines 2 and 5 both pin {rows[0]['path']}" in message, message


def test_a_manifest_that_is_not_utf8_is_refused(tmp_path, pinned):
    corpus, _ = pinned
    (corpus / "manifest.csv").write_bytes((corpus / "manifest.csv").read_bytes() + b"\xff\xfe,\n")
    assert "manifest.csv is not UTF-8 text" in _refusal(_settings(tmp_path, corpus))


@pytest.mark.parametrize("in_manifest", [False, True], ids=["unlisted copy", "listed copy"])
def test_one_filing_under_two_names_is_refused_naming_both(tmp_path, pinned, in_manifest):
    corpus, rows = pinned
    copy = "hvrn/10k_copy.htm"
    (corpus / copy).write_bytes((corpus / PINNED[0]).read_bytes())
    if in_manifest:
        original = next(row for row in rows if row["path"] == PINNED[0])
        _write_manifest(corpus, [*rows, {**original, "path": copy}])
    message = _refusal(_settings(tmp_path, corpus))
    assert f"{PINNED[0]} and {copy} are byte-identical" in message and "counted twice" in message, message
    assert hashlib.sha256((corpus / copy).read_bytes()).hexdigest() in message


def test_a_document_the_manifest_does_not_list_is_taken_without_a_filing_date(tmp_path, pinned, demo_files):
    corpus, _ = pinned
    extra = "mrbl/10k_2024-08-20.htm"
    (corpus / "mrbl").mkdir()
    (corpus / extra).write_bytes(demo_files[extra])
    documents = checked_corpus(_settings(tmp_path, corpus))
    assert extra in {document.relative for document in documents.values()}


def test_a_corpus_without_a_manifest_is_checked_for_duplicates_only(tmp_path, pinned):
    corpus, _ = pinned
    (corpus / "manifest.csv").unlink()
    assert len(checked_corpus(_settings(tmp_path, corpus))) == len(PINNED)


def test_a_demo_folder_holding_another_filing_is_refused(tmp_path, demo_files):
    folder = tmp_path / "demo_corpus"
    settings = _settings(tmp_path, folder, name="demo")
    corpus_documents(settings)  # writes it
    (folder / "mine.htm").write_bytes(demo_files[PINNED[0]].replace(b"</body>", b"<p>mine</p></body>"))
    message = _refusal(settings)
    assert message.startswith(f"demo corpus folder {folder} (EDGAR_EVAL_DEMO_CORPUS) holds mine.htm, not a filing")


def test_each_document_is_hashed_as_it_is(tmp_path, pinned):
    corpus, rows = pinned
    documents = read_documents(corpus, list_filings(corpus))
    by_path = {document.relative: document for document in documents.values()}
    for row in rows:
        assert (by_path[row["path"]].sha256, by_path[row["path"]].size) == (row["sha256"], int(row["bytes"]))
