"""Ollama as an optional proposer: structured JSON out, validated by pydantic.

Messages go to ``/api/chat`` (official ``ollama`` client, ``stream=False``) in
batches of about ``batch_tokens`` tokens, with ``format`` set to the JSON schema
of the answer. Each request has a timeout and a bounded number of retries;
transport failures (connection refused, timeout, HTTP 5xx) and malformed
answers (not JSON, wrong shape) are both retried, then raised as one-line
errors. Nothing here touches the store: the answers are ``Proposal`` objects
the night pass turns into a patch that validation applies or rejects.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from memgraph.errors import BackendUnavailable, MemgraphError, MissingExtra
from profiles.voice.classify.labels import LABELS, MAX_TOPICS, Proposal

if TYPE_CHECKING:
    from memgraph.config import Settings

# ~4 characters per token is the usual estimate for English/code text; the
# batch budget only needs to be roughly right.
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 12  # the {"id": ..., "text": ...} wrapping
MAX_MESSAGE_CHARS = 2000  # a pasted log says nothing more after this

SYSTEM_PROMPT = (
    "You classify messages an operator typed to AI coding agents. For each input item "
    "return its id unchanged, one classification, a confidence between 0 and 1, and up "
    "to 3 short lower-case topics. Classifications: "
    "definition (what a term means here), decision (a choice that settles something), "
    "directive (a standing instruction: always/never/from now on), correction (the agent "
    "got something wrong), question, rationale (why something is so), preference "
    "(taste: I prefer / I'd rather), command (a one-off operational request: run, commit, "
    'fix, show). Answer only with JSON: {"items": [...]}.'
)


class OllamaUnavailable(BackendUnavailable):
    """Ollama could not be reached or kept failing within the retry budget."""


class OllamaRefused(OllamaUnavailable):
    """Ollama refused the request (4xx: unknown model, bad request); no retry helps."""


class OllamaOutputError(MemgraphError):
    """Ollama answered, but not with the JSON the schema asks for."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    items: list[Proposal]


def answer_schema() -> dict[str, Any]:
    """The JSON schema passed as ``format``: Ollama constrains decoding to it."""
    return {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "classification": {"type": "string", "enum": list(LABELS)},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                        "topics": {
                            "type": "array",
                            "items": {"type": "string"},
                            "maxItems": MAX_TOPICS,
                        },
                    },
                    "required": ["id", "classification", "confidence", "topics"],
                },
            }
        },
        "required": ["items"],
    }


def parse_answer(content: str) -> list[Proposal]:
    """Parse the model's message content; ``OllamaOutputError`` if it is not the shape."""
    try:
        return _Answer.model_validate(json.loads(content)).items
    except (json.JSONDecodeError, ValidationError, TypeError, RecursionError) as exc:
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise OllamaOutputError(f"ollama answer is not the expected JSON: {first}") from None


def batches(items: Sequence[tuple[str, str]], budget_tokens: int) -> list[list[tuple[str, str]]]:
    """Split ``(id, text)`` pairs into batches of about ``budget_tokens`` each.

    Order is kept; a message bigger than the budget travels alone (cut to
    ``MAX_MESSAGE_CHARS``).
    """
    out: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    used = 0
    for message_id, text in items:
        text = text[:MAX_MESSAGE_CHARS]
        cost = len(text) // CHARS_PER_TOKEN + MESSAGE_OVERHEAD_TOKENS
        if current and used + cost > budget_tokens:
            out.append(current)
            current, used = [], 0
        current.append((message_id, text))
        used += cost
    if current:
        out.append(current)
    return out


@dataclass(frozen=True)
class OllamaConfig:
    model: str = "gemma4:e2b"
    host: str | None = None  # None: the client's default (OLLAMA_HOST or localhost:11434)
    timeout: float = 30.0  # seconds per request
    retries: int = 2  # extra attempts after the first, per batch
    backoff: float = 0.5  # seconds; grows linearly with the attempt number
    batch_tokens: int = 500

    def problems(self) -> list[str]:
        """The fields a classifier refuses (retries below 0, timeout or batch_tokens
        not above 0); [] when it can run."""
        bad = [("retries", self.retries < 0), ("timeout", self.timeout <= 0)]
        bad.append(("batch_tokens", self.batch_tokens < 1))
        return [name for name, wrong in bad if wrong]

    @classmethod
    def from_settings(cls, settings: Settings) -> OllamaConfig:
        return cls(
            model=settings.ollama_model,
            host=settings.ollama_host,
            timeout=settings.ollama_timeout,
            retries=settings.ollama_retries,
            batch_tokens=settings.ollama_batch_tokens,
        )


class OllamaClassifier:
    """Proposes classifications through a running Ollama; never writes anything."""

    def __init__(self, config: OllamaConfig, sleep: Callable[[float], None] = time.sleep) -> None:
        if config.problems():
            raise MemgraphError("ollama: retries must be >= 0, timeout and batch_tokens > 0")
        self.config = config
        self.name = f"ollama:{config.model}"
        self._sleep = sleep
        try:
            import ollama
        except ImportError:
            raise MissingExtra("ollama", "ollama") from None
        self._ollama = ollama
        self._client = ollama.Client(host=config.host, timeout=config.timeout)

    def propose(self, items: Sequence[tuple[str, str]]) -> list[Proposal]:
        """Ask the model about every ``(id, text)`` pair, batch by batch.

        Raises ``OllamaUnavailable`` or ``OllamaOutputError`` when any batch
        still fails after the retries; the caller then changes nothing.
        """
        proposals: list[Proposal] = []
        for batch in batches(items, self.config.batch_tokens):
            proposals.extend(self._ask(batch))
        return proposals

    def _ask(self, batch: list[tuple[str, str]]) -> list[Proposal]:
        payload = json.dumps([{"id": i, "text": t} for i, t in batch], ensure_ascii=False)
        last: MemgraphError | None = None
        for attempt in range(self.config.retries + 1):
            if attempt:
                self._sleep(self.config.backoff * attempt)
            try:
                content = self._chat(payload)
                return parse_answer(content)
            except OllamaRefused:
                raise
            except (OllamaUnavailable, OllamaOutputError) as exc:
                last = exc
        assert last is not None
        attempts = self.config.retries + 1
        raise type(last)(f"{last} (after {attempts} attempt{'s' if attempts > 1 else ''})")

    def _chat(self, payload: str) -> str:
        import httpx  # the ollama client's transport; a dependency of `ollama`

        where = self.config.host or "the default Ollama host"
        try:
            response = self._client.chat(
                model=self.config.model,
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": payload},
                ],
                format=answer_schema(),
                stream=False,
                options={"temperature": 0},
            )
        except httpx.TimeoutException:
            raise OllamaUnavailable(
                f"ollama at {where} did not answer within {self.config.timeout:g}s"
            ) from None
        except (ConnectionError, httpx.TransportError) as exc:
            raise OllamaUnavailable(f"ollama at {where} is unreachable ({exc})") from None
        except self._ollama.ResponseError as exc:
            if exc.status_code >= 500 or exc.status_code == 429:
                raise OllamaUnavailable(f"ollama at {where} failed: {exc}") from None
            # 4xx (unknown model, bad request) will not improve on retry
            raise OllamaRefused(f"ollama at {where} refused the request: {exc}") from None
        except (ValueError, TypeError, ValidationError) as exc:  # a non-JSON or non-chat HTTP body
            raise OllamaOutputError(f"ollama at {where} sent a malformed response") from exc
        return response.message.content or ""
