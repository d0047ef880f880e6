"""A Reranker over a /rerank endpoint in the shape common servers use (Cohere, Jina, infinity, llama.cpp server,
Hugging Face text-embeddings-inference).

Requests carry {"query", "documents": [texts], "top_n"} (and "model" when one is named); replies are
{"results": [{"index", "relevance_score"}]} or, as text-embeddings-inference answers, a bare list of
{"index", "score"}, in any order. Every reply is checked (each index once, within the documents sent, a finite
score) before it is trusted, so a misbehaving server fails loudly instead of reordering passages at random. 429, 5xx
and transport failures are retried with backoff (adapters.json_endpoint); any other 4xx fails at once with the
server's own words.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any, Callable

import httpx

from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.json_endpoint import EndpointErrors, JsonEndpoint, api_headers, public_url
from edgar_eval.domain.ports import Reranked

API_KEY_ENV = "EDGAR_EVAL_RERANK_API_KEY"
DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=10.0)
ID_PREFIX = "rerank-endpoint"


class RerankError(RuntimeError):
    """A rerank request that failed or a reply that cannot be trusted."""


class RerankHttpError(RerankError):
    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


class RerankRetriesExhausted(RerankError):
    pass


class RerankResponseError(RerankError):
    pass


RERANK_ERRORS = EndpointErrors(RerankHttpError, RerankRetriesExhausted, RerankResponseError)


def rerank_url(base_url: str) -> str:
    """'http://host:8080' or 'http://host:8080/v1' -> the endpoint; a URL ending in /rerank is taken as it is."""
    text = base_url.strip().rstrip("/")
    if not text.startswith(("http://", "https://")):
        raise ValueError(f"rerank url must be an http(s) URL, not {base_url!r}")
    return text if text.endswith("/rerank") else f"{text}/rerank"


def parse_results(payload: Any, documents: int, source: str) -> list[Reranked]:
    """The reply's results, best first (ties by index), checked against the number of documents sent."""
    items = payload.get("results") if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        raise RerankResponseError(f"{source} returned no list of results (expected {{'results': [...]}} or [...])")
    results, seen = [], set()
    for item in items:
        if not isinstance(item, dict):
            raise RerankResponseError(f"{source} returned a result that is not an object: {item!r}")
        index = item.get("index")
        score = item.get("relevance_score", item.get("score"))
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < documents or index in seen:
            raise RerankResponseError(f"{source} returned index {index!r} for {documents} documents (or twice)")
        if not isinstance(score, (int, float)) or isinstance(score, bool) or not math.isfinite(score):
            raise RerankResponseError(f"{source} returned score {score!r} for document {index}")
        seen.add(index)
        results.append(Reranked(index=index, relevance_score=float(score)))
    return sorted(results, key=lambda r: (-r.relevance_score, r.index))


class HttpReranker:
    """Reranks through a /rerank endpoint; the id names the endpoint and the model."""

    def __init__(
        self,
        base_url: str,
        model: str = "",
        *,
        api_key: str | None = None,
        api_key_env: str | None = API_KEY_ENV,
        retry: RetryPolicy = RetryPolicy(),
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = rerank_url(base_url)
        self.model = model.strip()
        self._public = public_url(self.url)
        self._endpoint = JsonEndpoint(
            self.url,
            self._public,
            api_headers(api_key, api_key_env),
            timeout,
            retry,
            sleep,
            time.perf_counter,
            transport,
            RERANK_ERRORS,
        )

    @property
    def reranker_id(self) -> str:
        return f"{ID_PREFIX}:{self.model or 'default'}@{self._public}"

    def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[Reranked]:
        if not documents or top_n <= 0:
            return []
        body: dict[str, Any] = {"query": query, "documents": list(documents), "top_n": min(top_n, len(documents))}
        if self.model:
            body["model"] = self.model
        response, _ = self._endpoint.post_response(body, hint_404=" (is this a /rerank endpoint?)")
        try:
            payload = response.json()
        except ValueError as exc:
            raise RerankResponseError(f"{self._public} did not return JSON: {exc}") from exc
        return parse_results(payload, len(documents), self._public)[:top_n]

    def close(self) -> None:
        self._endpoint.close()
