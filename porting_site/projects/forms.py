from __future__ import annotations

from django import forms
from django.conf import settings

from .models import Device, Target

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")


class UploadForm(forms.Form):
    archive = forms.FileField(help_text="A .zip or .tar.gz of the PyTorch repository")
    target = forms.ChoiceField(choices=Target.choices, initial=Target.CLASSIC)
    ms_version = forms.CharField(initial="2.4", max_length=10, label="MindSpore version")
    device = forms.ChoiceField(choices=Device.choices, initial=Device.CPU, label="Parity device queue")

    def clean_archive(self):
        archive = self.cleaned_data["archive"]
        name = (archive.name or "").lower()
        if not name.endswith(ARCHIVE_SUFFIXES):
            raise forms.ValidationError("Upload a .zip, .tar.gz, .tgz or .tar archive.")
        if archive.size > settings.PORTING_MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                f"The archive is {archive.size // (1024 * 1024)} MiB; the limit is "
                f"{settings.PORTING_MAX_UPLOAD_BYTES // (1024 * 1024)} MiB."
            )
        return archive


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=120)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    target = forms.ChoiceField(choices=Target.choices, initial=Target.CLASSIC)
    device = forms.ChoiceField(choices=Device.choices, initial=Device.CPU)
