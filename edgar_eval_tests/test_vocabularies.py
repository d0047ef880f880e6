"""The golden builder and the reader share no line-item vocabulary, and the gates read nothing the builder made its
unanswerable twins from (the instrument must not share a brain with the system under test). import-linter keeps the
two packages independent; these tests catch the rest: a vocabulary moved into a module both import, a reader
vocabulary that is the builder's strings (or is keyed by its labels), and a gate asset that reads the tagged facts, the
filings' company names or a golden column the twins were built from."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import types
from collections.abc import Mapping
from types import ModuleType

import dagster as dg
import grimp
import pytest

import edgar_eval
from edgar_eval.answering import line_item_names, table_reader
from edgar_eval.golden.labels import CONCEPT_LABELS

READER = "edgar_eval.answering.table_reader"
BUILDER = "edgar_eval.golden.templates"


def _strings(value, depth: int = 0):
    if isinstance(value, str):
        yield value.lower()
    elif depth < 3 and isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key, depth + 1)
            yield from _strings(item, depth + 1)
    elif depth < 3 and isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            yield from _strings(item, depth + 1)


def _line_item_names() -> set[str]:
    names = {label.lower() for label in CONCEPT_LABELS.values()}
    return names | reader_names(line_item_names)


def vocabulary_held(module: ModuleType, names: set[str], at_least: int = 3) -> list[str]:
    """The line-item names a module's constants hold, when it holds `at_least` of them (a vocabulary), else []."""
    held = sorted({s for value in vars(module).values() for s in _strings(value)} & names)
    return held if len(held) >= at_least else []


def _imported_by(graph: grimp.ImportGraph, module: str) -> set[str]:
    return graph.find_upstream_modules(module) | {module}


def test_no_module_both_the_builder_and_the_reader_import_holds_a_line_item_vocabulary():
    graph = grimp.build_graph("edgar_eval")
    shared = _imported_by(graph, BUILDER) & _imported_by(graph, READER)
    assert shared, "the two share the corpus helpers (figures, company names): the check must see them"
    names = _line_item_names()
    holding = {m: vocabulary_held(importlib.import_module(m), names) for m in sorted(shared)}
    assert not {m: held for m, held in holding.items() if held}


def test_the_check_finds_a_vocabulary_where_one_is_put():
    names = _line_item_names()
    assert vocabulary_held(line_item_names, names)
    planted = ModuleType("planted")
    words = {"capex": ("capital expenditures", "purchases of property and equipment", "capital spending")}
    setattr(planted, "WORDS", words)
    assert vocabulary_held(planted, names) == sorted(words["capex"])


def test_the_reader_imports_nothing_of_the_golden_package_and_the_builder_nothing_of_the_readers():
    graph = grimp.build_graph("edgar_eval")
    reader_side = _imported_by(graph, READER)
    builder_side = _imported_by(graph, BUILDER)
    assert not {m for m in reader_side if m.startswith("edgar_eval.golden")}
    assert not {m for m in builder_side if m.startswith("edgar_eval.answering")}
    # every module of the project was looked at: a new package cannot hide from the check
    assert {m.name for m in pkgutil.iter_modules(edgar_eval.__path__)} >= {"golden", "answering", "corpus"}


# --- the two vocabularies' overlap, as data -------------------------------------------------------------------------

# The builder's hand-written line-item strings live here: labels, absence probes, phrase lists. Read from the modules'
# source (every string constant that is a lower-case phrase of a few words, wherever it stands), so a list another
# change adds to them, or moves inside a function, is counted without this test naming it.
BUILDER_VOCABULARY_MODULES = ("edgar_eval.golden.labels", "edgar_eval.golden.might_answer")
_PHRASE = re.compile(r"[a-z][a-z0-9 ,'()&/.\-]*")

# The share of the reader's names that are builder strings verbatim, at most. Not zero: the builder's labels are plain
# line-item names and filings print many of them as they are ("Total assets", "Goodwill", "Net income"), so some
# overlap is the language, not a copy: 56 of the 326 names (17%) when the reader's groups were written without keys.
# The vocabulary they replaced, keyed by the builder's labels, measured 22% (75 of 335): above 20% the reader's names
# are drifting back to the builder's words.
MAX_VERBATIM_SHARE = 0.20


def builder_strings(modules: tuple[str, ...] = BUILDER_VOCABULARY_MODULES) -> set[str]:
    found = set()
    for name in modules:
        for node in ast.walk(ast.parse(inspect.getsource(importlib.import_module(name)))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.strip().lower()
                if _PHRASE.fullmatch(text) and len(text.split()) <= 8:
                    found.add(text)
    return found


def _constants(module: ModuleType) -> list:
    return [value for name, value in vars(module).items() if not name.startswith("__")]


def reader_names(module: ModuleType) -> set[str]:
    """Every name the reader's vocabulary module holds (keys, groups, lists), lower-case."""
    return {s for value in _constants(module) for s in _strings(value) if s.strip()}


def reader_keys(module: ModuleType) -> set[str]:
    """The string keys of the mappings a reader module holds: a vocabulary keyed by line items."""
    return {
        k.lower() for value in _constants(module) if isinstance(value, Mapping) for k in value if isinstance(k, str)
    }


def verbatim_share(names: set[str], builder: set[str]) -> float:
    return len(names & builder) / len(names) if names else 0.0


def test_the_reader_s_names_are_not_the_builder_s_strings_and_no_builder_label_keys_them():
    builder, labels = builder_strings(), {label.lower() for label in CONCEPT_LABELS.values()}
    assert labels <= builder, "the collector reads the builder's labels from its source"
    names = reader_names(line_item_names)
    assert len(names) > 200, "the collector reads the reader's groups"
    share = verbatim_share(names, builder)
    assert share <= MAX_VERBATIM_SHARE, sorted(names & builder)
    for module in (line_item_names, table_reader):
        assert len(reader_keys(module) & labels) / len(labels) == 0, sorted(reader_keys(module) & labels)


def test_the_overlap_check_fails_on_a_vocabulary_keyed_by_the_builder_s_labels():
    """The vocabulary this one replaced, rebuilt the way it was (a builder label, then the names filings print for
    it): both checks fail on it."""
    labels = sorted({label.lower() for label in CONCEPT_LABELS.values()})
    keyed = ModuleType("keyed")
    setattr(keyed, "LABEL_SYNONYMS", {label: (label, f"{label}s", f"total {label}") for label in labels})
    assert len(reader_keys(keyed) & set(labels)) / len(labels) == 1.0
    assert verbatim_share(reader_names(keyed), builder_strings()) > MAX_VERBATIM_SHARE


# --- what the gates read, on the asset graph ------------------------------------------------------------------------

# The assets that hold the answer key the twins were built from: other-year twins ask a fiscal year the tagged facts
# do not report (xbrl_facts), other-company twins name a company by the filings' registrant names (filings).
ANSWER_KEY_ASSETS = frozenset({"xbrl_facts", "fact_rejections", "filings"})
# The golden_questions columns a gate may read: its text, its company (the folds are by company), its route (the
# label the relevance model and its threshold are fitted on, within dev). Not its fiscal year, kind, concept, label,
# company name or scope, each of which names the twin outright.
GATE_MAY_READ = {"golden_questions": frozenset({"question_id", "question", "cik", "expected_route"})}
GATE_FUNCTIONS = frozenset({"period_guard", "printed_years", "relevance_features"})


@pytest.fixture(scope="module")
def definitions(demo_definitions):
    return demo_definitions


def _names(code: types.CodeType) -> set[str]:
    """The names a function's code uses, with those of the functions defined inside it (a sharded asset's work)."""
    inner = [_names(const) for const in code.co_consts if isinstance(const, types.CodeType)]
    return set(code.co_names).union(*inner)


def gate_assets(defs: dg.Definitions) -> dict[str, dg.AssetsDefinition]:
    """The assets whose compute function calls a gate (the period guard, its year reader, the relevance features),
    itself or in a function it defines."""
    found = {}
    for assets in defs.assets or []:
        if isinstance(assets, dg.AssetsDefinition) and assets.is_executable:
            if GATE_FUNCTIONS & _names(assets.op.compute_fn.decorated_fn.__code__):
                found[assets.op.name] = assets
    return found


def gate_reads(assets: dg.AssetsDefinition) -> dict[str, list[str] | None]:
    """Each input asset of a gate asset and the columns it declares it reads (None: the whole table)."""
    columns = {d.name: (d.metadata or {}).get("columns") for d in assets.op.input_defs}
    return {key.to_user_string(): columns.get(name) for name, key in assets.keys_by_input_name.items()}


def answer_key_reads(reads: dict[str, list[str] | None]) -> list[str]:
    found = sorted(ANSWER_KEY_ASSETS & set(reads))
    for asset, allowed in GATE_MAY_READ.items():
        if asset in reads:
            declared = reads[asset]
            found += (
                [f"{asset} (every column)"]
                if declared is None
                else [f"{asset}.{c}" for c in declared if c not in allowed]
            )
    return found


def test_the_gates_read_no_tagged_fact_no_company_name_and_no_golden_column_the_twins_came_from(definitions):
    gates = gate_assets(definitions)
    assert "gate_features" in gates, "the gates' features are found though a sharded asset computes them in its work"
    for name, assets in gates.items():
        assert not answer_key_reads(gate_reads(assets)), name


def test_the_gate_read_check_fails_when_an_answer_key_input_is_added(definitions):
    reads = gate_reads(gate_assets(definitions)["gate_features"])
    assert answer_key_reads({**reads, "xbrl_facts": None}) == ["xbrl_facts"]
    assert answer_key_reads({**reads, "filings": ["filing_id", "company"]}) == ["filings"]
    widened = {**reads, "golden_questions": [*(reads["golden_questions"] or []), "fiscal_year"]}
    assert answer_key_reads(widened) == ["golden_questions.fiscal_year"]
    assert answer_key_reads({**reads, "golden_questions": None}) == ["golden_questions (every column)"]


def test_the_gate_modules_import_no_name_resolver_and_no_fact_reader():
    graph = grimp.build_graph("edgar_eval")
    for gate in ("edgar_eval.answering.relevance", "edgar_eval.answering.period_guard"):
        imported = graph.find_upstream_modules(gate)
        assert not imported & {"edgar_eval.corpus.company_names", "edgar_eval.corpus.ixbrl", "edgar_eval.corpus.fiscal"}
