#!/usr/bin/env python3
"""CI client for the PyTorch → MindSpore porting dashboard (standard library only).

Uploads a directory as .tar.gz (honouring .gitignore-style excludes), waits for
the run with a progress line, prints a summary, writes SARIF / JUnit / report
JSON files, and exits non-zero when the project's quality gate fails.

    PORTING_TOKEN=... python porting_ci.py --server https://porting.example.com \\
        --project vision/detector --sarif porting.sarif --junit porting-junit.xml

Exit codes: 0 gate passed, 1 gate failed (or the run failed), 2 usage,
network or server problem, or the wait timed out.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

EXIT_PASSED, EXIT_GATE_FAILED, EXIT_ERROR = 0, 1, 2
EXIT_CODES_HELP = """exit codes:
  0  the quality gate passed (or --no-wait: the upload was accepted)
  1  the quality gate failed, or the run failed or was cancelled
  2  usage error, network or server problem, or the wait timed out (--timeout)"""
ALWAYS_EXCLUDED = [".git/", "__pycache__/", "*.pyc", ".venv/", "venv/", ".tox/", ".mypy_cache/", ".pytest_cache/"]


class ClientError(Exception):
    pass


# --- .gitignore-style excludes -------------------------------------------------------------


def _glob_to_regex(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and "]" in glob[i + 1:]:
            end = glob.index("]", i + 1)
            body = glob[i + 1:end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        elif glob[i] == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


class IgnoreRules:
    """The subset of gitignore that matters here: globs, **, !negation, dir/ and /anchored."""

    def __init__(self, patterns: list[str]):
        self.rules: list[tuple[re.Pattern, bool, bool]] = []  # (regex, negated, directories only)
        for raw in patterns:
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            line = line.rstrip(" ") if not line.endswith("\\ ") else line
            negated = line.startswith("!")
            if negated:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            line = line.lstrip("/")
            body = _glob_to_regex(line)
            regex = re.compile(("^" if anchored else "^(?:.*/)?") + body + "$")
            self.rules.append((regex, negated, dir_only))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        for regex, negated, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if regex.match(rel):
                verdict = not negated
        return verdict


def collect_files(root: Path, rules: IgnoreRules) -> list[str]:
    """Relative paths of the files to upload; an ignored directory is never entered (as in git)."""
    files = []
    for current, dirs, names in os.walk(root):
        base = Path(current).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        dirs[:] = sorted(d for d in dirs if not rules.ignored(prefix + d, True)
                         and not os.path.islink(os.path.join(current, d)))
        for name in sorted(names):
            rel = prefix + name
            full = os.path.join(current, name)
            if not os.path.islink(full) and os.path.isfile(full) and not rules.ignored(rel, False):
                files.append(rel)
    return files


def build_archive(root: Path, excludes: list[str], use_gitignore: bool = True) -> tuple[bytes, int]:
    patterns = list(ALWAYS_EXCLUDED)
    if use_gitignore:
        for name in (".gitignore", ".portingignore"):
            if (root / name).is_file():
                patterns += (root / name).read_text(errors="replace").splitlines()
    patterns += excludes
    files = collect_files(root, IgnoreRules(patterns))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel in files:
            info = tar.gettarinfo(str(root / rel), arcname=rel)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with open(root / rel, "rb") as handle:
                tar.addfile(info, handle)
    return buffer.getvalue(), len(files)


# --- HTTP ------------------------------------------------------------------------------------


class Api:
    def __init__(self, server: str, token: str, timeout: float = 60, retries: int = 3):
        self.base = server.rstrip("/") + "/api/"
        self.headers = {"Authorization": f"Token {token}", "Accept": "application/json",
                        "User-Agent": "porting-ci/1"}
        self.timeout = timeout
        self.retries = retries  # GETs only: a status poll may meet a restarting server

    def request(self, method: str, path: str, *, query: dict | None = None, body: bytes | None = None,
                content_type: str | None = None, raw: bool = False):
        url = urllib.parse.urljoin(self.base, path)
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        headers = dict(self.headers)
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    data = response.read()
                    return data if raw else json.loads(data or b"null")
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode(errors="replace")[:2000]
                if exc.code >= 500 and attempt < self.retries and method == "GET":
                    time.sleep(2 ** attempt)
                    continue
                raise ClientError(f"{method} {url} answered {exc.code}: {detail}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt < self.retries and method == "GET":
                    time.sleep(2 ** attempt)
                    continue
                raise ClientError(f"{method} {url} failed: {exc}") from None
        raise AssertionError("unreachable")


def find_project(api: Api, spec: str) -> dict:
    if spec.isdigit():
        return api.request("GET", f"projects/{spec}/")
    team, _, slug = spec.partition("/")
    if not slug:
        raise ClientError("--project takes TEAM/PROJECT (slugs, as in the dashboard's URL) or a numeric id")
    found = api.request("GET", "projects/", query={"team": team, "slug": slug})["results"]
    if not found:
        raise ClientError(f"no project {spec!r} visible to this token")
    return found[0]


def _progress_line(run: dict) -> str:
    parts = []
    for stage in run["stages"]:
        mark = {"done": "✓", "failed": "✗", "running": "…"}.get(stage["status"], " ")
        count = f" {stage['done']}/{stage['total']}" if stage["status"] == "running" and stage["total"] else ""
        parts.append(f"{stage['name']}{mark}{count}")
    return f"run #{run['number']} {run['status']:<9} " + "  ".join(parts)


def wait_for_run(api: Api, run_id: int, timeout: float, poll: float, out) -> dict:
    deadline = time.monotonic() + timeout
    interactive = out.isatty()
    last = ""
    while True:
        run = api.request("GET", f"runs/{run_id}/")
        line = _progress_line(run)
        if line != last:
            out.write(("\r" + line.ljust(110)) if interactive else line + "\n")
            out.flush()
            last = line
        if run["finished"]:
            if interactive:
                out.write("\n")
            return run
        if time.monotonic() > deadline:
            raise ClientError(f"run {run_id} did not finish within {timeout:.0f} s (still {run['status']})")
        time.sleep(poll)


def summary_figures(run: dict) -> dict:
    """The figures the summary prints, taken as the server defines them (the run page shows the same)."""
    fig = run.get("progress") or {}
    return {"found": fig.get("found", 0), "done": fig.get("done", 0), "left": fig.get("left", 0),
            "converted": fig.get("converted", 0), "left_error": fig.get("left_error", 0),
            "left_warning": fig.get("left_warning", 0), "left_info": fig.get("left_info", 0),
            "parity_pass": fig.get("parity_pass", 0), "parity_total": fig.get("parity_total", 0),
            "parity_skipped": fig.get("parity_skipped", 0)}


def print_summary(run: dict, project: dict, server: str, out) -> None:
    counts, gate = run["counts"], run["gate"]
    fig = summary_figures(run)
    out.write(f"\n{project['team']}/{project['slug']} run #{run['number']}: {run['status']}"
              f"{' - ' + run['error'] if run['error'] else ''}\n")
    out.write(f"  files {counts.get('files', 0)}, findings: {counts.get('error', 0)} errors, "
              f"{counts.get('warning', 0)} warnings, {counts.get('info', 0)} infos\n")
    out.write(f"  PyTorch uses: {fig['found']} found, {fig['done']} done ({fig['converted']} converted), "
              f"{fig['left']} left for a person ({fig['left_error']} errors, {fig['left_warning']} warnings, "
              f"{fig['left_info']} infos)\n")
    out.write(f"  parity: {fig['parity_pass']}/{fig['parity_total']} entry points pass"
              f"{', ' + str(fig['parity_skipped']) + ' skipped' if fig['parity_skipped'] else ''}\n")
    out.write(f"  quality gate: {gate['status'].upper()}\n")
    for check in gate["checks"]:
        out.write(f"    [{'ok' if check['passed'] else 'FAIL'}] {check['message']}\n")
        if not check["passed"] and check.get("url"):  # the exact findings (or parity rows) the check judged
            out.write(f"           see {server.rstrip('/')}{check['url']}\n")
    out.write(f"  details: {server.rstrip('/')}/runs/{run['id']}/\n")


def main(argv: list[str] | None = None, out=sys.stdout) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=EXIT_CODES_HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.environ.get("PORTING_SERVER"), help="dashboard URL (env PORTING_SERVER)")
    parser.add_argument("--token", default=os.environ.get("PORTING_TOKEN"), help="API token (env PORTING_TOKEN)")
    parser.add_argument("--project", default=os.environ.get("PORTING_PROJECT"), help="TEAM/PROJECT or project id")
    parser.add_argument("--dir", default=".", type=Path, help="the repository to upload (default: .)")
    parser.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                        help=".gitignore-style pattern to leave out (repeatable)")
    parser.add_argument("--no-gitignore", action="store_true", help="do not read .gitignore / .portingignore")
    parser.add_argument("--target", choices=["classic", "mint"])
    parser.add_argument("--ms-version")
    parser.add_argument("--device", choices=["cpu", "gpu", "ascend"], help="parity device queue")
    parser.add_argument("--baseline", default="auto", help="'auto' (latest completed run), 'none' or a run id")
    parser.add_argument("--sarif", type=Path, help="write the SARIF 2.1.0 report here")
    parser.add_argument("--junit", type=Path, help="write the JUnit XML report here")
    parser.add_argument("--report-json", type=Path, help="write the full report JSON here")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait for the run (default 3600)")
    parser.add_argument("--poll", type=float, default=3, help="seconds between status checks")
    parser.add_argument("--retries", type=int, default=3, help="retries of a failed status request (default 3)")
    parser.add_argument("--no-wait", action="store_true", help="upload and exit 0 without waiting")
    args = parser.parse_args(argv)
    if not (args.server and args.token and args.project):
        parser.print_usage(sys.stderr)
        print("porting_ci: --server, --token and --project are required (or PORTING_SERVER, PORTING_TOKEN, "
              "PORTING_PROJECT)", file=sys.stderr)
        return EXIT_ERROR
    root = args.dir.resolve()
    if not root.is_dir():
        print(f"porting_ci: {root} is not a directory", file=sys.stderr)
        return EXIT_ERROR
    api = Api(args.server, args.token, retries=max(0, args.retries))
    try:
        project = find_project(api, args.project)
        data, count = build_archive(root, args.exclude, use_gitignore=not args.no_gitignore)
        out.write(f"uploading {count} files ({len(data) / 1024:.0f} KiB) to {project['team']}/{project['slug']}\n")
        query = {"target": args.target, "ms_version": args.ms_version, "device": args.device,
                 "baseline": args.baseline, "filename": f"{root.name or 'repo'}.tar.gz"}
        run = api.request("POST", f"projects/{project['id']}/runs/", query=query, body=data,
                          content_type="application/gzip")
        out.write(f"run #{run['number']} queued: {args.server.rstrip('/')}/runs/{run['id']}/\n")
        if args.no_wait:
            return EXIT_PASSED
        wait_for_run(api, run["id"], args.timeout, args.poll, out)
        run = api.request("GET", f"runs/{run['id']}/")  # the gate is judged once the run finished
        print_summary(run, project, args.server, out)
        for path, endpoint in ((args.sarif, "report.sarif"), (args.junit, "report.junit.xml"),
                               (args.report_json, "report.json")):
            if path:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(api.request("GET", f"runs/{run['id']}/{endpoint}", raw=True))
                out.write(f"  wrote {path}\n")
    except ClientError as exc:
        print(f"porting_ci: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_PASSED if run["gate"]["status"] == "passed" else EXIT_GATE_FAILED


if __name__ == "__main__":
    sys.exit(main())
