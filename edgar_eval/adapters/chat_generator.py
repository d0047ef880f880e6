"""Generators over HTTP: any OpenAI-compatible POST /v1/chat/completions, and a user's own RAG service.

Both retry 429, 5xx and transport failures (timeouts included) with backoff, honouring Retry-After up to a cap;
both check every reply strictly and fail loudly, so a misbehaving server shows up as an error, never as a
wrong answer; both go through a Tape, so a recorded run replays offline with the original latencies.

The chat generator asks at temperature 0 with a bounded max_tokens (and a seed when given), with the prompt of
answering.prompt; its nonces are seeded by default so the same request always sends the same messages and
hits the same tape entry. The external RAG service receives {question, cik, fiscal_year}, does its own
retrieval and answers {text, citations, abstained, reason} and, optionally, route: one of answer, clarify,
no_answer, deny, review, which must agree with abstained (answer exactly when not abstained). Its citations are its
own passage ids. The chat prompt (rag-prompt/1) has no route vocabulary: a chat reply exits by answer or no_answer,
read from its refusal phrase.
"""

from __future__ import annotations

import time
from typing import Callable, cast
from urllib.parse import urlsplit

import httpx

from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.json_endpoint import EndpointErrors, JsonEndpoint, api_headers, public_url
from edgar_eval.adapters.openai_embeddings import normalise_base_url
from edgar_eval.adapters.tape import Tape
from edgar_eval.answering.prompt import (
    PROMPT_VERSION,
    NonceFactory,
    build_prompt,
    parse_reply,
    random_nonces,
    seeded_nonces,
)
from edgar_eval.domain.generation import Generation, GenerationRequest
from edgar_eval.domain.routes import ANSWER, ROUTES

CHAT_API_KEY_ENV = "EDGAR_EVAL_CHAT_API_KEY"
RAG_API_KEY_ENV = "EDGAR_EVAL_RAG_API_KEY"
DEFAULT_TIMEOUT = httpx.Timeout(120.0, connect=10.0)
DEFAULT_MAX_TOKENS = 512
DEFAULT_NONCE_SEED = "edgar-eval"
CHAT_ID_PREFIX = "openai-compatible-chat"
RAG_ID_PREFIX = "external-rag"
_USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


class GenerationError(RuntimeError):
    """A generation request that failed or a reply that cannot be trusted; `kind` names it for reports."""

    kind = "generation"


class GenerationHttpError(GenerationError):
    """A 4xx the server will not change its mind about (bad model name, bad key, prompt too long)."""

    kind = "http"

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


class GenerationRetriesExhausted(GenerationError):
    kind = "retries_exhausted"


class GenerationResponseError(GenerationError):
    """A 2xx reply (or a taped one) that is not what the protocol promises."""

    kind = "bad_response"


GENERATION_ERRORS = EndpointErrors(GenerationHttpError, GenerationRetriesExhausted, GenerationResponseError)


def normalise_chat_base_url(base_url: str) -> str:
    """'http://host:8080/v1/chat/completions' or '.../v1/' -> 'http://host:8080'."""
    text = base_url.strip().rstrip("/")
    if text.endswith("/chat/completions"):
        text = text[: -len("/chat/completions")]
    try:
        return normalise_base_url(text)
    except ValueError as exc:
        raise ValueError(str(exc).replace("embeddings base_url", "chat base_url")) from None


def _chat_reply(payload: dict, where: str) -> dict:
    """The one choice's content, finish reason, served model and token usage, checked; what the tape keeps."""
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices:
        error = payload.get("error")
        detail = f": error {' '.join(str(error).split())[:200]}" if error else f" (keys {sorted(payload)[:8]})"
        raise GenerationResponseError(f"{where} returned JSON without a non-empty 'choices' list{detail}")
    if len(choices) != 1:
        raise GenerationResponseError(f"{where} returned {len(choices)} choices where one was asked for")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise GenerationResponseError(f"{where} returned a choice without a 'message' object")
    content = message.get("content")
    if not isinstance(content, str):
        why = (
            f"; refusal: {message['refusal']!r}"
            if isinstance(message.get("refusal"), str)
            else ("; it called tools" if message.get("tool_calls") else "")
        )
        raise GenerationResponseError(
            f"{where} returned a message whose 'content' is {type(content).__name__}, not text{why}"
        )
    finish = choice.get("finish_reason")
    if finish is not None and not isinstance(finish, str):
        raise GenerationResponseError(f"{where} returned a non-text 'finish_reason': {finish!r}")
    served = payload.get("model") if isinstance(payload.get("model"), str) else None
    usage = cast(dict, payload.get("usage")) if isinstance(payload.get("usage"), dict) else {}
    usage = {k: usage[k] for k in _USAGE_FIELDS if isinstance(usage.get(k), int) and not isinstance(usage[k], bool)}
    return {"content": content, "finish_reason": finish, "served_model": served, "usage": usage}


class _EndpointClient:
    """A generator holding one HTTP endpoint: closed on exit from a `with` block or by close()."""

    _endpoint: JsonEndpoint

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        self._endpoint.close()


class _ChatClient(_EndpointClient):
    """One model behind an OpenAI-compatible POST /v1/chat/completions, asked at temperature 0 through a tape."""

    def _open_chat(
        self,
        base_url: str,
        model: str,
        tape: Tape | None,
        max_tokens: int,
        seed: int | None,
        api_key: str | None,
        api_key_env: str | None,
        timeout: httpx.Timeout | float,
        retry: RetryPolicy,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        transport: httpx.BaseTransport | None,
    ) -> None:
        self.model = model.strip()
        if not self.model:
            raise ValueError("a chat model name is required")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, not {max_tokens}")
        self.tape = tape or Tape.off()
        self.parameters: dict = {"temperature": 0, "max_tokens": max_tokens}
        if seed is not None:
            self.parameters["seed"] = seed
        self.base_url = normalise_chat_base_url(base_url)
        self._public_base_url = public_url(self.base_url)
        self._endpoint = JsonEndpoint(
            f"{self.base_url}/v1/chat/completions",
            f"{self._public_base_url}/v1/chat/completions",
            api_headers(api_key, api_key_env),
            timeout,
            retry,
            sleep,
            clock,
            transport,
            GENERATION_ERRORS,
        )


class OpenAICompatibleChatGenerator(_ChatClient):
    """The reference answerer's reader: a chat model behind an OpenAI-compatible server."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        api_key_env: str | None = CHAT_API_KEY_ENV,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        retry: RetryPolicy = RetryPolicy(),
        tape: Tape | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        seed: int | None = None,
        nonces: NonceFactory | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.perf_counter,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._open_chat(
            base_url, model, tape, max_tokens, seed, api_key, api_key_env, timeout, retry, sleep, clock, transport
        )
        self.nonces = nonces or seeded_nonces(DEFAULT_NONCE_SEED)
        if self.nonces is random_nonces and self.tape.mode != "off":
            raise ValueError(
                "random nonces change the messages, hence the tape key, on every call; "
                "use seeded_nonces(seed) with a tape"
            )
        # imported here: a statement added at the top of this module would move the place, hence the code version, of
        # every statement below it that the proposer's assets reach
        from edgar_eval.adapters.service_progress import generator_limits, shared_progress

        self.progress = shared_progress(
            f"chat model {self.model!r} at {self._public_base_url}", "questions", generator_limits(timeout, retry)
        )

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleChatGenerator(model={self.model!r}, base_url={self._public_base_url!r}, "
            f"tape={self.tape!r})"
        )

    @property
    def generator_id(self) -> str:
        """'openai-compatible-chat:<model>/<prompt version>'; the server is left out, so a replay elsewhere matches."""
        return f"{CHAT_ID_PREFIX}:{self.model}/{PROMPT_VERSION}"

    def generate(self, request: GenerationRequest) -> Generation:
        prompt = build_prompt(request, self.nonces)
        messages = prompt.as_messages()
        where = f"{self._endpoint.public_url} (model {self.model!r})"

        def fetch() -> tuple[dict, float]:
            body = {"model": self.model, "messages": messages, **self.parameters, "stream": False}
            payload, latency = self._endpoint.post(body, hint_404=f" (is model {self.model!r} served there?)")
            return _chat_reply(payload, where), latency

        with self.progress.call():  # a line every few questions, or while one waits (adapters/service_progress.py)
            taped = self.tape.call(self.model, self.parameters, messages, fetch, question=request.question)
        reply = taped.response
        if not isinstance(reply.get("content"), str) or not (
            reply.get("finish_reason") is None or isinstance(reply.get("finish_reason"), str)
        ):
            raise GenerationResponseError(f"taped reply {taped.key} has no text 'content' or a bad 'finish_reason'")
        parsed = parse_reply(prompt, reply["content"])
        reason = parsed.reason
        if not parsed.abstained and reply.get("finish_reason") == "length":
            reason = "reply cut at max_tokens" + (f"; {reason}" if reason else "")
        return Generation(
            text=parsed.text,
            citations=parsed.citations,
            abstained=parsed.abstained,
            reason=reason,
            model_id=self.model,
            parameters=dict(self.parameters),
            prompt_version=prompt.prompt_version,
            latency_seconds=taped.latency_seconds,
            replayed=taped.replayed,
            tape_key=taped.key,
        )


def _rag_reply(payload: dict, where: str) -> dict:
    """{text, citations, abstained, reason} and a route when the reply names one, checked and normalised; extra keys
    are ignored."""
    missing = [k for k in ("text", "citations", "abstained") if k not in payload]
    if missing:
        raise GenerationResponseError(
            f"{where} returned JSON without {', '.join(map(repr, missing))} (keys {sorted(payload)[:8]})"
        )
    text, citations, abstained, reason = (
        payload["text"],
        payload["citations"],
        payload["abstained"],
        payload.get("reason"),
    )
    if not isinstance(text, str):
        raise GenerationResponseError(f"{where} returned 'text' of type {type(text).__name__}, not a string")
    if not isinstance(citations, list) or not all(isinstance(c, str) and c.strip() for c in citations):
        raise GenerationResponseError(f"{where} returned 'citations' that are not a list of non-empty strings")
    if not isinstance(abstained, bool):
        raise GenerationResponseError(
            f"{where} returned 'abstained' of type {type(abstained).__name__}, not true/false"
        )
    if reason is not None and not isinstance(reason, str):
        raise GenerationResponseError(
            f"{where} returned 'reason' of type {type(reason).__name__}, not a string or null"
        )
    reply = {"text": text, "citations": list(dict.fromkeys(citations)), "abstained": abstained, "reason": reason}
    route = payload.get("route")
    if route is not None:
        if route not in ROUTES:
            raise GenerationResponseError(f"{where} returned route {str(route)[:40]!r}; routes are {', '.join(ROUTES)}")
        if (route == ANSWER) == abstained:
            raise GenerationResponseError(
                f"{where} returned route {route!r} with abstained {str(abstained).lower()}: only an answer is not "
                "abstained"
            )
        reply["route"] = route  # only when named, so replies recorded before routes replay unchanged
    return reply


class ExternalRagGenerator(_EndpointClient):
    """A user's own RAG service, evaluated end to end: it retrieves, reads and cites by itself."""

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        api_key: str | None = None,
        api_key_env: str | None = RAG_API_KEY_ENV,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        retry: RetryPolicy = RetryPolicy(),
        tape: Tape | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.perf_counter,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the RAG service url must be an http(s) URL with a host, not {url!r}")
        public = public_url(url.strip())
        # The name, not the URL, keys the tape when given, so a service that moves host still replays.
        self.model_id = (name or public).strip()
        self.tape = tape or Tape.off()
        self._endpoint = JsonEndpoint(
            url.strip(),
            public,
            api_headers(api_key, api_key_env),
            timeout,
            retry,
            sleep,
            clock,
            transport,
            GENERATION_ERRORS,
        )
        from edgar_eval.adapters.service_progress import generator_limits, shared_progress  # here: as the chat's

        self.progress = shared_progress(
            f"RAG service {self.model_id!r}" + (f" at {public}" if public != self.model_id else ""),
            "questions",
            generator_limits(timeout, retry),
        )

    def __repr__(self) -> str:
        return f"ExternalRagGenerator({self.model_id!r}, tape={self.tape!r})"

    @property
    def generator_id(self) -> str:
        return f"{RAG_ID_PREFIX}:{self.model_id}"

    def generate(self, request: GenerationRequest) -> Generation:
        body = {"question": request.question, "cik": request.cik, "fiscal_year": request.fiscal_year}
        if request.role is not None:
            body["role"] = request.role
        where = self._endpoint.public_url

        def fetch() -> tuple[dict, float]:
            payload, latency = self._endpoint.post(body)
            return _rag_reply(payload, where), latency

        with self.progress.call():  # as the chat generator's
            taped = self.tape.call(self.model_id, {}, body, fetch, question=request.question)
            reply = _rag_reply(taped.response, f"taped reply {taped.key}")  # a hand-edited tape: checked like a server
        return Generation(
            text=reply["text"],
            citations=reply["citations"],
            abstained=reply["abstained"],
            reason=reply["reason"],
            route=reply.get("route"),
            model_id=self.model_id,
            parameters={},
            prompt_version=None,
            latency_seconds=taped.latency_seconds,
            replayed=taped.replayed,
            tape_key=taped.key,
        )
