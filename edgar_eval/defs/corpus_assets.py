"""Corpus group: one partition per filing, from bytes to embedded chunks."""


import hashlib
import json

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.adapters.local_corpus import read_manifest
from edgar_eval.corpus.chunking import chunk_filing
from edgar_eval.corpus.fiscal import fiscal_year_of, parse_fiscal_year_end, period_kind
from edgar_eval.corpus.parse import parse_filing
from edgar_eval.defs.common import filing_path, materialize_partitions, parsed_filing, table_head
from edgar_eval.defs.settings import EvalSettings

GROUP = "corpus"


def build_corpus_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    common = dict(group_name=GROUP, partitions_def=partitions, backfill_policy=dg.BackfillPolicy.single_run())

    @dg.asset(code_version="1", description="One filing per partition: its bytes' sha256, who filed which form for which fiscal period. "
              "Fails its partition with the reason when the document is not a readable inline-XBRL filing.", **common)
    def filings(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        manifest = read_manifest(settings.corpus_dir)

        def work(key: str):
            path = filing_path(settings, key)
            data = path.read_bytes()
            parsed = parse_filing(data)
            meta = parsed.meta
            relative = path.relative_to(settings.corpus_dir).as_posix()
            row = {
                "filing_id": key, "path": relative, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                "company": meta.company, "cik": meta.cik, "form": meta.form, "fiscal_year": meta.fiscal_year,
                "fiscal_period": meta.fiscal_period, "period_end": meta.period_end.isoformat(),
                "fiscal_year_end": meta.fiscal_year_end, "filed": manifest.get(relative, {}).get("filed") or None,
            }
            frame = pd.DataFrame([row])
            return frame, {"company": meta.company, "cik": meta.cik, "form": meta.form, "fiscal_year": meta.fiscal_year,
                           "fiscal_period": meta.fiscal_period, "sha256": row["sha256"], "bytes": len(data)}

        return materialize_partitions(context, settings.store(), "filings", work)

    @dg.asset(deps=[filings], code_version="1", description="Clean text of the filing: tables as one Markdown pipe row per line, "
              "hidden iXBRL content dropped, stable offsets, and the page map (page start offset -> printed page number).", **common)
    def filing_text(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, key)
            frame = pd.DataFrame([{
                "filing_id": key, "sha256": sha, "text": parsed.text,
                "page_starts": [p.start for p in parsed.pages], "page_ends": [p.end for p in parsed.pages],
                "printed_pages": [p.printed for p in parsed.pages],
            }])
            printed = sum(p.printed is not None for p in parsed.pages)
            return frame, {"characters": len(parsed.text), "pages": len(parsed.pages), "pages_with_printed_number": printed,
                           "table_rows": parsed.text.count("\n|") + parsed.text.startswith("|")}

        return materialize_partitions(context, settings.store(), "filing_text", work)

    @dg.asset(deps=[filing_text], code_version="1", description="Every ix:nonFraction and ix:nonNumeric fact: value with scale and sign "
              "applied, displayed text, unit, decimals, period, dimensions, fiscal year, and its offset in filing_text.", **common)
    def xbrl_facts(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, key)
            fye = parse_fiscal_year_end(parsed.meta.fiscal_year_end)
            rows = [{
                "filing_id": key, "sha256": sha, "cik": parsed.meta.cik, "concept": f.concept, "value": f.value,
                "text_value": f.text_value, "displayed": f.displayed, "unit": f.unit, "decimals": f.decimals, "scale": f.scale,
                "is_numeric": f.is_numeric,
                "period_start": f.context.period_start.isoformat() if f.context.period_start else None,
                "period_end": f.context.period_end.isoformat(), "period_kind": period_kind(f.context),
                "fiscal_year": fiscal_year_of(f.context.period_end, fye),
                "dimensions": json.dumps(f.context.dimensions) if f.context.dimensions else "",
                "offset": f.offset, "end": f.end,
            } for f in parsed.facts]
            frame = pd.DataFrame(rows)
            numeric = frame[frame.is_numeric & frame.offset.notna()] if len(frame) else frame
            at_offset = sum(parsed.text[int(r.offset):int(r.end)] == r.displayed for r in numeric.itertuples())
            share = at_offset / len(numeric) if len(numeric) else float("nan")
            return frame, {"facts": len(frame), "numeric_facts": int(frame.is_numeric.sum()) if len(frame) else 0,
                           "numeric_displayed_at_offset": float(share),
                           "head": table_head(frame, ["concept", "value", "displayed", "unit", "period_end", "offset"])}

        return materialize_partitions(context, settings.store(), "xbrl_facts", work)

    @dg.asset(deps=[filing_text], code_version="1", description="Sections keyed by part and item, cross-reference stubs flagged "
              "with their target, and the offset where the notes to the financial statements begin.", **common)
    def sections(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, key)
            frame = pd.DataFrame([{
                "filing_id": key, "sha256": sha, "part": s.part, "item": s.item, "key": s.key, "title": s.title,
                "start": s.start, "end": s.end, "cross_reference_target": s.cross_reference_target,
                "notes_start": parsed.notes_start,
            } for s in parsed.sections])
            return frame, {"sections": len(frame), "cross_reference_stubs": int(frame.cross_reference_target.notna().sum()),
                           "notes_start": parsed.notes_start if parsed.notes_start is not None else -1,
                           "head": table_head(frame, ["key", "title", "start", "end", "cross_reference_target"], rows=30)}

        return materialize_partitions(context, settings.store(), "sections", work)

    @dg.asset(deps=[sections], code_version="1", description="Fixed-size character chunks with overlap, each with its section, "
              "the printed pages it spans and its offsets in filing_text.", **common)
    def chunks(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        def work(key: str):
            parsed, sha = parsed_filing(settings, key)
            made = chunk_filing(key, parsed.text, parsed.sections, parsed.pages, settings.chunk_size, settings.chunk_overlap)
            frame = pd.DataFrame([{
                "chunk_id": c.chunk_id, "filing_id": key, "sha256": sha, "index": c.index, "start": c.start, "end": c.end,
                "section": c.section, "pages": list(c.pages), "page_starts": list(c.page_starts), "text": c.text,
            } for c in made])
            return frame, {"chunks": len(frame), "chunk_size": settings.chunk_size, "chunk_overlap": settings.chunk_overlap,
                           "head": table_head(frame, ["chunk_id", "section", "pages", "start", "end"])}

        return materialize_partitions(context, settings.store(), "chunks", work)

    @dg.asset(deps=[chunks], code_version="1", description="An embedding per chunk from the local all-MiniLM-L6-v2 (L2-normalised), "
              "stamped with the index fingerprint: embedder id, normalisation, chunk parameters.", **common)
    def chunk_embeddings(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        embedder = MiniLMEmbedder()
        fingerprint = settings.fingerprint(embedder.embedder_id)
        if settings.chunk_size > embedder.max_characters * 1.25:
            context.log.warning(f"chunks of {settings.chunk_size} characters exceed what {embedder.embedder_id} reads "
                                f"(about {embedder.max_characters}); their tails are never embedded")

        def work(key: str):
            chunk_rows = settings.store().read("chunks", key)
            vectors = embedder.embed(chunk_rows.text.tolist())
            frame = pd.DataFrame({
                "chunk_id": chunk_rows.chunk_id, "filing_id": key, "sha256": chunk_rows.sha256,
                "embedding": [np.asarray(v, dtype=np.float32) for v in vectors], "fingerprint": fingerprint.as_json(),
            })
            return frame, {"chunks_embedded": len(frame), "dimensions": int(vectors.shape[1]) if len(vectors) else 0,
                           "fingerprint": fingerprint.as_json(), "fingerprint_digest": fingerprint.digest}

        return materialize_partitions(context, settings.store(), "chunk_embeddings", work)

    return [filings, filing_text, xbrl_facts, sections, chunks, chunk_embeddings]
