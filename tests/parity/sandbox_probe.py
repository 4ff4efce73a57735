"""A trusted runner for the sandbox tests: locks down, then executes the
untrusted snippet from the payload and reports `result` through the channel
(`channel`, a `send(record, arrays=None)` writer, is visible to the snippet)."""
from __future__ import annotations

import json


def main(payload_path: str, channel) -> None:
    from analysis.sandbox import lockdown

    with open(payload_path, encoding="utf-8") as fh:
        payload = json.load(fh)
    import os

    protections = lockdown() if payload.get("lockdown", True) else json.loads(os.environ["SANDBOX_PROTECTIONS"])
    channel.send({"protections": protections})
    namespace: dict = {"channel": channel}
    try:
        exec(payload["code"], namespace)
    except Exception as exc:  # report, like the parity runner does
        channel.send({"error": f"{type(exc).__name__}: {exc}"})
        return
    channel.send({"result": namespace.get("result")})
