"""Jobs and the nightly schedules: the UI, the schedule and CI run the same definitions."""

import dagster as dg

# The code location the UI loads (workspace.yaml, pyproject's [tool.dagster]); the CLI launches runs in it.
DEFINITIONS_MODULE = "edgar_eval.definitions"
DEFINITIONS_ATTRIBUTE = "defs"
CODE_LOCATION = "edgar_eval"
CORPUS_JOB = "corpus_job"
EVALUATION_JOB = "evaluation_job"
EVALUATION_GROUPS = ("index", "golden", "runs", "statistics", "report")


@dg.success_hook(name="print_progress")
def print_progress(context: dg.HookContext) -> None:
    """Each finished step of the evaluation, one line, so the CLI shows progress past the corpus partitions."""
    print(f"  done   {context.op.name}", flush=True)


def build_jobs(partitions: dg.PartitionsDefinition):
    corpus_job = dg.define_asset_job(
        CORPUS_JOB,
        selection=dg.AssetSelection.groups("corpus"),
        description="Parse, chunk and embed one filing partition.",
    )
    evaluation_job = dg.define_asset_job(
        EVALUATION_JOB,
        selection=dg.AssetSelection.groups(*EVALUATION_GROUPS),
        hooks={print_progress},
        description="Index, golden questions, runs, statistics and the report, over every current filing partition.",
    )

    @dg.schedule(
        job=corpus_job,
        cron_schedule="0 2 * * *",
        default_status=dg.DefaultScheduleStatus.STOPPED,
        description="Nightly at 02:00: one corpus run per filing partition. Off by default.",
    )
    def nightly_corpus(context: dg.ScheduleEvaluationContext):
        tick = context.scheduled_execution_time.strftime("%Y-%m-%d")
        for key in partitions.get_partition_keys(dynamic_partitions_store=context.instance):
            yield dg.RunRequest(run_key=f"{key}:{tick}", partition_key=key)

    nightly_evaluation = dg.ScheduleDefinition(
        name="nightly_evaluation",
        job=evaluation_job,
        cron_schedule="0 4 * * *",
        default_status=dg.DefaultScheduleStatus.STOPPED,
        description="Nightly at 04:00, after the corpus runs: the evaluation over every current partition. Off by "
        "default.",
    )
    return [corpus_job, evaluation_job], [nightly_corpus, nightly_evaluation]
