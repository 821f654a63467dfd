"""A Qdrant server URL: the client is built without its server-version probe, whose
thread printed qdrant-client's UserWarning ("Failed to obtain server version ... Set
check_compatibility=False") beside memgraph's own line when the server was down."""

from __future__ import annotations

from typing import Any

import pytest

qdrant_client = pytest.importorskip("qdrant_client")

from context_cut.vector_backends import ClientBackend  # noqa: E402
from memgraph.errors import BackendUnavailable  # noqa: E402


def test_a_server_client_is_built_without_the_version_probe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[dict[str, Any]] = []

    class Fake:
        def __init__(self, **kwargs: Any) -> None:
            made.append(kwargs)

    monkeypatch.setattr(qdrant_client, "QdrantClient", Fake)
    backend = ClientBackend.open(url="http://127.0.0.1:1")
    assert backend.location == "http://127.0.0.1:1"
    assert made == [{"url": "http://127.0.0.1:1", "timeout": 10, "check_compatibility": False}]


def test_an_older_client_without_the_flag_still_connects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[dict[str, Any]] = []

    class Old:
        def __init__(self, url: str, timeout: int) -> None:
            made.append({"url": url, "timeout": timeout})

    monkeypatch.setattr(qdrant_client, "QdrantClient", Old)
    ClientBackend.open(url="http://127.0.0.1:1")
    assert made == [{"url": "http://127.0.0.1:1", "timeout": 10}]


def test_a_server_that_is_down_warns_nothing(recwarn: pytest.WarningsRecorder) -> None:
    backend = ClientBackend.open(url="http://127.0.0.1:1")
    with pytest.raises(BackendUnavailable, match=r"qdrant at http://127\.0\.0\.1:1"):
        backend.dimension_of("voice")
    assert not [w for w in recwarn if "server version" in str(w.message)]
