"""``memgraph context``, ``memgraph recall`` and ``memgraph index``.

Thin layers over ``context_cut``: the cut and recall APIs, and the Qdrant
nerve's ``sync_index``. Vectors are optional: without an embedder, or when
Qdrant/Ollama cannot be reached, ``context`` and ``recall`` rank with BM25 and
say so in one line on stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from memgraph.cli.common import existing_store, print_json_line
from memgraph.cli.nerve import config_for, nerve_for
from memgraph.cli.ranked import ContextArgs, RecallArgs, context_command, recall_command

if TYPE_CHECKING:
    from memgraph.home_dirs import StoreRef

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
    context_command(
        ContextArgs(
            text=text,
            cut=cut,
            budget=budget,
            domain=domain,
            limit=limit,
            as_json=as_json,
            markdown=markdown,
            prompt=prompt,
            project=project,
            repo=repo,
            home=home,
            store=store,
            embedder=embedder,
            qdrant_path=qdrant_path,
            qdrant_url=qdrant_url,
        )
    )


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
    """Sync the vectors with the store: embed only what changed (nodes, edges, summaries,
    and the words of voice messages, which recall relates to a question's words)."""
    from dataclasses import asdict

    from context_cut.vector_sync import index_status, sync_index
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
        s = existing_store(home, store)
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
    from context_cut.token_vectors import sync_tokens, token_embedder, voice_texts
    from memgraph.home_dirs import TOKEN_VECTORS, WORD_VECTORS

    s = existing_store(home, store)  # before the vector dirs are made for it
    try:
        nerve, _ = nerve_for(cfg, required=True, store=s)
    except BaseException:
        s.close()
        raise
    assert nerve is not None
    try:
        report = sync_index(
            s, nerve.index, nerve.embedder, rebuild=rebuild, profiles=wanted, optimize=optimize
        )
        words = None
        voice = wanted is None or "voice" in wanted
        if nerve.words_dir is not None and voice:
            from context_cut.word_vectors import message_texts, sync_words

            where = _written(cfg.home, WORD_VECTORS, s)
            words = sync_words(message_texts(s), nerve.embedder, where, rebuild=rebuild)
        tokens = None
        late = token_embedder(nerve.embedder)
        if nerve.tokens_dir is not None and late and voice:
            where = _written(cfg.home, TOKEN_VECTORS, s)
            tokens = sync_tokens(voice_texts(s), late, where, rebuild=rebuild)
    finally:
        nerve.index.close()
        s.close()
    if as_json:
        extra = {"words": asdict(words)} if words else {}
        extra |= {"tokens": asdict(tokens)} if tokens else {}
        print_json_line({**asdict(report), **extra})
    else:
        print(report.line())
        for done in (words, tokens):
            if done is not None:
                print(done.line())


def _written(home: Path, cache: str, store: StoreRef) -> Path:
    """The store's own folder of ``cache`` for ``index`` to write in (made on first
    use with the flat files of a home from before: ``memgraph.home_dirs``)."""
    from memgraph.errors import StoreError
    from memgraph.home_dirs import prepared_dir

    try:
        return prepared_dir(home, cache, store)
    except OSError as exc:
        where = exc.filename or home / cache
        raise StoreError(
            f"cannot make the {cache} folder at {where}: {exc.strerror or exc} "
            "(make it a writable directory and rerun `memgraph index`)"
        ) from None


def register(app: typer.Typer) -> None:
    app.command("context")(context)
    app.command("recall")(recall)
    app.command("index")(index)
