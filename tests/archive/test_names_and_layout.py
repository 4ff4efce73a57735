"""Names that are not UTF-8, in every archive format, and the single top-level folder that zipping a
folder adds. Every stored path must be storable (PostgreSQL, UTF-8 files), and a failed unpack
leaves nothing behind."""
from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from analysis.archive import ArchiveError, unpack_archive

LATIN1_NAME = b"repo/caf\xe9.py"  # "café.py" written by a Latin-1 system: not UTF-8


def _tar(mode: str, fmt: int) -> bytes:
    buffer = io.BytesIO()
    name = LATIN1_NAME.decode("utf-8", "surrogateescape")
    with tarfile.open(fileobj=buffer, mode=mode, format=fmt, encoding="utf-8", errors="surrogateescape") as tar:
        for member, data in ((name, b"x = 1\n"), ("repo/ok.py", b"y = 2\n")):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _zip_with_raw_name(raw: bytes, utf8_flag: bool) -> bytes:
    """A zip whose first entry's name is exactly `raw` (zipfile only writes valid names: patch the bytes)."""
    # zipfile sets the UTF-8 flag exactly when a name is not ASCII.
    placeholder = "repo/" + ("\u00e9" + "q" * (len(raw) - 7) if utf8_flag else "q" * (len(raw) - 5))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(placeholder, b"x = 1\n")
        zf.writestr("repo/ok.py", b"y = 2\n")
    return buffer.getvalue().replace(placeholder.encode(), raw)


TAR_FORMATS = [(mode, fmt) for mode in ("w", "w:gz", "w:bz2", "w:xz")
               for fmt in (tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT)]


@pytest.mark.parametrize("mode, fmt", TAR_FORMATS, ids=[f"{m}-{f}" for m, f in TAR_FORMATS])
def test_tar_names_that_are_not_utf8_are_read_as_latin1(tmp_path, mode, fmt):
    archive = tmp_path / "upload.tar"
    archive.write_bytes(_tar(mode, fmt))
    paths = unpack_archive(archive, tmp_path / "out")
    assert paths == ["café.py", "ok.py"]
    for path in paths:
        path.encode("utf-8")  # storable: no lone surrogates
    assert (tmp_path / "out" / "café.py").read_bytes() == b"x = 1\n"


def test_zip_names_without_the_utf8_flag_are_read_as_cp437(tmp_path):
    archive = tmp_path / "upload.zip"
    archive.write_bytes(_zip_with_raw_name(b"repo/caf\x82.py", utf8_flag=False))
    paths = unpack_archive(archive, tmp_path / "out")
    assert paths == ["café.py", "ok.py"]


def test_zip_names_flagged_utf8_but_not_utf8_get_a_clear_message_and_leave_nothing(tmp_path):
    archive = tmp_path / "upload.zip"
    archive.write_bytes(_zip_with_raw_name(LATIN1_NAME, utf8_flag=True))
    with pytest.raises(ArchiveError, match="marks its file names as UTF-8 but one is not valid UTF-8"):
        unpack_archive(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("files, expected", [
    ({"myrepo/train.py": b"", "myrepo/models/net.py": b"", "myrepo/README.md": b""},
     ["README.md", "models/net.py", "train.py"]),
    ({"myrepo/myrepo/__init__.py": b"", "myrepo/myrepo/net.py": b"", "myrepo/setup.py": b""},
     ["myrepo/__init__.py", "myrepo/net.py", "setup.py"]),  # a child named like the folder
    ({"only/deep/a.py": b""}, ["deep/a.py"]),
    ({"a/x.py": b"", "b/y.py": b""}, ["a/x.py", "b/y.py"]),  # two folders: kept
    ({"pkg/x.py": b"", "setup.py": b""}, ["pkg/x.py", "setup.py"]),  # a file at the root: kept
])
def test_a_single_top_level_folder_is_stripped(tmp_path, files, expected):
    archive = tmp_path / "upload.zip"
    archive.write_bytes(_zip(files))
    out = tmp_path / "out"
    assert unpack_archive(archive, out) == expected
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert on_disk == expected


def test_browser_and_ci_uploads_of_the_same_code_unpack_alike(tmp_path):
    browser = tmp_path / "browser.zip"
    browser.write_bytes(_zip({"myrepo/train.py": b"a", "myrepo/models/net.py": b"b"}))
    ci = tmp_path / "ci.tar.gz"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in (("train.py", b"a"), ("models/net.py", b"b")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    ci.write_bytes(buffer.getvalue())
    assert unpack_archive(browser, tmp_path / "b") == unpack_archive(ci, tmp_path / "c")
