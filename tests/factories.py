"""Small builders for test data (real rows in the real database)."""
from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

from django.contrib.auth import get_user_model

from analysis.archive import pack_tree
from django.core.files.uploadedfile import SimpleUploadedFile

from porting_site.accounts.models import Membership
from porting_site.accounts.services import membership_add, team_create
from porting_site.projects.services import project_create

PASSWORD = "a-long-test-password"


def user(username: str):
    return get_user_model().objects.create_user(username=username, password=PASSWORD)


def team_with_member(team_name: str, username: str, role: str = Membership.Role.ADMIN):
    member = user(username)
    team = team_create(name=team_name)
    membership_add(team=team, user=member, role=role)
    return team, member


def project(team, name: str = "Vision models"):
    return project_create(team=team, name=name)


def tar_gz_of(root: Path, prefix: str = "repo") -> bytes:
    return pack_tree(root, prefix)


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def tar_gz_files(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")
