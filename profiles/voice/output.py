"""How voice hits and stats are printed: the CLI (both paths), the demo and the MCP server.

Stdlib only (``memgraph voice`` formats with it in its fast path).
"""

from __future__ import annotations

from memgraph.dates import show

TYPE_CHECKING = False
if TYPE_CHECKING:
    from profiles.voice.search import VoiceHit, VoiceStats

LINE_CHARS = 120

# Terminal safety: text is what someone typed (or pasted), and may hold escape
# sequences. Line breaks become spaces in the one-line form; other control
# characters are shown as U+FFFD. --json keeps the text exact.
_BREAKS = {ord(c): " " for c in "\n\r\t\v\f\x85\u2028\u2029"}
_CONTROLS = {c: "\ufffd" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
ONE_LINE = str.maketrans({**_CONTROLS, **_BREAKS})
FULL = str.maketrans({**_CONTROLS, ord("\n"): "\n", ord("\t"): "\t"})


def render_hits(
    hits: list[VoiceHit],
    as_json: bool,
    full: bool,
    query: str = "",
    tty: bool = False,
    utc: bool = False,
) -> str:
    """The hits as printed; one-line hits show the window around the first match
    of ``query`` (highlighted when ``tty``: colour allowed, ``memgraph.terminal.color``)."""
    if as_json:
        return "".join(format_json(h) + "\n" for h in hits)
    from profiles.voice.snippet import query_terms

    terms = query_terms(query)
    return "".join(format_line(h, full, terms, tty, utc) + "\n" for h in hits)


def format_line(
    hit: VoiceHit,
    full: bool = False,
    terms: list[str] | None = None,
    tty: bool = False,
    utc: bool = False,
) -> str:
    """``[2026-04-14 16:32 CEST atlas 80166115] "text..."`` (local time and zone;
    UTC with ``utc``). The text is cut to 120
    characters around the first match of ``terms`` (from the start when it lies in
    the first 120), the match highlighted when ``tty``; ``full`` prints it whole."""
    if full:
        text = hit.text.translate(FULL)
    else:
        from profiles.voice import snippet

        text = hit.text.translate(ONE_LINE)  # one character for one: spans stay valid
        span = snippet.first_match(text, terms) if terms else None
        text, span = snippet.window(text, span, LINE_CHARS)
        if tty:
            text = snippet.highlight(text, span)
    const = hit.constellation.translate(ONE_LINE) or "-"
    sid = hit.session_id[:8].translate(ONE_LINE) or "-"
    return f'[{show(hit.timestamp, utc)} {const} {sid}] "{text}"'


def format_json(hit: VoiceHit) -> str:
    import json

    data = {
        "timestamp": hit.timestamp.isoformat().replace("+00:00", "Z"),
        "constellation": hit.constellation,
        "session_id": hit.session_id,
        "project": hit.project,
        "text": hit.text,
        "classification": hit.classification,
        "confidence": hit.confidence,
        "voice_page": hit.voice_page,
        "node_id": hit.node_id,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "0.0%"


def stats_rows(stats: VoiceStats, utc: bool = False) -> list[tuple[str, str]]:
    """(label, value) rows: printed as plain lines, or a rich table on a TTY."""
    span = (
        f"{show(stats.first, utc)} .. {show(stats.last, utc)}"
        if stats.first and stats.last
        else "-"
    )
    rows = [
        ("messages", str(stats.messages)),
        ("sessions", str(stats.sessions)),
        ("pages", str(stats.pages)),
        ("classified", f"{stats.classified} ({_pct(stats.classified, stats.messages)})"),
        ("unclassified", f"{stats.unclassified} ({_pct(stats.unclassified, stats.messages)})"),
        ("range", span),
    ]
    if stats.forgotten:
        rows.append(("forgotten", str(stats.forgotten)))
    rows += [(f"project {k or '-'}", str(c)) for k, c in stats.by_constellation]
    rows += [(f"classification {k}", str(c)) for k, c in stats.by_classification]
    lines, captured, filtered, dropped = stats.ledger
    rows.append(
        ("ingest ledger", f"{lines} lines read, {captured} captured, {filtered} filtered, "
         f"{dropped} dropped")
    )  # fmt: skip
    rows += [(f"dropped {k}", str(c)) for k, c in stats.ledger_dropped]
    return [(label.translate(ONE_LINE), value) for label, value in rows]


def stats_json(stats: VoiceStats) -> dict[str, object]:
    lines, captured, filtered, dropped = stats.ledger
    return {
        "messages": stats.messages,
        "sessions": stats.sessions,
        "pages": stats.pages,
        "classified": stats.classified,
        "unclassified": stats.unclassified,
        "first": stats.first.isoformat().replace("+00:00", "Z") if stats.first else None,
        "last": stats.last.isoformat().replace("+00:00", "Z") if stats.last else None,
        "forgotten": stats.forgotten,
        "by_project": dict(stats.by_constellation),
        "by_classification": dict(stats.by_classification),
        "ledger": {
            "lines": lines,
            "captured": captured,
            "filtered": filtered,
            "dropped": dropped,
            "dropped_by_reason": dict(stats.ledger_dropped),
        },
    }


def render_stats(stats: VoiceStats, as_json: bool = False, utc: bool = False) -> str:
    if as_json:
        import json

        return json.dumps(stats_json(stats), ensure_ascii=False, separators=(",", ":")) + "\n"
    return "".join(f"{label}: {value}\n" for label, value in stats_rows(stats, utc))
