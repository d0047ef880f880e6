"""Corpus group: one partition per filing, from bytes to embedded chunks."""

import hashlib
import json

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.adapters.local_corpus import read_manifest
from edgar_eval.corpus.parse import parse_filing
from edgar_eval.corpus.partitioned import PartitionedTable
from edgar_eval.corpus.tables import (
    chunks_frame,
    fact_rejections_frame,
    facts_frame,
    filing_frame,
    numeric_facts_at_offset,
    sections_frame,
    text_frame,
)
from edgar_eval.defs.common import filing_path, materialize_partitions, parsed_filing, table_head
from edgar_eval.defs.corpus.partitions import FILING_DOCUMENTS, FILINGS
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.jobs import CORPUS_AUTOMATION
from edgar_eval.defs.settings import EmbedderResource, EvalSettings


def corpus_asset(description: str, deps: tuple = (), pool: str | None = None):
    """A per-filing asset of the corpus group: one partition per filing, a backfill of many filings in one run (not
    one run per filing), materialised eagerly when its filing or an upstream partition changes. It writes its own
    partitions (materialize_partitions) and reads upstream per-filing tables as `PartitionedTable` inputs."""
    return dg.asset(
        deps=list(deps),
        description=description,
        group_name="corpus",
        partitions_def=FILINGS,
        backfill_policy=dg.BackfillPolicy.single_run(),
        automation_condition=CORPUS_AUTOMATION,
        pool=pool,
    )


def build_corpus_assets() -> list[dg.AssetsDefinition]:
    @corpus_asset(
        "One filing per partition: its bytes' sha256, who filed which form for which fiscal period. "
        "Fails its partition with the reason when the document is not a readable inline-XBRL filing.",
        deps=(FILING_DOCUMENTS,),
    )
    def filings(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        manifest = read_manifest(settings.corpus_dir)

        def work(key: str):
            path = filing_path(settings, key)
            data = path.read_bytes()
            parsed = parse_filing(data)
            relative = path.relative_to(settings.corpus_dir).as_posix()
            frame = filing_frame(
                key,
                relative,
                hashlib.sha256(data).hexdigest(),
                len(data),
                parsed,
                manifest.get(relative, {}).get("filed") or None,
            )
            row = frame.iloc[0]
            return frame, {
                "company": row.company,
                "cik": row.cik,
                "form": row.form,
                "fiscal_year": int(row.fiscal_year),
                "fiscal_period": row.fiscal_period,
                "sha256": row.sha256,
                "bytes": len(data),
                "parse_warnings": "; ".join(parsed.warnings) or "none",
            }

        def file_sha256(key: str) -> str:
            return hashlib.sha256(filing_path(settings, key).read_bytes()).hexdigest()

        def where_and_when(key: str) -> str:
            """The row holds the document's place in its corpus folder and its manifest filing date: a table built
            under another place or date (another corpus's, or before the manifest changed) is not this one."""
            relative = filing_path(settings, key).relative_to(settings.corpus_dir).as_posix()
            return json.dumps([relative, manifest.get(relative, {}).get("filed") or None])

        return materialize_partitions(context, settings.store(), "filings", work, file_sha256, where_and_when)

    @corpus_asset(
        "Clean text of the filing: tables as one Markdown pipe row per line, "
        "hidden iXBRL content dropped, stable offsets, and the page map (page start offset -> printed page number)."
    )
    def filing_text(
        context: dg.AssetExecutionContext, settings: EvalSettings, filings: PartitionedTable
    ) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, filings, key)
            printed = sum(p.printed is not None for p in parsed.pages)
            return text_frame(key, sha, parsed), {
                "characters": len(parsed.text),
                "pages": len(parsed.pages),
                "pages_with_printed_number": printed,
                "table_rows": sum(line.startswith("|") for line in parsed.text.splitlines()),
            }

        return materialize_partitions(
            context,
            settings.store(),
            "filing_text",
            work,
            filings.sha256,
        )

    @corpus_asset(
        "Every ix:nonFraction and ix:nonNumeric fact: value with scale and sign "
        "applied, displayed text, unit, decimals, period, dimensions, fiscal year, and its offset in filing_text. "
        "A fact that cannot be read is not here but in fact_rejections, with its reason."
    )
    def xbrl_facts(
        context: dg.AssetExecutionContext, settings: EvalSettings, filings: PartitionedTable
    ) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, filings, key)
            frame = facts_frame(key, sha, parsed)
            found, located = numeric_facts_at_offset(frame, parsed.text)
            return frame, {
                "facts": len(frame),
                "numeric_facts": int(frame.is_numeric.sum()),
                "numeric_displayed_at_offset": found / located if located else float("nan"),
                "head": table_head(frame, ["concept", "value", "displayed", "unit", "period_end", "offset"]),
            }

        return materialize_partitions(
            context,
            settings.store(),
            "xbrl_facts",
            work,
            filings.sha256,
        )

    @corpus_asset(
        "Every fact the parser could not read (a number word or format it does not know, no digits, an unreadable "
        "scale or context date, a context the document lacks), one row each: concept, fact id, context id, displayed "
        "text (cut short), format and the reason. Such a fact is dropped from xbrl_facts and the filing read without "
        "it; no row when every fact was read."
    )
    def fact_rejections(
        context: dg.AssetExecutionContext, settings: EvalSettings, filings: PartitionedTable
    ) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, filings, key)
            frame = fact_rejections_frame(key, sha, parsed)
            return frame, {
                "facts_dropped": len(frame),
                "head": table_head(frame, ["concept", "fact_id", "context_id", "displayed", "reason"]),
            }

        return materialize_partitions(
            context,
            settings.store(),
            "fact_rejections",
            work,
            filings.sha256,
        )

    @corpus_asset(
        "Sections keyed by part and item, cross-reference stubs flagged "
        "with their target, and the offset where the notes to the financial statements begin."
    )
    def sections(
        context: dg.AssetExecutionContext, settings: EvalSettings, filings: PartitionedTable
    ) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, filings, key)
            frame = sections_frame(key, sha, parsed)
            return frame, {
                "sections": len(frame),
                "cross_reference_stubs": int(frame.cross_reference_target.notna().sum()),
                "notes_start": parsed.notes_start if parsed.notes_start is not None else -1,
                "head": table_head(frame, ["key", "title", "start", "end", "cross_reference_target"], rows=30),
            }

        return materialize_partitions(
            context,
            settings.store(),
            "sections",
            work,
            filings.sha256,
        )

    @corpus_asset(
        "Fixed-size character chunks with overlap, each with its section, "
        "the printed pages it spans and its offsets in filing_text; a chunk that starts inside a table carries the "
        "table's scale line and header rows."
    )
    def chunks(
        context: dg.AssetExecutionContext, settings: EvalSettings, filings: PartitionedTable
    ) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, filings, key)
            frame = chunks_frame(
                key, sha, parsed, settings.chunk_size, settings.chunk_overlap, settings.chunk_table_headers
            )
            return frame, {
                "chunks": len(frame),
                "chunk_size": settings.chunk_size,
                "chunk_overlap": settings.chunk_overlap,
                "head": table_head(frame, ["chunk_id", "section", "pages", "start", "end"]),
            }

        chunking = f"chunks={settings.chunk_size}/{settings.chunk_overlap}/headers={int(settings.chunk_table_headers)}"
        return materialize_partitions(context, settings.store(), "chunks", work, filings.sha256, lambda key: chunking)

    @corpus_asset(
        "An embedding per chunk from the local all-MiniLM-L6-v2 (L2-normalised), "
        "stamped with the index fingerprint: embedder id, normalisation, chunk parameters.",
        pool=MODEL_ENDPOINT_POOL,
    )
    def chunk_embeddings(
        context: dg.AssetExecutionContext,
        settings: EvalSettings,
        embedder: EmbedderResource,
        filings: PartitionedTable,
        chunks: PartitionedTable,
    ) -> dg.MaterializeResult:
        model = embedder.adapter()
        fingerprint = settings.fingerprint(model.embedder_id)
        if settings.chunk_size > model.max_characters * 1.25:
            context.log.warning(
                f"chunks of {settings.chunk_size} characters exceed what {model.embedder_id} reads "
                f"(about {model.max_characters}); their tails are never embedded"
            )

        def work(key: str):
            chunk_rows = chunks.table(key)
            vectors = model.embed(chunk_rows.text.tolist())
            frame = pd.DataFrame(
                {
                    "chunk_id": chunk_rows.chunk_id,
                    "filing_id": key,
                    "sha256": chunk_rows.sha256,
                    "embedding": [np.asarray(v, dtype=np.float32) for v in vectors],
                    "fingerprint": fingerprint.as_json(),
                }
            )
            return frame, {
                "chunks_embedded": len(frame),
                "dimensions": int(vectors.shape[1]) if len(vectors) else 0,
                "fingerprint": fingerprint.as_json(),
                "fingerprint_digest": fingerprint.digest,
            }

        def parameters(key: str) -> str:
            """The index fingerprint and the build of the chunks embedded: rebuilt chunks are embedded again."""
            chunks_build = chunks.table(key).build_key.iloc[0]
            return f"index={fingerprint.digest}:chunks=({chunks_build})"

        return materialize_partitions(context, settings.store(), "chunk_embeddings", work, filings.sha256, parameters)

    return [filings, filing_text, xbrl_facts, fact_rejections, sections, chunks, chunk_embeddings]
