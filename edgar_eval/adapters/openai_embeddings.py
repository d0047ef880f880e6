"""An Embedder over any OpenAI-compatible POST /v1/embeddings endpoint (OpenAI, Ollama, vLLM, llama.cpp server).

Requests carry {"model", "input": [texts], "encoding_format": "float"}; replies are
{"data": [{"index", "embedding"}], "model"} in any order. Every reply is checked (count, indices, shape,
finite values, one dimension throughout) before its rows are L2-normalised, so a misbehaving server fails
loudly instead of filling an index with vectors that silently rank wrong.

The embedder id names the model, the endpoint and the dimension, so an index built through another model,
server or dimension is refused by the index fingerprint check. The dimension is part of the id from the
first time the id is read: when it was not given, reading the id asks the server for one probe vector.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Sequence
from urllib.parse import urlsplit, urlunsplit

import httpx
import numpy as np

from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.json_endpoint import EndpointErrors, JsonEndpoint, api_headers, public_url

BASE_URL_ENV = "EDGAR_EVAL_EMBEDDINGS_BASE_URL"
MODEL_ENV = "EDGAR_EVAL_EMBEDDINGS_MODEL"
API_KEY_ENV = "EDGAR_EVAL_EMBEDDINGS_API_KEY"
DEFAULT_TIMEOUT = httpx.Timeout(120.0, connect=10.0)
DEFAULT_MAX_CHARACTERS = 2000
DEFAULT_BATCH_SIZE = 64
NORMALISATION = "l2"
ID_PREFIX = "openai-compatible"
PROBE_TEXT = "dimension probe"


class EmbeddingError(RuntimeError):
    """An embeddings request that failed or a reply that cannot be trusted; `kind` names it for reports."""

    kind = "embedding"


class EmbeddingHttpError(EmbeddingError):
    """A 4xx the server will not change its mind about (bad model name, bad key, input too long)."""

    kind = "http"

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


class EmbeddingRetriesExhausted(EmbeddingError):
    kind = "retries_exhausted"


class EmbeddingResponseError(EmbeddingError):
    """A 2xx reply whose body is not a usable list of embeddings for the texts sent."""

    kind = "bad_response"


EMBEDDING_ERRORS = EndpointErrors(EmbeddingHttpError, EmbeddingRetriesExhausted, EmbeddingResponseError)


def normalise_base_url(base_url: str) -> str:
    """'http://host:11434/v1/' -> 'http://host:11434'; the endpoint path is added per request."""
    text = base_url.strip().rstrip("/")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"embeddings base_url must be an http(s) URL with a host, not {base_url!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"embeddings base_url must not carry a query or fragment: {base_url!r}")
    path = parts.path.rstrip("/")
    for suffix in ("/embeddings", "/v1"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


class OpenAICompatibleEmbedder:
    """Embeddings from an OpenAI-compatible server, batched, retried, checked and L2-normalised."""

    normalisation = NORMALISATION

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = API_KEY_ENV,
        dimension: int | None = None,
        send_dimensions: bool = False,
        max_characters: int = DEFAULT_MAX_CHARACTERS,
        truncate: bool = True,
        batch_size: int = DEFAULT_BATCH_SIZE,
        encoding_format: str | None = "float",
        retry: RetryPolicy = RetryPolicy(),
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.model = model.strip()
        if not self.model:
            raise ValueError("an embeddings model name is required")
        self.base_url = normalise_base_url(base_url)
        self.endpoint = f"{self.base_url}/v1/embeddings"
        self._public_base_url = public_url(self.base_url)
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        if max_characters < 1:
            raise ValueError(f"max_characters must be at least 1, not {max_characters}")
        if dimension is not None and dimension < 1:
            raise ValueError(f"dimension must be at least 1, not {dimension}")
        if send_dimensions and dimension is None:
            raise ValueError("send_dimensions asks the server for `dimension` dimensions, so dimension is required")
        self.batch_size = batch_size
        self._max_characters = max_characters
        self.truncate = truncate
        self.send_dimensions = send_dimensions
        self.encoding_format = encoding_format
        self._dimension = dimension
        self.served_model: str | None = None
        self._endpoint = JsonEndpoint(
            self.endpoint,
            self._public_endpoint(),
            api_headers(api_key, api_key_env),
            timeout,
            retry,
            sleep,
            time.perf_counter,
            transport,
            EMBEDDING_ERRORS,
        )

    @classmethod
    def from_env(cls, **overrides) -> OpenAICompatibleEmbedder:
        """Base URL, model and key from EDGAR_EVAL_EMBEDDINGS_{BASE_URL,MODEL,API_KEY}; keywords override."""
        base_url = overrides.pop("base_url", None) or os.environ.get(BASE_URL_ENV, "")
        model = overrides.pop("model", None) or os.environ.get(MODEL_ENV, "")
        missing = [name for name, value in ((BASE_URL_ENV, base_url), (MODEL_ENV, model)) if not value.strip()]
        if missing:
            raise ValueError(f"an OpenAI-compatible embedder needs {' and '.join(missing)} set")
        return cls(model, base_url, **overrides)

    def __enter__(self) -> OpenAICompatibleEmbedder:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        self._endpoint.close()

    def __repr__(self) -> str:
        return f"OpenAICompatibleEmbedder(model={self.model!r}, base_url={self._public_base_url!r})"

    @property
    def max_characters(self) -> int:
        return self._max_characters

    @property
    def dimension(self) -> int | None:
        """The vector dimension: given, or learnt from the first reply; None until then."""
        return self._dimension

    @property
    def embedder_id(self) -> str:
        """'openai-compatible:<model>@<base url>/dim=<n>'; asks the server for one probe vector if n is unknown."""
        if self._dimension is None:
            self.embed([PROBE_TEXT])
        return f"{ID_PREFIX}:{self.model}@{self._public_base_url}/dim={self._dimension}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not a single string")
        texts = list(texts)
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"text {position} is {type(text).__name__}, not str")
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        if self.truncate:
            texts = [text[: self._max_characters] for text in texts]
        rows = [
            self._embed_batch(texts[start : start + self.batch_size], start)
            for start in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(rows, axis=0)

    def _request_body(self, batch: list[str]) -> dict:
        body: dict = {"model": self.model, "input": batch}
        if self.encoding_format:
            body["encoding_format"] = self.encoding_format
        if self.send_dimensions:
            body["dimensions"] = self._dimension
        return body

    def _public_endpoint(self) -> str:
        return f"{self._public_base_url}/v1/embeddings"

    def _embed_batch(self, batch: list[str], offset: int) -> np.ndarray:
        where = f"{self._public_endpoint()} (model {self.model!r}, texts {offset}..{offset + len(batch) - 1})"
        response, _ = self._endpoint.post_response(
            self._request_body(batch), hint_404=f" (is model {self.model!r} served there?)"
        )
        try:
            payload = response.json()
        except ValueError as exc:
            raise EmbeddingResponseError(
                f"{where} did not return JSON: {exc}; body starts {response.text[:80]!r}"
            ) from exc
        vectors = self._vectors(payload, len(batch), where)
        served = payload.get("model")
        if isinstance(served, str) and served:
            if self.served_model is not None and served != self.served_model:
                raise EmbeddingResponseError(
                    f"{where} was served by model {served!r}, earlier replies by "
                    f"{self.served_model!r}; vectors of different models cannot share an index"
                )
            self.served_model = served
        return vectors

    def _vectors(self, payload: object, expected: int, where: str) -> np.ndarray:
        """The reply's embeddings as float32 rows in input order, checked and L2-normalised."""
        if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
            shown = type(payload).__name__ if not isinstance(payload, dict) else f"keys {sorted(payload)[:8]}"
            raise EmbeddingResponseError(f"{where} returned JSON without a 'data' list ({shown})")
        data = payload["data"]
        if len(data) != expected:
            raise EmbeddingResponseError(f"{where} returned {len(data)} embeddings for {expected} texts")
        if not all(isinstance(item, dict) and "embedding" in item for item in data):
            raise EmbeddingResponseError(f"{where} returned 'data' items without an 'embedding'")
        indices = [item.get("index") for item in data]
        if all(index is None for index in indices):
            indices = list(range(expected))
        elif not all(isinstance(index, int) and not isinstance(index, bool) for index in indices):
            raise EmbeddingResponseError(f"{where} returned 'data' items with missing or non-integer 'index'")
        if sorted(indices) != list(range(expected)):
            raise EmbeddingResponseError(
                f"{where} returned indices {sorted(indices)[:10]} for {expected} texts; "
                f"expected each of 0..{expected - 1} once"
            )
        ordered: list[Any] = [None] * expected
        for index, item in zip(indices, data):
            ordered[index] = item["embedding"]
        if any(isinstance(vector, str) for vector in ordered):
            raise EmbeddingResponseError(
                f"{where} returned embeddings as strings (base64?); use encoding_format='float'"
            )
        if not all(isinstance(vector, list) for vector in ordered):
            raise EmbeddingResponseError(f"{where} returned an 'embedding' that is not a list of numbers")
        lengths = sorted({len(vector) for vector in ordered})
        if len(lengths) > 1:
            raise EmbeddingResponseError(f"{where} returned vectors of inconsistent dimensions {lengths}")
        try:
            matrix = np.asarray(ordered)
        except (ValueError, TypeError) as exc:
            raise EmbeddingResponseError(
                f"{where} returned embeddings that are not flat lists of numbers: {exc}"
            ) from exc
        if matrix.ndim != 2 or matrix.dtype.kind not in "iuf":
            raise EmbeddingResponseError(
                f"{where} returned embeddings that are not flat lists of numbers "
                f"(array of {matrix.dtype} with shape {matrix.shape})"
            )
        dimension = matrix.shape[1]
        if dimension == 0:
            raise EmbeddingResponseError(f"{where} returned empty embeddings")
        matrix = matrix.astype(np.float64)
        finite = np.isfinite(matrix).all(axis=1)
        if not finite.all():
            bad = np.flatnonzero(~finite)[:5].tolist()
            raise EmbeddingResponseError(f"{where} returned non-finite values (NaN or infinity) in embeddings {bad}")
        if self._dimension is not None and dimension != self._dimension:
            raise EmbeddingResponseError(
                f"{where} returned {dimension}-dimensional vectors where {self._dimension} "
                f"were {'expected' if self.send_dimensions else 'given or returned before'}"
            )
        scale = np.abs(matrix).max(axis=1)
        zero = scale == 0
        if zero.any():
            raise EmbeddingResponseError(
                f"{where} returned all-zero embeddings {np.flatnonzero(zero)[:5].tolist()}, which cannot be normalised"
            )
        matrix = matrix / scale[:, None]  # first to the unit cube, so huge values cannot overflow the norm
        self._dimension = dimension
        return (matrix / np.linalg.norm(matrix, axis=1)[:, None]).astype(np.float32)
