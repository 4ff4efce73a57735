"""A raw archive as the whole request body (`curl --data-binary @repo.tar.gz`)."""
from __future__ import annotations

from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

CHUNK = 1024 * 1024


class RawArchiveParser(BaseParser):
    media_type = "application/*"  # gzip, x-gzip, x-tar, zip, octet-stream

    def parse(self, stream, media_type=None, parser_context=None):
        if stream is None:
            raise ParseError("the request body is empty")
        request = (parser_context or {}).get("request")
        name = request.query_params.get("filename", "upload.tar.gz") if request is not None else "upload.tar.gz"
        upload = TemporaryUploadedFile(name, media_type or "application/octet-stream", 0, None)
        size = 0
        while chunk := stream.read(CHUNK):
            size += len(chunk)
            if size > settings.PORTING_MAX_UPLOAD_BYTES:
                upload.close()
                raise ParseError(f"the upload exceeds {settings.PORTING_MAX_UPLOAD_BYTES // (1024 * 1024)} MiB")
            upload.write(chunk)
        upload.size = size
        upload.seek(0)
        return {"archive": upload}
