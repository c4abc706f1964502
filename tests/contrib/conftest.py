"""Fixtures of the contrib apps' tests: django-oauth-toolkit access tokens."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

BASE = "http://testserver"
#: The resource identifier of the test projects' /mcp endpoint (``PUBLIC_URL``).
RESOURCE = f"{BASE}/mcp"


@pytest.fixture
def mint(alice):
    application = get_application_model().objects.create(
        name="tests",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:1/callback",
        algorithm="",
    )

    def mint(scope="notes:read", resource=(RESOURCE,), user=alice, expires=timedelta(hours=1)):
        key = secrets.token_urlsafe(30)
        get_access_token_model().objects.create(
            user=user,
            application=application,
            token=key,
            scope=scope,
            expires=timezone.now() + expires,
            resource=list(resource),
        )
        return key

    return mint
