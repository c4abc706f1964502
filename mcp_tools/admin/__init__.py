"""Django admin for the exposed tools, their call log and their tasks (docs/admin.md).

``admin.autodiscover()`` imports this package; importing its modules registers each model's
``ModelAdmin``: ``tools`` (``ExposedTool``), ``toolsets`` (``Toolset``), ``calls``
(``ToolCall``), ``tasks`` (``ToolTask``).
"""

from . import calls, tasks, tools, toolsets

__all__ = ["calls", "tasks", "tools", "toolsets"]
