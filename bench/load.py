"""Load: 20 concurrent uploads and 50 concurrent API readers for a minute.

Everything runs on loopback and stops by itself: a scratch PostgreSQL database
(`porting_load`, recreated), a private redis-server on a free port, gunicorn, and
two Celery workers (one for `analysis`, one for `parity.cpu`). Reports p50/p95
latency per request kind, the error count (target 0), and whether every run
finished with all its files analysed (nothing lost).

    .venv/bin/python bench/load.py [--uploads 20] [--readers 50] [--seconds 60]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.archive import pack_tree  # noqa: E402
from tests.processes import RedisServer, WorkerProcess, free_port, worker_env  # noqa: E402

SAMPLE = ROOT / "samples" / "pytorch_sample"
DB_NAME = "porting_load"


def psql(sql: str) -> None:
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c", sql], check=True,
                   stdout=subprocess.DEVNULL)


def manage(env: dict, *args: str, input_text: str | None = None) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, text=True,
                          capture_output=True, input=input_text).stdout


SETUP = """
from porting_site.accounts.services import team_create, user_create
from porting_site.projects.services import project_create
from porting_site.api.tokens import token_create
user = user_create(username="load", password="load-password-123")
team = team_create(name="Load", admin=user)
project = project_create(team=team, name="Load")
print(project.pk, token_create(user=user)[1])
"""


def timed(kind: str, request: urllib.request.Request, samples: dict, errors: list, lock: threading.Lock):
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
            status = response.status
    except urllib.error.HTTPError as exc:
        body, status = exc.read(), exc.code
    except OSError as exc:
        body, status = str(exc).encode(), 0
    elapsed = time.perf_counter() - start
    with lock:
        samples.setdefault(kind, []).append(elapsed)
        if not 200 <= status < 300:
            errors.append((kind, status, body[:200]))
    return body if 200 <= status < 300 else None


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=20)
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--drain-timeout", type=int, default=1800, help="how long to wait for every run to finish")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="porting-load-"))
    redis = RedisServer(tmp)
    redis.start()
    psql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    psql(f"CREATE DATABASE {DB_NAME}")
    env = worker_env(var_dir=tmp / "var", database_url=f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
                     redis_url=redis.url, PORTING_PARITY_LOSS_STEPS="5", DJANGO_DEBUG="0",
                     DJANGO_ALLOWED_HOSTS="127.0.0.1")
    manage(env, "migrate", "--no-input", "-v", "0")
    project_id, token = manage(env, "shell", input_text=SETUP).split()[-2:]
    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "gunicorn", "porting_site.wsgi:application", "--bind",
                            f"127.0.0.1:{port}", "--workers", "3", "--threads", "8", "--timeout", "120"],
                           cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = [WorkerProcess(tmp / "w-analysis", env, redis.url, queues="analysis"),
               WorkerProcess(tmp / "w-parity", env, redis.url, queues="parity.cpu")]
    for worker in workers:
        worker.start()
    base = f"http://127.0.0.1:{port}/api"
    headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
    for _ in range(100):  # wait for gunicorn
        try:
            urllib.request.urlopen(urllib.request.Request(f"{base}/projects/", headers=headers), timeout=1)
            break
        except OSError:
            time.sleep(0.2)

    samples: dict[str, list[float]] = {}
    errors: list = []
    lock = threading.Lock()
    run_ids: list[int] = []
    archive = pack_tree(SAMPLE, "pytorch_sample")
    stop_at = time.monotonic() + args.seconds

    def uploader():
        request = urllib.request.Request(
            f"{base}/projects/{project_id}/runs/?filename=sample.tar.gz", data=archive, method="POST",
            headers={**headers, "Content-Type": "application/gzip"})
        body = timed("upload", request, samples, errors, lock)
        if body:
            with lock:
                run_ids.append(json.loads(body)["id"])

    def reader(index: int):
        urls = [f"{base}/projects/", f"{base}/projects/{project_id}/runs/"]
        while time.monotonic() < stop_at:
            with lock:
                known = list(run_ids)
            if known:
                run = known[index % len(known)]
                urls_now = urls + [f"{base}/runs/{run}/", f"{base}/runs/{run}/findings/"]
            else:
                urls_now = urls
            url = urls_now[index % len(urls_now)]
            index += 1
            timed("read", urllib.request.Request(url, headers=headers), samples, errors, lock)

    threads = [threading.Thread(target=uploader) for _ in range(args.uploads)]
    threads += [threading.Thread(target=reader, args=(i,)) for i in range(args.readers)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    load_seconds = time.monotonic() - started

    # Drain: every run must finish, with all its files analysed.
    deadline = time.monotonic() + args.drain_timeout
    pending = set(run_ids)
    finished: dict[int, dict] = {}
    while pending and time.monotonic() < deadline:
        for run_id in list(pending):
            with urllib.request.urlopen(urllib.request.Request(f"{base}/runs/{run_id}/", headers=headers)) as r:
                data = json.loads(r.read())
            if data["status"] in ("done", "failed", "cancelled"):
                finished[run_id] = data
                pending.discard(run_id)
        time.sleep(2)
    drain_seconds = time.monotonic() - started

    for worker in workers:
        worker.stop()
    web.terminate()
    web.wait(timeout=20)
    redis.stop()

    complete = 0
    for data in finished.values():
        analyze = next((s for s in data.get("stages", []) if s["name"] == "analyze"), None)
        if data["status"] == "done" and analyze and analyze["done"] == analyze["total"] > 0:
            complete += 1
    print(f"load: {args.uploads} uploads + {args.readers} readers for {load_seconds:.0f} s on 2 workers")
    for kind, values in sorted(samples.items()):
        print(f"  {kind:6s} n={len(values):5d}  p50={percentile(values, 50) * 1000:7.1f} ms  "
              f"p95={percentile(values, 95) * 1000:7.1f} ms")
    print(f"  errors: {len(errors)}" + (f"  first: {errors[0]}" if errors else ""))
    print(f"  runs finished with every file analysed: {complete}/{args.uploads} "
          f"(all drained {drain_seconds:.0f} s after the start; still pending: {sorted(pending)})")
    return 0 if not errors and complete == args.uploads else 1


if __name__ == "__main__":
    sys.exit(main())
