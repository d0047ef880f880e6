"""The report's invariant as an asset check: every table names the asset it comes from, and each named asset exists."""

import re

import dagster as dg

from edgar_eval.defs.settings import EvalSettings

_SOURCE = re.compile(r"^Source: asset `([a-z_]+)`", re.M)


@dg.asset_check(
    asset="report",
    blocking=False,
    description="Every table of `reports/<corpus>/report.md` names a source asset, and every source it names is "
    "materialised.",
)
def report_sources_present(context: dg.AssetCheckExecutionContext, settings: EvalSettings) -> dg.AssetCheckResult:
    markdown = (settings.report_dir() / "report.md").read_text()
    sources = sorted(set(_SOURCE.findall(markdown)))
    tables = len(re.findall(r"^## ", markdown, re.M))
    store = settings.store()
    missing = [
        name
        for name in sources
        if name != "report"  # the receipt table is the report's own
        and not (store.path(name).is_file() or (store.root / name).is_dir())
    ]
    unsourced = tables - len(_SOURCE.findall(markdown))
    problems = [f"missing: {', '.join(missing)}"] if missing else []
    problems += [f"{unsourced} tables name no source"] if unsourced > 0 else []
    return dg.AssetCheckResult(
        passed=not problems,
        description="; ".join(problems) or f"{len(sources)} source assets, all present",
        metadata={"sources": len(sources), "tables": tables},
    )


CHECKS = [report_sources_present]
