"""The golden-question proposer: a chat model behind an OpenAI-compatible POST /v1/chat/completions.

It reads one excerpt bundle (golden.excerpts) through the proposal prompt (golden.proposal_prompt) and returns
what golden.proposal_prompt.parse_proposals makes of the reply: candidates for the gates, and problems with
their reasons. Code decides; the model only proposes.

Transport, retries and reply checks are the chat generator's (JsonEndpoint, _chat_reply), and every call goes
through a Tape, so a proposal run replays offline bit for bit. The request is deterministic: temperature 0, a
bounded max_tokens, an optional seed, and a nonce derived from the bundle, so the same bundle always sends the
same messages and hits the same tape entry.

Thinking is disabled where the server supports it: vLLM and llama.cpp's server read
`chat_template_kwargs: {"enable_thinking": false}`; an OpenAI server rejects the unknown field with a 400. On a
400 that names the field, the request is sent once more without it, and the proposer remembers not to send it
again. The tape is keyed by the parameters asked for (thinking disabled), not by what the server accepted, so
a run recorded against either kind of server replays the same; the taped reply notes whether the field was sent.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

import httpx

from edgar_eval.adapters.chat_generator import (
    CHAT_API_KEY_ENV,
    DEFAULT_NONCE_SEED,
    DEFAULT_TIMEOUT,
    GenerationHttpError,
    GenerationResponseError,
    _chat_reply,
    _ChatClient,
)
from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.tape import Tape
from edgar_eval.golden.candidates import Candidate, CandidateProblem
from edgar_eval.golden.excerpts import ExcerptBundle
from edgar_eval.golden.proposal_prompt import PROMPT_VERSION, build_proposal_messages, parse_proposals, proposal_nonce

DEFAULT_MAX_TOKENS = 2048
DEFAULT_COUNT = 3
PROPOSER_ID_PREFIX = "chat-proposer"
TEMPLATE_KWARGS = "chat_template_kwargs"
NO_THINKING = {"enable_thinking": False}


class ChatProposer(_ChatClient):
    """Proposes golden-question candidates for excerpt bundles; close it, or use it in a `with` block."""

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
        count: int = DEFAULT_COUNT,
        nonce_seed: str | int = DEFAULT_NONCE_SEED,
        disable_thinking: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.perf_counter,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if count < 1:
            raise ValueError(f"count must be at least 1, not {count}")
        self._open_chat(
            base_url, model, tape, max_tokens, seed, api_key, api_key_env, timeout, retry, sleep, clock, transport
        )
        self.count, self.nonce_seed = count, nonce_seed
        if disable_thinking:
            self.parameters[TEMPLATE_KWARGS] = dict(NO_THINKING)
        self.template_kwargs_rejected = False  # set when the server answered 400 to chat_template_kwargs

    def __repr__(self) -> str:
        return f"ChatProposer(model={self.model!r}, base_url={self._public_base_url!r}, tape={self.tape!r})"

    @property
    def proposer_id(self) -> str:
        """'chat-proposer:<model>/<prompt version>'; the server is left out, so a replay elsewhere matches."""
        return f"{PROPOSER_ID_PREFIX}:{self.model}/{PROMPT_VERSION}"

    @property
    def source(self) -> str:
        return f"chat:{self.model}"

    def _post(self, messages: list[dict], where: str) -> tuple[dict, float]:
        body = {"model": self.model, "messages": messages, **self.parameters, "stream": False}
        hint = f" (is model {self.model!r} served there?)"
        if self.template_kwargs_rejected:
            body.pop(TEMPLATE_KWARGS, None)
        try:
            payload, latency = self._endpoint.post(body, hint_404=hint)
        except GenerationHttpError as exc:
            if exc.status_code != 400 or TEMPLATE_KWARGS not in body or TEMPLATE_KWARGS not in str(exc):
                raise
            self.template_kwargs_rejected = True  # an OpenAI-style server: never send the field again
            body.pop(TEMPLATE_KWARGS)
            payload, latency = self._endpoint.post(body, hint_404=hint)
        reply = _chat_reply(payload, where)
        reply[f"{TEMPLATE_KWARGS}_sent"] = TEMPLATE_KWARGS in body
        return reply, latency

    def propose(
        self, bundle: ExcerptBundle, examples: Sequence[Candidate] = ()
    ) -> tuple[list[Candidate], list[CandidateProblem]]:
        """The model's proposals for one bundle: candidates, and problems (each with its reason)."""
        messages = build_proposal_messages(bundle, examples, self.count, nonce=proposal_nonce(bundle, self.nonce_seed))
        where = f"{self._endpoint.public_url} (model {self.model!r})"
        taped = self.tape.call(
            self.model, self.parameters, messages, lambda: self._post(messages, where), question=bundle.bundle_id
        )
        reply = taped.response
        finish = reply.get("finish_reason")
        if not isinstance(reply.get("content"), str) or not (finish is None or isinstance(finish, str)):
            raise GenerationResponseError(f"taped reply {taped.key} has no text 'content' or a bad 'finish_reason'")
        candidates, problems = parse_proposals(reply["content"], bundle, self.source, PROMPT_VERSION)
        if finish == "length":
            problems.append(
                CandidateProblem(
                    f"{self.source}:{bundle.bundle_id}",
                    self.source,
                    "the reply was cut at max_tokens; proposals after the cut are lost",
                )
            )
        return candidates, problems
