"""JSON schemas and argument checks for the MCP tools, read off their signatures.

The lean stdio loop (``memgraph.mcp_stdio``) answers tools/list and checks tools/call
arguments from the functions in ``memgraph.mcp_tools`` without the SDK's pydantic
models. The schemas are the ones the SDK derives from the same signatures (a test
compares them key for key); the checks accept what the SDK's lax validation accepted
for these types ("20" for an integer, "true" for a boolean, a JSON string holding a
list), name the argument when they refuse, and refuse arguments the tool does not
take (the SDK dropped those silently: a renamed parameter did nothing).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_SCALARS = {str: "string", int: "integer", bool: "boolean"}
_INT = re.compile(r"[+-]?\d{1,18}")
_TRUE = {"true", "1", "yes", "on", "t", "y"}
_FALSE = {"false", "0", "no", "off", "f", "n"}


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "string" | "integer" | "boolean" | "array" (of strings)
    nullable: bool
    required: bool
    default: Any

    def schema(self) -> dict[str, Any]:
        base: dict[str, Any] = (
            {"items": {"type": "string"}, "type": "array"}
            if self.kind == "array"
            else {"type": self.kind}
        )
        out: dict[str, Any] = {"anyOf": [base, {"type": "null"}]} if self.nullable else {}
        if not self.required:
            out["default"] = self.default
        out["title"] = self.name.replace("_", " ").title()
        if not self.nullable:
            out.update(base)  # pydantic's order: default, title, then the type
        return out


def _kind(hint: Any, where: str) -> tuple[str, bool]:
    nullable = False
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        nullable = len(members) < len(typing.get_args(hint))
        if len(members) != 1:
            raise TypeError(f"{where}: unsupported union {hint!r}")
        hint = members[0]
    if hint in _SCALARS:
        return _SCALARS[hint], nullable
    if typing.get_origin(hint) is list and typing.get_args(hint) == (str,):
        return "array", nullable
    raise TypeError(f"{where}: unsupported parameter type {hint!r}")


def params_of(name: str, fn: Callable[..., Any]) -> list[Param]:
    hints = typing.get_type_hints(fn)
    out = []
    for p in inspect.signature(fn).parameters.values():
        kind, nullable = _kind(hints[p.name], f"{name}.{p.name}")
        required = p.default is inspect.Parameter.empty
        out.append(Param(p.name, kind, nullable, required, None if required else p.default))
    return out


def input_schema(name: str, params: list[Param]) -> dict[str, Any]:
    schema: dict[str, Any] = {"properties": {p.name: p.schema() for p in params}}
    required = [p.name for p in params if p.required]
    if required:
        schema["required"] = required
    schema.update({"type": "object", "title": f"{name}Arguments"})
    return schema


def output_schema(name: str, fn: Callable[..., Any]) -> dict[str, Any]:
    """A dict result is the structured content itself; a list is wrapped in ``result``."""
    hint = typing.get_type_hints(fn)["return"]
    if typing.get_origin(hint) is dict:
        return {"type": "object", "additionalProperties": True, "title": f"{name}DictOutput"}
    if typing.get_origin(hint) is list and typing.get_origin(typing.get_args(hint)[0]) is dict:
        items = {"additionalProperties": True, "type": "object"}
        result = {"items": items, "title": "Result", "type": "array"}
        return {
            "properties": {"result": result},
            "required": ["result"],
            "title": f"{name}Output",
            "type": "object",
        }
    raise TypeError(f"{name}: unsupported return type {hint!r}")


def _show(value: Any) -> str:
    # bounded in depth: a value nested 900 deep (hostile, but valid JSON) would
    # exhaust the encoder's recursion and the caller would get that instead
    text = _preview(value, 8)
    return text if len(text) <= 60 else text[:57] + "..."


def _preview(value: Any, depth: int) -> str:
    if isinstance(value, list):
        if depth == 0:
            return "[...]"
        return "[" + ", ".join(_preview(v, depth - 1) for v in value[:8]) + "]"
    if isinstance(value, dict):
        if depth == 0:
            return "{...}"
        items = list(value.items())[:8]
        return (
            "{"
            + ", ".join(f"{json.dumps(str(k))}: {_preview(v, depth - 1)}" for k, v in items)
            + "}"
        )
    return json.dumps(value, ensure_ascii=True)


def _coerce(param: Param, value: Any) -> Any:
    if value is None and param.nullable:
        return None
    kind = param.kind
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _INT.fullmatch(value.strip()):
            return int(value.strip())
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
    if kind == "array":
        if isinstance(value, str) and value.lstrip().startswith("["):
            # a list sent as a JSON string (some clients do), as the SDK read it
            with contextlib.suppress(ValueError, RecursionError):
                value = json.loads(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
    wanted = {"string": "a string", "integer": "an integer", "boolean": "true or false"}
    expected = wanted.get(kind, "a list of strings")
    if param.nullable:
        expected += " or null"
    raise ValueError(f"argument {param.name!r} must be {expected}, not {_show(value)}")


def check_arguments(tool: str, params: list[Param], arguments: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments to call the tool with; ValueError naming the argument."""
    known = {p.name: p for p in params}
    unknown = sorted(k for k in arguments if k not in known)
    if unknown:
        takes = ", ".join(known) or "no arguments"
        raise ValueError(
            f"{tool} does not take {', '.join(repr(k) for k in unknown)} (it takes: {takes})"
        )
    out = {}
    for p in params:
        if p.name in arguments:
            out[p.name] = _coerce(p, arguments[p.name])
        elif p.required:
            raise ValueError(f"missing required argument {p.name!r}")
    return out


def in_tool_words(message: str, names: typing.Iterable[str]) -> str:
    """``message`` with the CLI's ``--flag`` spellings of the tool's own parameters
    put as the parameter names: the library's checks are shared with the CLI and say
    ``--type: unknown class 'x'``, which an agent calling ``voice_search(type=...)``
    has no flag for."""
    for name in sorted(names, key=len, reverse=True):
        flag = re.escape("--" + name.replace("_", "-"))
        message = re.sub(rf"(?<![\w-]){flag}(?![\w-])", name, message)
    return message
