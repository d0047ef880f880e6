"""What a run depends on besides the code, as three resources: the run's settings (where the corpus, the data and the
reports live, and the run parameters), the embedder, and the generator under test. The CLI and the definitions read
them from the environment when the code location loads, never at import."""

from __future__ import annotations

import functools
import os
import re
import tempfile
import tomllib
from pathlib import Path

import dagster as dg
import httpx
import pydantic

from edgar_eval.adapters.chat_generator import ExternalRagGenerator, OpenAICompatibleChatGenerator
from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.openai_embeddings import BASE_URL_ENV, MODEL_ENV, OpenAICompatibleEmbedder
from edgar_eval.adapters.parquet_store import Location, OutsideRoot, ParquetStore, is_local, location, under
from edgar_eval.adapters.rerank_http import HttpReranker, rerank_url
from edgar_eval.adapters.tape import TAPE_MODES, Tape
from edgar_eval.answering.answerer import (
    ComposingReaderGenerator,
    EagerReaderGenerator,
    ExtractiveGenerator,
    TableReaderGenerator,
)
from edgar_eval.answering.rerank import LexicalFigureReranker
from edgar_eval.domain.generation import Generator
from edgar_eval.domain.names import check_plain_name, plain_name_problem
from edgar_eval.domain.ports import Embedder, Reranker
from edgar_eval.domain.routes import DEFAULT_ROLE, AccessPolicy, PolicyError
from edgar_eval.retrieval.fingerprint import IndexFingerprint
from edgar_eval.retrieval.hybrid import RRF_K
from edgar_eval.retrieval.scope import SEARCH_SCOPES
from edgar_eval.retrieval.searches import RETRIEVERS

RERANKERS = ("lexical", "endpoint")
CORPUS_DIR_ENV = "EDGAR_EVAL_CORPUS_DIR"
CORPUS_NAME_ENV = "EDGAR_EVAL_CORPUS_NAME"
HOME_ENV = "EDGAR_EVAL_HOME"
# Set by `edgar-eval run` in the process that does its work (the worker), to the pid of the process the terminal started
# (cli.supervised_run): a terminal's Ctrl-C reaches that process alone. Not a setting.
RUN_WORKER_ENV = "EDGAR_EVAL_RUN_WORKER"
DATA_ENV = "EDGAR_EVAL_DATA"  # where tables go: a folder or an fsspec URL (default: data/ in the project home)
REPORTS_ENV = "EDGAR_EVAL_REPORTS"  # where reports go: a folder or an fsspec URL (default: reports/ in the home)
DEMO_CORPUS_ENV = "EDGAR_EVAL_DEMO_CORPUS"  # where the demo corpus is generated (default: data/demo_corpus)
EMBEDDER_ENV = "EDGAR_EVAL_EMBEDDER"
EMBEDDERS = ("minilm", "openai-compatible")
GENERATOR_ENV = "EDGAR_EVAL_GENERATOR"
GENERATOR_MODEL_ENV = "EDGAR_EVAL_GENERATOR_MODEL"
GENERATOR_URL_ENV = "EDGAR_EVAL_GENERATOR_URL"
GENERATOR_TIMEOUT_ENV = "EDGAR_EVAL_GENERATOR_TIMEOUT"  # seconds one call to the model or RAG service may take
GENERATOR_ATTEMPTS_ENV = "EDGAR_EVAL_GENERATOR_ATTEMPTS"  # calls per question before it is given up
TAPE_MODE_ENV = "EDGAR_EVAL_TAPE"
PROPOSALS_ENV = "EDGAR_EVAL_PROPOSALS"
PARALLEL_ENV = "EDGAR_EVAL_PARALLEL_RUNS"  # filing partitions' runs at once (`edgar-eval run --parallel`)
ROLE_ENV = "EDGAR_EVAL_ROLE"
ROLE_REPORTS_PREFIX = "as-"  # reports/<corpus>/as-<role>/: another role's report, beside the default role's files
PROPOSER_MODEL_ENV = "EDGAR_EVAL_PROPOSER_MODEL"
PROPOSER_URL_ENV = "EDGAR_EVAL_PROPOSER_URL"
# a TOML file of run parameters (`edgar-eval run --settings`), such as chunk_size = 600: one experiment, one file
SETTINGS_FILE_ENV = "EDGAR_EVAL_SETTINGS"
GENERATORS = (
    "extractive",
    "table-reader",
    "eager-reader",
    "composing-reader",
    "openai-compatible-chat",
    "external-rag",
)
# The generators that call a model, through the run's tape, and read their model and URL; the others answer offline.
MODEL_GENERATORS = ("openai-compatible-chat", "external-rag")
DEMO_CORPUS_NAME = "demo"

# What each part of the graph reads of the settings, so that a run's inputs digest (defs/freshness.py) holds exactly
# what its steps read: a setting of a component the run does not use changes nothing and relaunches nothing.
# The corpus job (parse, chunk, embed: defs/corpus/assets.py); a test records what its steps read and fails on more.
CORPUS_FIELDS = ("corpus_dir", "corpus_name", "data_dir", "chunk_size", "chunk_overlap", "chunk_table_headers")
PROPOSER_FIELDS = ("proposer_model", "proposer_url", "proposal_bundles")  # read when both model and URL are set
ENDPOINT_RERANKER_FIELDS = ("rerank_url", "rerank_model")  # read by the `endpoint` reranker only
TAPE_FIELDS = ("tape_mode", "tapes_dir")  # read by what calls a model through a tape: a model generator, the proposer
# Settings that name a file in a folder of the project home (protocol/<name>.toml, reviews/<corpus>/<name>.jsonl,
# ...): one plain name each, so none reads a file outside the folders the inputs digest covers.
FILE_NAME_FIELDS = (
    "protocol",
    "absence_review",
    "absent_concept_review",
    "release_rules",
    "access_policy",
    "golden_audit",
    "receipt_review",
    "release_fixture",
)
# The environment variable a setting is read from, where it has one: a note or a refusal names what the user set.
SETTING_ENV = {
    "proposer_model": PROPOSER_MODEL_ENV,
    "proposer_url": PROPOSER_URL_ENV,
    "tape_mode": TAPE_MODE_ENV,
    "asking_role": ROLE_ENV,
}


def whole_number(variable: str, raw: str, unit: str) -> int:
    """An environment variable's value as a whole number, refused in one line naming the variable otherwise."""
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{variable} must be a whole number of {unit}, got {raw!r}") from None


def project_home() -> Path:
    """The checkout when running from one (pyproject.toml beside the package), else the working directory."""
    if os.environ.get(HOME_ENV):
        return Path(os.environ[HOME_ENV]).resolve()
    checkout = Path(__file__).resolve().parents[2]
    return checkout if (checkout / "pyproject.toml").is_file() else Path.cwd().resolve()


def home_problem() -> str | None:
    """Why the project home cannot serve a run (it holds the protocols every evaluation reads), naming where it came
    from; None when it can."""
    home = project_home()
    if os.environ.get(HOME_ENV):
        named = f"{HOME_ENV}={os.environ[HOME_ENV]}"
    else:
        named = f"the project home {home} (the checkout, or the working directory outside one; set {HOME_ENV})"
    if not home.is_dir():
        return f"{named} is not a folder"
    if not (home / "protocol").is_dir():
        return f"{named} holds no protocol/ folder: the project home is a checkout of edgar-eval"
    return None


def setting_name(field: str) -> str:
    """How a user set this setting: its environment variable when that is set, else its name in a settings file."""
    variable = SETTING_ENV.get(field)
    return variable if variable and os.environ.get(variable) else f"settings {field}"


def _checked_root(variable: str, root: str, name: str) -> Location:
    """`root / name` for the data or reports root `root` (from `variable`), refused in one line naming the variable
    when the root is no usable location or the folder would lie outside it."""
    try:
        return under(location(root), name)
    except OutsideRoot as exc:
        raise ValueError(f"{variable}: the corpus's folder would lie outside its root: {exc}") from None
    except (ValueError, ImportError) as exc:  # an unknown fsspec protocol, or one whose package is not installed
        raise ValueError(f"{variable}={root!r} is not a folder or fsspec URL this installation reads: {exc}") from None


def _unwritable(folder: Location) -> str | None:
    """Why nothing can be written in a local folder (tried in it, or in the nearest folder above it that exists, with
    a file that leaves no name behind), or None; an object store's first write says so itself."""
    if not is_local(folder):
        return None
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    try:
        with tempfile.TemporaryFile(dir=existing):
            return None
    except OSError as exc:
        return f"nothing can be written in {existing} ({exc.strerror or exc})"


@functools.lru_cache(maxsize=4)
def _embedder(kind: str, model: str, base_url: str) -> Embedder:
    # One adapter per configuration and process: its HTTP client and learned dimension are reused by every asset.
    if kind == "minilm":
        return MiniLMEmbedder()
    if kind == "openai-compatible":
        return OpenAICompatibleEmbedder(model, base_url)
    raise ValueError(f"unknown embedder {kind!r}; choose one of {', '.join(EMBEDDERS)}")


@functools.lru_cache(maxsize=4)
def _generator(
    kind: str, model: str, url: str, tape_dir: str, tape_mode: str, timeout_s: float = 120.0, attempts: int = 5
) -> Generator:
    if kind == "extractive":
        return ExtractiveGenerator()  # deterministic: it simply reruns, it needs no tape
    if kind == "table-reader":
        return TableReaderGenerator()  # deterministic too
    if kind == "eager-reader":
        return EagerReaderGenerator()  # a model of language models' mis-selections, deterministic as well
    if kind == "composing-reader":
        return ComposingReaderGenerator()  # two-figure questions from two table reads, deterministic too
    if tape_mode not in TAPE_MODES:
        raise ValueError(f"unknown tape mode {tape_mode!r}; choose one of {', '.join(TAPE_MODES)}")
    timeout, retry = httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)), RetryPolicy(attempts=attempts)
    if kind == "openai-compatible-chat":
        if not model or not url:
            raise ValueError(f"the chat generator needs {GENERATOR_MODEL_ENV} and {GENERATOR_URL_ENV}")
        return OpenAICompatibleChatGenerator(
            url, model, tape=Tape(_tape_folder(tape_dir, model), tape_mode), timeout=timeout, retry=retry
        )
    if kind == "external-rag":
        if not url:
            raise ValueError(f"the external RAG generator needs {GENERATOR_URL_ENV}")
        return ExternalRagGenerator(
            url, name=model or None, tape=Tape(_tape_folder(tape_dir, model), tape_mode), timeout=timeout, retry=retry
        )
    raise ValueError(f"unknown generator {kind!r}; choose one of {', '.join(GENERATORS)}")


def _tape_folder(tape_dir: str, model: str) -> Path:
    """The generator's tape folder, named by its model, refused when the model's name would leave the tapes folder."""
    try:
        # by name: a tapes folder may link to a committed recording, on purpose
        return under(Path(tape_dir), model.replace("/", "_") if model else "external-rag", follow_links=False)
    except OutsideRoot:
        raise ValueError(f"{GENERATOR_MODEL_ENV} {model!r} cannot name a tape folder under {tape_dir}") from None


class EvalSettings(dg.ConfigurableResource):
    """The run's settings: where the corpus, the data and the reports live, and the run parameters; shown in the UI
    with every run. The embedder and the generator are resources of their own."""

    corpus_dir: str
    corpus_name: str
    data_dir: str
    reports_dir: str
    chunk_size: int = 1000
    chunk_overlap: int = 200
    chunk_table_headers: bool = (
        True  # a chunk that starts inside a table carries the table's scale line and header rows
    )
    answer_retriever: str = "hybrid"  # the answerer's retriever: dense | bm25 | hybrid
    top_k: int = 30  # passages the answerer reads
    retrieval_depths: list[int] = [30, 50]  # each depth its own search, for the retrieval measurement
    rrf_k: int = RRF_K  # the reciprocal rank fusion constant of the hybrid retriever
    # the scopes the retrieval measurement searches, each measured and reported: company_year (the answerer's: the
    # company's filings of the fiscal year asked), company (all of its filings), corpus (every filing, no filter)
    search_scopes: list[str] = list(SEARCH_SCOPES)
    # the rerank stage, measured on the answerer's retriever's candidates: lexical (offline, answering/rerank.py) or
    # endpoint (a /rerank server at rerank_url, with rerank_model); each cut "candidates:kept" reranks that many
    # candidates (a depth of retrieval_depths) and keeps the best
    reranker: str = "lexical"
    rerank_url: str = ""
    rerank_model: str = ""
    rerank_cuts: list[str] = ["30:15", "50:30"]
    # table-chunk expansion, measured at the rerank cuts: a kept passage with an end inside a table reaches this many
    # rows further within the table and opens with its header rows; 0 measures no expansion
    table_expansion_rows: int = 3
    # the noise band: replicas of the retrieval measurement over indexes a live one could be (this many companies'
    # filings left out, rows in another order); 0 replicas measures no band
    noise_replicas: int = 5
    noise_companies_left_out: int = 2
    # the golden questions the noise band measures: every one up to this many, a seeded sample of this many beyond, so
    # its cost stops growing with the corpus (2,500 is above every committed corpus's count: their bands are exact)
    noise_questions: int = 2500
    # the answerable questions the corpus scope measures: every one fair there up to this many, a seeded sample of this
    # many beyond (each corpus-scope search reads every chunk, so on every question its cost grows with the square of
    # the corpus; 2,500 is above every committed corpus's count: their corpus figures are exact)
    corpus_scope_questions: int = 2500
    golden_seed: int = 7
    golden_version: str = ""  # pin a frozen golden set by name; empty names it by its content hash
    tape_mode: str = "off"  # off | record | replay | fill: model calls through tapes/<corpus>/<model>/
    tapes_dir: str = ""  # default: tapes/ in the project home, committed beside the reports
    protocol: str = "answering-v5"  # protocol/<name>.toml: the pre-registered hypotheses the statistics read
    # gates/<name>.json: gates fitted on another corpus and frozen (`edgar-eval gates fit`), applied unchanged, every
    # company of this corpus eval; empty: the gates are fitted on this corpus's dev split
    gates_file: str = ""
    proposals: list[str] = []  # JSON Lines files of golden-question proposals to run through the ten admission gates
    proposer_model: str = ""  # an OpenAI-compatible chat model that proposes candidates from aligned excerpts, through
    proposer_url: str = ""  # the tape (tape_mode), when both are set
    proposal_bundles: int = 4  # excerpt bundles sent to the proposer per pattern
    absence_review: str = "absence-v1"  # reviews/<corpus>/<name>.jsonl: the recorded absence decisions
    # reviews/<corpus>/<name>.jsonl: a person's verdicts on the absent-concept candidates the rule leaves open
    absent_concept_review: str = "absent-concept-v1"
    release_rules: str = "release-v2"  # protocol/<name>.toml: the rules of the run's release decision
    access_policy: str = "access-v1"  # policies/<corpus>/<name>.toml: which roles may not read which filings
    asking_role: str = DEFAULT_ROLE  # the role the golden questions are asked by; it searches only what it may read
    golden_audit: str = "audit-v2"  # reviews/<corpus>/<name>.jsonl: a person's verdicts on the audited sample
    receipt_review: str = "receipts-v1"  # reviews/<corpus>/<name>.jsonl: a reviewer's overrides of case results
    release_fixture: str = "release-v1"  # fixtures/<corpus>/<name>.jsonl: the must-pass cases of a release
    audit_per_kind: int = 20  # template cases of each kind drawn for the audit (every pattern case is drawn)
    audit_absent_concept: int = 30  # absent-concept cases drawn: the hardest claim is audited deepest
    patterns_per_pattern: int = 5  # the frozen pattern set takes up to this many accepted cases per pattern
    patterns_version: str = ""  # pin a frozen pattern set by name; empty names it by its content hash

    @pydantic.field_validator("corpus_name", *FILE_NAME_FIELDS)
    @classmethod
    def _one_plain_name(cls, value: str, info: pydantic.ValidationInfo) -> str:
        """A name that becomes a folder or file name is one plain name, wherever it was set (the environment, a
        settings file, a run's config in the UI): nothing is read or written outside the folders it names."""
        return check_plain_name(value, str(info.field_name))

    @pydantic.field_validator("gates_file")
    @classmethod
    def _gates_name(cls, value: str) -> str:
        """Empty (the gates fitted on this corpus) or one plain file name under gates/."""
        return value and check_plain_name(value, "gates_file")

    def gates_path(self) -> Path | None:
        """The frozen gates file the run applies, or None when the gates are fitted on this corpus."""
        return project_home() / "gates" / f"{self.gates_file}.json" if self.gates_file else None

    def check_gates(self) -> None:
        """Refuse, in one line, a frozen gates file that is missing or not one, or that was fitted on a company this
        corpus holds (by the CIKs of its manifest): nothing of a confirmatory corpus may have been fitted on."""
        path = self.gates_path()
        if path is None:
            return
        if not path.is_file():
            known = sorted(p.stem for p in path.parent.glob("*.json")) if path.parent.is_dir() else []
            raise ValueError(
                f"unknown gates_file {self.gates_file!r}: no {path} (known: {', '.join(known) or 'none'}); "
                "`edgar-eval gates fit` writes one"
            )
        from edgar_eval.adapters.local_corpus import read_manifest
        from edgar_eval.evaluation.frozen_gates import read_gates, shared_companies

        gates = read_gates(path)
        rows = read_manifest(self.corpus_dir)
        if not rows or any(not row.get("cik", "").strip() for row in rows.values()):
            raise ValueError(
                f"gates_file {self.gates_file!r}: the corpus's manifest.csv must name every filing's cik, so that no "
                "company the gates were fitted on is confirmed on"
            )
        ciks = {row["cik"] for row in rows.values()}
        shared = shared_companies(gates, ciks)
        if shared:
            named = ", ".join(shared[:3]) + (", ..." if len(shared) > 3 else "")
            raise ValueError(
                f"gates_file {self.gates_file!r} was fitted on {gates['fitted_on']['corpus']}, which shares "
                f"{len(shared)} companies with this corpus (CIK {named}): frozen gates are applied to other companies "
                "only"
            )

    @property
    def is_demo(self) -> bool:
        return self.corpus_name == DEMO_CORPUS_NAME

    @property
    def proposer_on(self) -> bool:
        """The proposer runs only with both its model and its URL."""
        return bool(self.proposer_model and self.proposer_url)

    def uses_tapes(self, generator: "GeneratorResource | None") -> bool:
        """Does anything the run uses call a model through the tape (a model generator, the proposer)? `generator`
        None: the steps before generation, where only the proposer can."""
        return (generator is not None and generator.kind in MODEL_GENERATORS) or self.proposer_on

    def read_by_corpus(self) -> dict[str, object]:
        """The settings the corpus job reads for what it makes: the corpus's name and how it is chunked (not where the
        corpus and its tables are: WHERE_FIELDS)."""
        return {name: getattr(self, name) for name in CORPUS_FIELDS if name not in WHERE_FIELDS}

    def read_by_evaluation(self, generator: "GeneratorResource | None") -> dict[str, object]:
        """The settings the evaluation reads: all of them but those of a component the run does not use (the
        proposer without both its model and URL, the endpoint reranker's URL and model under the lexical reranker,
        the tape when nothing calls a model), nor where things are kept (WHERE_FIELDS). `generator` None: those the
        steps before generation read (the tape only through the proposer)."""
        unread: set[str] = set(WHERE_FIELDS)
        if not self.proposer_on:
            unread.update(PROPOSER_FIELDS)
        if self.reranker != "endpoint":
            unread.update(ENDPOINT_RERANKER_FIELDS)
        if not self.uses_tapes(generator):
            unread.update(TAPE_FIELDS)
        return {name: value for name, value in self.model_dump().items() if name not in unread}

    def check(self) -> None:
        """Refuse a bad setting before any partition runs, in one line naming the setting and its allowed values."""
        problem = home_problem()
        if problem:
            raise ValueError(problem)
        for variable, root in ((DATA_ENV, self.data_dir), (REPORTS_ENV, self.reports_dir)):
            problem = _unwritable(_checked_root(variable, root, self.corpus_name))
            if problem:  # found now, not after a whole evaluation
                raise ValueError(f"{variable}={root!r}: {problem}")
        if self.tape_mode not in TAPE_MODES:
            raise ValueError(
                f"unknown tape_mode {self.tape_mode!r} ({setting_name('tape_mode')}); choose one of "
                f"{', '.join(TAPE_MODES)}"
            )
        for path in self.proposals:
            if not Path(path).is_file():
                raise ValueError(f"proposals file {path} (--proposals, {PROPOSALS_ENV}) does not exist")
        if self.proposer_on:
            try:
                self.proposer_tape()
            except OutsideRoot:
                raise ValueError(
                    f"{setting_name('proposer_model')} {self.proposer_model!r} cannot name a tape folder"
                ) from None
        self.check_role()
        self.answer_search()
        if any(depth < 1 for depth in self.retrieval_depths):
            raise ValueError(f"retrieval_depths must be at least 1, got {self.retrieval_depths}")
        self.cuts()
        self.check_reranker()
        if self.table_expansion_rows < 0:
            raise ValueError(f"table_expansion_rows must be 0 (off) or more, got {self.table_expansion_rows}")
        if self.noise_replicas < 0 or self.noise_companies_left_out < 1:
            raise ValueError(
                f"noise_replicas {self.noise_replicas} and noise_companies_left_out {self.noise_companies_left_out}: "
                "need noise_replicas >= 0 and noise_companies_left_out >= 1"
            )
        if self.corpus_scope_questions < 1:
            raise ValueError(
                f"corpus_scope_questions must be at least 1 (the questions the corpus scope measures), got "
                f"{self.corpus_scope_questions}"
            )
        if self.noise_questions < 1:
            raise ValueError(
                f"noise_questions must be at least 1 (the questions the noise band measures), got "
                f"{self.noise_questions}"
            )
        unknown = [scope for scope in self.search_scopes if scope not in SEARCH_SCOPES]
        if unknown or not self.search_scopes:
            raise ValueError(f"search_scopes {self.search_scopes}: choose one or more of {', '.join(SEARCH_SCOPES)}")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ValueError(
                f"chunk_size {self.chunk_size} and chunk_overlap {self.chunk_overlap}: need chunk_size > chunk_overlap "
                ">= 0"
            )
        self.check_gates()
        if not self.protocol_path().is_file():
            known = sorted(p.stem for p in self.protocol_path().parent.glob("*.toml"))
            raise ValueError(
                f"unknown protocol {self.protocol!r} (settings protocol: a file of {self.protocol_path().parent}); "
                f"choose one of {', '.join(known)}"
            )

    def cuts(self) -> list[tuple[int, int]]:
        """The rerank cuts as (candidates, kept), refused in one line unless each reads "candidates:kept" with
        0 < kept <= candidates and candidates one of retrieval_depths, and none is given twice (it would measure the
        same rows twice over)."""
        found = []
        for cut in self.rerank_cuts:
            match = re.fullmatch(r"\s*(\d+)\s*:\s*(\d+)\s*", cut)
            if not match:
                raise ValueError(f'rerank_cuts: {cut!r} is not "candidates:kept", such as "30:15"')
            candidates, kept = int(match[1]), int(match[2])
            if candidates not in self.retrieval_depths or not 0 < kept <= candidates:
                raise ValueError(
                    f"rerank_cuts: {cut!r} needs candidates among retrieval_depths {self.retrieval_depths} and "
                    "0 < kept <= candidates"
                )
            if (candidates, kept) in found:
                raise ValueError(f"rerank_cuts: {candidates}:{kept} is given twice")
            found.append((candidates, kept))
        return found

    def check_reranker(self) -> None:
        """Refuse an unknown reranker, or an endpoint without an http(s) URL, in one line (connecting to nothing)."""
        if self.reranker not in RERANKERS:
            raise ValueError(f"unknown reranker {self.reranker!r}; choose one of {', '.join(RERANKERS)}")
        if self.reranker == "endpoint":
            if not self.rerank_url:
                raise ValueError("reranker 'endpoint' needs rerank_url (a server with a /rerank endpoint)")
            rerank_url(self.rerank_url)

    def reranker_adapter(self) -> Reranker:
        """The configured reranker (close it after use: an endpoint's client holds a connection pool)."""
        self.check_reranker()
        if self.reranker == "endpoint":
            return HttpReranker(self.rerank_url, self.rerank_model)
        return LexicalFigureReranker()

    def answer_search(self) -> str:
        """The answerer's retriever, refused in one line when it is not one of the three."""
        if self.answer_retriever not in RETRIEVERS:
            raise ValueError(
                f"unknown answer_retriever {self.answer_retriever!r}; choose one of {', '.join(RETRIEVERS)}"
            )
        if self.top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {self.top_k}")
        return self.answer_retriever

    def store(self) -> ParquetStore:
        """The corpus's tables under `data_dir`: a local folder, or any fsspec URL (`EDGAR_EVAL_DATA`); refused when
        the corpus's folder would lie outside it."""
        return ParquetStore(_checked_root(DATA_ENV, self.data_dir, self.corpus_name))

    def report_dir(self) -> Location:
        """Where the corpus's report goes: `reports_dir` is a local folder or, like `data_dir`, any fsspec URL. Another
        role asks another golden set, so its report goes to a folder of its own inside the corpus's (`as-<role>/`):
        a run as another role never replaces the default role's report."""
        folder = _checked_root(REPORTS_ENV, self.reports_dir, self.corpus_name)
        if self.asking_role == DEFAULT_ROLE:
            return folder
        return under(folder, ROLE_REPORTS_PREFIX + check_plain_name(self.asking_role, setting_name("asking_role")))

    def check_role(self) -> None:
        """Refuse, in one line, an asking role the corpus's access policy does not name: a misspelt role would
        otherwise be barred from nothing and ask the default role's questions under another name."""
        role, what = self.asking_role, setting_name("asking_role")
        if role == DEFAULT_ROLE:
            return
        check_plain_name(role, what)  # it names the role's report folder
        path = self.access_policy_path()
        if not path.is_file():
            raise ValueError(
                f"{what} {role!r}: corpus {self.corpus_name!r} has no access policy ({path}), so no role but the "
                f"default {DEFAULT_ROLE!r} can be asked"
            )
        try:
            policy = AccessPolicy.from_toml(path.read_text(encoding="utf-8"), str(path))
        except PolicyError as exc:
            raise ValueError(f"access policy {path}: {exc}") from None
        if role not in policy.roles:
            known = ", ".join(repr(name) for name in [DEFAULT_ROLE, *sorted(policy.roles)])
            raise ValueError(f"{what} {role!r} is not a role the access policy {path} names; choose one of {known}")

    def absence_review_path(self) -> Path:
        return project_home() / "reviews" / self.corpus_name / f"{self.absence_review}.jsonl"

    def absent_concept_review_path(self) -> Path:
        return project_home() / "reviews" / self.corpus_name / f"{self.absent_concept_review}.jsonl"

    def release_rules_path(self) -> Path:
        return project_home() / "protocol" / f"{self.release_rules}.toml"

    def access_policy_path(self) -> Path:
        return project_home() / "policies" / self.corpus_name / f"{self.access_policy}.toml"

    def golden_audit_path(self) -> Path:
        return project_home() / "reviews" / self.corpus_name / f"{self.golden_audit}.jsonl"

    def receipt_review_path(self) -> Path:
        return project_home() / "reviews" / self.corpus_name / f"{self.receipt_review}.jsonl"

    def release_fixture_path(self) -> Path:
        return project_home() / "fixtures" / self.corpus_name / f"{self.release_fixture}.jsonl"

    def protocol_path(self) -> Path:
        return project_home() / "protocol" / f"{self.protocol}.toml"

    def tapes(self) -> Path:
        """Where this corpus's model calls are taped: tapes/<corpus>/ in the project home unless `tapes_dir` says."""
        return under(Path(self.tapes_dir or project_home() / "tapes"), self.corpus_name, follow_links=False)

    def proposer_tape(self) -> Tape:
        if self.tape_mode not in TAPE_MODES:
            raise ValueError(f"unknown tape mode {self.tape_mode!r}; choose one of {', '.join(TAPE_MODES)}")
        folder = under(self.tapes(), "proposals", self.proposer_model.replace("/", "_"), follow_links=False)
        return Tape(folder, self.tape_mode)  # checked by name: a tapes folder may link to a committed recording

    def fingerprint(self, embedder_id: str) -> IndexFingerprint:
        return IndexFingerprint(
            embedder_id=embedder_id,
            normalisation="l2",
            chunk_size=self.chunk_size,
            chunk_overlap=self.chunk_overlap,
            table_headers=self.chunk_table_headers,
        )

    @classmethod
    def from_env(cls) -> "EvalSettings":
        home = project_home()
        corpus_dir = os.environ.get(CORPUS_DIR_ENV)
        given_name = os.environ.get(CORPUS_NAME_ENV)
        if given_name:  # refused wherever it applies: a name is checked before it names any folder
            check_plain_name(given_name, f"--name ({CORPUS_NAME_ENV})")
        if corpus_dir:
            name = given_name or Path(corpus_dir).resolve().name
            problem = None if given_name else plain_name_problem(name)
            if problem:
                raise ValueError(
                    f"the corpus folder's name {name!r} (--corpus, {CORPUS_DIR_ENV}) {problem}; name the corpus with "
                    f"--name ({CORPUS_NAME_ENV})"
                )
            if name == DEMO_CORPUS_NAME:
                raise ValueError(
                    f"--name ({CORPUS_NAME_ENV}) {DEMO_CORPUS_NAME!r} is reserved for the generated demo corpus"
                )
        else:
            corpus_dir, name = os.environ.get(DEMO_CORPUS_ENV) or str(home / "data" / "demo_corpus"), DEMO_CORPUS_NAME
        fields = {
            "corpus_dir": str(Path(corpus_dir).resolve()),
            "corpus_name": name,
            "data_dir": os.environ.get(DATA_ENV) or str(home / "data"),
            "reports_dir": os.environ.get(REPORTS_ENV) or str(home / "reports"),
            "tape_mode": os.environ.get(TAPE_MODE_ENV, "off"),
            "asking_role": os.environ.get(ROLE_ENV) or DEFAULT_ROLE,
            "proposer_model": os.environ.get(PROPOSER_MODEL_ENV, ""),
            "proposer_url": os.environ.get(PROPOSER_URL_ENV, ""),
            "proposals": [
                str(Path(p).resolve()) for p in os.environ.get(PROPOSALS_ENV, "").split(os.pathsep) if p.strip()
            ],
        }
        if os.environ.get(SETTINGS_FILE_ENV):
            fields.update(settings_file(Path(os.environ[SETTINGS_FILE_ENV])))
        try:
            return cls(**fields)
        except pydantic.ValidationError as exc:  # a value of the wrong type in the settings file: one line
            problem = exc.errors()[0]
            if problem["type"] == "value_error":  # a validator's refusal names the setting itself
                raise ValueError(f"settings {problem.get('ctx', {}).get('error')}") from None
            where = ".".join(str(part) for part in problem["loc"])
            raise ValueError(f"settings {where}: {problem['msg']} (got {problem.get('input')!r})") from None


# Where the run's files live and what it reads are named by their own options (--corpus, --name, --proposals, the
# environment); a settings file holds the run's parameters only.
LOCATION_FIELDS = ("corpus_dir", "corpus_name", "data_dir", "reports_dir", "proposals", "tapes_dir")
# The settings that say where things are kept, not what is made of them: a filing is read by its bytes (its sha256),
# the tables, tapes and proposals by what they hold (their versions and contents are inputs of their own), and a table
# or report not at the new place is found missing and made again. So a corpus folder or a store moved or copied
# elsewhere keeps its work. The corpus's name is not among them: it names the tables' folder and the reviews,
# policies and tapes a run reads.
WHERE_FIELDS = frozenset(LOCATION_FIELDS) - {"corpus_name"}


def settings_file(path: Path) -> dict:
    """The run parameters a TOML settings file sets (top-level keys named as the settings are), refused in one line
    when the file is missing or malformed, or names a setting that does not exist or a location."""
    named = f"settings file {path} (--settings, {SETTINGS_FILE_ENV})"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{named}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{named} is not TOML: {exc}") from None
    known = set(EvalSettings.model_fields) - set(LOCATION_FIELDS)
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(
            f"{named}: {', '.join(unknown)} is not a run parameter (locations have their own options); "
            f"known: {', '.join(sorted(known))}"
        )
    return data


class EmbedderResource(dg.ConfigurableResource):
    """The embedder of chunks and questions. Its id goes into the index fingerprint, so switching it refuses the
    indexes built by another."""

    kind: str = "minilm"  # or "openai-compatible", with model and base_url
    model: str = ""
    base_url: str = ""

    def check(self) -> None:
        if self.kind not in EMBEDDERS:
            raise ValueError(f"unknown embedder {self.kind!r} ({EMBEDDER_ENV}); choose one of {', '.join(EMBEDDERS)}")
        if self.kind == "openai-compatible":
            missing = [name for name, value in ((MODEL_ENV, self.model), (BASE_URL_ENV, self.base_url)) if not value]
            if missing:
                raise ValueError(f"{EMBEDDER_ENV}=openai-compatible needs {' and '.join(missing)} set")

    def read_settings(self) -> dict[str, str]:
        """What the chosen embedder reads: the local MiniLM its own weights only (named by its id in the index
        fingerprint); an OpenAI-compatible server its model and URL."""
        if self.kind == "openai-compatible":
            return {"kind": self.kind, "model": self.model, "base_url": self.base_url}
        return {"kind": self.kind}

    def unread_settings(self) -> list[str]:
        """A note for each embedder setting given that the chosen embedder does not read."""
        if self.kind == "openai-compatible":
            return []
        given = [name for name, value in ((MODEL_ENV, self.model), (BASE_URL_ENV, self.base_url)) if value]
        return [
            f"{name} is set, but the embedder is {self.kind} ({EMBEDDER_ENV}), which does not read it" for name in given
        ]

    def adapter(self) -> Embedder:
        return _embedder(self.kind, self.model, self.base_url)

    @classmethod
    def from_env(cls) -> "EmbedderResource":
        return cls(
            kind=os.environ.get(EMBEDDER_ENV, "minilm"),
            model=os.environ.get(MODEL_ENV, ""),
            base_url=os.environ.get(BASE_URL_ENV, ""),
        )

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        """Before a step that uses it: an embeddings service's requests say their progress while it works
        (adapters/service_progress.py). Its instance is followed, its class left as written: the class is part of
        the code version of every stored corpus's embeddings, and no asset reaches this method."""
        if self.kind == "openai-compatible":
            from edgar_eval.adapters.service_progress import follow_embedder

            follow_embedder(self.adapter())


class GeneratorResource(dg.ConfigurableResource):
    """The system under test: the generator that answers each golden question from the passages retrieved. Model
    calls go through the run's tape (EvalSettings.tape_mode)."""

    kind: str = "table-reader"  # or "extractive", "eager-reader", "composing-reader"; "openai-compatible-chat",
    # "external-rag" (model, url)
    model: str = ""
    url: str = ""
    # How long one call may take and how often a question is tried: how a run waits on a service that hangs. They
    # change no answer, so no inputs digest holds them.
    timeout_s: float = 120.0
    attempts: int = 5

    def check(self) -> None:
        if self.kind not in GENERATORS:
            raise ValueError(
                f"unknown generator {self.kind!r} ({GENERATOR_ENV}); choose one of {', '.join(GENERATORS)}"
            )
        needed = {
            "openai-compatible-chat": (GENERATOR_MODEL_ENV, GENERATOR_URL_ENV),
            "external-rag": (GENERATOR_URL_ENV,),
        }
        values = {GENERATOR_MODEL_ENV: self.model, GENERATOR_URL_ENV: self.url}
        missing = [name for name in needed.get(self.kind, ()) if not values[name]]
        if missing:
            raise ValueError(f"{GENERATOR_ENV}={self.kind} needs {' and '.join(missing)} set")
        if not self.timeout_s > 0:
            raise ValueError(f"{GENERATOR_TIMEOUT_ENV} must be more than 0 seconds, got {self.timeout_s}")
        if self.attempts < 1:
            raise ValueError(f"{GENERATOR_ATTEMPTS_ENV} must be at least 1 attempt, got {self.attempts}")
        if self.kind in MODEL_GENERATORS:
            _tape_folder(str(Path("/") / "tapes"), self.model)  # its model names a tape folder: one, in the tapes

    def read_settings(self) -> dict[str, str]:
        """What the chosen generator reads: a generator that calls a model its model and URL; an offline reader
        nothing but its own code (versioned with the assets that call it)."""
        if self.kind in MODEL_GENERATORS:
            return {"kind": self.kind, "model": self.model, "url": self.url}
        return {"kind": self.kind}

    def unread_settings(self) -> list[str]:
        """A note for each generator setting given that the chosen generator does not read."""
        if self.kind in MODEL_GENERATORS:
            return []
        given = [name for name, value in ((GENERATOR_MODEL_ENV, self.model), (GENERATOR_URL_ENV, self.url)) if value]
        given += [name for name in (GENERATOR_TIMEOUT_ENV, GENERATOR_ATTEMPTS_ENV) if os.environ.get(name)]
        return [
            f"{name} is set, but the generator is {self.kind} ({GENERATOR_ENV}), which does not read it"
            for name in given
        ]

    def adapter(self, settings: EvalSettings, repeat: bool = False) -> Generator:
        """`repeat`: the generator that sends a prompt a second time, for the determinism measurement. Its calls are
        taped apart (same key, another folder), so a replay reproduces the recorded comparison instead of one answer
        twice."""
        tapes = settings.tapes() / ("repeats" if repeat else "")
        return _generator(
            self.kind, self.model, self.url, str(tapes), settings.tape_mode, self.timeout_s, self.attempts
        )

    def baseline_path(self, settings: EvalSettings) -> Path:
        """The regression gate's committed baseline for this corpus and generator: each dev case right or wrong under
        each arm. A baseline judges one system; another generator is compared with its own baseline, or with none.
        Questions asked by another role are another set (a barred company's exit by deny), so a role other than the
        default has baselines of its own: `<generator>@<role>.json`."""
        safe = re.compile(r"[^A-Za-z0-9._-]+")
        generator = safe.sub("_", self.adapter(settings).generator_id)
        role = "" if settings.asking_role == DEFAULT_ROLE else "@" + safe.sub("_", settings.asking_role)
        return project_home() / "baselines" / settings.corpus_name / f"{generator}{role}.json"

    @classmethod
    def from_env(cls) -> "GeneratorResource":
        timeout = os.environ.get(GENERATOR_TIMEOUT_ENV, "").strip()
        attempts = os.environ.get(GENERATOR_ATTEMPTS_ENV, "").strip()
        try:
            timeout_s = float(timeout) if timeout else 120.0
        except ValueError:
            raise ValueError(f"{GENERATOR_TIMEOUT_ENV} must be a number of seconds, got {timeout!r}") from None
        return cls(
            kind=os.environ.get(GENERATOR_ENV, "table-reader"),
            model=os.environ.get(GENERATOR_MODEL_ENV, ""),
            url=os.environ.get(GENERATOR_URL_ENV, ""),
            timeout_s=timeout_s,
            attempts=whole_number(GENERATOR_ATTEMPTS_ENV, attempts, "attempts") if attempts else 5,
        )


def unread_settings(settings: EvalSettings, embedder: EmbedderResource, generator: GeneratorResource) -> list[str]:
    """One note for each setting given that no component the run uses reads: it enters no inputs digest, so it
    changes nothing, and the user is told why."""
    notes = embedder.unread_settings() + generator.unread_settings()
    if bool(settings.proposer_model) != bool(settings.proposer_url):
        given, missing = (
            ("proposer_model", "proposer_url") if settings.proposer_model else ("proposer_url", "proposer_model")
        )
        wanted = SETTING_ENV.get(missing, f"settings {missing}")  # what to set: its variable, where it has one
        notes.append(f"{setting_name(given)} is set, but the proposer is off until {wanted} is set too")
    elif (
        not settings.proposer_on and settings.proposal_bundles != EvalSettings.model_fields["proposal_bundles"].default
    ):
        notes.append(
            f"settings proposal_bundles is set, but the proposer is off (it needs {PROPOSER_MODEL_ENV} and "
            f"{PROPOSER_URL_ENV})"
        )
    if settings.reranker != "endpoint":
        notes += [
            f"settings {name} is set, but the reranker is {settings.reranker}, which does not read it"
            for name in ENDPOINT_RERANKER_FIELDS
            if getattr(settings, name)
        ]
    if not settings.uses_tapes(generator) and settings.tape_mode != "off":
        notes.append(
            f"{setting_name('tape_mode')} is {settings.tape_mode!r}, but nothing this run uses calls a model "
            f"through a tape (the generator {generator.kind} answers offline and the proposer is off)"
        )
    if not os.environ.get(CORPUS_DIR_ENV) and os.environ.get(CORPUS_NAME_ENV) and settings.is_demo:
        notes.append(f"{CORPUS_NAME_ENV} (--name) is set, but without --corpus the demo corpus is always named 'demo'")
    return notes
