"""Server time of the dashboard's pages on a big run.

Builds, in a throwaway test database, a run of 5,000 files (each converted) and
one file of 4,000 lines carrying 2,000 findings, then requests each page
in-process through Django's test client and reports the median time and the
number of SQL queries. Target: every page under 300 ms.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/porting python bench/pages.py [--repeat 7]

Without DATABASE_URL it runs on SQLite (in memory).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "porting_site.settings")

FILES = 5_000
FINDINGS = 2_000
BIG_FILE_LINES = 4_000
TARGET_MS = 300.0


def build(tmp: Path):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from porting_site.accounts.services import membership_add, team_create
    from porting_site.projects import storage
    from porting_site.projects.models import ConvertedFile, Finding, Run, SourceFile, Stage
    from porting_site.projects.services import project_create, run_create
    from porting_site.projects.tallies import tallies_store
    from django.core.files.uploadedfile import SimpleUploadedFile

    user = get_user_model().objects.create_user(username="bench", password="bench-password-123")
    team = team_create(name="Bench")
    membership_add(team=team, user=user, role="admin")
    project = project_create(team=team, name="Big repo")
    runs = []
    for number in range(2):
        run = run_create(project=project, archive=SimpleUploadedFile("big.zip", b"PK\x05\x06" + b"\0" * 18),
                         user=user, enqueue=False)
        files = SourceFile.objects.bulk_create(
            [SourceFile(run=run, path=f"pkg{i % 50}/module_{i:05d}.py", sha256="0" * 64, lines=120 + i % 300,
                        errors=i % 3, warnings=i % 5, infos=i % 7) for i in range(FILES)],
            batch_size=1000,
        )
        ConvertedFile.objects.bulk_create(
            [ConvertedFile(run=run, file=f, text="import mindspore\n" * 20,
                           changes=[{"line": 1, "rule_id": "MS-API-MAPPED"}] * 3,
                           unconverted=[{"line": 2, "rule_id": "MS-API-UNMAPPED", "action": "rewrite"}] * (i % 4))
             for i, f in enumerate(files)],
            batch_size=1000,
        )
        big = files[0]
        lines = [f"x{i} = torch.nn.functional.relu(torch.abs(y{i}))  # line {i}" for i in range(BIG_FILE_LINES)]
        path = storage.source_dir(run.pk) / big.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("import torch\n" + "\n".join(lines) + "\n")
        ConvertedFile.objects.filter(file=big).update(
            text="import mindspore\n" + "\n".join(l.replace("torch.nn.functional", "ops") for l in lines) + "\n")
        rules = ["MS-API-MAPPED", "MS-API-DIFF", "MS-API-UNMAPPED", "MS-DEVICE-CUDA", "MS-BN-MOMENTUM"]
        severities = ["info", "warning", "error", "error", "error"]
        Finding.objects.bulk_create(
            [Finding(run=run, file=big, line=2 + (k * 2) % BIG_FILE_LINES, column=4, rule_id=rules[k % 5],
                     severity=severities[k % 5], status=["converted", "review", "manual", "unresolved"][k % 4],
                     torch_api="torch.abs", mindspore_api="mindspore.ops.abs", message=f"finding {k} " * 3)
             for k in range(FINDINGS)],
            batch_size=1000,
        )
        # A realistic spread of findings over the other files too (for aggregates).
        Finding.objects.bulk_create(
            [Finding(run=run, file=files[1 + k % (FILES - 1)], line=10, rule_id=rules[k % 5],
                     severity=severities[k % 5], status="converted" if k % 3 else "manual", torch_api="torch.abs",
                     message="m") for k in range(20_000 + number * 500)],
            batch_size=2000,
        )
        SourceFile.objects.filter(pk=big.pk).update(errors=1200, warnings=400, infos=400, lines=BIG_FILE_LINES + 1)
        now = timezone.now()
        Stage.objects.filter(run=run).update(status="done", done=1, total=1, started_at=now, finished_at=now)
        Run.objects.filter(pk=run.pk).update(status="done", started_at=now, finished_at=now)
        tallies_store(run_id=run.pk)  # as the finalize stage does
        runs.append((run, big))
    return user, project, runs


def measure(client, url: str, repeat: int) -> tuple[float, int, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm caches (templates, Pygments lexer)
    times = []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            start = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times), len(queries.captured_queries), len(response.content)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    os.environ.setdefault("PORTING_VAR_DIR", str(tmp))
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    settings.PORTING_RUNS_DIR = tmp / "runs"
    settings.MEDIA_ROOT = tmp / "media"
    settings.DEBUG = False
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        started = time.perf_counter()
        user, project, runs = build(tmp)
        print(f"built {FILES} files x 2 runs, {FINDINGS} findings in one file of {BIG_FILE_LINES} lines "
              f"({time.perf_counter() - started:.1f} s, {connection.vendor})")
        (old_run, _), (run, big) = runs
        client = Client()
        client.force_login(user)
        parity = None
        pages = [
            ("projects", reverse("projects:list")),
            ("project (trend, runs)", reverse("projects:detail", args=[project.team.slug, project.slug])),
            ("run summary (5,000 files)", reverse("projects:run", args=[run.pk])),
            ("files, page 1 by path", reverse("projects:files", args=[run.pk])),
            ("files, sorted by errors", reverse("projects:files", args=[run.pk]) + "?order=-errors"),
            ("files, filtered, page 20", reverse("projects:files", args=[run.pk]) + "?q=pkg1&show=warnings&page=3"),
            ("file, 2,000 findings", reverse("projects:file", args=[run.pk, big.pk])),
            ("file, one rule", reverse("projects:file", args=[run.pk, big.pk]) + "?rule=MS-API-DIFF"),
            ("file, side-by-side diff", reverse("projects:file", args=[run.pk, big.pk]) + "?view=diff"),
            ("compare two runs", reverse("projects:compare", args=[project.team.slug, project.slug])),
            ("rules", reverse("projects:rules")),
        ]
        del parity
        print(f"{'page':32} {'median ms':>10} {'queries':>8} {'KiB':>7}")
        worst = 0.0
        for name, url in pages:
            ms, queries, size = measure(client, url, args.repeat)
            worst = max(worst, ms)
            flag = "" if ms < TARGET_MS else "  <-- over target"
            print(f"{name:32} {ms:10.1f} {queries:8d} {size / 1024:7.0f}{flag}")
        print(f"slowest page: {worst:.1f} ms (target {TARGET_MS:.0f} ms)")
        return 0 if worst < TARGET_MS else 1
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    raise SystemExit(main())
