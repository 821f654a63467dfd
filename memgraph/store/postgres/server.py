"""A throwaway local PostgreSQL server (tests, benchmarks, the fleet demo).

``LocalServer.start()`` runs ``initdb`` + ``pg_ctl`` from the PostgreSQL binary
directory into a fresh temporary directory and listens on a free loopback port.
PostgreSQL refuses to run as root: as root the server runs as the ``postgres``
user (``runuser``), which owns the temporary directory. ``stop()`` shuts it
down and removes the directory. Nothing here is used by a store in production:
a fleet points ``MEMGRAPH_STORE`` at a server its operator runs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from memgraph.errors import StoreError

DEFAULT_BINDIR = Path("/usr/lib/postgresql/15/bin")
SERVICE_USER = "postgres"


def find_bindir(hint: str | os.PathLike[str] | None = None) -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``, or ``None``."""
    candidates = [Path(hint)] if hint else []
    candidates.append(DEFAULT_BINDIR)
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).parent)
    for c in candidates:
        if (c / "initdb").is_file() and (c / "pg_ctl").is_file():
            return c
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_service_user() -> list[str]:
    """Prefix that runs a command as the non-root service user (when we are root)."""
    if os.geteuid() != 0:
        return []
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", SERVICE_USER, "--"]
    setpriv = shutil.which("setpriv")
    if setpriv:
        import pwd

        pw = pwd.getpwnam(SERVICE_USER)
        return [setpriv, f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups", "--"]
    raise StoreError("running as root needs runuser or setpriv to start PostgreSQL")


@dataclass
class LocalServer:
    bindir: Path
    root: Path
    port: int
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    @classmethod
    def start(
        cls,
        bindir: Path | None = None,
        *,
        settings: dict[str, str] | None = None,
        timeout: int = 60,
    ) -> LocalServer:
        found = find_bindir(bindir)
        if found is None:
            raise StoreError(
                f"PostgreSQL binaries not found (looked in {bindir or DEFAULT_BINDIR} and PATH);"
                " install the postgresql package"
            )
        root = Path(tempfile.mkdtemp(prefix="memgraph-pg-"))
        prefix = _as_service_user()
        if prefix:
            import pwd

            pw = pwd.getpwnam(SERVICE_USER)
            os.chown(root, pw.pw_uid, pw.pw_gid)
        root.chmod(0o700)
        server = cls(found, root, _free_port(), dict(settings or {}))
        try:
            server._run(
                [
                    *prefix,
                    str(found / "initdb"),
                    "-D",
                    str(server.datadir),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync",
                ],
                timeout,
            )
            opts = {
                "listen_addresses": "127.0.0.1",
                "port": str(server.port),
                "unix_socket_directories": str(root),
                "max_connections": "200",
                **server.settings,
            }
            conf = "".join(f"{k} = '{v}'\n" for k, v in opts.items())
            with (server.datadir / "postgresql.auto.conf").open("a") as f:
                f.write(conf)
            server._run(
                [
                    *prefix,
                    str(found / "pg_ctl"),
                    "-D",
                    str(server.datadir),
                    "-l",
                    str(root / "server.log"),
                    "-w",
                    "-t",
                    str(timeout),
                    "start",
                ],
                timeout + 10,
            )
        except BaseException:
            server._remove()
            raise
        return server

    def _run(self, argv: list[str], timeout: int) -> None:
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=self.root,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StoreError(f"{Path(argv[-1]).name}: {exc}") from None
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.is_file() else ""
            raise StoreError(
                f"{' '.join(argv[-3:])} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-1000:]} {tail}"
            )

    def create_database(self, name: str | None = None) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = name or f"mg_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        with contextlib.suppress(StoreError):
            self._run(
                [
                    *_as_service_user(),
                    str(self.bindir / "pg_ctl"),
                    *("-D", str(self.datadir), "-m", "immediate", "stop"),
                ],
                60,
            )
        self._remove()

    def _remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
