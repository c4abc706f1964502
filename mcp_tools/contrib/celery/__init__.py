"""MCP tasks run by Celery's workers instead of Django's tasks framework.

Add ``"mcp_tools.contrib.celery"`` to ``INSTALLED_APPS`` (so the project's Celery app,
with ``app.autodiscover_tasks()``, registers ``mcp_tools.contrib.celery.tasks``) and set
``MCP_TOOLS["TASK_EXECUTOR"] = "mcp_tools.contrib.celery.executor.CeleryExecutor"``; install
with ``pip install "django-mcp-tools[celery]"``. See docs/tasks.md#celery.
"""
