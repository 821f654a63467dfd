"""memgraph run as its own process, as a person or a harness runs it (end-to-end and
bad-input tests): ``python -m memgraph.cli ARGS``, text in and out, never raising on
a non-zero exit (the tests assert the code)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

COMMAND = (sys.executable, "-m", "memgraph.cli")


def memgraph(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``stdin`` None: the child inherits the test's stdin; ``env`` None: this
    process's environment (the autouse fixture's)."""
    return subprocess.run(
        [*COMMAND, *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
