"""Disk the box may use on the host (issue 25): the copy-out stops at the
budget the parent was given (the team's room) without failing the check, the
box's home is no bigger than that budget plus a small slack, and nothing the
box or its copy-out wrote is left on disk however the parent ends (the box
finished, timed out, an exception, the parent killed)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from analysis.sandbox import SandboxLimits, run_sandboxed
from analysis.sandbox.core import HOME_SLACK_MB
from tests.security.test_box_channel import _box_alive

PROBE = "tests.parity.sandbox_probe"
REPO = Path(__file__).resolve().parents[2]
SEND = ("import numpy as np\n"
        "def send_file(slot, mib, pause=0.0):\n"
        "    import time\n"
        "    for i in range(mib):\n"
        "        channel.send({'event': 'file', 'slot': slot, 'last': i == mib - 1},"
        " {'data': np.full(1 << 20, 7, np.uint8)})\n"
        "        time.sleep(pause)\n")


def _limits(**kw) -> SandboxLimits:
    kw.setdefault("timeout_s", 30)
    kw.setdefault("startup_s", 0)
    return SandboxLimits(**kw)


def test_the_copy_out_stops_at_the_budget_and_the_check_goes_on(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    code = SEND + "send_file('a', 2)\nsend_file('b', 3)\nsend_file('c', 1)\nresult = 'went on'"
    result = run_sandboxed(PROBE, {"code": code, "lockdown": False}, limits=_limits(),
                           outputs={"a": out / "A.ckpt", "b": out / "B.ckpt", "c": out / "C.ckpt"},
                           output_budget_bytes=(3 << 20) + 100)
    assert result.ok, (result.failure_reason(), result.stderr_tail[-2000:])
    assert result.records[-1] == {"result": "went on"}  # the box was not killed for it
    # A (2 MiB) fits, B would pass the 1 MiB left: dropped with the reason; C (1 MiB) still fits.
    assert result.outputs == ["a", "c"] and result.output_bytes == 3 << 20
    assert "not kept" in result.outputs_refused["b"] and "1.0 MiB" in result.outputs_refused["b"]
    assert sorted(p.name for p in out.iterdir()) == ["A.ckpt", "C.ckpt"]
    assert (out / "A.ckpt").stat().st_size == 2 << 20 and (out / "A.ckpt").stat().st_mode & 0o777 == 0o640


def test_the_home_is_no_bigger_than_the_budget_and_a_slack(tmp_path):
    code = ("written = 0\ntry:\n    with open('/sandbox/big', 'wb') as fh:\n        for _ in range(512):\n"
            "            fh.write(b'x' * (1 << 20))\n            fh.flush()\n            written += 1\n"
            "except OSError as exc:\n    pass\nresult = written")
    result = run_sandboxed(PROBE, {"code": code, "lockdown": False}, limits=_limits(file_size_mb=1024),
                           outputs={"a": tmp_path / "A.ckpt"},
                           output_budget_bytes=8 << 20)
    written = next(r["result"] for r in result.records if "result" in r)
    assert written <= 8 + HOME_SLACK_MB, written  # not the 1 GiB + slack the site's cap alone allows


def test_an_unfinished_copy_out_leaves_nothing_when_the_box_times_out(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    code = SEND + "send_file('a', 60, pause=0.5)"
    result = run_sandboxed(PROBE, {"code": code, "lockdown": False}, limits=_limits(timeout_s=3),
                           outputs={"a": out / "A.ckpt"})
    assert result.timed_out and result.outputs == []
    assert list(out.iterdir()) == [] and _box_alive() == []


KILLED_PARENT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from analysis.sandbox import SandboxLimits, run_sandboxed
    code = {code!r}
    run_sandboxed({probe!r}, {{"code": code, "lockdown": False}}, outputs={{"a": Path({target!r})}},
                  limits=SandboxLimits(timeout_s=120, startup_s=0))
""")


def test_a_parent_killed_mid_copy_out_leaves_nothing_on_disk(tmp_path):
    """SIGKILL runs no `finally`: the partial checkpoint and the box's output files must not have names."""
    out, scratch = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    scratch.mkdir()
    code = SEND + "send_file('a', 200, pause=0.2)"
    script = KILLED_PARENT.format(repo=str(REPO), code=code, probe=PROBE, target=str(out / "A.ckpt"))
    parent = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "TMPDIR": str(scratch)},
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not _copy_out_started(parent.pid, out):
            time.sleep(0.2)
        assert _copy_out_started(parent.pid, out), "the box never started sending its file"
        time.sleep(1.0)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    time.sleep(1.0)  # bwrap --die-with-parent: the box follows its parent
    assert list(out.iterdir()) == []
    assert list(scratch.iterdir()) == []
    assert _box_alive() == []


def _copy_out_started(pid: int, out: Path) -> bool:
    """The parent holds a file open in the target folder (the copy-out has begun)."""
    links = []
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                continue
    except OSError:
        return False
    return any(link.startswith(str(out) + "/") for link in links)
