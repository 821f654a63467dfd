"""Mutation fuzzer over the real corpus (issue 15): structure-aware and byte-level.

Fixed seed, fixed number of mutants (about a minute on the CI machine). For
every mutant of every real transcript: reading raises nothing but memgraph's
own errors (in fact nothing: a readable file never raises), the ledger
balances (lines read = captured + filtered + dropped), and every message the
clean read keeps whose line was not touched is still read, verbatim, with its
timestamp. Every 8th mutant is also captured into a store and the same
messages must be stored.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memgraph.errors import MemgraphError
from profiles.voice.ledger import entry_from_stats
from profiles.voice.model import TranscriptRead
from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers import ReadOptions, iter_transcripts, read_transcript

SEED = 15
MUTANTS_PER_FILE = 60
MAX_FILE_BYTES = 3 << 20  # larger files are fuzzed on their first lines only
OPTS = ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))
SMALL_CAP = ReadOptions(prefilter=PrefilterOptions(drop_trivial=False), max_line_bytes=4096)

Key = tuple[str, str]  # (timestamp, verbatim text)


def _keys(read: TranscriptRead) -> dict[Key, int]:
    return {(m.timestamp.isoformat(), m.text): m.line for m in read.messages}


# -- byte-level mutations: (rng, line) -> new line(s) -----------------------------------
def _flip(rng: random.Random, line: bytes) -> list[bytes]:
    b = bytearray(line)
    for _ in range(rng.randint(1, 4)):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    return [bytes(b).replace(b"\n", b" ")]


def _nul(rng: random.Random, line: bytes) -> list[bytes]:
    i = rng.randrange(len(line) + 1)
    return [line[:i] + b"\x00" + line[i:]]


def _truncate(rng: random.Random, line: bytes) -> list[bytes]:
    return [line[: rng.randrange(len(line) + 1)]]


def _garbage(rng: random.Random, line: bytes) -> list[bytes]:
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300))).replace(b"\n", b"")
    return [line, junk]


def _delete(rng: random.Random, line: bytes) -> list[bytes]:
    return []


def _crlf(rng: random.Random, line: bytes) -> list[bytes]:
    return [line + b"\r"]


def _bad_utf8(rng: random.Random, line: bytes) -> list[bytes]:
    i = rng.randrange(len(line) + 1)
    return [
        line[:i] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]) + line[i:]
    ]


def _long(rng: random.Random, line: bytes) -> list[bytes]:
    return [line, b'{"type":"user","pad":"' + b"x" * rng.randint(5000, 20000) + b'"}']


BYTE_OPS: list[Callable[[random.Random, bytes], list[bytes]]] = [
    _flip, _nul, _truncate, _garbage, _delete, _crlf, _bad_utf8, _long,
]  # fmt: skip

# -- structure-aware mutations: (rng, record) -> record ---------------------------------
SURROGATE = "\ud800"
ODD_VALUES: list[Any] = [
    None, 0, -1, 10**30, 1.5e308, "", SURROGATE, "a" + SURROGATE, [], {}, ["user"],
    {"type": "user"}, True, "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00",
    "0999-01-01T00:00:00Z", "2026-13-45T99:99:99Z", "\x00", "\u202e", [[[[[]]]]],
]  # fmt: skip
FIELDS = ["type", "sessionId", "timestamp", "uuid", "message", "cwd", "gitBranch", "payload",
          "isSidechain", "isMeta", "parentUuid", "toolUseResult", "content", "operation"]  # fmt: skip


def _set_field(rng: random.Random, rec: dict[str, Any]) -> dict[str, Any]:
    rec[rng.choice(FIELDS)] = rng.choice(ODD_VALUES)
    return rec


def _nested_field(rng: random.Random, rec: dict[str, Any]) -> dict[str, Any]:
    for outer in ("message", "payload"):
        inner = rec.get(outer)
        if isinstance(inner, dict) and inner:
            inner[rng.choice([*inner, "content", "type", "role", "text"])] = rng.choice(ODD_VALUES)
            return rec
    return _set_field(rng, rec)


def _content_blocks(rng: random.Random, rec: dict[str, Any]) -> dict[str, Any]:
    msg = rec.get("message")
    if isinstance(msg, dict):
        msg["content"] = [
            rng.choice(
                [
                    {"type": "text", "text": rng.choice(ODD_VALUES)},
                    {"type": rng.choice(ODD_VALUES)},
                    "bare",
                    7,
                    None,
                ]
            )
            for _ in range(rng.randint(0, 3))
        ]
    return rec


def _drop_field(rng: random.Random, rec: dict[str, Any]) -> dict[str, Any]:
    if rec:
        rec.pop(rng.choice(list(rec)))
    return rec


STRUCT_OPS = [_set_field, _nested_field, _content_blocks, _drop_field]


def _deep(rng: random.Random, line: bytes) -> list[bytes]:
    depth = rng.choice([100, 5000, 200000])
    return [line, b'{"type":"user","message":' + b"[" * depth + b"]" * depth + b"}"]


def mutate(rng: random.Random, lines: list[bytes]) -> tuple[list[bytes], set[int]]:
    """A mutated copy and the (0-based) indices of the original lines touched."""
    out = list(lines)
    touched: set[int] = set()
    plan: dict[int, list[bytes]] = {}
    for _ in range(rng.randint(1, 5)):
        i = rng.randrange(len(lines))
        touched.add(i)
        line = plan.get(i, [lines[i]])[0] if plan.get(i) else lines[i]
        if rng.random() < 0.5:
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):
                rec = None
            if isinstance(rec, dict):
                rec = rng.choice(STRUCT_OPS)(rng, rec)
                plan[i] = [json.dumps(rec).encode()]
                continue
        op = rng.choice([*BYTE_OPS, _deep])
        plan[i] = op(rng, line)
    result: list[bytes] = []
    for i, line in enumerate(out):
        result.extend(plan.get(i, [line]))
    return result, touched


def _read(path: Path, opts: ReadOptions) -> TranscriptRead:
    try:
        return read_transcript(path, opts)
    except MemgraphError as exc:  # allowed by the contract, and still a failure here
        pytest.fail(f"{path.name}: a readable file raised {type(exc).__name__}: {exc}")


@pytest.mark.slow
def test_mutated_real_transcripts_lose_no_clean_message(corpus: Path, tmp_path: Path) -> None:
    from memgraph.store import open_store
    from profiles.voice.capture import CaptureRequest, capture_messages

    rng = random.Random(SEED)
    files = [p for p in iter_transcripts(corpus) if p.stat().st_size > 0]
    assert files, "empty corpus"
    cases = lost = checked = stored_checks = 0
    for path in files:
        data = path.read_bytes()
        if len(data) > MAX_FILE_BYTES:
            data = data[: data.rfind(b"\n", 0, MAX_FILE_BYTES) + 1]
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if not lines:
            continue
        clean_path = tmp_path / "clean.jsonl"
        clean_path.write_bytes(b"\n".join(lines) + b"\n")
        clean = _read(clean_path, OPTS)
        clean_keys = _keys(clean)
        for n in range(MUTANTS_PER_FILE):
            mutated, touched = mutate(rng, lines)
            mpath = tmp_path / path.name  # same name: harness detection by name agrees
            mpath.write_bytes(b"\n".join(mutated) + (b"\n" if rng.random() < 0.9 else b""))
            opts = SMALL_CAP if n % 5 == 4 else OPTS
            read = _read(mpath, opts)
            cases += 1
            entry = entry_from_stats(str(mpath), read.stats)
            assert entry.balanced, entry.to_json()
            got = _keys(read)
            must = {
                k
                for k, line in clean_keys.items()
                if line - 1 not in touched and (opts is OPTS or len(lines[line - 1]) <= 4096)
            }
            checked += len(must)
            missing = must - set(got)
            lost += len(missing)
            assert not missing, f"{path.name} mutant {n}: lost {sorted(missing)[:3]}"
            if n % 8 == 0 and read.messages:
                store = open_store(":memory:")
                request = CaptureRequest(transcript=mpath, vault=tmp_path / "v", write_pages=False)
                capture_messages(store, read.messages, request)
                stored = {
                    (node.valid_from.isoformat() if node.valid_from else "", node.claim)
                    for node in store.iter_nodes("voice", "message")
                }
                assert must <= stored, sorted(must - stored)[:3]
                stored_checks += 1
                store.close()
    assert cases >= len(files) * MUTANTS_PER_FILE * 0.9
    assert lost == 0
    print(
        f"fuzz: {len(files)} files, {cases} mutants, {checked} clean messages checked, "
        f"{stored_checks} captured into a store, 0 lost, 0 crashes"
    )


def test_mutate_is_deterministic() -> None:
    lines = [json.dumps({"type": "user", "n": i}).encode() for i in range(20)]
    a = mutate(random.Random(SEED), lines)
    b = mutate(random.Random(SEED), lines)
    assert a == b
