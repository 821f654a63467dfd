"""The scanner records a module's interface names: CLI commands and command
groups, ``--options``, MCP tools (``mentions.py`` resolves commit words to them)."""

from __future__ import annotations

from profiles.repo_scan.facts import FileFacts
from profiles.repo_scan.python import parse_python

CLI = '''"""Session commands."""
import typer

session_app = typer.Typer(help="Sessions.")
tools_app = typer.Typer(name="tools", help="Tools (a group named in its constructor).")
ARGS = {"--budget": "budget", "--cut": "cut"}  # a hand-made option table


@session_app.command("list")
def list_sessions(since: str = typer.Option(None, "--since"), utc: bool = typer.Option(False, "--utc")) -> None:
    pass


@session_app.command()
def show_one() -> None:
    pass


def register(app: typer.Typer) -> None:
    app.add_typer(session_app, name="session")


def serve(server: object) -> None:
    @server.tool(description="Search.")
    def voice_search(query: str) -> str:
        return query

    @server.tool(name="wake_up")
    def wake() -> str:
        return ""

    # "--not-an-option" in a comment line is skipped
'''


def _facts(text: str) -> FileFacts:
    facts = FileFacts("pkg/cli.py", "python", "d" * 64, None)
    parse_python("pkg/cli.py", text, facts)
    return facts


def test_commands_groups_options_and_tools_are_recorded() -> None:
    f = _facts(CLI)
    commands = {c[0] for c in f.commands}
    assert {"list", "show-one", "session", "tools"} <= commands
    options = [o[0] for o in f.options]
    assert {"--budget", "--cut", "--since", "--utc"} == set(options)
    assert "--not-an-option" not in options
    assert [t[0] for t in f.tools] == ["voice_search", "wake_up"]
    line = {t[0]: t[1] for t in f.tools}
    assert CLI.splitlines()[line["voice_search"] - 1].strip().startswith("def voice_search")


def test_facts_round_trip_with_the_new_lists_and_without_them() -> None:
    f = _facts(CLI)
    back = FileFacts.from_json(f.as_json())
    assert back.options == f.options and back.tools == f.tools
    old = f.as_json()
    del old["options"], old["tools"]  # facts stored before these lists existed
    assert FileFacts.from_json(old).options == [] and FileFacts.from_json(old).tools == []


def test_a_file_without_an_interface_records_none() -> None:
    f = _facts('"""Plain."""\nX = "-- not an option"\n\n\ndef tool() -> None:\n    pass\n')
    assert f.options == [] and f.tools == [] and f.commands == []
