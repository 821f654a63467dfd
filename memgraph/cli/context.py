"""``memgraph context``, ``memgraph recall`` and ``memgraph index``.

Thin layers over ``context_cut``: the cut and recall APIs, and the Qdrant
nerve's ``sync_index``. Vectors are optional: without an embedder, or when
Qdrant/Ollama cannot be reached, ``context`` and ``recall`` rank with BM25 and
say so in one line on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from memgraph.cli.common import print_json_line, settings, store_from

if TYPE_CHECKING:
    from context_cut.vectors import VectorNerve
    from memgraph.config import Settings
    from memgraph.store import Store

R = TypeVar("R")

HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
StoreOpt = typer.Option(
    None, "--store", help="Store file or postgresql:// URL (overrides --home; env MEMGRAPH_STORE)."
)
EmbedderOpt = typer.Option(
    None, "--embedder", help="none | hash | ollama | minilm (env MEMGRAPH_EMBEDDER)."
)
QdrantPathOpt = typer.Option(
    None, "--qdrant-path", help="Embedded Qdrant dir (default <home>/qdrant)."
)
QdrantUrlOpt = typer.Option(
    None, "--qdrant-url", help="Qdrant server/cluster URL (env MEMGRAPH_QDRANT_URL)."
)


def _nerve(cfg: Settings, *, required: bool) -> tuple[VectorNerve | None, str | None]:
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
        return open_nerve(embedder, path=path, url=cfg.qdrant_url), None
    except (MissingExtra, BackendUnavailable) as exc:
        if required:
            raise
        return None, f"vectors unavailable, BM25 only: {exc}"


def _config(
    home: Path | None, embedder: str | None, qdrant_path: Path | None, qdrant_url: str | None
) -> Settings:
    return settings(home=home, embedder=embedder, qdrant_path=qdrant_path, qdrant_url=qdrant_url)


def _say(line: str) -> None:
    print(" ".join(line.split()), file=sys.stderr)


def _ranked(
    cfg: Settings, home: Path | None, store: str | None, run: Callable[[Store, Any], R]
) -> R:
    """Open the store and the optional vector nerve, run, close both; say on stderr
    (one line) when ranking fell back to BM25."""
    s = store_from(home, store)
    nerve, notice = _nerve(cfg, required=False)
    try:
        result = run(s, nerve)
    finally:
        if nerve is not None:
            nerve.index.close()
        s.close()
    notices: list[str] = getattr(result, "notices", [])
    for line in [notice] if notice else [n for n in notices if n.startswith("vectors")]:
        _say(line)
    return result


def context(
    text: str = typer.Argument(..., help="What the context is for."),
    cut: str = typer.Option("repo", "--cut", help="repo | role | persona | coordinator"),
    budget: int = typer.Option(2000, "--budget", help="Token budget (never exceeded)."),
    domain: str | None = typer.Option(None, "--domain", help="Only this domain id."),
    limit: int = typer.Option(50, "--limit", help="Candidate nodes considered."),
    as_json: bool = typer.Option(False, "--json", help="The packet as one JSON line."),
    markdown: bool = typer.Option(False, "--markdown", help="The packet as markdown."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
    embedder: str | None = EmbedderOpt,
    qdrant_path: Path | None = QdrantPathOpt,
    qdrant_url: str | None = QdrantUrlOpt,
) -> None:
    """A token-budgeted context packet for a repo task, role, persona or coordinator."""
    from context_cut.api import select_context_cut
    from context_cut.cuts import get_cut
    from context_cut.render import packet_json, packet_lines, packet_markdown
    from memgraph.documents import MemoryContextQuery
    from memgraph.errors import UsageError

    if as_json and markdown:
        raise UsageError("choose one of --json and --markdown")
    if budget <= 0 or limit <= 0:
        raise UsageError("--budget and --limit must be positive")
    if not text.strip():
        raise UsageError("the query is empty")
    spec = get_cut(cut)
    query = MemoryContextQuery(
        text=text, cut=spec.name, budget_tokens=budget, domain_id=domain, limit=limit
    )
    cfg = _config(home, embedder, qdrant_path, qdrant_url)
    packet = _ranked(cfg, home, store, lambda s, nerve: select_context_cut(s, query, nerve))
    if as_json:
        sys.stdout.write(packet_json(packet) + "\n")
    elif markdown:
        sys.stdout.write(packet_markdown(packet))
    else:
        sys.stdout.write("\n".join(packet_lines(packet)) + "\n")


def recall(
    text: str = typer.Argument(..., help="What you remember saying, in any words."),
    limit: int = typer.Option(10, "--limit", "-n", help="How many messages."),
    project: str | None = typer.Option(None, "--project", help="Only this project."),
    session: str | None = typer.Option(None, "--session", help="Only this session id."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per line."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
    embedder: str | None = EmbedderOpt,
    qdrant_path: Path | None = QdrantPathOpt,
    qdrant_url: str | None = QdrantUrlOpt,
) -> None:
    """Semantic recall of what you said (hybrid BM25 + vectors)."""
    from pydantic import ValidationError

    from context_cut.api import RecallRequest
    from context_cut.api import recall as run_recall
    from memgraph.errors import UsageError

    try:
        request = RecallRequest(text=text, limit=limit, project=project, session_id=session)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UsageError(f"bad recall request: {where}: {first['msg']}") from None
    if not text.strip():
        raise UsageError("the query is empty")
    cfg = _config(home, embedder, qdrant_path, qdrant_url)
    result = _ranked(cfg, home, store, lambda s, nerve: run_recall(s, request, nerve))
    for hit in result.hits:
        n = hit.node
        attrs = n.attributes
        when = (n.valid_from or n.created_at).strftime("%Y-%m-%d %H:%M")
        if as_json:
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


def index(
    rebuild: bool = typer.Option(False, "--rebuild", help="Drop and re-embed everything."),
    as_json: bool = typer.Option(False, "--json", help="The report as one JSON line."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
    embedder: str | None = EmbedderOpt,
    qdrant_path: Path | None = QdrantPathOpt,
    qdrant_url: str | None = QdrantUrlOpt,
) -> None:
    """Sync the Qdrant vectors with the store: embed only what changed."""
    from dataclasses import asdict

    from context_cut.vectors import sync_index

    cfg = _config(home, embedder, qdrant_path, qdrant_url)
    nerve, _ = _nerve(cfg, required=True)
    assert nerve is not None
    s = store_from(home, store)
    try:
        report = sync_index(s, nerve.index, nerve.embedder, rebuild=rebuild)
    finally:
        nerve.index.close()
        s.close()
    if as_json:
        print_json_line(asdict(report))
    else:
        print(report.line())


def register(app: typer.Typer) -> None:
    app.command("context")(context)
    app.command("recall")(recall)
    app.command("index")(index)
