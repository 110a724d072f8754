"""A JupyterLab server for tests: on 127.0.0.1, a free port, a token, its own Jupyter directories.

:func:`start` launches a command that runs ``jupyter lab`` (directly or through ``make lab``) in a
new session, waits until ``/api/status`` answers, and returns a :class:`LabServer`;
:meth:`LabServer.stop` asks the server to shut down (which stops its kernels) and, if it does not,
ends the process group it started. Nothing leaves the machine: no browser is opened, the update
check and the news feed are off.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Options every test server gets (``jupyter lab`` options, also valid inside ``LAB_ARGS``).
QUIET_OPTIONS: tuple[str, ...] = (
    "--no-browser",
    "--ServerApp.port_retries=0",
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    "--LabApp.extension_manager=readonly",
)
# Jupyter refuses to run as root unless told (CI containers run as root).
if hasattr(os, "geteuid") and os.geteuid() == 0:
    QUIET_OPTIONS += ("--allow-root",)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def new_token() -> str:
    return secrets.token_hex(16)


def jupyter_env(scratch: Path, **extra: str) -> dict[str, str]:
    """The current environment with Jupyter's and IPython's per-user directories in ``scratch``."""
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
        directory = scratch / name.lower()
        directory.mkdir(parents=True, exist_ok=True)
        env[name] = str(directory)
    env.pop("JUPYTER_TOKEN", None)
    env.update(extra)
    return env


@dataclass
class LabServer:
    url: str
    token: str
    process: subprocess.Popen[bytes]
    log: Path

    def get(self, path: str) -> Any:
        request = urllib.request.Request(f"{self.url}{path}", headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read().decode("utf-8"))

    def stop(self) -> None:
        if self.process.poll() is None:
            request = urllib.request.Request(
                f"{self.url}/api/shutdown", method="POST", headers={"Authorization": f"token {self.token}"}
            )
            try:
                urllib.request.urlopen(request, timeout=10).close()
                self.process.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.process.poll() is None:  # only the process group this test started
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


def start(
    command: list[str], *, port: int, token: str, cwd: Path, env: dict[str, str], log: Path, timeout: float = 60
) -> LabServer:
    """Run ``command`` (which starts JupyterLab on ``port``) and wait until the server answers."""
    handle = open(log, "wb")  # noqa: SIM115 - the server writes to it until it stops
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    handle.close()
    server = LabServer(f"http://127.0.0.1:{port}", token, process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"JupyterLab exited with status {process.returncode}:\n{log.read_text(errors='replace')}"
            )
        try:
            server.get("/api/status")
            return server
        except (OSError, urllib.error.URLError, ValueError):
            time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"JupyterLab did not answer within {timeout:.0f} s:\n{log.read_text(errors='replace')}")
