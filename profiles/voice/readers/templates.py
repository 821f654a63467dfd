"""Prompt templates expanded into a user message: keep only the operator's arguments.

Codex custom prompts (``~/.codex/prompts/NAME.md``) are expanded by the client, so
the ``user_message`` holds the template with the arguments substituted. Only the
arguments are what the operator typed; the template is someone's file. Rule 24 in
notes/prefilter.md. Recognised forms:

* the typed form ``/prompts:NAME args`` (as some builds and front ends record it);
* the prompt-file convention of a ``## User Input`` heading followed by a fenced
  block that holds ``$ARGUMENTS`` (spec-kit style templates);
* a message that starts with a prompt file's front matter (``---`` + ``description:``
  / ``argument-hint:``): a template; its arguments cannot be told apart unless the
  ``## User Input`` block is there, so nothing of it is voice.

The command/template name is returned as metadata (``OperatorMessage.command``).
"""

from __future__ import annotations

import re

from profiles.voice import tagblocks

_TYPED = re.compile(r"/prompts:([A-Za-z0-9._:-]+)(?:[ \t\n]+(.*))?", re.S)
# The "User Input" block: its heading and opening fence line, then everything up to
# a line ending with the same fence (``tagblocks``: linear; the one regex
# ``...(`{3,})[^\n]*\n(.*?)\n?[ \t]*\1[ \t]*$`` was quadratic in repeated headings
# and in the fence's length). The fence is taken whole (possessive) and at most 32
# long, so a closing fence must repeat the opening one.
_USER_INPUT = re.compile(
    r"^#{1,6}[ \t]*User Input[ \t]*\n+[ \t]*(`{3,32}+|~{3,32}+)[^\n]*\n", re.M | re.I
)


_fence_end = tagblocks.closing_by(
    lambda fence: re.compile(r"\n?[ \t]*" + re.escape(fence) + r"[ \t]*$", re.M)
)


_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)
_FRONT_KEY = re.compile(r"^(description|argument-hint|name)[ \t]*:[ \t]*(.*)$", re.M)


class Expanded:
    """A template expansion: ``args`` (the operator's words, may be empty) and ``command``."""

    __slots__ = ("args", "command")

    def __init__(self, args: str, command: str) -> None:
        self.args = args
        self.command = command

    def __repr__(self) -> str:
        return f"Expanded(args={self.args!r}, command={self.command!r})"


def split_template(text: str) -> Expanded | None:
    """``None`` for an ordinary prompt; else the arguments and the command name."""
    s = text.lstrip()
    if s.startswith("/prompts:"):
        m = _TYPED.match(s)
        if m is not None:
            return Expanded((m.group(2) or "").strip(), "/prompts:" + m.group(1))
    front = _FRONT.match(s)
    keys = dict(_FRONT_KEY.findall(front.group(1))) if front else {}
    user_input = tagblocks.first_inner(s, _USER_INPUT, _fence_end)
    if user_input is None and not keys:
        return None
    name = keys.get("name", "").strip().strip("'\"")
    description = keys.get("description", "").strip().strip("'\"")
    if name:
        command = "/prompts:" + name[:80]
    elif description:
        command = "template:" + description[:60]
    else:
        command = "template:" + _label(s, front.end() if front else 0)
    args = user_input.strip() if user_input else ""
    if args in ("$ARGUMENTS", "$1"):
        args = ""
    return Expanded(args, command)


def _label(text: str, start: int) -> str:
    """A short label for an unnamed template: its first heading other than the
    ``User Input`` block's, else its first plain line (fences and the arguments
    block skipped)."""
    body = tagblocks.strip(text[start:], _USER_INPUT, _fence_end, trail=False)
    lines = [line.strip() for line in body.splitlines()]
    for line in lines:
        if line.startswith("#") and line.lstrip("#").strip():
            return line.lstrip("#").strip()[:60]
    for line in lines:
        if line and not line.startswith(("```", "~~~")):
            return line[:60]
    return "(unnamed)"
