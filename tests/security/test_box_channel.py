"""What the box sends and how long it lives (issue 25): the parent reads one
size-capped stream with a depth limit, keeps a bounded number of records,
owns the one deadline, and kills the box whatever goes wrong on its side.
Memory the resident-set count cannot see is refused or size-capped.

Each hostile snippet speaks both the old transport (JSON lines in the
records file named in /sandbox/sandbox.json) and the channel, so the tests
fail on the code before the split.
"""
from __future__ import annotations

import errno
import tempfile
import time

import pytest

from analysis.sandbox import SandboxLimits, run_sandboxed
from analysis.sandbox import channel as channel_module
from analysis.sandbox.core import RECORDS_KEPT, _process_tree

PROBE = "tests.parity.sandbox_probe"
SEND_RAW = r"""
import json, os, struct
cfg = json.load(open('/sandbox/sandbox.json'))
def send_raw(line: bytes, count: int = 1):
    if cfg.get('records'):
        with open(cfg['records'], 'ab') as fh:
            fh.write((line + b'\n') * count)
    if cfg.get('channel_fd') is not None:
        header = b'{"arrays": [], "record": ' + line + b'}'
        frame = b'PF' + struct.pack('>IQ', len(header), 0) + header
        for _ in range(count):
            os.write(cfg['channel_fd'], frame)
"""


def _run(code: str, **limits):
    limits.setdefault("timeout_s", 20)
    limits.setdefault("startup_s", 0)
    return run_sandboxed(PROBE, {"code": SEND_RAW + code, "lockdown": False}, limits=SandboxLimits(**limits))


def _box_alive() -> list[int]:
    import os

    found = []
    for pid in _process_tree(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if b"analysis.sandbox.child" in fh.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def test_a_deeply_nested_record_ends_the_stream_not_the_parent():
    # 100,000 '[' made the old reader raise RecursionError and leave the box running.
    result = _run("send_raw(b'[' * 100000)\nimport time\ntime.sleep(60)")
    assert "nested deeper" in result.channel_error and not result.ok
    assert result.wall_s < 30 and _box_alive() == []


def test_an_exception_in_the_parents_reader_kills_the_box(monkeypatch, tmp_path):
    def broken(self, data):
        raise RuntimeError("injected into the reader")

    monkeypatch.setattr(channel_module.Reader, "feed", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the parent's work dirs go here
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="injected"):
        _run("import time\ntime.sleep(60)", timeout_s=60)
    assert time.monotonic() - started < 30
    assert _box_alive() == []
    assert list(tmp_path.glob("sandbox-*")) == []  # its work dir is gone too


def test_the_child_cannot_move_the_deadline():
    code = "import time\nfor _ in range(60):\n    send_raw(b'{\"reset_timeout\": true, \"event\": \"start\"}')\n    time.sleep(0.5)"
    result = _run(code, timeout_s=3)
    assert result.timed_out and result.wall_s < 15


def test_the_parent_keeps_a_bounded_number_of_records():
    result = _run("send_raw(b'{}', 200000)\nresult = 'flooded'")
    assert len(result.records) <= RECORDS_KEPT and result.records_dropped > 100000


def test_the_channel_has_a_total_size_cap():
    code = "import os\nwhile True:\n    send_raw(b'{\"pad\": \"' + b'x' * 500000 + b'\"}')"
    result = _run(code, channel_mb=8)
    assert "more than 8 MiB" in result.channel_error and _box_alive() == []


def test_memory_the_rss_count_cannot_see_is_refused_or_capped():
    code = r"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
out = {}
out['memfd'] = libc.memfd_create(b'x', 0) if hasattr(os, 'memfd_create') else -1
out['memfd_errno'] = ctypes.get_errno()
out['shmget'] = libc.shmget(0, 1 << 20, 0o1000 | 0o600)
out['shmget_errno'] = ctypes.get_errno()
def fill(path):
    try:
        with open(path, 'wb') as fh:
            for _ in range(2048):
                fh.write(b'x' * (1 << 20))
        return 'filled'
    except OSError as exc:
        return exc.errno
out['dev_shm'] = fill('/dev/shm/big')
out['tmp'] = fill('/tmp/big')
try:
    open('/dev/planted', 'w')
    out['dev'] = 'written'
except OSError as exc:
    out['dev'] = exc.errno
result = out
"""
    result = _run(code)
    out = next(r["result"] for r in result.records if "result" in r)
    assert out["memfd"] == -1 and out["memfd_errno"] == errno.EPERM
    assert out["shmget"] == -1 and out["shmget_errno"] == errno.EPERM
    assert out["dev_shm"] == errno.ENOSPC and out["tmp"] == errno.ENOSPC
    assert out["dev"] in (errno.EROFS, errno.EACCES, errno.EPERM)


def test_the_home_is_size_capped_and_on_no_disk():
    code = ("try:\n    with open('/sandbox/big', 'wb') as fh:\n        for _ in range(512):\n"
            "            fh.write(b'x' * (1 << 20))\n    result = 'filled'\nexcept OSError as exc:\n"
            "    result = exc.errno")
    result = _run(code, file_size_mb=64)
    assert next(r["result"] for r in result.records if "result" in r) in (errno.ENOSPC, errno.EFBIG)


def test_files_go_only_to_declared_slots_and_within_the_cap(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    undeclared = ("import numpy as np\nchannel.send({'event': 'file', 'slot': 'other', 'last': True},"
                  " {'data': np.zeros(4, np.uint8)})")
    result = run_sandboxed(PROBE, {"code": undeclared, "lockdown": False}, outputs={"w": out / "A.ckpt"},
                           limits=SandboxLimits(timeout_s=20, startup_s=0))
    assert "undeclared" in result.channel_error and list(out.iterdir()) == []
    too_big = ("import numpy as np\nfor _ in range(3):\n    channel.send({'event': 'file', 'slot': 'w', 'last': False},"
               " {'data': np.zeros(1 << 20, np.uint8)})")
    result = run_sandboxed(PROBE, {"code": too_big, "lockdown": False}, outputs={"w": out / "A.ckpt"},
                           limits=SandboxLimits(timeout_s=20, startup_s=0, file_size_mb=2))
    assert "over 2 MiB" in result.channel_error and list(out.iterdir()) == []
    unfinished = ("import numpy as np\nchannel.send({'event': 'file', 'slot': 'w', 'last': False},"
                  " {'data': np.zeros(8, np.uint8)})")
    result = run_sandboxed(PROBE, {"code": unfinished, "lockdown": False}, outputs={"w": out / "A.ckpt"},
                           limits=SandboxLimits(timeout_s=20, startup_s=0))
    assert result.outputs == [] and list(out.iterdir()) == []
    # A target the parent did not name by the fixed pattern is refused before anything runs.
    result = run_sandboxed(PROBE, {"code": "result = 1", "lockdown": False}, outputs={"w": out / "../x.sh"},
                           limits=SandboxLimits(timeout_s=20, startup_s=0))
    assert result.refused and "allowed form" in result.refused
