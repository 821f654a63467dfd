"""SQLite activity lookups: implements ``ActivityLookups`` (no tables of its own:
the ``nodes_profile_kind`` index answers both reads)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from memgraph.store.rows import ActivityRow, ActivitySource

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memgraph.store.sqlite_ext.base import Conns


def _text(text: str | None, whole: str | None) -> str:
    if whole is not None:
        claim = json.loads(whole).get("claim")
        return claim if isinstance(claim, str) else ""
    return text or ""


class SQLiteActivity:
    def __init__(self, conns: Conns) -> None:
        self.conns = conns

    def rows_in_range(
        self, sources: Sequence[ActivitySource], lo: str, hi: str
    ) -> list[ActivityRow]:
        found: list[ActivityRow] = []
        with self.conns.read() as conn:
            for src in sources:
                marks = ",".join("?" * len(src.states))
                # node documents are packed (migration 105): mg_doc gives the JSON text.
                # json_extract ends a text at U+0000: such a document comes whole
                claim = (
                    "json_extract(mg_doc(doc), '$.claim'), "
                    "CASE WHEN instr(mg_doc(doc), '\\u0000') > 0 THEN mg_doc(doc) END"
                )
                text_expr = claim if src.kind == "message" else "'', NULL"
                rows = conn.execute(
                    "SELECT kind, id, valid_from, json_extract(mg_doc(doc), '$.attributes'),"
                    f" {text_expr}"
                    " FROM nodes WHERE profile = ? AND kind = ? AND valid_from >= ?"
                    f" AND valid_from <= ? AND lifecycle IN ({marks})",
                    (src.profile, src.kind, lo, hi, *src.states),
                ).fetchall()
                found.extend(
                    ActivityRow(
                        kind=kind,
                        node_id=nid,
                        valid_from=valid,
                        attributes=json.loads(attrs) if attrs else {},
                        text=_text(text, whole),
                    )
                    for kind, nid, valid, attrs, text, whole in rows
                )
        return found

    def message_cwds(self, lo: str, hi: str) -> set[str]:
        with self.conns.read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT json_extract(mg_doc(doc), '$.attributes.cwd') FROM nodes"
                " WHERE profile = 'voice' AND kind = 'message' AND valid_from >= ?"
                " AND valid_from <= ?",
                (lo, hi),
            ).fetchall()
        return {r[0] for r in rows if isinstance(r[0], str) and r[0]}
