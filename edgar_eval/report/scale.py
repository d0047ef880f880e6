"""Measured scale: how each stage's cost grows with the number of filings, fitted from cold runs of synthetic corpora
of about 30, 100 and 300 filings (bench/scale.py measures them and writes reports/scale.json), and a 10,000-filing
night on paper from those fits; `edgar-eval readme` prints it in docs/deployment.md, and a test fails on drift.

The synthetic filings are small (the demo's, about 60 KB), so their corpus steps say how a step grows with the count
of filings, not what a real filing of 2 MB costs to embed: the night's corpus work is the real corpus's measured
seconds per megabyte (reports/nightly_cost.json). The evaluation's growth is the synthetic runs' exponent, anchored
at the real corpus's measured evaluation run, but for the corpus search scope, whose searches read every chunk: its
cost per question is measured on copies of the real index (bench/corpus_scope.py, reports/corpus_scope_cost.json) and
held in place of the share the linear growth gives it. The targets are issue 33's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from edgar_eval.evaluation.shards import COMPANY_SHARDS
from edgar_eval.report.nightly_cost import Measured, estimate, workers_within_hour

START = "<!-- scale:start (edgar-eval readme writes this block from reports/scale.json) -->"
END = "<!-- scale:end -->"
NIGHT_FILINGS = 10_000
NIGHT_COMPANIES = 500  # the night's filings are about the S&P 500's 10-Ks and 10-Qs over five years: 20 a company
CHANGED_SHARE = 0.01  # the incremental night: 1% of the filings changed
HOUR = 3600.0
TARGETS = {  # issue 33's, in seconds
    "incremental night, one worker": 15 * 60.0,
    "warm re-run, nothing changed": 5.0,
    "one filing changed": 60.0,
}
EVALUATION, CORPUS = "evaluation", "corpus"
EMBEDDING_STEP = "chunk_embeddings"


@dataclass(frozen=True)
class ScaleRun:
    """One cold run of a synthetic corpus, and on one worker the re-runs after it."""

    size: int  # as asked (about)
    filings: int
    workers: int
    wall_seconds: float
    stage_seconds: dict[str, float]  # "corpus: <step>" summed over the filing runs, "evaluation: <step>"
    warm_seconds: float | None = None  # the same command again, nothing changed
    one_changed_seconds: float | None = None  # again after one filing's bytes changed
    one_changed_stage_seconds: dict[str, float] | None = None  # the steps that one-filing night ran, as stage_seconds
    # each sharded step's shards written and kept that night, and (measured since per-question reuse) the questions
    # it measured again in the shards it wrote
    one_changed_shards: dict[str, list[int]] | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScaleRun:
        return cls(**data)

    def job_seconds(self, job: str) -> float:
        return sum(s for stage, s in self.stage_seconds.items() if stage.startswith(f"{job}:"))


def power_fit(points: list[tuple[float, float]]) -> tuple[float, float] | None:
    """Least squares on logs: seconds = a * filings ** b, from (filings, seconds) points with positive seconds; None
    with fewer than two sizes."""
    usable = [(math.log(n), math.log(s)) for n, s in points if n > 0 and s > 0]
    if len({x for x, _ in usable}) < 2:
        return None
    mean_x = sum(x for x, _ in usable) / len(usable)
    mean_y = sum(y for _, y in usable) / len(usable)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in usable) / sum((x - mean_x) ** 2 for x, _ in usable)
    return math.exp(mean_y - slope * mean_x), slope


def fits(runs: list[ScaleRun], workers: int) -> dict[str, tuple[float, float]]:
    """Each stage's power fit over the sizes measured with `workers`, and the jobs' and the wall's."""
    own = [r for r in runs if r.workers == workers]
    found = {}
    for stage in sorted({stage for r in own for stage in r.stage_seconds}):
        fit = power_fit([(r.filings, r.stage_seconds.get(stage, 0.0)) for r in own])
        if fit is not None:
            found[stage] = fit
    for name, seconds in (
        (CORPUS, lambda r: r.job_seconds(CORPUS)),
        (EVALUATION, lambda r: r.job_seconds(EVALUATION)),
        ("wall", lambda r: r.wall_seconds),
    ):
        fit = power_fit([(r.filings, seconds(r)) for r in own])
        if fit is not None:
            found[name] = fit
    return found


def at(fit: tuple[float, float], filings: float) -> float:
    a, b = fit
    return a * filings**b


@dataclass(frozen=True)
class CorpusScopeCost:
    """What one question searched in the corpus scope costs at several sizes of one corpus's index (copies of its
    filings; bench/corpus_scope.py writes it to reports/corpus_scope_cost.json), so the seconds grow with the index:
    every retriever at every depth (the measurement and the retrieval noise band), and the answerer's retriever at the
    rerank cuts' candidate depths (the rerank noise band)."""

    corpus: str
    machine: str
    filings: int
    chunks: int
    dimensions: int  # of a chunk's embedding
    golden_questions: int
    fair_questions: int  # answerable and fair in the corpus scope: what it measures, up to corpus_scope_questions
    questions_timed: int
    depths: list[int]
    retrievers: list[str]
    answer_retriever: str
    rerank_depths: list[int]
    noise_searched: int  # corpus-scope questions the measured run's retrieval noise replicas searched, together
    rerank_noise_searched: int  # and its rerank noise replicas
    corpus_scope_questions: int  # the settings' defaults when measured
    noise_questions: int
    noise_replicas: int
    sizes: list[dict[str, float]]  # copies, filings, chunks, seconds and answer_seconds (per question)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CorpusScopeCost:
        return cls(**data)

    def fit(self, column: str = "seconds") -> tuple[float, float] | None:
        """Seconds per question = a * chunks ** b: every search ("seconds"), or the rerank band's ("answer_seconds")."""
        return power_fit([(size["chunks"], size[column]) for size in self.sizes])

    def measured(self, column: str = "seconds") -> float:
        """Per question over the corpus's own index (one copy)."""
        return next(size[column] for size in self.sizes if size["copies"] == 1)

    def questions(self, filings: float, capped: bool = True) -> tuple[float, float]:
        """The corpus scope's questions at `filings` filings (the fair ones grow with the filings): those every search
        reads (the measurement's, its sample when `capped`, and each retrieval noise replica's), and those the rerank
        band's replicas search again. A replica searches the fair questions of the noise sample (they nest in the
        measurement's); at the night's size the few companies it leaves out are a negligible part of them."""
        grown = filings / self.filings
        fair, golden = self.fair_questions * grown, self.golden_questions * grown
        measured = min(fair, self.corpus_scope_questions) if capped else fair
        per_replica = min(min(golden, self.noise_questions) * self.fair_questions / self.golden_questions, measured)
        return measured + self.noise_replicas * per_replica, self.noise_replicas * per_replica


@dataclass(frozen=True)
class CorpusScopeNight:
    """The corpus scope at the night's size, on one worker."""

    chunks: float
    seconds_per_question: float  # every search of one question
    sampled_seconds: float  # its questions capped by corpus_scope_questions, with the noise replicas'
    every_question_seconds: float  # had every fair question been measured
    measured_run_seconds: float  # what it took in the real run the evaluation's estimate grows


def corpus_scope_night(cost: CorpusScopeCost, filings: int) -> CorpusScopeNight | None:
    every, answer = cost.fit(), cost.fit("answer_seconds")
    if every is None or answer is None:
        return None
    chunks = cost.chunks / cost.filings * filings

    def seconds(questions: tuple[float, float]) -> float:
        return questions[0] * at(every, chunks) + questions[1] * at(answer, chunks)

    return CorpusScopeNight(
        chunks=chunks,
        seconds_per_question=at(every, chunks),
        sampled_seconds=seconds(cost.questions(filings)),
        every_question_seconds=seconds(cost.questions(filings, capped=False)),
        measured_run_seconds=cost.measured() * (cost.fair_questions + cost.noise_searched)
        + cost.measured("answer_seconds") * cost.rerank_noise_searched,
    )


@dataclass(frozen=True)
class Night:
    filings: int
    corpus_worker_seconds: float  # every filing parsed, chunked and embedded once (real filings' megabytes)
    evaluation_seconds: float  # one evaluation run over all of them, one worker
    evaluation_exponent: float  # seconds grow as filings ** this: the fitted one, or 1 where the fit is below 1
    fitted_exponent: float  # as fitted on the synthetic runs, one worker
    incremental_seconds: float  # 1% of filings changed: their corpus work and the evaluation they make stale
    one_changed_seconds: float  # one filing changed: its corpus work and the evaluation it makes stale
    sharded_share: float  # of the evaluation's seconds at the night's size, the company shards' (from the fits)
    # the share of the sharded steps' work that 1% of the filings changed makes again (expected): the questions of the
    # companies they touch where the measured night re-measured question by question, else the shards they touch
    incremental_stale_share: float
    per_question: bool  # whether the measured night re-measured question by question (its counts recorded)
    full_workers: int | None  # workers that bring a full re-run under an hour; None: no number does
    speedup: float | None  # one worker's wall over two workers' at the largest size both measured; None: not measured
    speedup_filings: int | None  # that size
    real_evaluation_seconds: float  # the real run's, measured
    linear_evaluation_seconds: float  # the real run grown as filings ** evaluation_exponent, every step alike
    corpus_scope: CorpusScopeNight | None  # measured on its own (evaluation_seconds holds it in place of its share)


def night(
    runs: list[ScaleRun], real: Measured, filings: int = NIGHT_FILINGS, corpus_scope: CorpusScopeCost | None = None
) -> Night | None:
    """The night on paper; None without two sizes on one worker. With the corpus scope's measured cost, the
    evaluation holds it as measured (its seconds per question grow with the index) in place of the share the real
    run's linear growth gives it."""
    one = fits(runs, 1)
    if EVALUATION not in one:
        return None
    fitted = one[EVALUATION][1]
    # A fit below 1 says each step's fixed start-up still counts at a few hundred filings; at 10,000 every question's
    # work (retrieval, reading, judging, the noise bands' index) grows with the questions, so no less than linearly.
    exponent = max(fitted, 1.0)
    anchored = estimate(real, filings)  # corpus work scaled by real megabytes
    corpus = anchored.corpus_worker_hours * HOUR
    growth = (filings / real.filings) ** exponent
    linear = real.evaluation_seconds * growth
    scope = corpus_scope_night(corpus_scope, filings) if corpus_scope is not None else None
    # the corpus scope's part of the real run grows as every step does in `linear`: held as measured on its own instead
    evaluation = linear if scope is None else linear - scope.measured_run_seconds * growth + scope.sampled_seconds
    sharded = sharded_share(runs, filings)
    per_question = measured_per_question(runs)
    stale_share = stale_question_share if per_question else stale_shard_share
    stale = stale_share(filings * CHANGED_SHARE)
    # the corpus scope is a shard of its own that every night measures again; of the rest, the company shards' part
    # is made again only where a changed filing's company is, and every other step again whole
    always = scope.sampled_seconds if scope is not None else 0.0

    def evaluated(stale_shards: float) -> float:
        return (evaluation - always) * (1 - sharded + sharded * stale_shards) + always

    incremental = corpus * CHANGED_SHARE + evaluated(stale)
    both = {r.filings for r in runs if r.workers == 1} & {r.filings for r in runs if r.workers == 2}
    speedup = None
    if both:  # at the largest size measured on one worker and on two
        wall = {r.workers: r.wall_seconds for r in runs if r.filings == max(both)}
        speedup = wall[1] / wall[2]
    return Night(
        filings=filings,
        corpus_worker_seconds=corpus,
        evaluation_seconds=evaluation,
        evaluation_exponent=exponent,
        fitted_exponent=fitted,
        incremental_seconds=incremental,
        one_changed_seconds=corpus / filings + evaluated(stale_share(1)),
        sharded_share=sharded,
        incremental_stale_share=stale,
        per_question=per_question,
        full_workers=workers_within_hour(corpus, evaluation),
        speedup=speedup,
        speedup_filings=max(both) if both else None,
        real_evaluation_seconds=real.evaluation_seconds,
        linear_evaluation_seconds=linear,
        corpus_scope=scope,
    )


def changed_night(runs: list[ScaleRun]) -> ScaleRun | None:
    """The largest one-worker run whose one-filing night was measured step by step."""
    measured = [r for r in runs if r.workers == 1 and r.one_changed_shards is not None]
    return max(measured, key=lambda r: r.filings) if measured else None


def sharded_share(runs: list[ScaleRun], filings: float) -> float:
    """Of the evaluation's step seconds at `filings` (each stage's fit, one worker), the share of the steps sharded by
    company (those the measured one-filing night names as sharded); 0 where no night was measured step by step, so the
    night on paper makes the whole evaluation again, as it did before the shards were company-local."""
    night = changed_night(runs)
    one = fits(runs, 1)
    stages = {stage: at(fit, filings) for stage, fit in one.items() if stage.startswith(f"{EVALUATION}:")}
    if night is None or not stages:
        return 0.0
    sharded = {f"{EVALUATION}: {asset}" for asset in night.one_changed_shards or {}}
    return sum(seconds for stage, seconds in stages.items() if stage in sharded) / sum(stages.values())


def measured_per_question(runs: list[ScaleRun]) -> bool:
    """Whether the measured one-filing night re-measured the sharded steps question by question: it recorded the
    questions each step measured again (a night measured before per-question reuse made every stale shard whole)."""
    night = changed_night(runs)
    shards = night.one_changed_shards if night is not None else None
    return bool(shards) and all(len(made) >= 3 for made in (shards or {}).values())


def touched_companies(changed_filings: float, companies: int = NIGHT_COMPANIES) -> float:
    """The expected number of companies that changed filings touch, each filing of a company drawn at random."""
    return companies * (1 - (1 - 1 / companies) ** changed_filings)


def stale_shard_share(changed_filings: float, companies: int = NIGHT_COMPANIES) -> float:
    """The expected share of the company shards that changed filings make stale: the companies they touch, each in
    one of the fixed shards (evaluation/shards.py). What a step that makes a stale shard whole makes again."""
    return 1 - (1 - 1 / len(COMPANY_SHARDS)) ** touched_companies(changed_filings, companies)


def stale_question_share(changed_filings: float, companies: int = NIGHT_COMPANIES) -> float:
    """The expected share of the company shards' questions that changed filings make stale: those of the companies
    they touch (a question is stamped with the versions of the companies it searches), the questions spread evenly
    over the companies. What a step that re-measures a shard question by question makes again; a two-document
    question that reads a second company's filings is stale with either, which this leaves out (a few per cent of
    the questions)."""
    return touched_companies(changed_filings, companies) / companies


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 2 * HOUR:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / HOUR:.1f} h"


def _met(seconds: float | None, target: float) -> str:
    if seconds is None:
        return "not measured"
    return "met" if seconds <= target else f"not met ({_duration(seconds)} against {_duration(target)})"


def scale_lines(runs: list[ScaleRun], real: Measured, corpus_scope: CorpusScopeCost | None = None) -> list[str]:
    """The measurement, the fits and the night, as docs/deployment.md and the bench print them."""
    lines = [
        "| filings | workers | cold run (wall) | corpus steps | evaluation steps | warm re-run | one filing changed |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in sorted(runs, key=lambda r: (r.filings, r.workers)):
        warm = "" if r.warm_seconds is None else _duration(r.warm_seconds)
        changed = "" if r.one_changed_seconds is None else _duration(r.one_changed_seconds)
        lines.append(
            f"| {r.filings} | {r.workers} | {_duration(r.wall_seconds)} | {_duration(r.job_seconds(CORPUS))} | "
            f"{_duration(r.job_seconds(EVALUATION))} | {warm} | {changed} |"
        )
    one = fits(runs, 1)
    if one:
        ranked = sorted((s for s in one if ":" in s), key=lambda s: (-at(one[s], NIGHT_FILINGS), s))
        lines += [
            "",
            "Fitted on one worker, seconds = a x filings ^ b (b = 1: each filing costs the same; b > 1: a filing costs "
            "more the more there are). The jobs, and the five stages that cost most at 10,000 synthetic filings:",
            "",
            "| stage | a | b | at 10,000 synthetic filings |",
            "|---|---|---|---|",
        ]
        for stage in [CORPUS, EVALUATION, *ranked[:5]]:
            if stage in one:
                a, b = one[stage]
                lines.append(f"| {stage} | {a:.3g} | {b:.2f} | {_duration(at(one[stage], NIGHT_FILINGS))} |")
    paper = night(runs, real, corpus_scope=corpus_scope)
    if paper is None:
        return [*lines, "", "Fewer than two sizes measured on one worker: no night on paper."]
    warm = max((r.warm_seconds for r in runs if r.warm_seconds is not None), default=None)
    changed = [r for r in runs if r.one_changed_seconds is not None]
    changed_at = max(changed, key=lambda r: r.filings).one_changed_seconds if changed else None
    changed_10k = paper.one_changed_seconds if changed_at is not None else None
    full = (
        f"{paper.full_workers} workers like this machine"
        if paper.full_workers is not None
        else "no number of workers (the evaluation alone is longer)"
    )
    lines += [
        "",
        f"The night on paper, {paper.filings:,} real filings: corpus work {_duration(paper.corpus_worker_seconds)} "
        f"of one worker (the shared corpus's seconds per megabyte), divided among workers; the evaluation, one "
        f"unpartitioned run, grows as filings ^ {paper.evaluation_exponent:.2f}"
        + (
            f" (fitted {paper.fitted_exponent:.2f} on the synthetic runs, below 1 while each step's fixed start-up "
            "still counts; taken as 1, since every question's work grows with the questions)"
            if paper.fitted_exponent < paper.evaluation_exponent
            else ""
        )
        + f", anchored at the shared corpus's "
        f"{real.evaluation_seconds:.0f} s for {real.filings} filings: {_duration(paper.linear_evaluation_seconds)} on "
        "one worker"
        + (
            "."
            if corpus_scope is None or paper.corpus_scope is None
            else f", every step grown alike; {_corpus_scope_words(corpus_scope, paper)}"
        )
        + " "
        + (
            f"Two workers ran the {paper.speedup_filings}-filing corpus {paper.speedup:.2f} times as fast as one (the "
            "workers below assume the ideal split of the corpus work, 2.0 for two)."
            if paper.speedup is not None
            else "Two workers were not measured."
        ),
        "",
        "| target (issue 33) | on paper at 10,000 filings, or measured | verdict |",
        "|---|---|---|",
        f"| incremental night, 1% changed, one worker: under 15 min | {_duration(paper.incremental_seconds)} | "
        f"{_met(paper.incremental_seconds, TARGETS['incremental night, one worker'])} |",
        f"| full re-run under an hour | {full} | "
        + ("met with that many workers" if paper.full_workers is not None else "not met: the evaluation is one run")
        + " |",
        f"| warm re-run, nothing changed: under 5 s | {'' if warm is None else _duration(warm)} (measured, largest) | "
        f"{_met(warm, TARGETS['warm re-run, nothing changed'])} |",
        "| one filing changed, its partition and the report: under 60 s | "
        + ("" if changed_10k is None else f"{_duration(changed_10k)} at 10,000; {_duration(changed_at or 0)} measured")
        + f" | {_met(changed_10k, TARGETS['one filing changed'])} |",
        "",
        *_changed_night_lines(runs, paper),
        "",
        _incremental_floor(paper, real),
    ]
    return lines


def _changed_night_lines(runs: list[ScaleRun], paper: Night) -> list[str]:
    """What the measured one-filing night ran, and what that makes of the nights on paper."""
    night = changed_night(runs)
    if night is None or night.one_changed_stage_seconds is None or night.one_changed_shards is None:
        return [
            "The one-filing night was not measured step by step: the night on paper makes the whole evaluation "
            "again for any change."
        ]
    steps = night.one_changed_stage_seconds
    corpus = sum(seconds for stage, seconds in steps.items() if stage.startswith(f"{CORPUS}:"))
    sharded = {f"{EVALUATION}: {asset}": made for asset, made in night.one_changed_shards.items()}
    whole = {
        stage: seconds for stage, seconds in steps.items() if stage.startswith(EVALUATION) and stage not in sharded
    }
    lines = [
        f"What the one-filing night ran at {night.filings} filings (one worker, "
        f"{_duration(night.one_changed_seconds or 0)} in all): the changed filing's corpus steps, "
        f"{_duration(corpus)}; each step sharded by company made again only the shards whose inputs moved (the "
        "changed company's, those holding another company's two-document questions that may read its filings, and "
        "the corpus scope's, which reads every filing), and in each the questions whose inputs moved:",
        "",
        "| step | shards made again | kept | questions measured again | seconds |",
        "|---|---|---|---|---|",
    ]
    for stage, (written, kept, *questions) in sorted(sharded.items()):
        measured = str(questions[0]) if questions else "not recorded"
        lines.append(f"| {stage.split(': ', 1)[1]} | {written} | {kept} | {measured} | {steps.get(stage, 0.0):.1f} |")
    heaviest = sorted(whole.items(), key=lambda item: (-item[1], item[0]))
    changed = paper.filings * CHANGED_SHARE
    lines += [
        "",
        f"The {len(whole)} evaluation steps that are not sharded ran again whole, {_duration(sum(whole.values()))} "
        "together; the five longest: "
        + ", ".join(f"{stage.split(': ', 1)[1]} {seconds:.1f} s" for stage, seconds in heaviest[:5])
        + ".",
        "",
        f"On paper at {paper.filings:,} filings the sharded steps are {paper.sharded_share:.0%} of the evaluation's "
        "seconds (the stages' fits). "
        + (
            "They re-measure a stale shard question by question, so a night makes again the questions of the "
            f"companies its changed filings touch: one filing, one company of about {NIGHT_COMPANIES}; 1% changed "
            f"({changed:,.0f} filings), about {touched_companies(changed):.0f} companies, "
            f"{paper.incremental_stale_share:.1%} of the questions (were stale shards made whole, "
            f"{stale_shard_share(changed):.1%} of the work: the shards are fixed groups of companies, and a night "
            "that touches many companies touches nearly every group). Each step's own start-up, which the one-filing "
            "night above shows as a second or two per step, is left out. "
            if paper.per_question
            else f"One filing changed makes one of the {len(COMPANY_SHARDS)} company shards stale, and 1% changed "
            f"({changed:,.0f} filings of about {NIGHT_COMPANIES} companies) {paper.incremental_stale_share:.1%} of "
            "them: the shards are fixed groups of companies, so a night that touches many companies touches nearly "
            "every group. "
        )
        + "The steps that are not sharded (the golden builder, the question embeddings, the gates' fit, the "
        "statistics) run whole every night, and the corpus scope's sample is measured again whenever any filing "
        "changes, since its searches read every filing." + _incremental_parts(paper),
    ]
    return lines


def _incremental_parts(paper: Night) -> str:
    """The incremental night on paper, part by part, where the corpus scope was measured on its own."""
    scope = paper.corpus_scope
    if scope is None:
        return ""
    rest = paper.evaluation_seconds - scope.sampled_seconds
    unsharded = rest * (1 - paper.sharded_share)
    sharded = rest * paper.sharded_share * paper.incremental_stale_share
    corpus = paper.incremental_seconds - scope.sampled_seconds - unsharded - sharded
    return (
        f" The incremental night on paper, {_duration(paper.incremental_seconds)}, is: the corpus scope's sample "
        f"{_duration(scope.sampled_seconds)}, the steps that are not sharded {_duration(unsharded)}, the sharded "
        f"steps' stale part {_duration(sharded)}, and the changed filings' corpus work {_duration(corpus)}."
    )


def _corpus_scope_words(cost: CorpusScopeCost, paper: Night) -> str:
    """How the corpus scope grows, measured on its own, and the evaluation on paper that holds it."""
    scope = paper.corpus_scope
    fit = cost.fit()
    assert scope is not None and fit is not None
    largest = max(cost.sizes, key=lambda size: size["copies"])
    grown = paper.filings / cost.filings
    replicas = cost.questions(paper.filings)[1] / cost.noise_replicas if cost.noise_replicas else 0.0
    share = scope.measured_run_seconds * paper.linear_evaluation_seconds / paper.real_evaluation_seconds
    vectors = scope.chunks * cost.dimensions * 4 / 1e9  # float32
    return (
        "but each search of the corpus scope reads every chunk, so a question there costs more the larger the corpus. "
        f"Measured on its own (bench/corpus_scope.py, on {cost.machine}): a question searched there by the "
        f"{len(cost.retrievers)} retrievers at depths {', '.join(map(str, cost.depths))} took "
        f"{cost.measured() * 1000:.1f} ms over the {cost.corpus} corpus's {cost.chunks:,} chunks and "
        f"{largest['seconds'] * 1000:.0f} ms over {largest['copies']:.0f} copies of it ({largest['chunks']:,.0f} "
        f"chunks), seconds = {fit[0]:.3g} x chunks ^ {fit[1]:.2f}; extrapolated "
        f"{scope.chunks / largest['chunks']:.1f} times past the largest size measured, {scope.seconds_per_question:.2f}"
        f" s at {paper.filings:,} filings ({scope.chunks / 1e6:.1f} million chunks, {vectors:.1f} GB of vectors in a "
        "dense index, and as much again in each noise replica's). The measurement, each of the "
        f"{cost.noise_replicas} retrieval noise replicas ({replicas:,.0f} questions each at that size) and each rerank "
        f"noise replica (the {cost.answer_retriever} retriever again at depths "
        f"{', '.join(map(str, cost.rerank_depths))}) search it: on every question fair there "
        f"({cost.fair_questions * grown:,.0f}) they would take {_duration(scope.every_question_seconds)}; on its "
        f"seeded sample (corpus_scope_questions, {cost.corpus_scope_questions:,}) {_duration(scope.sampled_seconds)}, "
        "where "
        f"the growth above counts {_duration(share)} for it ({scope.measured_run_seconds:.1f} s of the measured run): "
        f"the evaluation on paper, {_duration(paper.evaluation_seconds)} on one worker."
    )


def _incremental_floor(paper: Night, real: Measured) -> str:
    """What the incremental night would take with an evaluation that re-measured only the changed companies: the
    changed filings' corpus work, which no design of the evaluation removes."""
    floor = paper.corpus_worker_seconds * CHANGED_SHARE
    target = TARGETS["incremental night, one worker"]
    steps = sum(real.corpus_step_seconds.values())
    embedding = real.corpus_step_seconds.get(EMBEDDING_STEP, 0.0)
    share = (
        f" (embedding is {embedding / steps:.0%} of the corpus steps' time on the {real.corpus} corpus)"
        if steps
        else ""
    )
    if floor <= target:
        return (
            "Even an evaluation that re-measured only the companies whose filings changed would leave the incremental "
            f"night the changed filings' own corpus work: {CHANGED_SHARE:.0%} of it, {_duration(floor)} of one "
            f"worker{share}, within the {_duration(target)} target: what the night lacks is the evaluation's."
        )
    measured = (
        f"; two workers measured {paper.speedup:.2f} times as fast as one, which leaves "
        f"{_duration(floor / paper.speedup)}"
        if paper.speedup is not None
        else ""
    )
    return (
        "Even an evaluation that re-measured only the companies whose filings changed would leave the incremental "
        f"night the changed filings' own corpus work: {CHANGED_SHARE:.0%} of it, {_duration(floor)} of one worker"
        f"{share}, "
        f"above the {_duration(target)} target by itself. One worker cannot meet it with this corpus pipeline; split "
        f"ideally, {math.ceil(floor / target)} workers would{measured}."
    )


def readme_block(runs: list[ScaleRun], real: Measured, corpus_scope: CorpusScopeCost | None = None) -> str:
    return "\n".join([START, "", *scale_lines(runs, real, corpus_scope), "", END])
