"""A small generated repository to scan (Python package, tests, manifest,
Rust/TypeScript/Go files) and helpers to look at what a scan wrote."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memgraph.documents import MemoryNode
from memgraph.store.protocol import Store
from tests.repo_tree import write_tree

FILES: dict[str, str] = {
    "pyproject.toml": (
        '[project]\nname = "shop"\ndescription = "A tiny shop."\n\n'
        '[project.scripts]\nshop = "shop.cli:main"\n'
    ),
    "shop/__init__.py": '"""The shop: orders, payments and a CLI."""\n',
    "shop/orders.py": (
        '"""Orders: create and list orders, stored in sqlite."""\n'
        "import os\nimport sqlite3\n\nfrom shop.payments import charge\n\n\n"
        "class Order:\n    pass\n\n\n"
        "def create_order(total: int) -> int:\n"
        '    db = sqlite3.connect(os.getenv("SHOP_DB", "shop.db"))\n'
        "    # TODO: validate the total\n"
        "    charge(total)\n    return 1\n"
    ),
    "shop/payments.py": (
        '"""Payments: charge a card through the payment gateway."""\n'
        "import httpx\n\nfrom pydantic import BaseModel\n\n\n"
        "class Charge(BaseModel):\n    amount: int\n\n\n"
        "def charge(amount: int) -> None:\n"
        '    httpx.post("https://pay.example/charge", json={"amount": amount})\n'
    ),
    "shop/cli.py": (
        '"""The shop command line."""\nimport typer\n\nfrom shop.orders import create_order\n\n'
        "app = typer.Typer()\n\n\n"
        '@app.command("order")\ndef order(total: int) -> None:\n    create_order(total)\n\n\n'
        "def main() -> None:\n    app()\n"
    ),
    "shop/report.py": (
        '"""Reports: write a daily report file."""\n'
        "from dataclasses import dataclass\n\n\n@dataclass\nclass Report:\n    day: str\n\n\n"
        "def write_report(path: str) -> None:\n"
        '    with open(path, "w") as fh:\n        fh.write("ok")\n'
    ),
    "tests/test_orders.py": (
        "from shop.orders import create_order\n\n\n"
        "def test_order() -> None:\n    assert create_order\n"
    ),
    "native/src/main.rs": (
        "// The native helper.\nmod util;\nuse crate::util::helper;\n\n"
        "#[derive(Serialize)]\npub struct Receipt { id: u32 }\n\n"
        "pub fn main() { helper(); }\n"
    ),
    "native/src/util.rs": "pub fn helper() {}\n",
    "native/Cargo.toml": '[package]\nname = "native"\n\n[[bin]]\nname = "native"\n',
    "web/app.ts": (
        "// The web front.\nimport { api } from './api';\n"
        "export function render(): string { return api(process.env.WEB_TOKEN); }\n"
    ),
    "web/api.ts": "export function api(token?: string): string { return token ?? ''; }\n",
    "go/main.go": (
        '// Command tool.\npackage main\n\nimport "os"\n\n'
        'func main() { _ = os.Getenv("GO_MODE") }\n'
    ),
    "README.md": "# shop\n",
}


def write_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    return write_tree(root, files or FILES)


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "shop")


def live_nodes(store: Store, repo: str) -> dict[str, MemoryNode]:
    out: dict[str, MemoryNode] = {}
    for profile in ("repo_architecture", "repo_dataflow"):
        for n in store.iter_nodes(profile=profile):
            if n.domain_id == f"repo:{repo}" and n.lifecycle != "retired":
                out[n.id] = n
    return out


def by_title(store: Store, repo: str) -> Callable[[str, str], MemoryNode]:
    nodes = live_nodes(store, repo)

    def find(kind: str, title: str) -> MemoryNode:
        hits = [n for n in nodes.values() if n.kind == kind and n.title == title]
        assert hits, f"no {kind} node titled {title!r}: " + ", ".join(
            sorted(n.title for n in nodes.values() if n.kind == kind)
        )
        return hits[0]

    return find


class Kit:
    """Helpers as a fixture (test modules cannot import conftest under importlib mode)."""

    FILES = FILES
    write_repo = staticmethod(write_repo)
    live_nodes = staticmethod(live_nodes)
    by_title = staticmethod(by_title)


@pytest.fixture
def kit() -> type[Kit]:
    return Kit
