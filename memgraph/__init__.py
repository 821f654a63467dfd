"""memgraph: a local-first typed memory graph for people who run fleets of AI
coding agents.

The package import stays lean (the CLI's hot paths depend on it); import the
API from its modules: ``memgraph.documents``, ``memgraph.engine``,
``memgraph.ops``, ``memgraph.store``.
"""

__version__ = "0.1.0"
