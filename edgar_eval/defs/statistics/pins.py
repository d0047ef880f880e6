"""What a run is, by content, for a protocol's pins (v5): the corpus's manifest sha256, the system under test, the
code versions of the assets that build the golden questions, the generations and the gates, the frozen gates file's
sha256 and a digest of the settings that can move a figure.

A protocol that pins these decides only for a run whose values all match; elsewhere its rows are exploratory, naming
the pins that differ. The code versions are the assets' own (`code_versions`: a hash of the code each asset reaches,
found from its syntax), so an edit that cannot move what an asset computes (a comment, a docstring) leaves the pin.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import dagster as dg

from edgar_eval.adapters.local_corpus import MANIFEST_FILE
from edgar_eval.defs.run_tags import SYSTEM_TAGS
from edgar_eval.defs.settings import LOCATION_FIELDS, EmbedderResource, EvalSettings, GeneratorResource
from edgar_eval.defs.source_files import POLICY_FILES, REVIEW_FILES

# The assets whose code versions stand for the golden rules, the system under test, the gates and the decision rules
# (arm_comparisons reaches evaluation/exact_decisions.py and the tests it calls). The gates are two assets: the
# features each question is scored on (gate_features) and the thresholds' fit (abstention_scores).
PINNED_ASSETS: dict[str, tuple[str, ...]] = {
    "golden_code": ("golden_questions",),
    "generator_code": ("generations",),
    "gates_code": ("gate_features", "abstention_scores"),
    "decision_code": ("arm_comparisons",),
}
# Settings that say where things are, which protocol a run reads, or whether model calls are recorded or replayed (a
# replay gives the recorded run's figures): none moves a figure of the run.
UNPINNED_SETTINGS = frozenset(LOCATION_FIELDS) | {"protocol", "tape_mode"}


def file_sha256(path: Path | None) -> str:
    """The file's sha256, or "" when there is none."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path is not None and path.is_file() else ""


def settings_digest(settings: EvalSettings) -> str:
    """The sha256 of every setting but where things are kept and the protocol's name, as JSON with sorted keys."""
    values = settings.model_dump(mode="json", exclude=set(UNPINNED_SETTINGS))
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()


def system_tags(settings: EvalSettings, generator: GeneratorResource) -> dict[str, str]:
    """The tags naming the system a run measures (run_tags.SYSTEM_TAGS): the corpus, the generator's id (its kind and
    version, a model's name) and the first 12 hex digits of `settings_digest`."""
    values = {
        "corpus": settings.corpus_name,
        "generator": generator.adapter(settings).generator_id,
        "settings": settings_digest(settings)[:12],
    }
    return {SYSTEM_TAGS[name]: value for name, value in values.items()}


class PinnedCode(dg.ConfigurableResource):
    """The code versions of the assets a protocol pins (PINNED_ASSETS), as the Definitions that run them were built
    with: set when they are built (`of`), so every step process and executor sees the same values, where the running
    repository is not always at hand (an in-process run has none)."""

    golden_code: str = ""
    generator_code: str = ""
    gates_code: str = ""
    decision_code: str = ""

    @classmethod
    def of(cls, assets: list[dg.AssetsDefinition]) -> "PinnedCode":
        versions = {key: asset.code_versions_by_key.get(key) for asset in assets for key in asset.keys}

        def pinned(names: tuple[str, ...]) -> str:
            found = [versions.get(dg.AssetKey(name)) or "" for name in names]
            if len(found) == 1 or not all(found):
                return found[0] if len(found) == 1 else ""
            return hashlib.sha256("\n".join(found).encode()).hexdigest()[:16]  # as long as one asset's version

        return cls(**{pin: pinned(names) for pin, names in PINNED_ASSETS.items()})


def embedder_pin(embedder: EmbedderResource) -> str:
    """The embedder the cosines (and so the frozen cosine threshold) come from: "minilm" (the local all-MiniLM-L6-v2),
    or "openai-compatible:<model>@<url>"."""
    read = embedder.read_settings()
    return read["kind"] if set(read) == {"kind"} else f"{read['kind']}:{read['model']}@{read['base_url']}"


def reviews_and_policies_digest(settings: EvalSettings) -> str:
    """The content of the corpus's review and policy files (reviews/<corpus>/, policies/<corpus>/): people's verdicts
    and access rules move the golden set while every setting and line of code stays."""
    versions = [REVIEW_FILES.version(settings), POLICY_FILES.version(settings)]
    return hashlib.sha256("\n".join(versions).encode()).hexdigest()


def run_pins(settings: EvalSettings, generator: str, embedder: EmbedderResource, code: PinnedCode) -> dict[str, str]:
    """The run's value of each pin (protocol.PIN_NAMES)."""
    return {
        "corpus_manifest_sha256": file_sha256(Path(settings.corpus_dir) / MANIFEST_FILE),
        "generator": generator,
        "embedder": embedder_pin(embedder),
        **{pin: getattr(code, pin) for pin in PINNED_ASSETS},
        "gates_file_sha256": file_sha256(settings.gates_path()),
        "settings_sha256": settings_digest(settings),
        "reviews_and_policies_sha256": reviews_and_policies_digest(settings),
    }
