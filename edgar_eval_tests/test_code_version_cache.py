"""The code versions kept in the instance's folder: read back while the package's source is the same, found again
when the file is cut short (the versions themselves, and that an edit changes them, are test_code_versions')."""

from __future__ import annotations

import json

import pytest


def test_kept_versions_are_read_back_and_a_cut_short_file_is_found_again(tmp_path, monkeypatch):
    from edgar_eval.defs import code_versions
    from edgar_eval.defs.factory import build_definitions
    from edgar_eval.defs.settings import EvalSettings

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    settings = EvalSettings(
        corpus_dir=str(tmp_path), corpus_name="x", data_dir=str(tmp_path), reports_dir=str(tmp_path)
    )

    def versions() -> dict[str, str | None]:
        graph = build_definitions(settings).resolve_asset_graph()
        return {key.to_user_string(): graph.get(key).code_version for key in graph.get_all_asset_keys()}

    first = versions()
    (kept,) = (tmp_path / "code_versions").iterdir()
    with monkeypatch.context() as patch:  # nothing is followed again while the source is the same
        patch.setattr(code_versions, "code_version_of", lambda *args: pytest.fail("followed the code again"))
        assert versions() == first
    kept.write_text("{")  # a process killed while writing (the write is whole or not at all, but say it were)
    assert versions() == first and json.loads(kept.read_text()), "found again and kept again"


def test_a_test_s_own_asset_is_not_kept():
    """edgar_eval_tests shares the package's name as a prefix, but the package's digest does not cover its files."""
    import dagster as dg

    from edgar_eval.defs.code_versions import _VersionCache

    @dg.asset
    def outside() -> None: ...

    assert _VersionCache.entry(outside, outside.op.compute_fn.decorated_fn, ()) is None
