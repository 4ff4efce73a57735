from __future__ import annotations

from django import forms
from django.conf import settings

from .models import MINDSPORE_VERSION, Device, Project, Target
from .validators import validate_ms_version

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")


def _archive_problem(archive, name: str) -> str:
    """A clear reason when the upload is not the archive its name says, else ""."""
    head = archive.read(512)
    archive.seek(0)
    if name.endswith(".zip"):
        ok = head[:4] in (b"PK\x03\x04", b"PK\x05\x06")
        kind = "a zip archive"
    elif name.endswith((".tar.gz", ".tgz")):
        ok = head[:2] == b"\x1f\x8b"
        kind = "a gzip-compressed tar archive"
    else:
        ok = len(head) >= 262 and head[257:262] == b"ustar"
        kind = "a tar archive"
    if not head:
        return "The file is empty."
    return "" if ok else f"The file is named {name!r} but is not {kind}; it may be damaged or renamed."


class UploadForm(forms.Form):
    archive = forms.FileField(help_text="A .zip or .tar.gz of the PyTorch repository")
    target = forms.ChoiceField(choices=Target.choices, initial=Target.CLASSIC)
    ms_version = forms.CharField(initial=MINDSPORE_VERSION, max_length=10, label="MindSpore version",
                                 validators=[validate_ms_version])
    device = forms.ChoiceField(choices=Device.choices, initial=Device.CPU, label="Parity device queue")
    converted_archive = forms.FileField(
        required=False, label="Your converted tree (optional)",
        help_text="A hand-edited MindSpore conversion with the same layout and class names; parity checks it "
        "instead of the automatic conversion",
    )

    def __init__(self, *args, upload_too_large: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if upload_too_large:  # the size-limit upload handler stopped storing the file mid-stream
            from .upload_handlers import upload_too_large_message

            self.fields["archive"].error_messages["required"] = upload_too_large_message()

    def clean_archive(self):
        return _checked_archive(self.cleaned_data["archive"])

    def clean_converted_archive(self):
        archive = self.cleaned_data.get("converted_archive")
        return _checked_archive(archive) if archive else None


def _checked_archive(archive):
    name = (archive.name or "").lower()
    if not name.endswith(ARCHIVE_SUFFIXES):
        raise forms.ValidationError("Upload a .zip, .tar.gz, .tgz or .tar archive.")
    if archive.size > settings.PORTING_MAX_UPLOAD_BYTES:
        raise forms.ValidationError(
            f"The archive is {archive.size // (1024 * 1024)} MiB; the limit is "
            f"{settings.PORTING_MAX_UPLOAD_BYTES // (1024 * 1024)} MiB."
        )
    problem = _archive_problem(archive, name)
    if problem:
        raise forms.ValidationError(problem)
    return archive


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=120)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    target = forms.ChoiceField(choices=Target.choices, initial=Target.CLASSIC)
    device = forms.ChoiceField(choices=Device.choices, initial=Device.CPU)


class ProjectSettingsForm(forms.ModelForm):
    class Meta:
        model = Project
        fields = ["description", "target", "ms_version", "device"]
        labels = {"ms_version": "MindSpore version", "device": "Parity device queue", "target": "Target API"}
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ms_version"].validators.append(validate_ms_version)
