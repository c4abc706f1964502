"""Lazy exports: a package's ``__all__``, each name imported on its first access (PEP 562).

The root's way (``mcp_tools.mcp_tool``), for every folder: ``from mcp_tools.tasks import
DjangoTasksExecutor`` imports the one module that defines it, and importing a folder costs
nothing until a name is read.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module

__all__ = ["lazy_exports"]


def lazy_exports(package: str, locations: Mapping[str, str]) -> Callable[[str], object]:
    """Return the module ``__getattr__`` of ``package``: each name of ``locations`` (name →
    the module that defines it, relative to ``package``) imported when first read, then
    kept on the package."""

    def __getattr__(name: str) -> object:
        try:
            module = locations[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value: object = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
