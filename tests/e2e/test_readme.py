"""The README stands on its own: no link leaves the repository, the test suite's
duration is stated, and MCP is added with an absolute path."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_link_stays_inside_the_repository() -> None:
    targets = re.findall(r"\]\(([^)\s]+)\)", README) + re.findall(r"<(https?://[^>]+)>", README)
    assert targets, "the README links its design records"
    for target in targets:
        assert not re.match(r"[a-z]+://", target), target
        path = (ROOT / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), target
    assert "DESIGN.md" not in README  # the design sketch lives outside the repository


def test_states_the_suite_duration_and_an_absolute_mcp_command() -> None:
    # The figure moves as the suite grows; what must hold is that one is stated.
    assert re.search(r"about \d+(-\d+)? minutes on 2 cores", README)
    assert 'claude mcp add memgraph -- "$(command -v memgraph)" mcp' in README
    assert "memgraph mcp --print-config" in README
    assert "memgraph doctor" in README
