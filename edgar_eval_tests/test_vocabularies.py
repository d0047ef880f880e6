"""The golden builder and the reader share no line-item vocabulary (the instrument must not share a brain with the
system under test). import-linter keeps the two packages independent; these tests catch the rest: a vocabulary moved
into a module both import."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import grimp

import edgar_eval
from edgar_eval.answering import line_item_names
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
    return names | {n.lower() for synonyms in line_item_names.LABEL_SYNONYMS.values() for n in synonyms}


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
