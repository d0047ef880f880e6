"""Calibrate a protocol's exact decision rules once, when it is written: their size at each condition's null boundary
and their power, simulated at the registered corpus's shape and at the fitting corpus's eval split, over a grid of
company heterogeneity that includes the fitting corpus's own estimate.

    .venv/bin/python bench/calibrate_protocol.py protocol/answering-v5.toml data/edgar-wide \\
        --out protocol/answering-v5.calibration.json [--replicates 10000] [--power-replicates 2000]

`data/edgar-wide` is the store of a run of the system under test on the fitting corpus (arm_outcomes and
golden_questions are read from it). The registered shape (`[shape]` in the protocol: companies, 10-Ks, 10-Qs and the
companies holding both) is filled with per-filing question counts drawn (Poisson, seeded) at the fitting corpus's
means per form; the fitting corpus's eval shape is its eval split's own counts per company. Nothing here reads an
outcome of the registered corpus: it has none yet.

Each size is the share of replicates in which the rule rejects at the boundary, for two populations: `fixed` (the
company rates centred so that their question-weighted mean sits on the boundary: the registered claim, about these
companies as fixed strata) and `general` (company rates drawn anew: the claim about companies in general, which the
sensitivity line is about). A rule holds where its fixed-strata size is at most alpha. The file's sha256 goes into the
protocol, and a run never re-chooses a method or level.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import tomllib
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.adapters.parquet_store import ParquetStore
from edgar_eval.evaluation.confirmatory import endpoint_mask
from edgar_eval.evaluation.protocol import Protocol
from edgar_eval.stats.few_clusters import sign_flip_one_sided_p_value
from edgar_eval.stats.fixed_strata import Rejections, simulate_margin_test, simulate_sign_flip

COUNTS = ("answerable", "of_kind", "false_of_kind")  # per filing or company: the questions each condition reads
HETEROGENEITY = (2.0, 4.0, 24.0, 100.0)  # Beta concentrations: 2 very unequal companies, 100 nearly alike


def _read(store: ParquetStore, asset: str) -> pd.DataFrame:
    try:
        return store.read(asset)
    except Exception:  # a sharded asset: its shards read together
        from edgar_eval.defs.shards import read_sharded

        return read_sharded(store, asset)


def per_filing_counts(outcomes: pd.DataFrame, golden: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Per filing of the fitting corpus (all splits: arm A is ungated, so its counts do not depend on the gates'
    fit): its form, the answerable questions, the questions of `kind` and arm A's false answers on them."""
    a = outcomes[outcomes.arm == "A"].merge(
        golden[["question_id", "source_filing_id", "source_form"]], on="question_id", validate="one_to_one"
    )
    a = a.assign(
        answerable=endpoint_mask(a, "answer_accuracy", "").to_numpy(bool),
        of_kind=endpoint_mask(a, "false_answer_rate", kind).to_numpy(bool),
    )
    a["false_of_kind"] = a.of_kind & a.false_answer.astype(bool)
    summed = cast(pd.DataFrame, a.groupby(["source_filing_id", "source_form"])[list(COUNTS)].sum())
    return summed.reset_index().rename(columns={"source_form": "form"})


def registered_shape(shape: dict, filings: pd.DataFrame, seed: int) -> dict[str, list[int]]:
    """The registered corpus's per-company counts: `shape` gives companies, 10-Ks, 10-Qs and how many companies hold
    one of each; the rest hold one filing. Each filing's counts are Poisson draws at the fitting corpus's per-form
    means (seeded)."""
    companies, tens_k, tens_q, both = (int(shape[k]) for k in ("companies", "10-K", "10-Q", "companies_with_both"))
    if tens_k + tens_q - both != companies:
        raise ValueError(f"shape {shape}: 10-Ks + 10-Qs - companies with both must equal the companies")
    layout = [("10-K", "10-Q")] * both + [("10-K",)] * (tens_k - both) + [("10-Q",)] * (tens_q - both)
    means = cast(pd.DataFrame, filings.groupby("form")[list(COUNTS)].mean())
    rng = np.random.default_rng(seed)
    sizes: dict[str, list[int]] = {"answerable": [], "of_kind": [], "false_of_kind": []}
    for forms in layout:
        for column in sizes:
            sizes[column].append(int(sum(rng.poisson(float(means.loc[form, column])) for form in forms)))
    return sizes


def eval_shape(outcomes: pd.DataFrame, kind: str) -> dict[str, list[int]]:
    """The fitting corpus's eval split, per company: answerable questions, questions of `kind`, arm A's false
    answers on them."""
    a = cast(pd.DataFrame, outcomes[(outcomes.arm == "A") & (outcomes.split == "eval")])
    answerable = cast(pd.DataFrame, a[endpoint_mask(a, "answer_accuracy", "").to_numpy(bool)])
    of_kind = cast(pd.DataFrame, a[endpoint_mask(a, "false_answer_rate", kind).to_numpy(bool)])
    companies = sorted(set(answerable.cik) | set(of_kind.cik))
    return {
        "answerable": [int((answerable.cik == c).sum()) for c in companies],
        "of_kind": [int((of_kind.cik == c).sum()) for c in companies],
        "false_of_kind": [int(of_kind[of_kind.cik == c].false_answer.sum()) for c in companies],
    }


def concentration_estimate(events: np.ndarray, trials: np.ndarray) -> float | None:
    """Method-of-moments Beta concentration of per-company rates (companies with two or more trials), the binomial
    noise taken out; None where the rates vary no more than binomial noise would (no heterogeneity to estimate)."""
    keep = trials >= 2
    x, n = events[keep].astype(float), trials[keep].astype(float)
    if len(n) < 3 or n.sum() == 0:
        return None
    p = x.sum() / n.sum()
    if p <= 0 or p >= 1:
        return None
    rates = x / n
    between = float(np.sum(n * (rates - p) ** 2) / (len(n) - 1))  # E = p(1-p)(1 + (n_bar - 1) rho) approx.
    n_bar = (n.sum() - np.sum(n**2) / n.sum()) / (len(n) - 1)
    rho = (between / (p * (1 - p)) - 1) / (n_bar - 1) if n_bar > 1 else 0.0
    if rho <= 0:
        return None
    return float(1 / rho - 1)


def _margin(sizes, truth, margin, direction, alpha, concentration, population, replicates, seed) -> Rejections | None:
    """The exact test at a margin simulated; None where the shape holds no trial."""
    if sum(sizes) < 1:
        return None
    return simulate_margin_test(sizes, truth, margin, direction, alpha, concentration, population, replicates, seed)


def _flip(sizes, truth, discordance, alpha, concentration, population, replicates, seed) -> Rejections | None:
    """The one-sided company sign-flip simulated over the companies holding the kind; None below two of them."""
    held = [s for s in sizes if s > 0]
    if len(held) < 2:
        return None
    return simulate_sign_flip(
        held,
        truth,
        discordance,
        alpha,
        concentration,
        population,
        replicates,
        seed,
        lambda num, den: sign_flip_one_sided_p_value(num, den, 0.0, "lower", 0),
    )


def _size_row(hypothesis, condition, shape, result, alpha, concentration, population) -> dict:
    """One size at a boundary, printed as it is written; a shape too small to simulate is said so."""
    row = {
        "hypothesis": hypothesis,
        "condition": condition,
        "shape": shape,
        "concentration": concentration,
        "population": population,
    }
    if result is None:
        print(
            f"{hypothesis} {condition:12s} {shape:13s} c={concentration:<6g} {population:8s} not simulated: too few "
            "companies or trials",
            file=sys.stderr,
        )
        return {
            **row,
            "test": "",
            "replicates": 0,
            "rejected": 0,
            "size": None,
            "monte_carlo_error": None,
            "holds": True,
        }
    print(
        f"{hypothesis} {condition:12s} {shape:13s} c={concentration:<6g} {population:8s} size "
        f"{100 * result.share:.2f}% ({result.rejected}/{result.replicates})",
        file=sys.stderr,
    )
    return {
        **row,
        "test": result.test,
        "replicates": result.replicates,
        "rejected": result.rejected,
        "size": result.share,
        "monte_carlo_error": round(result.monte_carlo_error, 6),
        "holds": result.share <= alpha,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("protocol", type=Path)
    parser.add_argument("store", type=Path, help="the fitting corpus's table store (data/<corpus>)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--replicates", type=int, default=10_000)
    parser.add_argument("--power-replicates", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=20261206)
    args = parser.parse_args()
    raw = tomllib.loads(args.protocol.read_text())
    protocol = Protocol.from_mapping(raw)
    shape = raw["shape"]
    store = ParquetStore(args.store)
    outcomes, golden = _read(store, "arm_outcomes"), _read(store, "golden_questions")
    alpha = protocol.family_alpha
    started = time.perf_counter()
    kinds = sorted({h.kind for h in protocol.hypotheses})
    report: dict = {
        "protocol": protocol.version,
        "alpha": alpha,
        "replicates": args.replicates,
        "power_replicates": args.power_replicates,
        "seed": args.seed,
        "fitting_store": args.store.name,
        "shapes": {},
        "heterogeneity": {},
        "sizes": [],
        "power": [],
    }
    for kind in kinds:
        filings = per_filing_counts(outcomes, golden, kind)
        report["shapes"][f"registered/{kind}"] = registered_shape(shape, filings, args.seed)
        report["shapes"][f"fitting-eval/{kind}"] = eval_shape(outcomes, kind)
        report["per_form_means"] = {
            form: {c: round(float(v), 4) for c, v in row.items()}
            for form, row in cast(pd.DataFrame, filings.groupby("form")[list(COUNTS)].mean()).iterrows()
        }
    # the fitting corpus's own heterogeneity: each hypothesis's effect and recall cost per company, every company
    by_arm = {arm: g.set_index("question_id").sort_index() for arm, g in outcomes.groupby("arm")}
    estimates = []
    for h in protocol.hypotheses:
        arm, base = by_arm[h.arm], by_arm[h.baseline]
        kind_rows = endpoint_mask(arm, "false_answer_rate", h.kind).to_numpy(bool)
        base_false = base.false_answer.to_numpy(bool) & kind_rows
        withheld = base_false & ~arm.false_answer.to_numpy(bool)
        answerable = endpoint_mask(arm, "answer_accuracy", "").to_numpy(bool)
        lost = answerable & base.correct.to_numpy(bool) & ~arm.correct.to_numpy(bool)
        frame = pd.DataFrame(
            {"cik": arm.cik, "base_false": base_false, "withheld": withheld, "ans": answerable, "lost": lost}
        )
        per = cast(pd.DataFrame, frame.groupby("cik")[["base_false", "withheld", "ans", "lost"]].sum())
        effect_estimate = concentration_estimate(per["withheld"].to_numpy(), per["base_false"].to_numpy())
        recall_estimate = concentration_estimate(per["lost"].to_numpy(), per["ans"].to_numpy())
        report["heterogeneity"][h.id] = {"effect": effect_estimate, "recall_cost": recall_estimate}
        estimates += [e for e in (effect_estimate, recall_estimate) if e is not None]
    registered = float(raw["calibration_design"]["registered_concentration"])
    grid = sorted(set(HETEROGENEITY) | {round(e, 1) for e in estimates} | {registered})
    report["heterogeneity"]["grid"] = grid
    design = raw["calibration_design"]
    discordance = float(design["sign_flip_discordance"])
    for h in protocol.in_sequence():
        for shape_name in ("registered", "fitting-eval"):
            sizes = report["shapes"][f"{shape_name}/{h.kind}"]
            margin = float(h.recall_cost_margin or 0)

            def effect(truth: float, concentration: float, population: str, replicates: int):
                if h.rule == "withheld_share":
                    m = float(h.minimum_effect or 0)
                    return _margin(
                        sizes["false_of_kind"],
                        truth,
                        m,
                        "above",
                        alpha,
                        concentration,
                        population,
                        replicates,
                        args.seed,
                    )
                return _flip(
                    sizes["of_kind"], truth, discordance, alpha, concentration, population, replicates, args.seed
                )

            def recall(truth: float, concentration: float, population: str, replicates: int):
                return _margin(
                    sizes["answerable"], truth, margin, "below", alpha, concentration, population, replicates, args.seed
                )

            boundary = float(h.minimum_effect or 0) if h.rule == "withheld_share" else 0.0
            for concentration in grid:
                # the sign-flip is costly at 10,000 replicates: the registered heterogeneity and the most unequal
                flip_here = h.rule == "withheld_share" or concentration in (min(grid), registered)
                for population in ("fixed", "general"):
                    runs = [("recall cost", recall(margin, concentration, population, args.replicates))]
                    if flip_here:
                        runs.append(("effect", effect(boundary, concentration, population, args.replicates)))
                    for condition, result in runs:
                        report["sizes"].append(
                            _size_row(h.id, condition, shape_name, result, alpha, concentration, population)
                        )
            # power at the registered heterogeneity, fixed strata: each condition that decides
            truths = design["withheld_share_truths"] if h.rule == "withheld_share" else design["sign_flip_truths"]
            for condition, simulate, values in (
                ("recall cost", recall, design["recall_cost_truths"]),
                ("effect", effect, truths),
            ):
                for truth in values:
                    result = simulate(float(truth), registered, "fixed", args.power_replicates)
                    report["power"].append(
                        {
                            "hypothesis": h.id,
                            "condition": condition,
                            "shape": shape_name,
                            "truth": truth,
                            "power": None if result is None else result.share,
                            "replicates": 0 if result is None else result.replicates,
                        }
                    )
    report["fixed_strata_sizes_hold"] = all(r["holds"] for r in report["sizes"] if r["population"] == "fixed")
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    print(f"wrote {args.out} (sha256 {digest}) in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
