"""The files beside the graph that the evaluation reads, as observable source assets: the protocols, the reviews,
the access policies, the regression baselines, the release fixture, the model tapes and the proposal files.

Each is observed with the content hash of its files as its data version (by `edgar-eval run` before each evaluation,
or from the UI's "Observe sources"), and every asset that reads one declares it as a dependency: the UI's lineage shows
which file drives which figure, and an asset built before a file changed is marked stale. The assets read the files
themselves (through the settings' paths), as before; a test records every file each step opens and fails when a step
reads a group it does not declare.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from edgar_eval.defs.run_tags import DATA_VERSION_TAG
from edgar_eval.defs.settings import EvalSettings, project_home
from edgar_eval.domain.routes import NO_POLICY, AccessPolicy, PolicyError

SOURCE_FILES_GROUP = "files"


def _under(folder: Path) -> list[tuple[str, Path]]:
    """Every file under `folder`, named by its path relative to it, in path order. A linked folder is read through
    (a tapes folder may link to a committed recording: its files are what a run reads), unless it links back to a
    folder above it."""
    if not folder.is_dir():
        return []
    found: list[Path] = []

    def walk(place: Path, above: frozenset[str]) -> None:
        real = os.path.realpath(place)
        if real in above:  # a link back up the tree
            return
        for entry in sorted(place.iterdir()):
            if entry.is_dir():
                walk(entry, above | {real})
            elif entry.is_file():
                found.append(entry)

    walk(folder, frozenset())
    return [(path.relative_to(folder).as_posix(), path) for path in sorted(found)]


@dataclass(frozen=True)
class SourceFiles:
    """A group of files the evaluation reads: its asset key, what it holds, and its files for a run's settings (each
    named by a path that does not depend on where the project sits)."""

    key: dg.AssetKey
    description: str
    files: Callable[[EvalSettings], list[tuple[str, Path]]]

    def version(self, settings: EvalSettings) -> str:
        """The content hash of the group's files: their names and the sha256 of each one's bytes."""
        return files_version(self.files(settings))


def files_version(files: list[tuple[str, Path]]) -> str:
    """The content hash of named files: their names and the sha256 of each one's bytes."""
    named = [(name, hashlib.sha256(path.read_bytes()).hexdigest()) for name, path in files]
    return hashlib.sha256(json.dumps(named).encode()).hexdigest()


PROTOCOL_FILES = SourceFiles(
    dg.AssetKey("protocol_files"),
    "The pre-registered protocols and release rules (`protocol/*.toml`): hypotheses, margins, alpha, the registered "
    "generator and corpus; read by the statistics, the release checks and the report.",
    lambda settings: _under(project_home() / "protocol"),
)
REVIEW_FILES = SourceFiles(
    dg.AssetKey("review_files"),
    "People's verdicts on this corpus (`reviews/<corpus>/`): absence and absent-concept reviews, the golden audit and "
    "its plan, receipt overrides.",
    lambda settings: _under(project_home() / "reviews" / settings.corpus_name),
)
POLICY_FILES = SourceFiles(
    dg.AssetKey("policy_files"),
    "The access policy of this corpus (`policies/<corpus>/`): which role may read which filings.",
    lambda settings: _under(project_home() / "policies" / settings.corpus_name),
)
BASELINE_FILES = SourceFiles(
    dg.AssetKey("baseline_files"),
    "The regression gate's committed baselines (`baselines/<corpus>/`): each dev case right or wrong per arm.",
    lambda settings: _under(project_home() / "baselines" / settings.corpus_name),
)
FIXTURE_FILES = SourceFiles(
    dg.AssetKey("fixture_files"),
    "The release fixture (`fixtures/<corpus>/`): hand-picked must-pass cases.",
    lambda settings: _under(project_home() / "fixtures" / settings.corpus_name),
)
TAPE_FILES = SourceFiles(
    dg.AssetKey("tape_files"),
    "The recorded model calls of this corpus (`tapes/<corpus>/`, or the settings' tapes_dir): what a model generator "
    "or the proposer replays offline.",
    lambda settings: _under(settings.tapes()),
)
PROPOSAL_FILES = SourceFiles(
    dg.AssetKey("proposal_files"),
    "The hard-question proposal files the run names (`--proposals`), each by its file name.",
    lambda settings: [(Path(path).name, Path(path)) for path in settings.proposals],
)
GATES_FILES = SourceFiles(
    dg.AssetKey("gates_files"),
    "The frozen gates file the run applies (`gates/<name>.json`, setting gates_file): a relevance model and two "
    "thresholds fitted on another corpus; none where the gates are fitted on this corpus's dev split.",
    lambda settings: [(path.name, path) for path in [settings.gates_path()] if path is not None],
)
SOURCE_FILES = (
    PROTOCOL_FILES,
    GATES_FILES,
    REVIEW_FILES,
    POLICY_FILES,
    BASELINE_FILES,
    FIXTURE_FILES,
    TAPE_FILES,
    PROPOSAL_FILES,
)


def access_policy(settings: EvalSettings) -> AccessPolicy:
    """The corpus's permitted-source policy; none (no role barred from anything) when the file does not exist."""
    path = settings.access_policy_path()
    if not path.is_file():
        return NO_POLICY
    try:
        return AccessPolicy.from_toml(path.read_text(encoding="utf-8"), str(path.relative_to(path.parents[2])))
    except PolicyError as exc:
        raise dg.Failure(str(exc)) from exc


def _observable(source: SourceFiles) -> dg.SourceAsset:
    @dg.observable_source_asset(key=source.key, group_name=SOURCE_FILES_GROUP, description=source.description)
    def observe(settings: EvalSettings) -> dg.ObserveResult:
        files = source.files(settings)  # listed once: the version and the metadata name the same files
        return dg.ObserveResult(
            data_version=dg.DataVersion(files_version(files)),
            metadata={"files": len(files), "names": dg.MetadataValue.json([name for name, _ in files][:50])},
        )

    return observe


OBSERVABLE_SOURCE_FILES = [_observable(source) for source in SOURCE_FILES]


def source_file_changes(instance: dg.DagsterInstance, settings: EvalSettings) -> list[dg.AssetObservation]:
    """An observation, as the observable source asset would record it, of each group whose files changed since its
    last observation."""
    changed = []
    for source in SOURCE_FILES:
        files = source.files(settings)
        version = files_version(files)
        record = instance.get_latest_data_version_record(source.key, is_source=True)
        observed = record.asset_observation if record is not None else None
        if observed is not None and observed.data_version == version:
            continue
        changed.append(
            dg.AssetObservation(source.key, tags={DATA_VERSION_TAG: version}, metadata={"files": len(files)})
        )
    return changed


def observe_source_files(instance: dg.DagsterInstance, settings: EvalSettings) -> list[str]:
    """Record the groups whose files changed (`edgar-eval run`, before each evaluation; in a deployment the corpus
    sensor does it every minute): a run's steps then record the versions they read. The groups observed anew."""
    changed = source_file_changes(instance, settings)
    for observation in changed:
        instance.report_runless_asset_event(observation)
    return [observation.asset_key.to_user_string() for observation in changed]
