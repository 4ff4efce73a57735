"""Enforce the upload size limit while the request streams in.

Django would otherwise write a whole oversized upload to a temporary file
before any form or serializer could look at its size. This handler counts the
bytes of each file as they arrive and stops storing them once the limit is
passed; the rest of the body is read and discarded, and the request is flagged
so the form (or API) can say what happened.
"""
from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload

TOO_LARGE_ATTR = "porting_upload_too_large"


def upload_too_large_message() -> str:
    return f"The upload is larger than the {settings.PORTING_MAX_UPLOAD_BYTES / (1024 * 1024):g} MiB limit."


class SizeLimitUploadHandler(FileUploadHandler):
    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > settings.PORTING_MAX_UPLOAD_BYTES:
            setattr(self.request, TOO_LARGE_ATTR, True)
            raise StopUpload(connection_reset=False)
        return raw_data  # pass the chunk on to Django's own handlers

    def file_complete(self, file_size):
        return None  # the next handler builds the file
