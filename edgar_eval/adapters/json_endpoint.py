"""POST JSON to a model server and get a 2xx back: the one retry loop the embedder, the chat generator, the
external RAG client and the proposer share.

429, 5xx and transport failures (timeouts included) are retried with backoff, honouring Retry-After up to a cap;
any other 4xx is raised at once with the server's own words; each adapter raises its own error family, so a
report can say whether embedding or generation failed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlsplit, urlunsplit

import httpx

from edgar_eval.adapters.http_retry import RetryPolicy, retry_after_seconds

_BODY_EXCERPT = 300


@dataclass(frozen=True)
class EndpointErrors:
    """The exception classes an adapter raises: a final 4xx (built with the status code), retries exhausted, and a
    2xx reply that is not what the protocol promises."""

    http: type[Exception]
    retries_exhausted: type[Exception]
    bad_response: type[Exception]


def public_url(base_url: str) -> str:
    """The base URL without any user:password, as it may be shown in ids, logs and errors."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def error_excerpt(response: httpx.Response) -> str:
    """The server's own words: OpenAI {"error": {"message"}}, Ollama {"error": "..."}, vLLM {"message"}, or raw text."""
    try:
        payload = response.json()
    except ValueError:
        payload = None
    message = None
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict):
            message = error.get("message")
        elif isinstance(error, str):
            message = error
        if message is None and isinstance(payload.get("message"), str):
            message = payload["message"]
    if message is None:
        message = response.text
    message = " ".join(str(message).split())
    return message[:_BODY_EXCERPT] + ("..." if len(message) > _BODY_EXCERPT else "")


def api_headers(api_key: str | None, api_key_env: str | None) -> dict[str, str]:
    """JSON accept header, and a bearer token from `api_key` or else the named environment variable, if any."""
    key = api_key if api_key is not None else (os.environ.get(api_key_env, "") if api_key_env else "")
    headers = {"Accept": "application/json"}
    if key.strip():
        headers["Authorization"] = f"Bearer {key.strip()}"
    return headers


class JsonEndpoint:
    """POST JSON, get a 2xx back: bounded retries, and the successful attempt's latency."""

    def __init__(
        self,
        url: str,
        public_url: str,
        headers: dict[str, str],
        timeout: httpx.Timeout | float,
        retry: RetryPolicy,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        transport: httpx.BaseTransport | None,
        errors: EndpointErrors,
    ) -> None:
        if retry.attempts < 1:
            raise ValueError("retry.attempts must be at least 1")
        self.url, self.public_url, self.retry, self.errors = url, public_url, retry, errors
        self._sleep, self._clock = sleep, clock
        self._http = httpx.Client(headers=headers, timeout=timeout, transport=transport)

    def close(self) -> None:
        self._http.close()

    def post_response(self, body: dict, hint_404: str = "") -> tuple[httpx.Response, float]:
        """The 2xx response and its latency, after bounded retries; a final 4xx raises at once."""
        problem = ""
        for attempt in range(1, self.retry.attempts + 1):
            delay = self.retry.backoff(attempt)
            started = self._clock()
            try:
                response = self._http.post(self.url, json=body)
            except httpx.TransportError as exc:  # timeouts are transport errors too
                problem = f"{type(exc).__name__}: {exc}"
            else:
                status = response.status_code
                if status == 429 or status >= 500:
                    problem = f"HTTP {status} {response.reason_phrase}: {error_excerpt(response)}"
                    retry_after = retry_after_seconds(response.headers.get("Retry-After"))
                    if retry_after is not None:
                        delay = min(retry_after, self.retry.max_retry_after_s)
                elif status >= 400:
                    hint = " (check the API key)" if status in (401, 403) else (hint_404 if status == 404 else "")
                    raise self.errors.http(
                        f"HTTP {status} {response.reason_phrase} from {self.public_url}{hint}: "
                        f"{error_excerpt(response)}",
                        status,
                    )
                else:
                    return response, self._clock() - started
            if attempt < self.retry.attempts:
                self._sleep(delay)
        raise self.errors.retries_exhausted(
            f"gave up on {self.public_url} after {self.retry.attempts} attempts: {problem}"
        )

    def post(self, body: dict, hint_404: str = "") -> tuple[dict, float]:
        """The 2xx reply's JSON object and its latency."""
        response, latency = self.post_response(body, hint_404)
        try:
            payload = response.json()
        except ValueError as exc:
            raise self.errors.bad_response(
                f"{self.public_url} did not return JSON: {exc}; body starts {response.text[:80]!r}"
            ) from exc
        if not isinstance(payload, dict):
            raise self.errors.bad_response(f"{self.public_url} returned JSON {type(payload).__name__}, not an object")
        return payload, latency
