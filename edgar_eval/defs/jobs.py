"""Jobs and automation: the UI, the automation daemon, the CLI and CI run the same definitions.

A new or changed filing document rebuilds its own corpus partition (eager); the evaluation runs nightly, once every
corpus asset it reads has been brought up to date since the tick (on_cron), instead of at a fixed hour after the
corpus that a slow corpus night could overrun.
"""

import dagster as dg

# The code location the UI loads (workspace.yaml, pyproject's [tool.dagster]); the CLI launches runs in it.
DEFINITIONS_MODULE = "edgar_eval.definitions"
DEFINITIONS_ATTRIBUTE = "defs"
JOB_RECONSTRUCTOR = "job_named"  # the function of DEFINITIONS_MODULE a run process reloads a job by
CODE_LOCATION = "edgar_eval"
CORPUS_JOB = "corpus_job"
EVALUATION_JOB = "evaluation_job"
EVALUATION_GROUPS = ("index", "golden", "runs", "statistics", "report")
# A filing document is observed, never materialised, so to the condition it would always be missing: it counts as a
# dependency that updates (a new data version), not as one that must exist first.
CORPUS_AUTOMATION = dg.AutomationCondition.eager().replace(
    "any_deps_missing", dg.AutomationCondition.any_deps_missing().ignore(dg.AssetSelection.assets("filing_documents"))
)
NIGHTLY = ("0 4 * * *", "UTC")
# The files beside the graph (source_files.py) are observed, and change seldom: to the condition a protocol unchanged
# since the tick would hold the night back for ever, so they count as dependencies that update, not that must.
EVALUATION_AUTOMATION = dg.AutomationCondition.on_cron(*NIGHTLY).replace(
    f"all_deps_updated_since_cron({NIGHTLY[0]}, {NIGHTLY[1]})",
    dg.AutomationCondition.all_deps_updated_since_cron(*NIGHTLY).ignore(dg.AssetSelection.groups("files")),
)

AUTOMATION = dg.AutomationConditionSensorDefinition(
    "automation",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Evaluates the assets' automation conditions: a new or changed filing document rebuilds its corpus "
    "partition, and the evaluation runs nightly at 04:00 UTC once what it reads is up to date. Off by default, as a "
    "schedule would be: turn it on (Automation) where the UI should launch runs by itself.",
)


def build_jobs(corpus_executor: dg.ExecutorDefinition | None = None, tags: dict[str, str] | None = None) -> list:
    """`corpus_executor`: the corpus job's own executor, where it differs from the Definitions' (defs/executors.py);
    `tags`: every run of either job carries them (the system it measures: statistics/pins.system_tags), whichever
    launches it (the CLI, the UI's launchpad, a test's run in process)."""
    corpus_job = dg.define_asset_job(
        CORPUS_JOB,
        selection=dg.AssetSelection.groups("corpus") - dg.AssetSelection.assets("filing_documents"),
        description="Parse, chunk and embed one filing partition.",
        executor_def=corpus_executor,
        run_tags=tags,
    )
    evaluation_job = dg.define_asset_job(
        EVALUATION_JOB,
        selection=dg.AssetSelection.groups(*EVALUATION_GROUPS),
        description="Index, golden questions, runs, statistics and the report, over every current filing partition.",
        run_tags=tags,
    )
    return [corpus_job, evaluation_job]
