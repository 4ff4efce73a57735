"""Fuzz the unpacker with generated malformed archives: it either unpacks inside
the destination or rejects with ArchiveError; nothing else escapes, nothing is
written outside. Bounded by hypothesis' deadline and example count."""
from __future__ import annotations

import io
import tarfile
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.archive import ArchiveError, Limits, file_names, unpack_archive

names = st.one_of(
    st.text(min_size=1, max_size=30),
    st.sampled_from(["../x.py", "/abs.py", "a/../../b.py", "./ok.py", "dir/", "C:\\evil.py", "a\\..\\..\\b", "."]),
)
entries = st.lists(st.tuples(names, st.binary(max_size=200)), min_size=0, max_size=6)
pytestmark = pytest.mark.filterwarnings("ignore:Duplicate name")
LIMITS = Limits(max_files=20, max_total_bytes=64 * 1024, max_ratio=100)


def build_zip(items) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in items:
            try:
                zf.writestr(name, data)
            except (ValueError, UnicodeEncodeError, IndexError):
                pass  # zipfile itself refuses the name (e.g. one that sanitizes to "")
    return buffer.getvalue()


def build_tar(items, kinds) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", errors="surrogateescape") as tar:
        for (name, data), kind in zip(items, kinds):
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = "../../etc/passwd" if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE) else ""
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            try:
                tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
            except (ValueError, UnicodeEncodeError):
                pass
    return buffer.getvalue()


def listed(data: bytes) -> list[str] | None:
    """The upload-time listing (of a file object, as an upload is): a list, or ArchiveError; the file is
    left at its start for the storage to save."""
    upload = io.BytesIO(data)
    try:
        names = file_names(upload)
    except ArchiveError as exc:
        assert str(exc)
        names = None
    assert upload.tell() == 0
    return names


def check(tmp_path_factory, data: bytes):
    names = listed(data)
    base = tmp_path_factory.mktemp("fuzz")
    archive = base / "upload.bin"
    archive.write_bytes(data)
    dest = base / "run" / "src"
    try:
        paths = unpack_archive(archive, dest, LIMITS)
    except ArchiveError as exc:
        assert str(exc)  # always a message for the user
        assert not dest.exists()
    else:
        for rel in paths:
            assert (dest / rel).resolve().is_relative_to(dest.resolve())
        # What unpacks is never called empty at upload (the upload check would refuse a good archive).
        assert names is None or names
    outside = {p for p in base.rglob("*") if not p.is_relative_to(dest) and p != archive and p != dest.parent}
    assert outside == set(), outside


fuzz = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@fuzz
@given(items=entries)
def test_generated_zips(tmp_path_factory, items):
    check(tmp_path_factory, build_zip(items))


@fuzz
@given(items=entries, kinds=st.lists(st.sampled_from(
    [tarfile.REGTYPE, tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE,
     tarfile.FIFOTYPE]), min_size=6, max_size=6))
def test_generated_tars(tmp_path_factory, items, kinds):
    check(tmp_path_factory, build_tar(items, kinds))


@fuzz
@given(seed=st.binary(min_size=1, max_size=400), cut=st.integers(min_value=0, max_value=400),
       flip=st.integers(min_value=0, max_value=399))
def test_truncated_and_corrupted_archives(tmp_path_factory, seed, cut, flip):
    """Valid archives cut short or with a flipped byte."""
    for data in (build_zip([("a.py", seed), ("b/c.py", seed[::-1])]),
                 build_tar([("a.py", seed), ("b/c.py", seed)], [tarfile.REGTYPE] * 2)):
        damaged = bytearray(data[: max(1, len(data) - cut)])
        damaged[flip % len(damaged)] ^= 0xFF
        check(tmp_path_factory, bytes(damaged))


@fuzz
@given(data=st.binary(min_size=0, max_size=600))
def test_random_bytes(tmp_path_factory, data):
    check(tmp_path_factory, data)
