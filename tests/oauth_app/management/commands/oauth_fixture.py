"""Create the OAuth test project's users, clients and test tokens; print them as JSON.

The tokens are access tokens as DOT stores them, minted here rather than through a flow:
the expired, wrong-audience, unbound and under-scoped ones a real client would never be
sent. ``--external-resource URL`` (a second run) mints one token for a resource server
elsewhere, which introspects it (tests/oauth_app/external_settings.py).
"""

import json
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from tests.oauth_app.introspection import INTROSPECTION_CLIENT


class Command(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("--resource")
        parser.add_argument("--redirect-uri")
        parser.add_argument("--external-resource")

    def handle(self, *args, resource, redirect_uri, external_resource, **options):
        if external_resource:
            token = self.mint("notes:read", [external_resource])
            self.stdout.write(json.dumps({"tokens": {"external": token}}))
            return
        get_user_model().objects.create_user("alice", password="alice-password")
        Application = get_application_model()
        client = Application.objects.create(
            name="pre-registered",
            client_id="pre-registered",
            client_type=Application.CLIENT_PUBLIC,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=redirect_uri,
            algorithm="",
        )
        Application.objects.create(
            name="resource-server",
            client_id=INTROSPECTION_CLIENT[0],
            client_secret=INTROSPECTION_CLIENT[1],
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS,
            algorithm="",
        )
        expired = timezone.now() - timedelta(minutes=1)
        tokens = {
            "good": self.mint("notes:read", [resource]),
            "expired": self.mint("notes:read", [resource], expires=expired),
            "other_audience": self.mint("notes:read", ["https://other.example/mcp"]),
            # For another resource server, at a host a client can name in X-Forwarded-Host.
            "other_host": self.mint("notes:read", ["http://other-rs.example/mcp"]),
            "unbound": self.mint("notes:read", []),
            "under_scoped": self.mint("profile", [resource]),
        }
        self.stdout.write(json.dumps({"client_id": client.client_id, "tokens": tokens}))

    def mint(self, scope, resources, expires=None):
        key = secrets.token_urlsafe(30)
        get_access_token_model().objects.create(
            user=get_user_model().objects.get(username="alice"),
            application=get_application_model().objects.get(client_id="pre-registered"),
            token=key,
            scope=scope,
            expires=expires or timezone.now() + timedelta(hours=1),
            resource=resources,
        )
        return key
