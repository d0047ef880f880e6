import pandas as pd
import pytest

from edgar_eval.adapters.parquet_store import ParquetStore, StoreError


def test_write_replaces_whole_and_reads_back(tmp_path):
    store = ParquetStore(tmp_path)
    store.write("chunks", pd.DataFrame({"chunk_id": ["a", "b"], "pages": [["1"], ["1", "2"]]}), "f1")
    store.write("chunks", pd.DataFrame({"chunk_id": ["c"], "pages": [["3"]]}), "f1")
    back = store.read("chunks", "f1")
    assert back.chunk_id.tolist() == ["c"] and list(back.pages[0]) == ["3"]
    assert not list((tmp_path / "chunks").glob("*.tmp")), "no temporary file is left behind"
    # a worker or webserver under another account reads the tables: not private to the writer
    assert store.path("chunks", "f1").stat().st_mode & 0o044 == 0o044


def test_missing_and_corrupt_tables_are_clear_errors(tmp_path):
    store = ParquetStore(tmp_path)
    with pytest.raises(StoreError, match="has not been materialised"):
        store.read("filings", "f1")
    store.write("filings", pd.DataFrame({"x": [1]}), "f1")
    store.path("filings", "f1").write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(StoreError, match="not a readable Parquet file"):
        store.read("filings", "f1")


def test_read_partitions_reports_what_is_missing(tmp_path):
    store = ParquetStore(tmp_path)
    store.write("t", pd.DataFrame({"k": ["a"]}), "a")
    store.write("t", pd.DataFrame({"k": ["c"]}), "c")
    frame, missing = store.read_partitions("t", ["a", "b", "c"])
    assert frame.k.tolist() == ["a", "c"] and missing == ["b"]


@pytest.mark.parametrize("root", ["local", "memory://stamp"])
def test_a_table_with_no_row_still_says_what_it_was_built_from(tmp_path, root):
    """A per-filing table can be empty (a filing whose every fact was read has no fact_rejections row): the stamp in
    its file's footer says what it was built from, where no row can."""
    store = ParquetStore(tmp_path if root == "local" else root)
    empty = pd.DataFrame({"sha256": pd.Series([], dtype=object), "build_key": pd.Series([], dtype=object)})
    store.write("fact_rejections", empty, "f1", stamp={"sha256": "abc", "build_key": "v1:"})
    assert store.read("fact_rejections", "f1").empty
    assert store.stamp("fact_rejections", "f1") == {"sha256": "abc", "build_key": "v1:"}
    store.write("fact_rejections", empty, "f2")
    assert store.stamp("fact_rejections", "f2") == {}
    store.path("fact_rejections", "f2").write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(StoreError, match="not a readable Parquet file"):
        store.stamp("fact_rejections", "f2")


def test_a_tables_footer_says_whether_it_reads_and_its_stamp_in_one_read(tmp_path):
    """`table_footer`: the problem `table_problem` names (None when the table reads) and the table's stamp, which
    holds the data version its materialisation recorded; a file without a stamp, or one that does not read, has none."""
    from edgar_eval.adapters.parquet_store import DATA_VERSION_STAMP, table_footer

    store = ParquetStore(tmp_path)
    written = store.write("golden_set", pd.DataFrame({"q": ["a"]}), stamp={DATA_VERSION_STAMP: "v1"})
    assert table_footer(written) == (None, {DATA_VERSION_STAMP: "v1"})
    plain = store.write("golden_rejections", pd.DataFrame({"q": ["b"]}))
    assert table_footer(plain) == (None, {})
    plain.write_bytes(b"PAR1 this is not parquet")
    problem, stamp = table_footer(plain)
    assert problem is not None and problem.startswith("not a readable Parquet file") and stamp == {}
    assert table_footer(tmp_path / "absent.parquet") == ("missing", {})
