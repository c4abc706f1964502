"""Whose share a request counts against (``auth.caller.quota_key``): an anonymous caller's
client address exactly as DRF's throttles read it, without building DRF's request."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from mcp_tools.auth.caller import Caller, quota_key

ANONYMOUS = Caller(user=AnonymousUser(), auth=None, authentication_classes=())

REQUESTS = [
    {"REMOTE_ADDR": "10.0.0.1"},
    {"REMOTE_ADDR": "10.0.0.6", "HTTP_X_FORWARDED_FOR": "10.0.0.1"},
    {"REMOTE_ADDR": "10.0.0.6", "HTTP_X_FORWARDED_FOR": "203.0.113.9, 10.0.0.1 , 10.0.0.2"},
    {"REMOTE_ADDR": "10.0.0.6", "HTTP_X_FORWARDED_FOR": ""},
]


@pytest.mark.parametrize("num_proxies", [None, 0, 1, 2, 5])
@pytest.mark.parametrize("meta", REQUESTS)
def test_an_anonymous_callers_share_is_its_address_as_drfs_throttles_read_it(
    settings, meta, num_proxies
):
    # DRF reloads its settings when they change.
    settings.REST_FRAMEWORK = {
        **getattr(settings, "REST_FRAMEWORK", {}),
        "NUM_PROXIES": num_proxies,
    }
    assert num_proxies == api_settings.NUM_PROXIES
    request = RequestFactory().post("/mcp", **meta)
    # What a DRF view's throttle would read, from DRF's own request of the same one.
    expected = BaseThrottle().get_ident(Request(RequestFactory().post("/mcp", **meta)))
    assert quota_key(request, ANONYMOUS) == f"anonymous@{expected}"


def test_an_authenticated_callers_share_is_its_own_wherever_it_calls_from(django_user_model):
    user = django_user_model.objects.create_user("quota-alice")
    caller = Caller(user=user, auth=None, authentication_classes=())
    first = RequestFactory().post("/mcp", REMOTE_ADDR="10.0.0.1")
    second = RequestFactory().post("/mcp", REMOTE_ADDR="10.0.0.2")
    assert quota_key(first, caller) == quota_key(second, caller) == f"auth.user:{user.pk}"
