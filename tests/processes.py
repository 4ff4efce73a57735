"""Real processes for end-to-end tests: a Celery worker and a private Redis server."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """A throwaway redis-server on a free loopback port, which a test may stop and restart."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
             "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


class WorkerProcess:
    """`celery -A workers worker` in its own session, so the whole pool can be SIGKILLed."""

    def __init__(self, workdir: Path, env: dict, broker_url: str = "", queues: str = "analysis,parity.cpu",
                 extra_args: tuple[str, ...] = (), user: str | None = None, python: str = sys.executable):
        # broker_url: kept for callers' clarity; the worker reads its broker from env.
        # extra_args: more `celery worker` options, e.g. ("-I", "tests.module") for test-only tasks.
        # user: run the worker as this uid (setpriv; the test runs as root), as production does
        # (Dockerfile USER), with `python` an interpreter that user can run.
        self.extra_args = tuple(extra_args)
        self.user = user
        self.python = python
        self.workdir = workdir
        self.env = env
        self.queues = queues
        self.process: subprocess.Popen | None = None
        self.log_path = workdir / "worker.log"
        self.hostname = ""

    def start(self, timeout: float = 60) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.hostname = f"test-{os.getpid()}-{time.monotonic_ns()}@{socket.gethostname()}"
        log = open(self.log_path, "ab")
        argv = [self.python, "-m", "celery", "--workdir", str(REPO_ROOT), "-A", "workers", "worker",
                "-Q", self.queues, "-c", "2", "-n", self.hostname, "--without-gossip", "--without-mingle",
                "--loglevel", "INFO", *self.extra_args]
        if self.user:
            argv = ["setpriv", f"--reuid={self.user}", f"--regid={self.user}", "--clear-groups", *argv]
        self.process = subprocess.Popen(
            argv,
            cwd=self.workdir, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        log.close()
        # The worker logs "<name> ready." once it consumes; unlike a broadcast ping this
        # works on every broker, the embedded SQLite one included.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self.log_tail())
            if f"{self.hostname} ready." in self.log_tail(200_000):
                return
            time.sleep(0.2)
        self.stop()  # never leave an orphan worker behind a failed start
        raise RuntimeError("the Celery worker did not get ready in time:\n" + self.log_tail())

    def kill(self) -> None:
        """SIGKILL the worker and its pool children at once, as an OOM killer or a crash would."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def dump_stacks(self) -> None:
        """Every process of the worker writes its threads' stacks to the log (workers/celery_app.py)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGUSR2)
            time.sleep(1)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def log_tail(self, chars: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""


def worker_env(*, var_dir: Path, database_url: str, redis_url: str | None = None, **extra: str) -> dict:
    env = dict(os.environ)
    env.update(PORTING_VAR_DIR=str(var_dir), DATABASE_URL=database_url, PYTHONPATH=str(REPO_ROOT), **extra)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env
