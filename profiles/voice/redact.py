"""Secrets and ``<private>`` spans out of a message's text, before it becomes a node.

Pure and stdlib-only: ``redact(text) -> (text, counts)``. Every secret found is
replaced by a visible marker, ``[REDACTED:<kind>]``, so the page and the search
result still show that something was there; ``<private>...</private>`` spans
(claude-mem's convention; an unclosed ``<private>`` runs to the end of the text)
are removed entirely. Deterministic (re-capturing the same transcript gives the
same text, so the verbatim law's re-ingest no-op still holds) and idempotent
(redacting redacted text changes nothing).

Speed matters (the SessionEnd hook, backfill): almost every message holds none
of the needles below, so one lower-cased copy and a few substring tests decide
whether the regex (one compiled alternation, one pass) runs at all.

Kinds: aws-access-key, aws-secret-key, github-token, openai-key, anthropic-key,
slack-token, stripe-key, google-api-key, jwt, private-key, bearer-token,
connection-password, secret-assignment (``password=``/``api_key=``/``token:``
... with a high-entropy value).
"""

from __future__ import annotations

import math
import re
from collections import Counter

MARK = "[REDACTED:{}]"
PRIVATE_KIND = "private-span"

_ASSIGN_NAMES = (
    r"(?:passwd|password|passphrase|pwd|secret|client[_-]?secret|api[_-]?key|apikey"
    r"|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token"
    r"|token|secret[_-]?key)"
)
# a value never starts a marker: redacting twice changes nothing
_NOT_MARK = r"(?!\[REDACTED:)"

# (kind, pattern); the fixed formats first, then the generic rules (whose values
# never start a marker, so a key a fixed rule already replaced is left alone)
_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("aws_access_key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}"),
    (
        "connection_password",
        # scheme://user:PASSWORD@host: only the password goes
        r"(?<cp_head>\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/@\"'<>]+:)"
        + _NOT_MARK
        + r"(?<cp_value>[^\s@/\"'<>]{3,})(?=@)",
    ),
    (
        "bearer_token",
        r"(?<bt_head>\b[Bb]earer\s+)" + _NOT_MARK + r"(?<bt_value>[A-Za-z0-9._~+/=-]{16,})",
    ),
    (
        "aws_secret_key",
        r"(?<as_head>(?i:aws)?[_-]?(?i:secret)[_-]?(?i:access)?[_-]?(?i:key)[\"']?\s*[:=]\s*[\"']?)"
        + _NOT_MARK
        + r"(?<as_value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
    ),
    (
        "secret_assignment",
        r"(?<sa_head>\b(?i:"
        + _ASSIGN_NAMES
        + r")[\"']?\s*[:=]\s*[\"']?)"
        + _NOT_MARK
        + r"(?<sa_value>[^\s\"'`,;()<>\[\]{}]{8,})",
    ),
)
# lower-case substrings one of which a text must hold for the kind's regex to run
# (the cheap pre-check: most messages hold none, and then no regex runs at all)
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private_key": ("-----begin",),
    "aws_access_key": ("akia", "asia", "abia", "acca"),
    "github_token": ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
    "anthropic_key": ("sk-ant-",),
    "openai_key": ("sk-",),
    "stripe_key": ("_live_", "_test_"),
    "slack_token": ("xox",),
    "google_api_key": ("aiza",),
    "jwt": ("eyj",),
    "connection_password": ("://",),
    "bearer_token": ("bearer",),
    "aws_secret_key": ("secret",),
    "secret_assignment": ("pass", "pwd", "secret", "key", "token"),
}
NEEDLES = tuple(sorted({n for needles in _NEEDLES.values() for n in needles}))
# and one of these characters (a ``name=value`` needs its separator)
_REQUIRES: dict[str, tuple[str, ...]] = {
    "connection_password": ("@",),
    "aws_secret_key": ("=", ":"),
    "secret_assignment": ("=", ":"),
}


def _py(body: str) -> str:
    return body.replace("(?<", "(?P<")  # named groups in Python's spelling


# one compiled regex per kind, in _PATTERNS order
_RULES: tuple[tuple[tuple[str, ...], tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (_NEEDLES[name], _REQUIRES.get(name, ("",)), re.compile(f"(?P<{name}>{_py(body)})"))
    for name, body in _PATTERNS
)
# generic rules: (group holding the kept prefix, group holding the secret)
_PARTS = {
    "connection_password": ("cp_head", "cp_value"),
    "bearer_token": ("bt_head", "bt_value"),
    "aws_secret_key": ("as_head", "as_value"),
    "secret_assignment": ("sa_head", "sa_value"),
}
# the fixed-format kinds, to name a value found by a generic rule
_SPECIFIC = re.compile(
    "|".join(f"(?P<{name}>{body})" for name, body in _PATTERNS if name not in _PARTS)
)
_PLACEHOLDER = re.compile(  # ${VAR}, %(name)s, %VAR%, %s, {{x}}, <x>, xxxx, ***, ...
    r"^(?:\$\{?\w+\}?|%\(\w+\)[sd]|%\w+%|%[sd]|\{\{.*\}\}|<.*>|(.)\1+|\*+|x+|\.\.\.+)$"
)
_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
MIN_ENTROPY = 3.0  # bits per character for a generic ``name=value`` secret


def kind_name(group: str) -> str:
    return group.replace("_", "-")


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def _looks_secret(value: str, *, need_digit: bool = False) -> bool:
    if _PLACEHOLDER.match(value) or entropy(value) < MIN_ENTROPY:
        return False
    return not need_digit or any(ch.isdigit() for ch in value)


def _replace(match: re.Match[str], counts: Counter[str]) -> str:
    group = match.lastgroup or ""
    parts = _PARTS.get(group)
    if parts is None:
        counts[kind_name(group)] += 1
        return MARK.format(kind_name(group))
    head, value = match.group(parts[0]), match.group(parts[1])
    specific = _SPECIFIC.fullmatch(value)
    if specific is not None and specific.lastgroup:
        kind = kind_name(specific.lastgroup)
    elif group == "connection_password" or _looks_secret(value, need_digit=group == "bearer_token"):
        kind = kind_name(group)
    else:
        return match.group(0)
    counts[kind] += 1
    return head + MARK.format(kind)


def strip_private(text: str) -> tuple[str, int]:
    """``text`` without its ``<private>`` spans, and how many there were."""
    if "<" not in text or "<private" not in text.lower():
        return text, 0
    return _PRIVATE.subn("", text)


def redact_secrets(text: str) -> tuple[str, Counter[str]]:
    """``text`` with every secret replaced by its marker; counts by kind."""
    counts: Counter[str] = Counter()
    low = text.lower()
    found = {needle for needle in NEEDLES if needle in low}
    if not found:
        return text, counts
    for needles, requires, rule in _RULES:
        if not found.isdisjoint(needles) and any(ch in text for ch in requires):
            text = rule.sub(lambda m: _replace(m, counts), text)
    return text, counts


def redact(text: str, *, secrets: bool = True) -> tuple[str, Counter[str]]:
    """Private spans removed (always), then secrets redacted (unless ``secrets``
    is False); counts by kind, ``private-span`` included."""
    text, spans = strip_private(text)
    if not secrets:
        return text, Counter({PRIVATE_KIND: spans} if spans else {})
    text, counts = redact_secrets(text)
    if spans:
        counts[PRIVATE_KIND] = spans
    return text, counts


__all__ = ["MARK", "PRIVATE_KIND", "entropy", "redact", "redact_secrets", "strip_private"]
