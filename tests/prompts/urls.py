"""An endpoint of its own for the prompts of a registry other than ``@mcp_prompt``'s
default (``MCPView.as_view(prompt_registry=...)``), at ``/own/mcp``."""

from django.urls import include, path

from mcp_tools import mcp_prompt
from mcp_tools.prompts.registry import PromptRegistry
from mcp_tools.views import MCPView

own = PromptRegistry()


@mcp_prompt(registry=own)
def own_prompt(request):
    """A prompt only the own endpoint serves."""
    return "Only here."


urlpatterns = [
    path("own/mcp", MCPView.as_view(prompt_registry=own)),
    path("", include("tests.urls")),
]
