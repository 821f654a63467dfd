"""Facts of non-Python files: manifests, SQL, JSON schemas, and Rust /
TypeScript / JavaScript / Go through tree-sitter (the optional ``repo`` extra).

Without ``tree-sitter-language-pack`` (or with a version that would download
grammars at run time) those files still get module nodes, marked unparsed
with the reason, and every scan result and summary names them.
"""

from __future__ import annotations

import json
import re
import tomllib
from functools import cache
from pathlib import PurePosixPath
from typing import Any

from profiles.repo_scan.facts import FileFacts, first_paragraph, scan_text
from profiles.repo_scan.files import TREE_SITTER_LANGS

TREE_SITTER = {lang: lang for lang in TREE_SITTER_LANGS}  # language -> grammar name
_PROCESS_ENV = re.compile(r"process\.env\.([A-Z_][A-Z0-9_]*)|process\.env\[['\"]([^'\"]+)['\"]\]")
_RUST_ENV = re.compile(r"env::var(?:_os)?\(\s*\"([^\"]+)\"")
_GO_ENV = re.compile(r"os\.(?:Getenv|LookupEnv)\(\s*\"([^\"]+)\"")


@cache
def _parser(lang: str) -> Any:
    """A tree-sitter parser, or None when the extra (or its grammar) is missing."""
    try:
        from tree_sitter_language_pack import get_parser
    except ImportError:
        return None
    try:
        return get_parser(lang)  # type: ignore[arg-type]
    except Exception:  # 1.x downloads grammars on first use: offline that fails
        return None


def tree_sitter_available() -> bool:
    return _parser("python") is not None or _parser("rust") is not None


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def parse_manifest(path: str, text: str, facts: FileFacts) -> None:
    scan_text(facts, text)
    name = PurePosixPath(path).name
    try:
        if name == "package.json":
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            facts.package = str(data.get("name") or "")
            bins = data.get("bin")
            if isinstance(bins, str):
                bins = {facts.package or PurePosixPath(path).parent.name: bins}
            if isinstance(bins, dict):
                for b, target in sorted(bins.items()):
                    facts.binaries.append([str(b), str(target), _line_of(text, f'"{b}"')])
        elif name == "go.mod":
            for no, line in enumerate(text.splitlines(), 1):
                if line.startswith("module "):
                    facts.package = line.split(None, 1)[1].strip()
                    facts.symbols.append([facts.package, "module", no, no])
                    break
        else:
            data = tomllib.loads(text)
            if name == "pyproject.toml":
                project = data.get("project") or {}
                facts.package = str(project.get("name") or "")
                facts.doc = str(project.get("description") or "")[:300]
                for b, target in sorted((project.get("scripts") or {}).items()):
                    facts.binaries.append([str(b), str(target), _line_of(text, f"{b} =")])
            else:  # Cargo.toml
                package = data.get("package") or {}
                facts.package = str(package.get("name") or "")
                facts.doc = str(package.get("description") or "")[:300]
                for b in data.get("bin") or []:
                    if isinstance(b, dict) and b.get("name"):
                        target = str(b.get("path") or f"src/bin/{b['name']}.rs")
                        facts.binaries.append([str(b["name"]), target, _line_of(text, "[[bin]]")])
                if not facts.binaries and facts.package:
                    facts.binaries.append([facts.package, "src/main.rs", 1])
    except (ValueError, tomllib.TOMLDecodeError, TypeError, AttributeError) as exc:
        facts.parsed = False
        facts.error = f"manifest does not parse ({str(exc)[:80]}): not parsed"


def parse_json_schema(path: str, text: str, facts: FileFacts) -> None:
    scan_text(facts, text)
    try:
        data = json.loads(text)
    except ValueError:
        facts.parsed = False
        facts.error = "JSON does not parse: not parsed"
        return
    title = data.get("title") if isinstance(data, dict) else None
    name = str(title or PurePosixPath(path).name.removesuffix(".schema.json"))
    facts.classes.append([name, 1, facts.lines, ["JSONSchema"], []])
    if isinstance(data, dict) and isinstance(data.get("description"), str):
        facts.doc = first_paragraph(data["description"])


def _text(node: Any) -> str:
    return bytes(node.text or b"").decode("utf-8", "replace")


def _string_value(node: Any) -> str:
    return _text(node).strip("\"'`")


def _walk(node: Any, facts: FileFacts, lang: str, depth: int = 0) -> None:
    """Top-level declarations and imports (depth-limited: no deep recursion)."""
    if depth > 3:
        return
    for child in node.named_children:
        t = child.type
        line = child.start_point[0] + 1
        end = child.end_point[0] + 1
        if lang == "rust":
            if t == "use_declaration":
                arg = child.child_by_field_name("argument")
                if arg is not None:
                    facts.imports.append([_text(arg).split("{")[0].rstrip(":"), "", line])
            elif t == "mod_item" and child.child_by_field_name("body") is None:
                name = child.child_by_field_name("name")
                if name is not None:
                    facts.imports.append(["self::" + _text(name), "", line])
            elif t in ("function_item", "struct_item", "enum_item", "trait_item"):
                name = child.child_by_field_name("name")
                public = any(c.type == "visibility_modifier" for c in child.children)
                if name is not None and public:
                    kind = "function" if t == "function_item" else "class"
                    facts.symbols.append([_text(name), kind, line, end])
                if name is not None and t in ("struct_item", "enum_item"):
                    facts.classes.append([_text(name), line, end, [], _rust_derives(child)])
                if name is not None and _text(name) == "main" and t == "function_item":
                    facts.main = True
            elif t == "mod_item":
                body = child.child_by_field_name("body")
                if body is not None:
                    _walk(body, facts, lang, depth + 1)
        elif lang == "go":
            if t == "package_clause" and "main" in _text(child).split():
                facts.main = True
            elif t == "import_declaration":
                for spec in _descendants(child, "import_spec"):
                    path_node = spec.child_by_field_name("path")
                    if path_node is not None:
                        facts.imports.append([_string_value(path_node), "", line])
            elif t in ("function_declaration", "method_declaration", "type_declaration"):
                for name_node in _names(child):
                    name = _text(name_node)
                    if name[:1].isupper():
                        kind = "class" if t == "type_declaration" else "function"
                        facts.symbols.append([name, kind, line, end])
                if t == "type_declaration" and "struct" in _text(child)[:200]:
                    for name_node in _names(child):
                        facts.classes.append([_text(name_node), line, end, ["struct"], []])
        else:  # typescript / tsx / javascript
            if t == "import_statement":
                source = child.child_by_field_name("source")
                if source is not None:
                    facts.imports.append([_string_value(source), "", line])
            elif t == "export_statement":
                decl = child.child_by_field_name("declaration")
                target = decl if decl is not None else child
                for name_node in _names(target):
                    facts.symbols.append([_text(name_node), "export", line, end])
                source = child.child_by_field_name("source")
                if source is not None:
                    facts.imports.append([_string_value(source), "", line])
            elif t in ("lexical_declaration", "expression_statement"):
                for call in _descendants(child, "call_expression", limit=8):
                    fn = call.child_by_field_name("function")
                    if fn is not None and _text(fn) == "require":
                        args = call.child_by_field_name("arguments")
                        if args is not None and args.named_children:
                            facts.imports.append([_string_value(args.named_children[0]), "", line])


def _rust_derives(item: Any) -> list[str]:
    prev = item.prev_named_sibling
    derives: list[str] = []
    while prev is not None and prev.type == "attribute_item":
        derives += re.findall(r"\w+", _text(prev))
        prev = prev.prev_named_sibling
    return derives


def _names(node: Any) -> list[Any]:
    name = node.child_by_field_name("name")
    if name is not None:
        return [name]
    out = []
    for child in node.named_children:
        n = child.child_by_field_name("name")
        if n is not None and child.type.endswith(("spec", "declarator", "declaration")):
            out.append(n)
    return out


def _descendants(node: Any, kind: str, limit: int = 200) -> list[Any]:
    out: list[Any] = []
    stack = [node]
    while stack and len(out) < limit:
        n = stack.pop()
        if n.type == kind:
            out.append(n)
        else:
            stack.extend(reversed(n.named_children))
    return out


def _leading_comment(text: str) -> str:
    lines = []
    for line in text.splitlines()[:30]:
        s = line.strip()
        if s.startswith(("//", "#", "/*", "*")) and not s.startswith("#["):
            lines.append(s.lstrip("/#*!").strip())
        elif (s and lines) or (s and not s.startswith("package")):
            break
    return first_paragraph("\n".join(lines))


def parse_tree_sitter(path: str, text: str, data: bytes, facts: FileFacts) -> None:
    scan_text(facts, text)
    facts.doc = _leading_comment(text)
    for m in _PROCESS_ENV.finditer(text):
        facts.env.append([m.group(1) or m.group(2), text.count("\n", 0, m.start()) + 1])
    for pattern in (_RUST_ENV, _GO_ENV):
        for m in pattern.finditer(text):
            facts.env.append([m.group(1), text.count("\n", 0, m.start()) + 1])
    parser = _parser(TREE_SITTER[facts.lang])
    if parser is None:
        facts.parsed = False
        facts.error = "tree-sitter grammar unavailable (pip install 'memgraph[repo]'): not parsed"
        return
    tree = parser.parse(data)
    _walk(tree.root_node, facts, facts.lang)
    if tree.root_node.has_error:
        facts.error = "parsed with syntax errors (partial)"
