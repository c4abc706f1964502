"""The tool, found by django-mcp-server's autodiscovery of ``mcp`` modules."""

from mcp_server import drf_publish_list_mcp_tool

from .views import Trivial


# A subclass: the publisher patches the class it is given, which could then no longer be
# served directly.
@drf_publish_list_mcp_tool(name="trivial", instructions="Return a three-key object.")
class TrivialTool(Trivial):
    pass
