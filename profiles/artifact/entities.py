"""Entity anchors: the named things an artifact is about.

An entity key is ``<kind>:<value>`` with kind one of ``session``, ``project``,
``repo``, ``branch`` and ``path``. Keys are what the activity pass links
artifacts by, so they are normalised here once (lower-cased repo/project
names, repo-scoped branches, ``./``-free relative paths) and everything else
compares strings.

File paths are parsed out of free message text with a deliberately careful
regex: a false path costs little (paths only resolve repo-less messages, see
notes/activity.md) but a path regex that eats URLs, e-mail addresses or
version numbers would link unrelated work.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from memgraph.documents import AnchorKind, MemoryAnchor
from memgraph.ids import anchor_id

# Message text is bounded before scanning: a pasted 5 MB log is not where the
# operator names the file they want changed, and regex time must stay linear.
MAX_SCAN_CHARS = 20_000
MAX_PATHS = 50
MAX_PATH_LEN = 300

# Extensions that make a bare ``name.ext`` token a file (a token with a
# directory part needs only some extension or a known extensionless name).
# Closed list on purpose: "example.com", "v1.2" and "e.g." must not match.
CODE_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "ipynb",
        "js",
        "jsx",
        "ts",
        "tsx",
        "mjs",
        "cjs",
        "json",
        "jsonl",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "md",
        "mdx",
        "rst",
        "txt",
        "rs",
        "go",
        "java",
        "kt",
        "kts",
        "scala",
        "c",
        "h",
        "cc",
        "cpp",
        "cxx",
        "hpp",
        "hh",
        "cs",
        "swift",
        "m",
        "mm",
        "rb",
        "php",
        "pl",
        "pm",
        "lua",
        "sh",
        "bash",
        "zsh",
        "fish",
        "ps1",
        "sql",
        "graphql",
        "proto",
        "html",
        "htm",
        "css",
        "scss",
        "sass",
        "less",
        "vue",
        "svelte",
        "astro",
        "xml",
        "csv",
        "tsv",
        "lock",
        "env",
        "dockerfile",
        "tf",
        "hcl",
        "nix",
        "el",
        "vim",
        "ex",
        "exs",
        "erl",
        "hrl",
        "hs",
        "ml",
        "mli",
        "clj",
        "cljs",
        "dart",
        "r",
        "jl",
        "zig",
        "sol",
        "gradle",
        "properties",
        "mk",
        "cmake",
        "bazel",
        "bzl",
        "gitignore",
        "dockerignore",
        "editorconfig",
    ]
)
EXTENSIONLESS = frozenset(
    {"Makefile", "Dockerfile", "Justfile", "Rakefile", "Gemfile", "Procfile", "LICENSE"}
)
# Names so common that a bare mention identifies no repo; with a directory
# part ("docs/README.md") they are specific enough.
GENERIC_BASENAMES = frozenset(
    {
        "readme.md",
        "__init__.py",
        "setup.py",
        "package.json",
        "pyproject.toml",
        "makefile",
        "cargo.toml",
        "go.mod",
        "index.ts",
        "index.js",
        "main.py",
        "main.go",
        "main.rs",
        "lib.rs",
        "license",
        "changelog.md",
        "dockerfile",
        ".gitignore",
        "config.toml",
        "config.yaml",
        "settings.json",
    }
)

# A candidate token holds a "." or "/" (so plain words never reach the checks
# below), optionally followed by ``:line[:col]``; ``(?<![...])`` keeps us from
# starting inside a URL, e-mail or longer word. Extensionless names
# (Makefile...) are found by their own pattern.
_TOKEN = re.compile(r"(?<![\w@:/.\-~])(~?[\w.\-/]*[./][\w.\-/]*)(?::\d+(?::\d+)?)?")
_BARE = re.compile(r"(?<![\w@:/.\-~])(" + "|".join(sorted(EXTENSIONLESS)) + r")(?![\w.\-/])")
# Linear: a scheme is short (none over 32), and an address starts where its token
# does (``\S+@\S+`` always ends at the token's end, so no later match starts inside
# one); unbounded, "a-a-a-..." was scanned to the end from every position: 0.9 s / 20 KB.
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]{0,31}://\S+|\bwww\.\S+|(?<!\S)\S+@\S+")
_VERSIONISH = re.compile(r"^v?\d+(?:\.\d+)+[a-z0-9\-]*$", re.IGNORECASE)


def _looks_like_path(token: str) -> bool:
    if len(token) > MAX_PATH_LEN or token in (".", "..") or token.endswith("/"):
        return False
    name = token.rsplit("/", 1)[-1]
    if not name or name.startswith("..") or _VERSIONISH.match(name):
        return False
    if name in EXTENSIONLESS:
        return True
    if "." not in name.strip("."):
        # dotfiles like ".gitignore" carry their "extension" as the whole name
        return name.startswith(".") and name[1:].lower() in CODE_EXTENSIONS
    ext = name.rsplit(".", 1)[-1].lower()
    return ext in CODE_EXTENSIONS and not name.endswith(".")


def normalize_path(path: str) -> str | None:
    """``./a//b/../c.py`` -> ``a/c.py``; None when nothing path-like remains."""
    path = path.strip().strip("`'\"").replace("\\", "/")
    if not path or "\x00" in path:
        return None
    absolute = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    if not parts:
        return None
    text = "/".join(parts)
    return "/" + text if absolute else text


def mentioned_paths(text: str) -> list[str]:
    """File paths named in free text, normalised, in first-mention order.

    Strips ``:line[:col]`` suffixes and trailing sentence punctuation; skips
    URLs, e-mail addresses, version numbers and bare words without a known
    extension. ``~/x`` stays as is (home-relative; never resolved here).
    """
    scan = _URL.sub(" ", text[:MAX_SCAN_CHARS])
    found: dict[str, None] = {}
    matches = sorted([*_TOKEN.finditer(scan), *_BARE.finditer(scan)], key=lambda m: m.start())
    for match in matches:
        token = match.group(1).rstrip(".")
        if not _looks_like_path(token):
            continue
        norm = normalize_path(token)
        if norm is not None:
            found.setdefault(norm, None)
            if len(found) >= MAX_PATHS:
                break
    return list(found)


def is_specific(path: str) -> bool:
    """Whether a mentioned path is specific enough to identify a repo."""
    if "/" in path.strip("/"):
        return True
    return path.lower() not in GENERIC_BASENAMES


def path_suffixes(path: str) -> list[str]:
    """``a/b/c.py`` -> ``["a/b/c.py", "b/c.py", "c.py"]`` (for suffix lookups)."""
    parts = PurePosixPath(path.lstrip("/")).parts
    return ["/".join(parts[i:]) for i in range(len(parts))]


def norm_name(name: str | None) -> str | None:
    """Repo/project names compare case-insensitively, without surrounding space."""
    if name is None:
        return None
    value = " ".join(str(name).split()).lower()
    return value or None


def entity_keys(
    *,
    session_id: str | None = None,
    project: str | None = None,
    repo: str | None = None,
    branch: str | None = None,
    paths: Iterable[str] = (),
) -> list[str]:
    """Normalised entity keys; a branch is scoped to its repo (``main`` alone says nothing)."""
    keys: list[str] = []
    if session_id:
        keys.append(f"session:{session_id}")
    proj = norm_name(project)
    if proj:
        keys.append(f"project:{proj}")
    rep = norm_name(repo)
    if rep:
        keys.append(f"repo:{rep}")
        if branch and branch != "HEAD":
            keys.append(f"branch:{rep}@{branch.strip()}")
    for p in paths:
        keys.append(f"path:{rep}:{p}" if rep else f"path::{p}")
    return keys


def entity_anchors(keys: Iterable[str]) -> list[MemoryAnchor]:
    """One ``AnchorKind.entity`` anchor per key (an anchor points; it is no claim)."""
    return [
        MemoryAnchor(id=anchor_id("entity", key), kind=AnchorKind.entity, ref=key)
        for key in dict.fromkeys(keys)
    ]
