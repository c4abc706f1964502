"""Create the OAuth test project's users, a pre-registered client and test tokens.

Prints JSON: the tokens by name, each an access token as DOT stores it, minted here rather
than through a flow: the expired, wrong-audience, unbound and under-scoped ones a real
client would never be sent.
"""

import json
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model


class Command(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("--resource", required=True)
        parser.add_argument("--redirect-uri", required=True)

    def handle(self, *args, resource, redirect_uri, **options):
        users = get_user_model().objects
        alice = users.create_user("alice", password="alice-password")
        Application = get_application_model()
        client = Application.objects.create(
            name="pre-registered",
            client_id="pre-registered",
            client_type=Application.CLIENT_PUBLIC,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=redirect_uri,
            algorithm="",
        )
        AccessToken = get_access_token_model()
        now = timezone.now()

        def mint(scope, resources, expires=now + timedelta(hours=1)):
            key = secrets.token_urlsafe(30)
            AccessToken.objects.create(
                user=alice,
                application=client,
                token=key,
                scope=scope,
                expires=expires,
                resource=resources,
            )
            return key

        tokens = {
            "good": mint("notes:read", [resource]),
            "expired": mint("notes:read", [resource], expires=now - timedelta(minutes=1)),
            "other_audience": mint("notes:read", ["https://other.example/mcp"]),
            "unbound": mint("notes:read", []),
            "under_scoped": mint("profile", [resource]),
        }
        self.stdout.write(json.dumps({"client_id": client.client_id, "tokens": tokens}))
