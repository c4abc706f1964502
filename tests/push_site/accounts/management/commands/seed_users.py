"""``manage.py seed_users``: two users, ``alice`` and ``bob``, whose API tokens are printed
one a line, in that order."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token

USERS = ("alice", "bob")


class Command(BaseCommand):
    help = "Create two users and print their tokens."

    def handle(self, *args, **options):
        for name in USERS:
            user = get_user_model().objects.create_user(name, password="a-long-passphrase-7")
            self.stdout.write(Token.objects.create(user=user).key)
