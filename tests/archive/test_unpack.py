"""The unpacker writes nothing outside the destination and rejects bad archives clearly."""
from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from analysis.archive import ArchiveError, Limits, unpack_archive


def write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def tar_with(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def file_info(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def zip_with(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def test_zip_and_tar_gz_unpack_to_the_same_tree(tmp_path):
    files = {"repo/model.py": b"import torch\n", "repo/data/readme.txt": b"hi\n"}
    z = unpack_archive(write(tmp_path, "a.zip", zip_with(files)), tmp_path / "z")
    t = unpack_archive(
        write(tmp_path, "a.tar.gz", tar_with([file_info(n, d) for n, d in files.items()])), tmp_path / "t"
    )
    assert z == t == ["data/readme.txt", "model.py"]  # the one top-level folder is stripped
    assert (tmp_path / "t" / "model.py").read_bytes() == b"import torch\n"


@pytest.mark.parametrize(
    "name, message",
    [("../evil.py", "'..'"), ("/etc/evil.py", "absolute"), ("a/../../evil.py", "'..'"), ("C:/evil.py", "absolute")],
)
def test_paths_escaping_the_root_are_rejected_and_nothing_is_written(tmp_path, name, message):
    archive = write(tmp_path, "bad.zip", zip_with({"ok.py": b"x = 1\n", name: b"boom"}))
    with pytest.raises(ArchiveError, match=message):
        unpack_archive(archive, tmp_path / "out" / "run")
    assert not (tmp_path / "out" / "run").exists()
    assert not (tmp_path / "evil.py").exists() and not (tmp_path / "out" / "evil.py").exists()


def test_symlinks_and_hardlinks_are_rejected(tmp_path):
    link = tarfile.TarInfo("repo/passwd")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    with pytest.raises(ArchiveError, match="links are not allowed"):
        unpack_archive(write(tmp_path, "l.tar.gz", tar_with([(link, None)])), tmp_path / "out")
    hard = tarfile.TarInfo("repo/hard")
    hard.type = tarfile.LNKTYPE
    hard.linkname = "../../etc/passwd"
    with pytest.raises(ArchiveError, match="links are not allowed"):
        unpack_archive(write(tmp_path, "h.tar.gz", tar_with([(hard, None)])), tmp_path / "out2")


def test_device_files_are_rejected(tmp_path):
    dev = tarfile.TarInfo("repo/null")
    dev.type = tarfile.CHRTYPE
    with pytest.raises(ArchiveError, match="device files"):
        unpack_archive(write(tmp_path, "d.tar.gz", tar_with([(dev, None)])), tmp_path / "out")


def test_duplicate_names_are_rejected(tmp_path):
    data = tar_with([file_info("repo/a.py", b"1"), file_info("repo/a.py", b"2")])
    with pytest.raises(ArchiveError, match="twice"):
        unpack_archive(write(tmp_path, "dup.tar.gz", data), tmp_path / "out")


def test_archive_bomb_limits(tmp_path):
    bomb = write(tmp_path, "bomb.zip", zip_with({"zeros.bin": b"\0" * (20 * 1024 * 1024)}))
    with pytest.raises(ArchiveError, match="compression ratio"):
        unpack_archive(bomb, tmp_path / "out", Limits(max_ratio=50))
    with pytest.raises(ArchiveError, match="unpacks to more than"):
        unpack_archive(bomb, tmp_path / "out", Limits(max_total_bytes=1024 * 1024, max_ratio=10_000))
    many = write(tmp_path, "many.zip", zip_with({f"f{i}.py": b"" for i in range(11)}))
    with pytest.raises(ArchiveError, match="more than 10 files"):
        unpack_archive(many, tmp_path / "out", Limits(max_files=10))


@pytest.mark.parametrize("data, message", [(b"", "empty"), (b"PK\x03\x04garbage", "not a zip or tar"),
                                           (b"\x1f\x8b\x08\x00junk", "not a zip or tar")])
def test_broken_or_empty_uploads_get_a_clear_message(tmp_path, data, message):
    with pytest.raises(ArchiveError, match=message):
        unpack_archive(write(tmp_path, "x.bin", data), tmp_path / "out")


def test_archive_without_files_is_rejected(tmp_path):
    folder = tarfile.TarInfo("repo")
    folder.type = tarfile.DIRTYPE
    with pytest.raises(ArchiveError, match="no files"):
        unpack_archive(write(tmp_path, "e.tar.gz", tar_with([(folder, None)])), tmp_path / "out")




def test_the_upload_listing_stops_at_the_unpack_limits():
    """A .tar.gz has no directory: listing it inflates it. The listing stops as soon as the declared sizes
    pass a limit, so a bomb costs the web process at most the limit's worth of inflating."""
    from analysis.archive import ArchiveTooLarge, file_names

    members = [file_info(f"zeros{i}.bin", bytes(4 * 1024 * 1024)) for i in range(40)]  # 160 MiB in ~160 KiB
    upload = io.BytesIO(tar_with(members + [file_info("model.py", b"import torch\n")]))
    with pytest.raises(ArchiveTooLarge, match="unpacks to more than 10 MiB"):
        file_names(upload, Limits(max_total_bytes=10 * 1024 * 1024))
    assert upload.tell() == 0  # left at its start for the storage to save
    with pytest.raises(ArchiveTooLarge, match="archive bomb"):
        file_names(upload, Limits(max_ratio=50))
    with pytest.raises(ArchiveTooLarge, match="more than 3 files"):
        file_names(upload, Limits(max_files=3))
    assert file_names(upload, Limits(max_ratio=10_000))[-1] == "model.py"  # under the limits: listed whole
