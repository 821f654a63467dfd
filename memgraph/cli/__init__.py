"""The ``memgraph`` command: a thin layer over the library.

Every ``MemgraphError`` becomes ``Error: <message>`` on stderr with exit 1
(usage errors 2); a traceback is shown only with ``--debug``. Keep heavy
imports inside command functions so ``memgraph voice`` starts fast.
"""

from __future__ import annotations


def main() -> None:
    from memgraph.cli.app import app

    app(prog_name="memgraph")
