"""The Definitions object the CLI, the UI and CI load. Corpus and paths come from the environment."""

from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.settings import EvalSettings

defs = build_definitions(EvalSettings.from_env())
