"""First code run inside the box, before any user code: drop to the box's
uid where the parent could not (a root worker), apply resource limits, read
back what the kernel says is in force, then hand over to the trusted module.

Imports only the standard library: it runs before the frameworks load.
"""
from __future__ import annotations

import json
import os
import resource
import sys

STATUS_FIELDS = ("Uid", "Gid", "CapEff", "CapPrm", "CapBnd", "NoNewPrivs", "Seccomp")


def _status() -> dict[str, str]:
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in STATUS_FIELDS:
                out[key] = value.split()[0]
    return out


def _drop_to(uid: int, gid: int) -> None:
    if os.getuid() == uid and os.getgid() == gid:
        return
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)  # clears every capability: no keep-caps, no_new_privs is set


def _limit(prot: dict, name: str, value: int | None, grace: int = 0) -> None:
    if value is None:
        return
    try:
        resource.setrlimit(getattr(resource, name), (value, value + grace))
        prot[name] = value
    except (ValueError, OSError) as exc:
        prot[name] = f"not set: {exc}"


def _namespaces() -> dict[str, str]:
    out = {}
    for name in ("user", "pid", "mnt", "ipc", "uts", "net", "cgroup"):
        try:
            out[name] = os.readlink(f"/proc/self/ns/{name}")
        except OSError:
            pass
    return out


def main(config_path: str) -> None:
    with open(config_path, encoding="utf-8") as fh:
        cfg = json.load(fh)
    _drop_to(cfg["uid"], cfg["gid"])
    os.chdir(cfg["home"])
    prot: dict = {}
    _limit(prot, "RLIMIT_CPU", cfg["cpu_s"], 2)  # SIGXCPU first, SIGKILL 2 s later
    _limit(prot, "RLIMIT_AS", cfg["address_space"])
    # Counted per uid inside this user namespace: binds because the host uid is not 0.
    _limit(prot, "RLIMIT_NPROC", cfg["nproc"])
    _limit(prot, "RLIMIT_FSIZE", cfg["fsize"])
    _limit(prot, "RLIMIT_CORE", 0)
    status = _status()
    prot.update(
        uid=int(status["Uid"]),
        capabilities="none" if int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0
        else f"effective {status['CapEff']}, permitted {status['CapPrm']}",
        no_new_privs=status.get("NoNewPrivs") == "1",
        seccomp={"0": "off", "1": "strict", "2": "filter"}.get(status.get("Seccomp", ""), "unknown"),
        namespace_ids=_namespaces(),
        proc_pids_visible=sorted(int(p) for p in os.listdir("/proc") if p.isdigit())[:20],
    )
    sys.path[:0] = cfg["sys_path"]
    os.environ["SANDBOX_PROTECTIONS"] = json.dumps(prot)
    import importlib

    from .channel import Writer

    importlib.import_module(cfg["module"]).main(cfg["payload"], Writer(cfg["channel_fd"]))


if __name__ == "__main__":
    main(sys.argv[1])
