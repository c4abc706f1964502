"""The conformance server's WSGI entry point with its tools built at start-up.

``gunicorn --preload tests.conformance_app.prepared_wsgi:application``: ``warm_up()`` runs
in gunicorn's master, before its workers fork (tests/endpoint/test_startup.py).
"""

import mcp_tools
from tests.conformance_app.wsgi import application

mcp_tools.warm_up()

__all__ = ["application"]
