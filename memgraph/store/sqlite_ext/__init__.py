"""The SQLite implementations of the profile-owned indexes (``memgraph.store.interfaces``).

Each module holds one index's tables (recorded migrations in its reserved
version range, ``MIGRATIONS``; statements for inserted node rows,
``NEW_NODE_ROWS``) and the class implementing its interface over a ``Conns``
(``base.py``). Version ranges (kept from when the tables lived in the profiles,
so existing stores keep working): 2-9 voice (registry 2, voice index 3-6),
10-19 session, 40-49 term statistics.
"""
