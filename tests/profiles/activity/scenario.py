"""Generated activity scenarios with ground truth (used by tests and bench/).

Real git repositories (``git fast-import`` with explicit author/committer
times, or plain ``git commit`` with GIT_*_DATE), operator sessions in
different repos overlapping in time, commits that answer the messages before
them, and bot commits hours away from any message. Voice message nodes are
built here following notes/CONVENTIONS.md "The voice message node".
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import anchor_id, node_id
from memgraph.store.protocol import Store
from profiles.activity.windows import Window

GIT_ID = ["-c", "user.name=Test Operator", "-c", "user.email=op@example.test"]
REPOS = ("alpha", "beta", "gamma", "delta")
FILES = {
    "alpha": ["src/alpha/engine.py", "src/alpha/cli.py", "tests/test_engine.py", "docs/guide.md"],
    "beta": ["web/app.tsx", "web/routes/home.tsx", "api/server.go", "api/handlers.go"],
    "gamma": ["crates/core/lib.rs", "crates/core/parse.rs", "benches/parse.rs", "Cargo.lock"],
    "delta": ["infra/main.tf", "infra/vars.tf", "scripts/deploy.sh", "ops/runbook.md"],
}
ASKS = ("please fix", "refactor", "add tests for", "clean up", "speed up", "document")


@dataclass
class Msg:
    session_id: str
    uuid: str
    time: datetime
    text: str
    repo: str  # ground truth: the repo this message is about
    cwd: str
    project: str

    @property
    def node_id(self) -> str:
        return node_id("voice", "message", self.session_id, self.uuid)


@dataclass
class PlannedCommit:
    repo: str
    time: datetime
    files: list[str]
    subject: str
    motivated_by: list[str]  # message node ids (ground truth)
    bot: bool = False
    sha: str | None = None


@dataclass
class Scenario:
    root: Path
    repos: dict[str, Path]
    messages: list[Msg] = field(default_factory=list)
    commits: list[PlannedCommit] = field(default_factory=list)


def _init_repo(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)


def _stamp(t: datetime) -> str:
    return f"{int(t.timestamp())} +0000"


def fast_import(path: Path, commits: list[PlannedCommit]) -> None:
    """Write ``commits`` (time-ordered) into the repo at ``path`` in one git call."""
    out: list[bytes] = []
    for mark, c in enumerate(commits, start=1):
        name, email = (
            ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com")
            if c.bot
            else ("Test Operator", "op@example.test")
        )
        msg = c.subject.encode()
        out.append(b"commit refs/heads/main\n")
        out.append(f"mark :{mark}\n".encode())
        out.append(f"author {name} <{email}> {_stamp(c.time)}\n".encode())
        out.append(f"committer {name} <{email}> {_stamp(c.time)}\n".encode())
        out.append(f"data {len(msg)}\n".encode() + msg + b"\n")
        if mark > 1:
            out.append(f"from :{mark - 1}\n".encode())
        for f in c.files:
            body = f"{f} @ {c.time.isoformat()} #{mark}\n".encode()
            out.append(f"M 100644 inline {f}\ndata {len(body)}\n".encode() + body + b"\n")
        out.append(b"\n")
    subprocess.run(
        ["git", "-C", str(path), "fast-import", "--quiet"], input=b"".join(out), check=True
    )
    shas = subprocess.run(
        ["git", "-C", str(path), "log", "--reverse", "--format=%H", "main"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for c, sha in zip(commits, shas, strict=True):
        c.sha = sha


def generate(
    root: Path,
    *,
    seed: int = 7,
    days: int = 1,
    sessions_per_day: int = 8,
    episodes: tuple[int, int] = (2, 5),
    bots_per_day: int = 3,
    parent_dir_sessions: bool = True,
    start: datetime = datetime(2026, 3, 2, tzinfo=UTC),
) -> Scenario:
    """Sessions in different repos overlapping in time; ground truth per commit."""
    rng = random.Random(seed)
    repos = {name: root / "code" / name for name in REPOS}
    for path in repos.values():
        _init_repo(path)
    sc = Scenario(root=root, repos=repos)
    for day in range(days):
        base = start + timedelta(days=day, hours=9)
        for s in range(sessions_per_day):
            repo = REPOS[s % len(REPOS)]
            # Sessions start within a few hours of each other: repos overlap in time.
            t = base + timedelta(minutes=rng.randint(0, 300))
            sid = f"{day:02d}{s:02d}{rng.randrange(16**6):06x}-0000-4000-8000-000000000000"
            via_parent = parent_dir_sessions and s % 5 == 4
            cwd = str(root / "code") if via_parent else str(repos[repo])
            for e in range(rng.randint(*episodes)):
                asked: list[str] = []
                files = rng.sample(FILES[repo], k=rng.randint(1, 2))
                for k in range(rng.randint(1, 3)):
                    if via_parent or rng.random() < 0.5:
                        text = f"{rng.choice(ASKS)} {files[0]} ({e}.{k})"
                    else:
                        text = f"{rng.choice(ASKS)} the thing we discussed ({e}.{k})"
                    msg = Msg(
                        session_id=sid,
                        uuid=f"u-{sid[:10]}-{e}-{k}",
                        time=t,
                        text=text,
                        repo=repo,
                        cwd=cwd,
                        project="code" if via_parent else repo,
                    )
                    sc.messages.append(msg)
                    asked.append(msg.node_id)
                    t += timedelta(minutes=rng.randint(1, 4), seconds=rng.randint(0, 59))
                for _ in range(rng.choice((1, 1, 1, 2))):
                    t += timedelta(minutes=rng.randint(2, 10), seconds=rng.randint(0, 59))
                    sc.commits.append(
                        PlannedCommit(repo, t, files, f"{repo}: change {files[0]}", list(asked))
                    )
                t += timedelta(minutes=rng.randint(3, 12))
        for b in range(bots_per_day):
            # Night-time bot bumps: far from any operator message.
            when = start + timedelta(days=day, hours=2, minutes=40 * b + rng.randint(0, 10))
            repo = REPOS[b % len(REPOS)]
            sc.commits.append(
                PlannedCommit(repo, when, ["requirements.lock"], "bump deps", [], bot=True)
            )
    for name, path in repos.items():
        mine = sorted((c for c in sc.commits if c.repo == name), key=lambda c: c.time)
        if mine:
            fast_import(path, mine)
    return sc


def message_node(m: Msg) -> MemoryNode:
    """A voice message node per the shared contract."""
    return MemoryNode(
        id=m.node_id,
        domain_id=f"voice:{m.project}",
        profile=ProfileName.voice,
        kind="message",
        title=m.text.splitlines()[0][:80],
        claim=m.text,
        anchors=[
            MemoryAnchor(
                id=anchor_id("transcript", m.session_id, m.uuid),
                kind=AnchorKind.transcript,
                ref=f"transcripts/{m.session_id}.jsonl",
                line=1,
                record_uuid=m.uuid,
            )
        ],
        lifecycle="captured",
        created_at=m.time,
        updated_at=m.time,
        valid_from=m.time,
        attributes={
            "session_id": m.session_id,
            "record_uuid": m.uuid,
            "project": m.project,
            "constellation": m.project,
            "branch": "main",
            "cwd": m.cwd,
            "harness": "claude-code",
            "origin": "prompt",
            "classification": None,
            "confidence": None,
            "topics": [],
            "voice_page": None,
        },
    )


def session_node(session_id: str, project: str, count: int) -> MemoryNode:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    return MemoryNode(
        id=node_id("voice", "voice_session", session_id),
        domain_id=f"voice:{project}",
        profile=ProfileName.voice,
        kind="voice_session",
        title=f"session {session_id[:8]}",
        lifecycle="captured",
        created_at=t,
        updated_at=t,
        attributes={
            "session_id": session_id,
            "project": project,
            "constellation": project,
            "message_count": count,
            "voice_page": None,
            "transcript": f"transcripts/{session_id}.jsonl",
        },
    )


def store_messages(store: Store, messages: Iterable[Msg], with_sessions: bool = True) -> None:
    msgs = list(messages)
    ops: list[UpsertNode] = [UpsertNode(node=message_node(m)) for m in msgs]
    if with_sessions:
        by_sid: dict[str, list[Msg]] = {}
        for m in msgs:
            by_sid.setdefault(m.session_id, []).append(m)
        ops += [
            UpsertNode(node=session_node(sid, ms[0].project, len(ms)))
            for sid, ms in sorted(by_sid.items())
        ]
    apply_patch(store, new_patch(list(ops), proposer="test", reason="scenario messages"))


@dataclass
class Score:
    recall: float
    precision: float
    commit_accuracy: float
    bots_alone: float
    mixed_repo_windows: int
    pairs_true: int
    pairs_predicted: int


def score(sc: Scenario, windows: list[Window]) -> Score:
    """Commit-grouping recall/precision over (commit, message) pairs; see notes/activity.md."""
    from profiles.artifact.ingest import commit_node_id

    where: dict[str, str] = {}
    for w in windows:
        for nid in w.node_ids:
            where[nid] = w.id
    msg_repo = {m.node_id: m.repo for m in sc.messages}
    by_window: dict[str, list[str]] = {}
    for nid, wid in where.items():
        by_window.setdefault(wid, []).append(nid)
    true_pairs = hit_pairs = predicted = correct = good_commits = 0
    bots = bots_ok = 0
    for c in sc.commits:
        cid = commit_node_id(c.repo, c.sha or "")
        wid = where.get(cid)
        members = by_window.get(wid, []) if wid else []
        msgs_in = [m for m in members if m in msg_repo]
        true_pairs += len(c.motivated_by)
        hit_pairs += sum(1 for m in c.motivated_by if where.get(m) == wid)
        predicted += len(msgs_in)
        related = [m for m in msgs_in if msg_repo[m] == c.repo and not c.bot]
        correct += len(related)
        if c.bot:
            bots += 1
            bots_ok += not msgs_in
            good_commits += not msgs_in
        else:
            good_commits += all(where.get(m) == wid for m in c.motivated_by) and len(
                related
            ) == len(msgs_in)
    mixed = sum(1 for w in windows if len({i.repo for i in w.items if i.type == "commit"}) > 1)
    return Score(
        recall=hit_pairs / true_pairs if true_pairs else 1.0,
        precision=correct / predicted if predicted else 1.0,
        commit_accuracy=good_commits / len(sc.commits) if sc.commits else 1.0,
        bots_alone=bots_ok / bots if bots else 1.0,
        mixed_repo_windows=mixed,
        pairs_true=true_pairs,
        pairs_predicted=predicted,
    )
