"""The CLI's stand-in for pydantic's plugin loader (``memgraph.cli.skip_plugin_loader``).

The CLI sets ``PYDANTIC_DISABLE_PLUGINS=__all__`` (the user's value wins); then
pydantic's ``get_plugins()`` returns ``()`` for every model, but its module imports
``importlib.metadata`` first (~16 ms CPU per process that builds a model). These
tests pin what the stand-in relies on in pydantic, so an upgrade that moves it fails
here rather than silently loading plugins or the loader again.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import pytest

from memgraph.cli import _LOADER, _PLUGINS_OFF


def _run(code: str, plugins: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    if plugins is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = plugins
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def test_pydantic_asks_the_loader_module_for_plugins_at_each_validator() -> None:
    """The one caller imports ``get_plugins`` from the module at call time (so the
    module in ``sys.modules`` answers), and no other pydantic module names it."""
    from pydantic.plugin import _schema_validator

    source = inspect.getsource(_schema_validator.create_schema_validator)
    assert "from ._loader import get_plugins" in source
    assert "plugins = get_plugins()" in source


@pytest.mark.parametrize("value", _PLUGINS_OFF)
def test_the_values_that_turn_plugins_off_are_pydantics(value: str) -> None:
    """pydantic's own loader returns no plugins for each value the stand-in answers."""
    code = (
        "from pydantic.plugin._loader import get_plugins\n"
        "assert tuple(get_plugins()) == (), get_plugins()\n"
        "import pydantic.plugin._loader as m, inspect\n"
        f"assert {value!r} in inspect.getsource(m.get_plugins)\n"
    )
    proc = _run(code, value)
    assert proc.returncode == 0, proc.stderr


CHECK = (
    "import sys\n"
    "from memgraph.cli import skip_plugin_loader\n"
    "skip_plugin_loader()\n"
    "from pydantic import BaseModel\n"
    "class A(BaseModel):\n"
    "    x: int\n"
    "assert A.model_validate({'x': '3'}).x == 3\n"
    "loader = sys.modules['pydantic.plugin._loader']\n"
    "print('importlib.metadata' in sys.modules, 'memgraph' in (loader.__doc__ or ''))\n"
)


def test_plugins_off_a_model_builds_without_the_loader() -> None:
    proc = _run(CHECK, "__all__")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]  # no metadata: the stand-in answered


@pytest.mark.parametrize("plugins", [None, "some_plugin"])
def test_plugins_on_pydantics_loader_is_used(plugins: str | None) -> None:
    """Unset, or naming plugins to skip: nothing is stood in."""
    proc = _run(CHECK, plugins)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "False"]


def test_plugins_switched_on_later_hand_over_to_pydantics_loader() -> None:
    code = (
        "import os, sys\n"
        "from memgraph.cli import skip_plugin_loader\n"
        "skip_plugin_loader()\n"
        "stub = sys.modules['pydantic.plugin._loader']\n"
        "assert stub.get_plugins() == ()\n"
        "os.environ['PYDANTIC_DISABLE_PLUGINS'] = 'some_plugin'\n"
        "found = stub.get_plugins()\n"
        "real = sys.modules['pydantic.plugin._loader']\n"
        "assert real is not stub and 'importlib.metadata' in sys.modules\n"
        "assert list(found) == list(real.get_plugins())\n"
    )
    proc = _run(code, "__all__")
    assert proc.returncode == 0, proc.stderr


def test_an_imported_loader_is_left_alone() -> None:
    code = (
        "import sys\n"
        "import pydantic.plugin._loader as real\n"
        "from memgraph.cli import skip_plugin_loader\n"
        "skip_plugin_loader()\n"
        "assert sys.modules['pydantic.plugin._loader'] is real\n"
    )
    proc = _run(code, "__all__")
    assert proc.returncode == 0, proc.stderr
    assert _LOADER == "pydantic.plugin._loader"
