"""``memgraph context``, ``memgraph recall`` and ``memgraph index``.

Thin layers over ``context_cut``: the cut and recall APIs, and the Qdrant
nerve's ``sync_index``. Vectors are optional: without an embedder, or when
Qdrant/Ollama cannot be reached, ``context`` and ``recall`` rank with BM25 and
say so in one line on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from memgraph.cli.common import print_json_line, store_from
from memgraph.cli.ranked import (
    RecallArgs,
    config_for,
    nerve_for,
    recall_command,
    run_ranked,
)

HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
StoreOpt = typer.Option(
    None, "--store", help="Store file or postgresql:// URL (overrides --home; env MEMGRAPH_STORE)."
)
EmbedderOpt = typer.Option(
    None, "--embedder", help="none | hash | ollama | minilm | minilm-torch (env MEMGRAPH_EMBEDDER)."
)
QdrantPathOpt = typer.Option(
    None, "--qdrant-path", help="Embedded Qdrant dir (default <home>/qdrant)."
)
QdrantUrlOpt = typer.Option(
    None, "--qdrant-url", help="Qdrant server/cluster URL (env MEMGRAPH_QDRANT_URL)."
)


if TYPE_CHECKING:
    from memgraph.store import Store


def context(
    text: str = typer.Argument(..., help="What the context is for."),
    cut: str = typer.Option("repo", "--cut", help="repo | role | persona | coordinator"),
    budget: int = typer.Option(2000, "--budget", help="Token budget (never exceeded)."),
    domain: str | None = typer.Option(None, "--domain", help="Only this domain id."),
    limit: int = typer.Option(50, "--limit", help="Candidate nodes considered."),
    as_json: bool = typer.Option(False, "--json", help="The packet as one JSON line."),
    markdown: bool = typer.Option(False, "--markdown", help="The packet as markdown."),
    prompt: bool = typer.Option(
        False, "--prompt", help="One block ready for a role prompt (budget enforced)."
    ),
    project: str | None = typer.Option(
        None, "--project", help="role/persona/coordinator: whose standing material (default: cwd)."
    ),
    repo: Path | None = typer.Option(
        None, "--repo", help="With --cut repo: a scanned repository (memgraph repo scan)."
    ),
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

    if as_json + markdown + prompt > 1:
        raise UsageError("choose one of --json, --markdown and --prompt")
    if budget <= 0 or limit <= 0:
        raise UsageError("--budget and --limit must be positive")
    if not text.strip():
        raise UsageError("the query is empty")
    spec = get_cut(cut)
    if project is None and spec.name.value != "repo":
        import os

        from profiles.voice.nodes import resolve_project

        project = resolve_project(os.getcwd())
    sections: list[object] = []
    if repo is not None:
        packet = _repo_packet(text, spec.name.value, repo, budget, limit, home, store)
    else:
        query = MemoryContextQuery(
            text=text,
            cut=spec.name,
            budget_tokens=budget,
            domain_id=domain,
            limit=limit,
            project=project if spec.name.value != "repo" else None,
        )
        cfg = config_for(home, embedder, qdrant_path, qdrant_url)

        def run(s: Store, nerve: Any) -> Any:
            if prompt and query.project is not None:
                from memgraph.store.interfaces import indexes
                from profiles.wakeup.standing import gather

                reads = indexes(s).standing
                if reads is not None:
                    sections.extend(gather(reads, spec.name.value, query.project))
            return select_context_cut(s, query, nerve)

        packet = run_ranked(cfg, home, store, run)
    from context_cut.ceiling import fit_output

    # the budget is a ceiling on what is printed, in whichever format
    if prompt:
        from context_cut.prompt import prompt_block

        _, out = fit_output(packet, lambda p: prompt_block(p, sections, p.query.project), budget)
    elif as_json:
        _, out = fit_output(packet, lambda p: packet_json(p) + "\n", budget)
    elif markdown:
        _, out = fit_output(packet, packet_markdown, budget)
    else:
        _, out = fit_output(packet, lambda p: "\n".join(packet_lines(p)) + "\n", budget)
    sys.stdout.write(out)


def _repo_packet(
    text: str,
    cut: str,
    repo: Path,
    budget: int,
    limit: int,
    home: Path | None,
    store: str | Path | None,
) -> Any:
    """``--repo PATH``: the repo cut over a scanned repository (context_cut.repo_cut)."""
    from context_cut.repo_cut import RepoCutRequest, repo_cut
    from memgraph.errors import UsageError

    if cut != "repo":
        raise UsageError("--repo goes with --cut repo")
    request = RepoCutRequest(text=text, repo_path=repo, budget_tokens=budget, limit=min(limit, 200))
    s = store_from(home, store, for_reading=True)
    try:
        packet = repo_cut(s, request).packet
    finally:
        s.close()
    for notice in packet.notices:  # e.g. which files were not parsed
        print(" ".join(notice.split()), file=sys.stderr)
    return packet


def recall(
    text: str = typer.Argument(..., help="What you remember saying, in any words."),
    limit: int = typer.Option(10, "--limit", "-n", help="How many messages."),
    project: str | None = typer.Option(None, "--project", help="Only this project."),
    session: str | None = typer.Option(None, "--session", help="Only this session id."),
    mode: str = typer.Option(
        "hybrid", "--mode", help="hybrid | bm25 | vectors (vectors need an embedder)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per line."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
    embedder: str | None = EmbedderOpt,
    qdrant_path: Path | None = QdrantPathOpt,
    qdrant_url: str | None = QdrantUrlOpt,
) -> None:
    """Semantic recall of what you said (hybrid BM25 + vectors)."""
    recall_command(
        RecallArgs(
            text=text,
            limit=limit,
            project=project,
            session=session,
            mode=mode,
            as_json=as_json,
            home=home,
            store=store,
            embedder=embedder,
            qdrant_path=qdrant_path,
            qdrant_url=qdrant_url,
        )
    )


def index(
    rebuild: bool = typer.Option(False, "--rebuild", help="Drop and re-embed everything."),
    profiles: str | None = typer.Option(
        None, "--profiles", help="Comma-separated profiles to sync (scoped sync)."
    ),
    status: bool = typer.Option(
        False, "--status", help="Count current, stale and missing vectors; change nothing."
    ),
    optimize: bool | None = typer.Option(
        None,
        "--optimize/--no-optimize",
        help="Build the HNSW index now / never (default: when a shard grew past a threshold).",
    ),
    as_json: bool = typer.Option(False, "--json", help="The report as one JSON line."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
    embedder: str | None = EmbedderOpt,
    qdrant_path: Path | None = QdrantPathOpt,
    qdrant_url: str | None = QdrantUrlOpt,
) -> None:
    """Sync the vectors with the store: embed only what changed (nodes, edges, summaries)."""
    from dataclasses import asdict

    from context_cut.vectors import index_status, sync_index
    from memgraph.documents import ProfileName
    from memgraph.errors import UsageError

    wanted: list[str] | None = None
    if profiles is not None:
        wanted = [p.strip() for p in profiles.split(",") if p.strip()]
        known = {p.value for p in ProfileName}
        unknown = sorted(set(wanted) - known)
        if unknown or not wanted:
            raise UsageError(
                f"unknown profile {', '.join(unknown) or '(none given)'}: "
                f"use {', '.join(sorted(known))}"
            )
    cfg = config_for(home, embedder, qdrant_path, qdrant_url)
    if status:
        from context_cut.embedders import make_embedder

        emb = make_embedder(
            cfg.embedder, model=cfg.embed_model, host=cfg.ollama_host, timeout=cfg.ollama_timeout
        )
        if emb is None:
            raise UsageError("no embedder configured: pass --embedder hash|ollama|minilm")
        s = store_from(home, store)
        try:
            state = index_status(s, emb, wanted)
        finally:
            s.close()
        if as_json:
            print_json_line(asdict(state))
        else:
            for line in state.lines():
                print(line)
        return
    nerve, _ = nerve_for(cfg, required=True)
    assert nerve is not None
    s = store_from(home, store)
    try:
        report = sync_index(
            s, nerve.index, nerve.embedder, rebuild=rebuild, profiles=wanted, optimize=optimize
        )
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
