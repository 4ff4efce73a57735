"""plotly.js is served gzip-compressed with a year-long cache; pages link a favicon."""
from __future__ import annotations

import gzip

import pytest
from django.templatetags.static import static

from porting_site.lib.plotly_static import SCRIPT
from tests import factories


@pytest.mark.django_db
def test_plotly_is_served_compressed_and_cached_for_a_year(client):
    url = static(SCRIPT)
    assert "plotly-" in url  # the folder names the version, so the URL changes with the file
    response = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert response["Content-Encoding"] == "gzip" and len(body) < 2_000_000
    assert len(gzip.decompress(body)) > 4_000_000
    assert "immutable" in response["Cache-Control"] and "max-age=315360000" in response["Cache-Control"]
    plain = client.get(url)  # a client without gzip still gets the script
    assert "Content-Encoding" not in plain and int(plain["Content-Length"]) > 4_000_000


@pytest.mark.django_db
def test_pages_link_a_favicon_that_exists(client):
    factories.team_with_member("Vision", "alice")
    client.login(username="alice", password=factories.PASSWORD)
    page = client.get("/").content.decode()
    icon = static("favicon.svg")
    assert f'<link rel="icon" href="{icon}"' in page
    assert client.get(icon).status_code == 200
