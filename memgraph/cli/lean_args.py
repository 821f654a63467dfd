"""The argv shim the lean command paths share (no typer, no click): ``recall``,
``context``, ``note``, ``wake``, ``repo scan`` and the two hooks.

``parse(argv, spec)`` reads the positional ``TEXT`` (one, at most one, or none, as
``spec.text`` says) plus the options ``spec`` names (``--opt value``, ``--opt=value``,
flags alone) the way click would; anything it is not sure of (``--help``, an unknown
option, a missing or non-integer value, a text too many or missing) is ``None``, and
the caller lets typer take over and explain. (``voice`` keeps its own parser: its
QUERY is any number of words, and some of its flags hand the whole command to typer.)
"""

from __future__ import annotations

from pathlib import Path


class Spec:
    """What one lean command takes. A plain class, not a dataclass: ``dataclasses``
    pulls in ``inspect`` (~10 ms), which the SessionStart hook's path otherwise
    never imports (tests/profiles/wakeup/test_session_start.py guards it)."""

    __slots__ = ("flags", "ints", "paths", "short", "text", "valued")

    def __init__(
        self,
        valued: dict[str, str],  # option name -> argument field
        flags: dict[str, str],  # flag name -> argument field (set to True)
        ints: tuple[str, ...] = (),  # fields parsed as int
        paths: tuple[str, ...] = (),  # fields made Paths
        short: tuple[str, ...] = (),  # short options, which take no ``=value``
        text: str = "one",  # the positional TEXT: "one", "optional" or "none"
    ) -> None:
        self.valued, self.flags, self.ints = valued, flags, ints
        self.paths, self.short, self.text = paths, short, text


def parse(argv: list[str], spec: Spec) -> dict[str, object] | None:
    found: dict[str, object] = {}
    texts: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in spec.flags:
            found[spec.flags[arg]] = True
        elif arg == "--":
            texts += argv[i + 1 :]
            break
        elif arg.startswith("-") and arg != "-":
            name, eq, value = arg.partition("=")
            key = spec.valued.get(name)
            if key is None or (eq and name in spec.short):
                return None
            if not eq:
                if i + 1 >= len(argv):
                    return None
                i += 1
                value = argv[i]
            found[key] = value
        else:
            texts.append(arg)
        i += 1
    if len(texts) > (0 if spec.text == "none" else 1) or (spec.text == "one" and not texts):
        return None
    if texts:
        found["text"] = texts[0]
    for key in spec.ints:
        if key in found:
            try:
                found[key] = int(str(found[key]))
            except ValueError:
                return None
    for key in spec.paths:
        if key in found:
            if not str(found[key]).strip():
                return None  # "" would be Path("."), the current folder: typer refuses it
            found[key] = Path(str(found[key]))
    return found


def parse_strings(argv: list[str], spec: Spec) -> dict[str, str] | None:
    """``parse``, its values as text (a flag as ``"1"``), for a caller that hands
    them on as a ``str`` mapping."""
    found = parse(argv, spec)
    if found is None:
        return None
    return {key: "1" if value is True else str(value) for key, value in found.items()}
