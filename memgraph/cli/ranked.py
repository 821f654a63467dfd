"""What ``context`` and ``recall`` share, without typer: running a ranked read with
the configured vector nerve (``memgraph.cli.nerve``), and the ``recall`` and ``context``
commands themselves (the typer commands and the lean paths, ``recall_fast`` and
``context_fast``, call ``recall_command``/``context_command``, so their output is
the same by construction).

A lexical-only read (no embedder configured) builds neither the pydantic
``Settings`` nor imports the vector stack (``context_cut.vectors``, Qdrant,
numpy): the store is found by ``memgraph.config.store_location`` and
``memgraph.config.vectors_wanted`` says whether a nerve is wanted at all.
Nor does it import pydantic: ``recall`` and the text outputs of ``context`` read
the store's rows as plain objects (``memgraph.store.decode.use_plain``) with a
plain request/query; ``context --json`` (and a recall request that fails
validation, for its message) use the pydantic documents.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from memgraph.cli.common import existing_store, print_json_line
from memgraph.cli.nerve import VECTORS_OFF, nerve_config, nerve_for
from memgraph.config import vectors_wanted

if TYPE_CHECKING:
    from memgraph.store import Store

R = TypeVar("R")


class Sources(Protocol):
    """Where a ranked read looks: the store and the optional vector nerve's flags."""

    @property
    def home(self) -> Path | None: ...
    @property
    def store(self) -> str | Path | None: ...
    @property
    def embedder(self) -> str | None: ...
    @property
    def qdrant_path(self) -> Path | None: ...
    @property
    def qdrant_url(self) -> str | None: ...


def say(line: str) -> None:
    print(" ".join(line.split()), file=sys.stderr)


def run_ranked(src: Sources, run: Callable[[Store, Any], R], *, plain: bool = False) -> R:
    """Open the store and the optional vector nerve, run, close both; say on stderr
    (one line) when ranking fell back to BM25. Without a configured embedder the
    settings are not validated into the pydantic model and no vector code loads.
    ``plain``: the store's reads return plain objects, not pydantic documents."""
    s = existing_store(src.home, src.store, for_reading=True)  # a read-only store is read too
    if plain:
        from memgraph.store.decode import use_plain

        use_plain(s)
    try:
        if vectors_wanted(src.embedder):
            cfg = nerve_config(src.home, src.embedder, src.qdrant_path, src.qdrant_url)
            nerve, notice = nerve_for(cfg, required=False, store=s)
        else:
            nerve, notice = None, VECTORS_OFF
    except BaseException:
        s.close()
        raise
    try:
        result = run(s, nerve)
    finally:
        if nerve is not None:
            nerve.index.close()
        s.close()
    notices: list[str] = getattr(result, "notices", [])
    # the vector side's own notices (a damaged word table included: it says to reindex)
    shown = ("vectors", "word vectors")
    for line in [notice] if notice else [n for n in notices if n.startswith(shown)]:
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
    from context_cut.api import plain_recall
    from memgraph.errors import UsageError
    from memgraph.terminal import printable

    if not args.text.strip():
        raise UsageError("the query is empty")
    request: Any = plain_recall(args.text, args.limit, args.project, args.session, args.mode)
    if request is None:  # something is wrong: say what, in the CLI's words
        request = _validated_recall(args)
    result = run_ranked(args, lambda s, nerve: _recall_or_why(s, request, nerve, args), plain=True)
    if not result.hits:  # as `voice` does: an empty stdout is not left unexplained
        say(f"no hits for {' '.join(args.text.split())[:80]!r}")
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
            sid = printable(str(attrs.get("session_id") or "")[:8])
            title = printable(" ".join((n.title or n.claim).split())[:80])
            print(f"{when}  {sid:8}  {printable(str(attrs.get('project') or '-'))}  {title}")


def _recall_or_why(s: Store, request: Any, nerve: Any, args: RecallArgs) -> Any:
    """The recall; with no hits, an unknown --project is a UsageError naming the
    known ones (the voice search's own check), not a silent empty answer."""
    from context_cut.api import recall as run_recall

    result = run_recall(s, request, nerve)
    if not result.hits and args.project:
        from memgraph.store.interfaces import indexes
        from profiles.voice.search import VoiceQuery, check_filter_values

        voice = indexes(s).voice
        check_filter_values(VoiceQuery(project=args.project), voice.search, voice.stats)
    return result


def _validated_recall(args: RecallArgs) -> Any:
    from pydantic import ValidationError

    from context_cut.recall_request import RecallRequest
    from memgraph.errors import UsageError

    if not 1 <= args.limit <= 1000:
        raise UsageError(f"--limit must be between 1 and 1000, not {args.limit}")
    if args.mode not in ("hybrid", "bm25", "vectors"):
        raise UsageError(f"unknown --mode {args.mode!r}: use hybrid, bm25 or vectors")
    try:
        return RecallRequest(
            text=args.text, limit=args.limit, project=args.project, session_id=args.session,
            mode=args.mode,
        )  # fmt: skip
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UsageError(f"bad recall request: {where}: {first['msg']}") from None


@dataclass(frozen=True)
class ContextArgs:
    """``memgraph context``'s arguments, as parsed by typer or by the lean path."""

    text: str
    cut: str = "repo"  # repo | role | persona | coordinator
    budget: int = 2000
    domain: str | None = None
    limit: int = 50
    as_json: bool = False
    markdown: bool = False
    prompt: bool = False
    project: str | None = None
    repo: Path | None = None
    home: Path | None = None
    store: str | Path | None = None
    embedder: str | None = None
    qdrant_path: Path | None = None
    qdrant_url: str | None = None


def context_command(args: ContextArgs) -> None:
    """A token-budgeted context packet for a repo task, role, persona or coordinator."""
    from context_cut.api import select_context_cut
    from context_cut.cuts import get_cut
    from memgraph.errors import UsageError

    if args.as_json + args.markdown + args.prompt > 1:
        raise UsageError("choose one of --json, --markdown and --prompt")
    from memgraph.config import MAX_BUDGET

    if not 1 <= args.budget <= MAX_BUDGET:  # the MCP context tool's bounds too
        raise UsageError(f"--budget must be between 1 and {MAX_BUDGET} tokens")
    if args.limit <= 0:
        raise UsageError("--limit must be positive")
    if not args.text.strip():
        raise UsageError("the query is empty")
    spec = get_cut(args.cut)
    project = args.project
    if project is None and spec.name.value != "repo":
        import os

        from profiles.voice.project import resolve_project

        project = resolve_project(os.getcwd())
    sections: list[object] = []
    if args.repo is not None:
        packet = _repo_packet(args, spec.name.value, args.repo)
    else:
        # the text outputs read plain objects (no pydantic); --json the documents
        plain = not args.as_json
        if plain:
            from memgraph.documents.plain_context import ContextQuery as Query
        else:
            from memgraph.documents import MemoryContextQuery as Query  # type: ignore[assignment]
        query = Query(
            text=args.text,
            cut=spec.name,
            budget_tokens=args.budget,
            domain_id=args.domain,
            limit=args.limit,
            project=project if spec.name.value != "repo" else None,
        )

        # the repo cut's query spans every domain; its standing part (the map of the
        # scanned repository) and the --repo tip are for the project it runs in
        here = project if spec.name.value != "repo" else (project or _cwd_project())
        tip: list[str] = []

        def run(s: Store, nerve: Any) -> Any:
            if args.prompt and here is not None:
                from memgraph.store.interfaces import indexes
                from profiles.wakeup.standing import gather

                reads = indexes(s).standing
                if reads is not None:
                    sections.extend(gather(reads, spec.name.value, here))
            if spec.name.value == "repo" and here is not None:
                tip.extend(_repo_tip(s, here))
            return select_context_cut(s, query, nerve)

        packet = run_ranked(args, run, plain=plain)
        for line in tip:
            say(line)
    from context_cut.ceiling import fit_output
    from context_cut.render import packet_json, packet_lines, packet_markdown
    from memgraph.terminal import printable

    def shown(p: Any) -> str:  # text formats show control characters as U+FFFD
        if args.prompt:
            from context_cut.prompt import prompt_block

            return printable(prompt_block(p, sections, p.query.project), lines=True)
        if args.as_json:
            return packet_json(p) + "\n"
        if args.markdown:
            return printable(packet_markdown(p), lines=True)
        return printable("\n".join(packet_lines(p)) + "\n", lines=True)

    # the budget is a ceiling on what is printed, in whichever format (measured as shown)
    fitted, out = fit_output(packet, shown, args.budget)
    sys.stdout.write(out)
    if not args.as_json:  # --json carries it in "notices"; the text formats say it here
        for line in fitted.notices[len(packet.notices) :]:
            say(line)


def _cwd_project() -> str | None:
    import os

    from profiles.voice.project import resolve_project

    return resolve_project(os.getcwd())


def _repo_tip(s: Store, project: str) -> list[str]:
    """One stderr line when the repo cut runs without --repo inside a repository this
    store scanned: the cut over every domain is not the ranking of its modules."""
    from profiles.repo_scan.keys import repo_node_id  # pydantic-free (the lean path)

    with s.reader() as reader:
        node = reader.get_nodes([repo_node_id(project)]).get(repo_node_id(project))
    if node is None or node.lifecycle == "retired":
        return []
    root = str(node.attributes.get("root") or ".")
    return [f"tip: {root} is a scanned repository: add --repo {root} to rank its modules"]


def _repo_packet(args: ContextArgs, cut: str, repo: Path) -> Any:
    """``--repo PATH``: the repo cut over a scanned repository (context_cut.repo_cut)."""
    from context_cut.repo_cut import RepoCutRequest, repo_cut
    from memgraph.errors import UsageError

    if cut != "repo":
        raise UsageError("--repo goes with --cut repo")
    request = RepoCutRequest(
        text=args.text, repo_path=repo, budget_tokens=args.budget, limit=min(args.limit, 200)
    )
    embedder, home = _repo_embedder(args)
    s = existing_store(args.home, args.store, for_reading=True)
    try:
        vectors_dir = None
        if home is not None:  # the store's folder of subject vectors (memgraph.home_dirs)
            from context_cut.repo_vectors import vectors_dir_for

            vectors_dir = vectors_dir_for(home, s)
        packet = repo_cut(s, request, embedder, vectors_dir).packet
    finally:
        s.close()
    for notice in packet.notices:  # e.g. which files were not parsed
        print(" ".join(notice.split()), file=sys.stderr)
    return packet


def _repo_embedder(args: ContextArgs) -> tuple[Any, Path | None]:
    """The configured embedder for the repo cut's nearest-past-commit signal and
    the home the scan stored subject vectors under (``context_cut/repo_nearest.py``:
    MiniLM only), or (None, None): nothing configured (no vector code loads), another
    model, or the extra missing (one stderr line)."""
    if not vectors_wanted(args.embedder):
        return None, None
    from context_cut.repo_nearest import configured_embedder

    cfg = nerve_config(args.home, args.embedder, args.qdrant_path, args.qdrant_url)
    embedder, notice = configured_embedder(
        cfg.embedder, model=cfg.embed_model, host=cfg.ollama_host, timeout=cfg.ollama_timeout
    )
    if notice:
        say(notice)
    return (embedder, cfg.home) if embedder is not None else (None, None)
