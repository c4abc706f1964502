"""Django admin for the exposed tools, their call log and their tasks (docs/admin.md).

``admin.autodiscover()`` imports this package; importing its modules registers each model's
``ModelAdmin``: ``tools`` (``ExposedTool``), ``resources`` (``ExposedResource``),
``toolsets`` (``Toolset``), ``prompts`` (``Prompt``), ``calls`` (``ToolCall``), ``tasks``
(``ToolTask``).
"""

from . import calls, prompts, resources, tasks, tools, toolsets

__all__ = ["calls", "prompts", "resources", "tasks", "tools", "toolsets"]
