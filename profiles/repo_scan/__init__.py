"""The repo scanner: files -> repo_architecture / repo_dataflow nodes, edges and
summaries, incrementally by file hash (``scan_repo``), its status and hook.

Names resolve lazily (PEP 562): the CLI imports this package on every start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from profiles.repo_scan.scan import ScanRequest, ScanResult, scan_repo
    from profiles.repo_scan.status import RepoStatus, install_hook, repo_status

_WHERE = {
    "ScanRequest": "profiles.repo_scan.scan",
    "ScanResult": "profiles.repo_scan.scan",
    "scan_repo": "profiles.repo_scan.scan",
    "RepoStatus": "profiles.repo_scan.status",
    "repo_status": "profiles.repo_scan.status",
    "install_hook": "profiles.repo_scan.status",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(name)


__all__ = [
    "RepoStatus",
    "ScanRequest",
    "ScanResult",
    "install_hook",
    "repo_status",
    "scan_repo",
]
