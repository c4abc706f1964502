"""The synthetic request views are introspected with: as a direct request would be."""

import pytest
from django.test import RequestFactory

from mcp_tools.schemas.introspection import synthetic_request


@pytest.mark.parametrize("path", ["/api/todos/", "/١/", "/café/", "/a%20b/"])
def test_the_synthetic_request_reads_its_path_as_django_reads_a_direct_one(path):
    request = synthetic_request("GET", path)
    direct = RequestFactory().get(path)
    assert (request.path, request.path_info, request.method) == (
        direct.path,
        direct.path_info,
        "GET",
    )
    assert request.user.is_anonymous
