"""The one way data leaves the box: length-prefixed frames on a pipe.

A frame is a JSON header (a record plus the dtype and shape of each array
that follows) and a body holding those arrays' bytes, C order. The child
writes frames (`Writer`); the parent parses them as a stream (`Reader`)
with hard limits, so nothing the child sends can exhaust the parent's
memory or stack: a header is at most MAX_HEADER bytes and nests at most
MAX_DEPTH deep (checked before json sees it), a body at most
MAX_BODY bytes, the stream at most `max_total` bytes, and arrays only of
plain numeric dtypes whose byte count matches their shape. A frame that
breaks a rule ends the stream (ChannelError): the parent stops reading and
kills the box.

Frames carry data only. What a record may say is decided by its reader
(the parity engine judges; see analysis/parity/verdict.py).

The child side imports the standard library only (numpy when it sends arrays).
"""
from __future__ import annotations

import json
import os
import re
import struct

MAGIC = b"PF"
PREFIX = struct.Struct(">2sIQ")  # magic, header bytes, body bytes
MAX_HEADER = 8 << 20
MAX_BODY = 64 << 20
MAX_DEPTH = 32
MAX_ARRAYS = 64  # per frame
DTYPES = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"})
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


class ChannelError(ValueError):
    """The stream broke a rule; nothing after it is read."""


class Writer:
    """Child side: frames to an inherited pipe fd (blocking writes: a slow
    parent makes the child wait rather than the data pile up)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, record: dict, arrays: dict | None = None) -> None:
        specs, parts = [], []
        for name, array in (arrays or {}).items():
            import numpy as np

            array = np.ascontiguousarray(array)
            specs.append({"name": name, "dtype": str(array.dtype), "shape": list(array.shape)})
            parts.append(array.tobytes())
        header = json.dumps({"record": record, "arrays": specs}, default=str).encode()
        body = b"".join(parts)
        data = PREFIX.pack(MAGIC, len(header), len(body)) + header + body
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]


def depth(text: bytes) -> int:
    """How deep the JSON in `text` nests (strings blanked out first)."""
    brackets = _STRING.sub(b'""', text).translate(None, delete=bytes(range(256)).translate(None, b"[]{}"))
    level = worst = 0
    for byte in brackets:
        level += 1 if byte in (0x5B, 0x7B) else -1
        worst = max(worst, level)
    return worst


class Reader:
    """Parent side: feed bytes as they arrive, get whole frames back as
    (record, {name: ndarray}). Holds at most one frame's bytes."""

    def __init__(self, max_total: int = 4 << 30) -> None:
        self.max_total = max_total
        self.total = 0
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[dict, dict]]:
        self.total += len(data)
        if self.total > self.max_total:
            raise ChannelError(f"the box sent more than {self.max_total >> 20} MiB")
        self.buffer += data
        frames = []
        while len(self.buffer) >= PREFIX.size:
            magic, header_len, body_len = PREFIX.unpack_from(self.buffer)
            if magic != MAGIC:
                raise ChannelError("a frame without the channel's marker")
            if header_len > MAX_HEADER or body_len > MAX_BODY:
                raise ChannelError(f"a frame over the size limit ({header_len} + {body_len} bytes)")
            end = PREFIX.size + header_len + body_len
            if len(self.buffer) < end:
                break
            header = bytes(self.buffer[PREFIX.size:PREFIX.size + header_len])
            body = bytes(self.buffer[PREFIX.size + header_len:end])
            del self.buffer[:end]
            frames.append(_parse(header, body))
        return frames

    @property
    def pending(self) -> int:
        """Bytes of a frame not finished when the stream ended."""
        return len(self.buffer)


def _parse(header: bytes, body: bytes) -> tuple[dict, dict]:
    if depth(header) > MAX_DEPTH:
        raise ChannelError(f"a record nested deeper than {MAX_DEPTH}")
    try:
        frame = json.loads(header)
    except (ValueError, RecursionError) as exc:
        raise ChannelError(f"a record that is not JSON ({type(exc).__name__})") from None
    if not isinstance(frame, dict) or not isinstance(frame.get("record"), dict) \
            or not isinstance(frame.get("arrays"), list) or len(frame["arrays"]) > MAX_ARRAYS:
        raise ChannelError("a frame without a record and an array list")
    arrays, offset = {}, 0
    for spec in frame["arrays"]:
        import numpy as np  # only where arrays come: a parent without numpy still reads plain records

        if not isinstance(spec, dict) or spec.get("dtype") not in DTYPES or not isinstance(spec.get("name"), str):
            raise ChannelError("an array of an unknown dtype")
        shape = spec.get("shape")
        if not isinstance(shape, list) or len(shape) > 16 or not all(type(d) is int and d >= 0 for d in shape):
            raise ChannelError("an array with a malformed shape")
        dtype = np.dtype(spec["dtype"])
        count = 1
        for d in shape:
            count *= d
        size = count * dtype.itemsize
        if offset + size > len(body):
            raise ChannelError("an array longer than its frame")
        arrays[spec["name"]] = np.frombuffer(body, dtype, count, offset).reshape(shape)
        offset += size
    if offset != len(body):
        raise ChannelError("a frame with bytes no array accounts for")
    return frame["record"], arrays
