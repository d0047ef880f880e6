"""The Definitions the CLI, the UI and CI load. Importing this module reads nothing: Dagster's loaders call `defs`,
which reads the corpus folder, the paths, the embedder and the generator from the environment when the code
location loads."""

import dagster as dg

from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource


@dg.definitions
def defs() -> dg.Definitions:
    return build_definitions(EvalSettings.from_env(), EmbedderResource.from_env(), GeneratorResource.from_env())
