"""What ``context``, ``recall`` and ``index`` share, without typer: the configured
vector nerve, running a ranked read with it, and the recall command itself (the
typer command and the lean ``recall`` path both call ``recall_command``, so
their output is the same by construction)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memgraph.cli.common import print_json_line, settings, store_from

if TYPE_CHECKING:
    from context_cut.vectors import VectorNerve
    from memgraph.config import Settings
    from memgraph.store import Store

R = TypeVar("R")


def nerve_for(cfg: Settings, *, required: bool) -> tuple[VectorNerve | None, str | None]:
    """The configured nerve, or (None, one-line notice) when vectors are off or down."""
    from context_cut.embedders import make_embedder
    from context_cut.vectors import open_nerve
    from memgraph.errors import BackendUnavailable, MissingExtra, UsageError

    try:
        embedder = make_embedder(
            cfg.embedder, model=cfg.embed_model, host=cfg.ollama_host, timeout=cfg.ollama_timeout
        )
    except (MissingExtra, BackendUnavailable) as exc:
        if required:
            raise
        return None, f"vectors unavailable, BM25 only: {exc}"
    if embedder is None:
        if required:
            raise UsageError("no embedder configured: pass --embedder hash|ollama|minilm")
        return None, "vectors not configured (MEMGRAPH_EMBEDDER=none): BM25 only"
    path = cfg.qdrant_path or cfg.home / "qdrant"
    try:
        nerve = open_nerve(embedder, path=path, url=cfg.qdrant_url, engine=cfg.qdrant_engine)
    except (MissingExtra, BackendUnavailable) as exc:
        if required:
            raise
        return None, f"vectors unavailable, BM25 only: {exc}"
    return nerve, None


def config_for(
    home: Path | None, embedder: str | None, qdrant_path: Path | None, qdrant_url: str | None
) -> Settings:
    return settings(home=home, embedder=embedder, qdrant_path=qdrant_path, qdrant_url=qdrant_url)


def say(line: str) -> None:
    print(" ".join(line.split()), file=sys.stderr)


def run_ranked(
    cfg: Settings, home: Path | None, store: str | Path | None, run: Callable[[Store, Any], R]
) -> R:
    """Open the store and the optional vector nerve, run, close both; say on stderr
    (one line) when ranking fell back to BM25."""
    s = store_from(home, store, for_reading=True)  # read-only stores are read too
    nerve, notice = nerve_for(cfg, required=False)
    try:
        result = run(s, nerve)
    finally:
        if nerve is not None:
            nerve.index.close()
        s.close()
    notices: list[str] = getattr(result, "notices", [])
    for line in [notice] if notice else [n for n in notices if n.startswith("vectors")]:
        say(line)
    return result


@dataclass(frozen=True)
class RecallArgs:
    """``memgraph recall``'s arguments, as parsed by typer or by the lean path."""

    text: str
    limit: int = 10
    project: str | None = None
    session: str | None = None
    mode: str = "hybrid"  # hybrid | bm25 | vectors
    as_json: bool = False
    home: Path | None = None
    store: str | Path | None = None
    embedder: str | None = None
    qdrant_path: Path | None = None
    qdrant_url: str | None = None


def recall_command(args: RecallArgs) -> None:
    """Semantic recall of what you said (hybrid BM25 + vectors), one line per hit."""
    from pydantic import ValidationError

    from context_cut.api import RecallRequest
    from context_cut.api import recall as run_recall
    from memgraph.errors import UsageError

    try:
        request = RecallRequest(
            text=args.text,
            limit=args.limit,
            project=args.project,
            session_id=args.session,
            mode=args.mode,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UsageError(f"bad recall request: {where}: {first['msg']}") from None
    if not args.text.strip():
        raise UsageError("the query is empty")
    cfg = config_for(args.home, args.embedder, args.qdrant_path, args.qdrant_url)
    result = run_ranked(cfg, args.home, args.store, lambda s, nerve: run_recall(s, request, nerve))
    for hit in result.hits:
        n = hit.node
        attrs = n.attributes
        when = (n.valid_from or n.created_at).strftime("%Y-%m-%d %H:%M")
        if args.as_json:
            row: dict[str, Any] = {
                "rank": hit.rank,
                "score": round(hit.score, 6),
                "id": n.id,
                "when": when,
                "session_id": attrs.get("session_id"),
                "project": attrs.get("project"),
                "text": n.claim,
                "bm25_rank": hit.bm25_rank,
                "vector_rank": hit.vector_rank,
            }
            print_json_line(row)
        else:
            sid = str(attrs.get("session_id") or "")[:8]
            title = " ".join((n.title or n.claim).split())[:80]
            print(f"{when}  {sid:8}  {attrs.get('project') or '-'}  {title}")
