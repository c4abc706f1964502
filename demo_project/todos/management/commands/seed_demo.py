import logging

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token

from demo_project.clients import configurations
from demo_project.todos.models import Todo
from mcp_tools.auth.caller import Caller
from mcp_tools.endpoint import local
from mcp_tools.models import ToolCall

SAMPLE_TODOS = [
    ("Water the plants", False),
    ("Read the MCP specification", True),
    ("Expose the todo API to an agent", False),
]

#: Calls made once, through the endpoint's own pipeline, so the admin's log has a few rows.
SAMPLE_CALLS = [
    ("todo_list", {}),
    ("todo_retrieve", {"pk": "1"}),
    ("todo_chart", {}),
    ("todo_create", {"title": ""}),  # refused: a todo needs a title
    ("todo_sync", {}),  # the showcase's failing view: a masked error
]


class Command(BaseCommand):
    help = (
        "Create the demo's users (an admin, and a user with a token) and a few todos and "
        "logged calls, then print how to connect."
    )

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/mcp")

    def handle(self, *args, url, **options):
        users = get_user_model().objects
        admin, created = users.get_or_create(
            username="admin", defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            admin.set_password("admin")
            admin.save()
        demo, created = users.get_or_create(username="demo")
        if created:
            demo.set_password("demo")
            demo.save()
        token, _ = Token.objects.get_or_create(user=demo)
        if not Todo.objects.filter(owner=demo).exists():
            for title, done in SAMPLE_TODOS:
                Todo.objects.create(owner=demo, title=title, done=done)
        if not ToolCall.objects.exists():
            self.sample_calls(demo)
        self.stdout.write(
            f"\nMCP endpoint:  {url}\n"
            f"Token:         {token.key}   (user 'demo'; it does not see the staff-only "
            "todo_stats)\n"
            f"Admin:         {url.rsplit('/', 1)[0]}/admin/   (user 'admin', password 'admin')\n\n"
            "The endpoint takes the token as 'Authorization: Token <key>' or "
            "'Authorization: Bearer <key>'.\n"
        )
        for config in configurations(url, token.key):
            text = config.text if config.language == "json" else f"  {config.text}"
            self.stdout.write(f"\n{config.client} ({config.where}):\n{text}\n")

    def sample_calls(self, user):
        path, endpoint = local.mounted_endpoint()
        request = local.endpoint_request(path, host="127.0.0.1:8000")
        request.user = user
        # todo_sync fails on purpose: its traceback would be logged, and it is no news here.
        logger = logging.getLogger("mcp_tools")
        level, logger.level = logger.level, logging.CRITICAL
        try:
            for name, arguments in SAMPLE_CALLS:
                local.call_tool(request, Caller.acting_as(user), name, arguments, endpoint=endpoint)
        finally:
            logger.level = level
