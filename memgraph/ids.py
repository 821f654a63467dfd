"""Stable identifiers derived from natural keys.

Re-ingesting the same input must yield the same graph, so every id is a pure
function of the thing's natural key: ``<prefix>-<16 hex of sha256>``.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$")


def digest(*parts: str, length: int = 16) -> str:
    """Hex sha256 of the parts joined by an unambiguous separator."""
    # the same bytes as one update per length and part, hashed in one call
    chunks: list[bytes] = []
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        chunks.append(len(data).to_bytes(8, "big"))
        chunks.append(data)
    return hashlib.sha256(b"".join(chunks)).hexdigest()[:length]


_GOOD_PREFIXES = {"n", "e", "a", "s", "r"}  # checked once, then remembered


def stable_id(prefix: str, *natural_key: str) -> str:
    """``prefix-<hex>`` for a natural key; the same key always gives the same id."""
    if prefix not in _GOOD_PREFIXES:
        if not prefix or not prefix.replace("_", "").isalnum():
            raise ValueError(f"bad id prefix {prefix!r}")
        if len(_GOOD_PREFIXES) < 64:
            _GOOD_PREFIXES.add(prefix)
    return f"{prefix}-{digest(*natural_key)}"


def canonical_json(value: Any) -> str:
    """Key-sorted, compact JSON: the form every content hash is taken over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(value: Any) -> str:
    """sha256 over canonical JSON (full 64 hex)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()


def node_id(profile: str, kind: str, *natural_key: str) -> str:
    return stable_id("n", profile, kind, *natural_key)


def edge_id(kind: str, source_id: str, target_id: str, *extra: str) -> str:
    return stable_id("e", kind, source_id, target_id, *extra)


def anchor_id(kind: str, *natural_key: str) -> str:
    return stable_id("a", kind, *natural_key)


def summary_id(domain_id: str, *covered_ids: str) -> str:
    return stable_id("s", domain_id, *sorted(covered_ids))


def is_safe_name(value: str) -> bool:
    """True for a name usable as one path component (session id, persona, project).

    No separators, no traversal, no leading dot, bounded length.
    """
    return bool(_SAFE_NAME.match(value)) and ".." not in value
