"""Create the bench user, its token and its items; print what the harness needs as JSON."""

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token

from ...models import Item


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--items", type=int, default=100)

    def handle(self, *args, **options):
        user, _ = get_user_model().objects.get_or_create(username="bench")
        token, _ = Token.objects.get_or_create(user=user)
        if not Item.objects.filter(owner=user).exists():
            Item.objects.bulk_create(
                Item(owner=user, name=f"Item {i}", quantity=i, note="seeded")
                for i in range(options["items"])
            )
        item = Item.objects.filter(owner=user).order_by("id")[options["items"] // 2]
        self.stdout.write(json.dumps({"token": token.key, "item": item.pk}))
