"""Fixtures: voice message nodes made through the engine, and a loopback Ollama.

The fake Ollama is a real HTTP server (stdlib ``http.server`` in a thread) on
127.0.0.1:<free port> speaking the ``/api/chat`` protocol with ``stream: false``.
No model runs: each request is answered by the next scripted behaviour.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import anchor_id, node_id
from memgraph.store import Store, open_store
from profiles.voice.classify.rules import classify_text

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def message_node(session_id: str, uuid: str, text: str, minutes: int = 0) -> MemoryNode:
    """A voice message node as the capture contract (notes/CONVENTIONS.md) builds it."""
    when = T0 + timedelta(minutes=minutes)
    return MemoryNode(
        id=node_id("voice", "message", session_id, uuid),
        domain_id="voice:demo",
        profile="voice",
        kind="message",
        title=text.splitlines()[0][:80] if text else "",
        claim=text,
        lifecycle="captured",
        created_at=when,
        updated_at=when,
        valid_from=when,
        ingested_at=when,
        anchors=[
            MemoryAnchor(
                id=anchor_id("transcript", f"/t/{session_id}.jsonl", uuid),
                kind=AnchorKind.transcript,
                ref=f"/t/{session_id}.jsonl",
                line=minutes + 1,
                record_uuid=uuid,
            )
        ],
        attributes={
            "session_id": session_id,
            "record_uuid": uuid,
            "project": "demo",
            "constellation": "demo",
            "branch": "main",
            "cwd": "/work/demo",
            "harness": "claude-code",
            "origin": "prompt",
            "classification": None,
            "confidence": None,
            "topics": [],
            "voice_page": None,
        },
    )


TEXTS = [
    ("s1", "run the tests"),
    ("s1", "why does the fts query return nothing for hyphenated words?"),
    ("s1", "always use atomic_write_text for views"),
    ("s2", "no, that's wrong, the cwd is in session_meta"),
    ("s2", "we'll go with sqlite for the store, final"),
]


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "classify.db" if request.param == "sqlite" else ":memory:")
    yield s
    s.close()


@pytest.fixture
def messages(store: Store) -> list[MemoryNode]:
    nodes = [message_node(sid, f"u{i}", text, i) for i, (sid, text) in enumerate(TEXTS)]
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes], proposer="capture"))
    return nodes


@pytest.fixture
def message_db(tmp_path: Path) -> Path:
    """A closed SQLite store file holding the TEXTS messages (for CLI tests)."""
    path = tmp_path / "cli.db"
    s = open_store(path)
    nodes = [message_node(sid, f"u{i}", text, i) for i, (sid, text) in enumerate(TEXTS)]
    apply_patch(s, new_patch([UpsertNode(node=n) for n in nodes], proposer="capture"))
    s.close()
    return path


# -- the loopback Ollama ---------------------------------------------------


def rules_answer(items: list[dict[str, str]]) -> dict[str, Any]:
    """A well-formed answer: what the rule classifier says, as a model would say it."""
    out = []
    for item in items:
        c = classify_text(item["id"], item["text"])
        out.append(
            {
                "id": c.id,
                "classification": c.classification.value,
                "confidence": 0.9,
                "topics": c.topics,
            }
        )
    return {"items": out}


Behaviour = Callable[[list[dict[str, str]]], tuple[int, str, float]]


def good(answer: Callable[[list[dict[str, str]]], Any] = rules_answer) -> Behaviour:
    return lambda items: (200, json.dumps(answer(items)), 0.0)


def content(text: str) -> Behaviour:
    return lambda items: (200, text, 0.0)


def status(code: int, body: str = '{"error":"boom"}') -> Behaviour:
    return lambda items: (code, body, 0.0)


def slow(seconds: float) -> Behaviour:
    return lambda items: (200, json.dumps(rules_answer(items)), seconds)


@dataclass
class FakeOllama:
    host: str
    behaviours: list[Behaviour] = field(default_factory=list)
    default: Behaviour = field(default_factory=good)
    requests: list[dict[str, Any]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    # behaviour builders, reachable from tests through the fixture
    good = staticmethod(good)
    content = staticmethod(content)
    status = staticmethod(status)
    slow = staticmethod(slow)

    def script(self, *behaviours: Behaviour) -> None:
        self.behaviours = list(behaviours)

    def next(self) -> Behaviour:
        return self.behaviours.pop(0) if self.behaviours else self.default


def _handler(fake: FakeOllama) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, code: int, body: str) -> None:
            data = body.encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/api/version":
                self._send(200, '{"version":"0.0.0-loopback"}')
            else:
                self._send(404, '{"error":"not found"}')

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            fake.requests.append(request)
            if self.path != "/api/chat":
                self._send(404, '{"error":"not found"}')
                return
            items = json.loads(request["messages"][-1]["content"])
            code, body, delay = fake.next()(items)
            if delay and fake.stop.wait(delay):
                return  # server shutting down
            if code != 200:
                self._send(code, body)
                return
            self._send(
                200,
                json.dumps(
                    {
                        "model": request.get("model"),
                        "created_at": "2026-03-01T03:00:00Z",
                        "message": {"role": "assistant", "content": body},
                        "done": True,
                        "done_reason": "stop",
                    }
                ),
            )

    return Handler


@pytest.fixture
def ollama_server() -> Iterator[FakeOllama]:
    fake = FakeOllama(host="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    fake.host = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.stop.set()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
