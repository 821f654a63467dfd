"""GitHub Actions workflow-command annotations for the validators' ``--format github``.

``::error file=PATH,line=N::message`` (or ``::warning``) puts each problem on the
line of the file in a pull request's diff. Values are escaped as the runner
expects: ``%``, CR and LF everywhere, plus ``:`` and ``,`` in properties.
"""

from __future__ import annotations

FORMATS = ("text", "github")


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(level: str, path: str, message: str, line: int | None = None) -> str:
    """One ``::error``/``::warning`` line (``level`` other than warning is an error)."""
    kind = "warning" if level == "warning" else "error"
    props = f"file={_prop(path)}" + (f",line={line}" if line is not None else "")
    return f"::{kind} {props}::{_data(message)}"
