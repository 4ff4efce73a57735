"""A trusted runner for the sandbox tests: locks down, then executes the
untrusted snippet from the payload and reports `result`."""
from __future__ import annotations

import json


def _emit(path: str, record: dict) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, default=str) + "\n")


def main(payload_path: str, records_path: str) -> None:
    from analysis.sandbox import lockdown

    with open(payload_path, encoding="utf-8") as fh:
        payload = json.load(fh)
    import os

    protections = lockdown() if payload.get("lockdown", True) else json.loads(os.environ["SANDBOX_PROTECTIONS"])
    _emit(records_path, {"protections": protections})
    namespace: dict = {}
    try:
        exec(payload["code"], namespace)
    except Exception as exc:  # report, like the parity runner does
        _emit(records_path, {"error": f"{type(exc).__name__}: {exc}"})
        return
    _emit(records_path, {"result": namespace.get("result")})
