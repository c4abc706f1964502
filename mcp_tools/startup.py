"""Building the tools at a server's start-up instead of at the first ``tools/list``.

By default nothing is built before it is needed: the first request that needs the tools
imports the URLconf, builds every tool's definition once for the process and reads the
admin state (docs/performance.md, "The first tools/list of a new process"). ``prepare()``
does the same work at once, for a server's start-up: called in ``wsgi.py`` or ``asgi.py``
after the application is made, it runs before the server takes a request, and before
gunicorn's workers fork with ``--preload``, so they share what it built.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connections

from .catalog import catalog_for
from .views import served_registries

logger = logging.getLogger("mcp_tools")


def prepare(urlconf: str | None = None) -> None:
    """Build every tool ``urlconf`` serves (default: ``ROOT_URLCONF``) and read the admin state.

    Raises ``ImproperlyConfigured`` for a tool that can't be built, as the first request
    would. A database that can't be read yet (not migrated, not reachable) leaves the admin
    state to the first request, with a warning; a connection this opened is closed again,
    so no forked worker inherits it.
    """
    toolsets = [registry.tools(urlconf) for registry in served_registries(urlconf)]
    opened = [alias for alias in connections if connections[alias].connection is None]
    try:
        for toolset in toolsets:
            catalog_for(toolset)
    except DatabaseError as exc:
        logger.warning("mcp_tools.prepare: the admin state is left to the first request: %s", exc)
    finally:
        for alias in opened:
            connections[alias].close()
