"""Building the tools at a server's start-up instead of at the first ``tools/list``.

By default nothing is built before it is needed: the first request that needs the tools
imports the URLconf, builds every tool's definition once for the process and reads the
admin state (docs/performance.md, "The first tools/list of a new process"). ``warm_up()``
does the same work at once, for a server's start-up: called in ``wsgi.py`` or ``asgi.py``
after the application is made, it runs before the server takes a request, and before
gunicorn's workers fork with ``--preload``, so they share what it built.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from django.db import connections

from ..catalog.admin_state import catalog_for
from ..tools.registry import RoutedTools
from .mounts import served_registries

logger = logging.getLogger("mcp_tools")


def warm_up(urlconf: str | None = None) -> None:
    """Build every tool ``urlconf`` serves (default: ``ROOT_URLCONF``) and read the admin state.

    Raises ``ImproperlyConfigured`` for a tool that can't be built, as the first request
    would. An admin state that can't be read yet (a database not migrated or not
    reachable, a shared cache down) is left to the first request, with a warning; a
    connection this opened is closed again, so no forked worker inherits it.
    """
    routed_sets = [registry.tools(urlconf) for registry in served_registries(urlconf)]
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        in_a_loop = False
    else:
        in_a_loop = True
    if not in_a_loop:
        read_admin_state(routed_sets)
        return
    # An ASGI server that imports the application inside its event loop: Django refuses
    # a query there, so the admin state is read on a thread of its own.
    thread = threading.Thread(target=read_admin_state, args=(routed_sets,), name="mcp-warm-up")
    thread.start()
    thread.join()


def read_admin_state(routed_sets: list[RoutedTools]) -> None:
    """Read the admin state of each tool set; close the connections this opened."""
    opened = [alias for alias in connections if connections[alias].connection is None]
    try:
        for routed in routed_sets:
            catalog_for(routed)
    except Exception as exc:
        # The database not migrated or not reachable, the shared cache (Redis) down: the
        # site starts all the same, and its first request reads the admin state.
        logger.warning("mcp_tools.warm_up: the admin state is left to the first request: %s", exc)
    finally:
        for alias in opened:
            connections[alias].close()
