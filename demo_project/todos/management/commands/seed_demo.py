import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token

from demo_project.todos.models import Todo

SAMPLE_TODOS = [
    ("Water the plants", False),
    ("Read the MCP specification", True),
    ("Expose the todo API to an agent", False),
]


class Command(BaseCommand):
    help = "Create the demo user with a token and a few todos, then print how to connect."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/mcp")

    def handle(self, *args, url, **options):
        user, created = get_user_model().objects.get_or_create(
            username="demo", defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password("demo")
            user.save()
        token, _ = Token.objects.get_or_create(user=user)
        if not Todo.objects.filter(owner=user).exists():
            for title, done in SAMPLE_TODOS:
                Todo.objects.create(owner=user, title=title, done=done)
        config = {
            "mcpServers": {
                "django-todos": {
                    "type": "http",
                    "url": url,
                    "headers": {"Authorization": f"Token {token.key}"},
                }
            }
        }
        self.stdout.write(
            f"\nMCP endpoint:  {url}\n"
            f"Token:         {token.key}   (user 'demo', password 'demo' for /admin/)\n\n"
            "Client configuration (paste into your MCP client's settings):\n"
            f"{json.dumps(config, indent=2)}\n"
        )
