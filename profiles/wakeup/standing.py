"""Standing material for the role, persona and coordinator cuts (stdlib only).

A role prompt needs what is true of the project whatever the query: the
operator's decisions, preferences, corrections and directives (voice), accepted
role memory, what is in short-term memory, the latest spark notes. The persona
needs its candidate interventions, pressures and public incubating ideas; the
coordinator pressures and obligations, stale summaries, pending reviews and
recent receipts. ``gather`` reads each section through the store's
``StandingReads`` index interface (one indexed query each on SQLite), and says
why a section is empty. The SessionStart hook renders it without pydantic
(``render``); ``context_cut`` loads the same ids as documents for a packet.

Agent memory lives in domain ``agent:<project>`` (``profiles.memory``).
"""

from __future__ import annotations

import re
from typing import Any

_PIECE = re.compile(r"\w+|[^\w\s]", re.UNICODE)
VOICE_LABELS = ("decision", "directive", "correction", "preference")
AGENT_PROFILES = (
    "role_self",
    "short_term",
    "incubation",
    "agency_pressure",
    "candidate_intervention",
    "evidence",
)
RECEIPT_SCAN = 5000  # recent receipts looked at for the coordinator
REPO_SUMMARY_SCAN = 500  # a repo's summaries read for its map (packages + communities)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.interfaces import StandingReads


def estimate_tokens(text: str) -> int:
    """The same estimate as ``context_cut.budget.estimate_tokens``."""
    return sum(
        max(1, -(-len(p.encode("utf-8", "surrogatepass")) // 4)) for p in _PIECE.findall(text)
    )


class Item:
    """One line of a section. (Plain classes: importing dataclasses costs the hook ~8 ms.)"""

    __slots__ = ("anchor", "id", "kind", "label", "text")

    def __init__(self, id: str, kind: str, label: str, text: str, anchor: str = "") -> None:
        self.id = id
        self.kind = kind  # "node" | "summary" | "receipt" | "note"
        self.label = label  # e.g. "voice/decision", "role_self/lesson accepted"
        self.text = text
        self.anchor = anchor  # the first evidence pointer, rendered


class Section:
    __slots__ = ("empty", "items", "key", "title")

    def __init__(self, key: str, title: str) -> None:
        self.key = key
        self.title = title
        self.items: list[Item] = []
        self.empty = ""  # why there is nothing, when there is nothing


def _first_line(text: str, n: int = 160) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= n else line[: n - 1] + "…"


def _anchor(doc: dict[str, Any]) -> str:
    for a in doc.get("anchors") or []:
        kind, ref = a.get("kind"), str(a.get("ref") or "")
        if kind == "transcript":
            line = a.get("line")
            return f"transcript {ref}{f':{line}' if line else ''}"
        if kind == "commit":
            return f"commit {ref}@{str(a.get('sha') or '')[:10]}"
        if kind in ("file", "page", "url"):
            return f"{kind} {ref}"
    for a in doc.get("anchors") or []:
        return f"{a.get('kind')} {a.get('ref')}"
    return ""


def _node_item(doc: dict[str, Any], label: str | None = None) -> Item:
    text = doc.get("claim") or doc.get("title") or ""
    when = str(doc.get("valid_from") or "")[:10]
    return Item(
        id=str(doc["id"]),
        kind="node",
        label=label or f"{doc.get('profile')}/{doc.get('kind')} {doc.get('lifecycle')}",
        text=f"{_first_line(str(text))}{f' ({when})' if when else ''}",
        anchor=_anchor(doc),
    )


def _domain_nodes(
    reads: StandingReads, domain: str, profile: str, states: tuple[str, ...], limit: int
) -> list[dict[str, Any]]:
    return reads.domain_docs(domain, (profile,), states, limit)


def voice_section(reads: StandingReads, project: str, limit: int) -> Section:
    s = Section("voice", "Operator decisions, directives, corrections, preferences")
    docs = reads.voice_docs(project, VOICE_LABELS, limit)
    if docs is None:
        s.empty = "no voice index in this store: capture with `memgraph voice --backfill`"
        return s
    for d in docs:
        label = f"voice/{(d.get('attributes') or {}).get('classification')}"
        s.items.append(_node_item(d, label))
    if not s.items:
        total, classified = reads.voice_counts(project)
        if not total:
            s.empty = f"no captured messages for project {project!r}: `memgraph voice --backfill`"
        elif classified < total:
            s.empty = (
                f"{total - classified} message(s) of {project!r} unclassified: "
                "`memgraph sleep --now`"
            )
        else:
            s.empty = f"no decisions/directives/corrections/preferences among {total} messages"
    return s


def _agent_section(
    reads: StandingReads,
    key: str,
    title: str,
    domain: str,
    profile: str,
    states: tuple[str, ...],
    limit: int,
    empty: str,
) -> Section:
    s = Section(key, title)
    s.items = [_node_item(d) for d in _domain_nodes(reads, domain, profile, states, limit)]
    if not s.items:
        s.empty = empty
    return s


def notes_section(reads: StandingReads, project: str, limit: int) -> Section:
    s = Section("notes", "Latest spark notes")
    rows = reads.project_notes(project, limit)
    if rows is None:
        s.empty = "no session index in this store"
        return s
    for node_id, text, ts, sid in rows:
        s.items.append(
            Item(
                node_id,
                "note",
                "session/note",
                f"{_first_line(text)} ({ts[:10]})",
                f"session {sid}",
            )
        )
    if not s.items:
        s.empty = f'no spark notes in {project!r} yet: `memgraph note "..."`'
    return s


def stale_summaries(reads: StandingReads, domain: str, limit: int) -> Section:
    s = Section("stale", "Stale summaries")
    for d in reads.summaries(domain, True, limit):
        why = ", ".join((d.get("freshness") or {}).get("stale_ids", [])[:3])
        s.items.append(
            Item(str(d["id"]), "summary", "summary stale", f"{d.get('target')} (changed: {why})")
        )
    if not s.items:
        fresh = reads.summary_count(domain)
        s.empty = (
            f"no stale summaries ({fresh} fresh)"
            if fresh
            else "no summaries yet: `memgraph sleep --now`"
        )
    return s


def pending_reviews(reads: StandingReads, domain: str, project: str, limit: int) -> Section:
    s = Section("reviews", "Pending reviews")
    docs = reads.domain_docs(domain, ("role_self", "evidence"), ("proposed", "observed"), limit)
    docs += reads.repo_candidates(domain, project, limit)
    s.items = [_node_item(d) for d in docs[:limit]]
    if not s.items:
        s.empty = "nothing waiting for review (`memgraph review list`)"
    return s


def repo_section(reads: StandingReads, project: str, limit: int) -> Section | None:
    """A scanned repository's map for a session starting in it: the repo summary, its
    largest packages (first claim line: the package docstring or its modules' public
    names) and which summaries are stale. None when ``project`` was never scanned
    (no section: most projects are not). Package and repo summaries are told apart by
    the target text ``profiles.repo_scan.summaries`` writes ("repo ...", "package ...")."""
    docs = reads.summaries(f"repo:{project}", False, REPO_SUMMARY_SCAN)
    if not docs:
        return None
    s = Section("repo", f"Repo map: {project}")

    def stale(d: dict[str, Any]) -> bool:
        return (d.get("freshness") or {}).get("state") == "stale"

    stale_n = sum(stale(d) for d in docs)
    head = f"{stale_n} stale summar{'y' if stale_n == 1 else 'ies'} (`memgraph repo status`)"
    for d in docs:
        target = str(d.get("target", ""))
        if target.startswith("repo "):
            tension = _first_line(str(d.get("tension") or ""), 80)
            text = f"{target[5:]}; {tension + '; ' if tension else ''}{head}"
            s.items.append(Item(str(d["id"]), "summary", "repo", text))
            break
    packages = [d for d in docs if str(d.get("target", "")).startswith("package ")]
    # the core first: most imported from outside, then the largest; test folders last
    packages.sort(key=lambda d: (_is_tests(str(d["target"])), -_dependents(d), -_files(d)))
    for d in packages[:limit]:
        label = "package stale" if stale(d) else "package"
        text = f"{str(d['target'])[8:]}: {_first_line(str(d.get('claim') or ''), 120)}"
        s.items.append(Item(str(d["id"]), "summary", label, text))
    return s


# "1 module", "3 modules"; "module(s)" in summaries written before s41
_DEPENDENTS = re.compile(r"(\d+) module(?:s|\(s\))? outside import it")


def _dependents(summary: dict[str, Any]) -> int:
    """How many modules outside a package import it (its summary's action implication)."""
    found = _DEPENDENTS.match(str(summary.get("action_implication") or ""))
    return int(found.group(1)) if found else 0


def _files(summary: dict[str, Any]) -> int:
    return len(summary.get("covers_node_ids") or [])


def _is_tests(target: str) -> bool:
    folder = target[8:].split(" (", 1)[0]
    return any(part in ("tests", "test") for part in folder.split("/"))


def recent_receipts(reads: StandingReads, limit: int) -> Section:
    s = Section("receipts", "Recent receipts")
    for d in reads.recent_receipts(RECEIPT_SCAN):
        if d.get("profile") not in AGENT_PROFILES and d.get("op") not in (
            "review_node",
            "reject_patch",
            "summarize_cluster",
        ):
            continue
        change = f"{d.get('before') or '(new)'} -> {d.get('after')}"
        reason = _first_line(str(d.get("reason") or ""), 80)
        s.items.append(
            Item(
                str(d["id"]),
                "receipt",
                f"receipt {d.get('op')}",
                f"{d.get('target_id')} {change} by {d.get('actor')}: {reason}",
            )
        )
        if len(s.items) >= limit:
            break
    if not s.items:
        s.empty = "no recent agent-memory receipts"
    return s


def gather(reads: StandingReads, cut: str, project: str, limit: int = 8) -> list[Section]:
    """The standing sections of ``cut`` for ``project`` (empty ones say why)."""
    domain = f"agent:{project}"
    if cut == "role":
        return [
            _agent_section(reads, "role_accepted", "Accepted role memory", domain, "role_self",
                           ("accepted", "revised", "crystallized"), limit,
                           "no accepted role memory yet: `memgraph review list`"),
            voice_section(reads, project, limit),
            _agent_section(reads, "short_term", "In short-term memory", domain, "short_term",
                           ("active", "clustered"), limit,
                           "short-term memory is empty (slept, or nothing remembered: "
                           "`memgraph remember`)"),
            notes_section(reads, project, max(3, limit // 2)),
            _agent_section(reads, "role_proposed", "Proposed role memory (unreviewed)", domain,
                           "role_self", ("proposed",), limit,
                           "no proposed role memory waiting"),
        ]  # fmt: skip
    if cut == "persona":
        incubating = _domain_nodes(
            reads, domain, "incubation", ("active", "deepening", "promoted"), limit * 4
        )
        public = [d for d in incubating if (d.get("attributes") or {}).get("public") is True]
        inc = Section("incubation", "Incubating ideas (public)")
        inc.items = [_node_item(d) for d in public[:limit]]
        if not inc.items:
            inc.empty = (
                f"{len(incubating)} incubating idea(s), none marked public"
                if incubating
                else "nothing incubating (sleep incubates questions and tensions)"
            )
        return [
            _agent_section(reads, "interventions", "Candidate interventions", domain,
                           "candidate_intervention", ("queued", "deferred", "spoken"), limit,
                           "no candidate interventions: `memgraph propose "
                           "candidate_intervention ...`"),
            _agent_section(reads, "pressures", "Agency pressures", domain, "agency_pressure",
                           ("active", "obligated"), limit, "no open agency pressures"),
            inc,
        ]  # fmt: skip
    if cut == "repo":  # the map of the project's scanned repository, if any
        repo = repo_section(reads, project, limit)
        return [repo] if repo is not None else []
    if cut == "coordinator":
        return [
            _agent_section(reads, "obligations", "Pressures and obligations", domain,
                           "agency_pressure", ("obligated", "active"), limit,
                           "no open pressures or obligations"),
            stale_summaries(reads, domain, limit),
            pending_reviews(reads, domain, project, limit),
            recent_receipts(reads, limit),
        ]  # fmt: skip
    return []


def render(
    sections: list[Section], budget: int, header: list[str] | None = None, footer: str = ""
) -> tuple[str, int, int]:
    """Sections as markdown lines within ``budget`` tokens: (text, tokens, items left out)."""
    lines: list[str] = []
    used = 0
    left_out = 0

    def fits(line: str) -> bool:
        nonlocal used
        cost = estimate_tokens(line) + 1
        if used + cost > budget:
            return False
        lines.append(line)
        used += cost
        return True

    for line in header or []:
        fits(line)
    for s in sections:
        rows = [
            f"- {i.label}: {i.text}{f' [{i.anchor}]' if i.anchor else ''} ({i.id})" for i in s.items
        ]
        title = f"## {s.title}"
        first = rows[0] if rows else f"- (empty: {s.empty})"
        # a heading is written only with its first line: never a bare heading
        if used + estimate_tokens(title) + estimate_tokens(first) + 2 > budget:
            left_out += len(rows)
            continue
        fits(title)
        for i, row in enumerate(rows or [first]):
            if not fits(row):
                left_out += len(rows) - i
                break
    if footer:
        fits(footer)
    return "\n".join(lines) + ("\n" if lines else ""), used, left_out
