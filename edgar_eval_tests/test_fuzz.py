"""Mutated filings: the parser reads each or refuses it with a FilingError; it never crashes, and in
the asset graph a mutant fails only its own partition."""

import random
import re

import dagster as dg
import pytest

from edgar_eval.corpus.parse import parse_filing
from edgar_eval.domain.filings import FilingError

SOURCES = ("hvrn/10k_2025-02-20.htm", "crvd/10q_2023-12-06.htm", "mrbl/8k_2023-11-13.htm", "hvrn/def14a_2025-04-06.htm")


def _mutations(rng: random.Random):
    def truncate(d):
        return d[: rng.randrange(len(d))]

    def cut_middle(d):
        a = rng.randrange(len(d))
        return d[:a] + d[a + rng.randrange(1, 5000) :]

    def insert_noise(d):
        a = rng.randrange(len(d))
        return d[:a] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))) + d[a:]

    def flip_bytes(d):
        b = bytearray(d)
        for _ in range(rng.randrange(1, 40)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)

    def duplicate_slice(d):
        a = rng.randrange(len(d))
        return d[:a] + d[a : a + rng.randrange(1, 3000)] + d[a:]

    def drop_closing_tags(d):
        return re.sub(rb"</(p|td|tr|div)>", b"", d, count=rng.randrange(1, 200))

    def break_attribute(d):
        attribute = rng.choice([b"scale", b"decimals", b"contextRef", b"unitRef", b"format", b"sign", b"name"])
        value = rng.choice([b"x", b"", b"-99", b"ixt:num-unknown", b"c-missing", b"\xff\xfe"])
        return re.sub(attribute + rb'="[^"]*"', attribute + b'="' + value + b'"', d, count=rng.randrange(1, 30))

    def break_context(d):
        return re.sub(
            rb"<xbrli:(startDate|endDate|instant)>[^<]*<",
            rng.choice([b"<xbrli:instant>not-a-date<", b"<xbrli:endDate>2024-13-45<", b"<xbrli:startDate><"]),
            d,
            count=rng.randrange(1, 10),
        )

    def wrong_encoding(d):
        return d.replace(
            b"encoding='utf-8'", rng.choice([b"encoding='utf-16'", b"encoding='ebcdic'", b"encoding=''"]), 1
        )

    def strip_header(d):
        return re.sub(rb"<ix:header>.*?</ix:header>", b"", d, flags=re.S)

    def nest_deep(d):
        depth = rng.randrange(100, 3000)
        return d.replace(b"<body>", b"<body>" + b"<div>" * depth, 1).replace(
            b"</body>", b"</div>" * depth + b"</body>", 1
        )

    return [
        truncate,
        cut_middle,
        insert_noise,
        flip_bytes,
        duplicate_slice,
        drop_closing_tags,
        break_attribute,
        break_context,
        wrong_encoding,
        strip_header,
        nest_deep,
    ]


def _mutants(demo_files, count: int, seed: int):
    rng = random.Random(seed)
    mutations = _mutations(rng)
    for i in range(count):
        source = SOURCES[i % len(SOURCES)]
        mutation = mutations[i % len(mutations)]
        yield f"{mutation.__name__}-{i}", mutation(demo_files[source])


def test_three_hundred_mutants_are_read_or_refused_never_crash(demo_files):
    outcomes = {"parsed": 0, "refused": 0}
    for name, data in _mutants(demo_files, 330, seed=2024):
        try:
            parsed = parse_filing(data)
        except FilingError as exc:
            assert str(exc), name
            outcomes["refused"] += 1
            continue
        outcomes["parsed"] += 1
        for fact in parsed.facts:
            if fact.offset is not None:
                assert parsed.text[fact.offset : fact.end] == fact.displayed, name
        assert all(0 <= s.start <= s.end <= len(parsed.text) for s in parsed.sections), name
    assert outcomes["parsed"] > 30 and outcomes["refused"] > 30, outcomes


@pytest.mark.slow(minutes=0.3)  # materialises graph runs: seconds, not milliseconds
def test_mutants_in_the_graph_fail_only_their_own_partitions(tmp_path, demo_files):
    from edgar_eval.adapters.local_corpus import partition_key
    from edgar_eval.defs.factory import build_definitions
    from edgar_eval.defs.runner import materialise_corpus
    from edgar_eval.defs.settings import EvalSettings

    corpus = tmp_path / "corpus"
    good = "mrbl/8k_2023-11-13.htm"
    (corpus / "mrbl").mkdir(parents=True)
    (corpus / good).write_bytes(demo_files[good])
    (corpus / "mutants").mkdir()
    for name, data in _mutants(demo_files, 22, seed=7):
        (corpus / "mutants" / f"{name}.htm").write_bytes(data)
    settings = EvalSettings(
        corpus_dir=str(corpus),
        corpus_name="fuzz",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )
    defs = build_definitions(settings)
    instance = dg.DagsterInstance.ephemeral()
    good_key = partition_key(good)
    assert materialise_corpus(defs, instance, [good_key]) == {}
    before = {
        asset: settings.store().path(asset, good_key).read_bytes()
        for asset in ("filings", "filing_text", "xbrl_facts", "chunks")
    }

    failed = materialise_corpus(defs, instance)
    assert good_key not in failed
    for key, message in failed.items():
        assert key.startswith("mutants-") and "FilingError" in message, (key, message)
    assert {asset: settings.store().path(asset, good_key).read_bytes() for asset in before} == before
    materialised = instance.get_materialized_partitions(dg.AssetKey("filings"))
    assert good_key in materialised and not (materialised & set(failed))
