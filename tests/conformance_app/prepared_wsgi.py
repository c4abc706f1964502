"""The conformance server's WSGI entry point with its tools built at start-up.

``gunicorn --preload tests.conformance_app.prepared_wsgi:application``: ``prepare()`` runs
in gunicorn's master, before its workers fork (tests/test_startup.py).
"""

import mcp_tools
from tests.conformance_app.wsgi import application

mcp_tools.prepare()

__all__ = ["application"]
