"""``python -m memgraph.cli`` (used by tests and MCP client configs)."""

from memgraph.cli import main

main()
