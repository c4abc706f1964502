"""A resource: one GET view of the URLconf read by URI (docs/resources.md).

A routed view with URL parameters is a resource template whose variables are those
parameters (``orders://{pk}``); one without is a listed resource with a fixed URI. The view
itself is a ``Tool`` of the resource registry's own tool registry: reading it is calling it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import unquote

from ..tools.tool import Tool

__all__ = ["Resource", "ResourceOptions", "variables_of"]

#: A template's ``{variable}`` (RFC 6570 level 1, the level resource templates use).
VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class ResourceOptions:
    """What ``@mcp_resource`` (or ``expose(..., resource=...)``) says of a view."""

    uri_template: str | None = None
    uri: str | None = None
    name: str | None = None
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None


def variables_of(template: str) -> tuple[str, ...]:
    """Return the ``{variables}`` of a URI template, in order."""
    return tuple(VARIABLE.findall(template))


@dataclass(frozen=True, eq=False)
class Resource:
    """One resource (``uri``) or resource template (``uri_template``) and the tool that
    reads it."""

    tool: Tool
    name: str
    #: The fixed URI of a listed resource, or the URI template of a template.
    address: str
    is_template: bool
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The regular expression a URI of this resource matches, a group per variable
        (built once: a frozen dataclass without slots keeps it in its ``__dict__``)."""
        parts = VARIABLE.split(self.address)
        regex = "".join(
            f"(?P<{part}>[^/?#]+)" if index % 2 else re.escape(part)
            for index, part in enumerate(parts)
        )
        return re.compile(regex)

    def match(self, uri: str) -> dict[str, str] | None:
        """Return the variables ``uri`` gives this resource, or None when it is not one
        of its URIs."""
        if not self.is_template:
            return {} if uri == self.address else None
        found = self.pattern.fullmatch(uri)
        if found is None:
            return None
        return {key: unquote(value) for key, value in found.groupdict().items()}

    def definition(self, title: str = "", description: str = "") -> dict[str, Any]:
        """Return the ``Resource`` (or ``ResourceTemplate``) object of this resource, the
        admin's ``title`` and ``description`` over the code's."""
        key = "uriTemplate" if self.is_template else "uri"
        found: dict[str, Any] = {key: self.address, "name": self.name}
        if title or self.title:
            found["title"] = title or self.title
        described = description or self.description or str(self.tool.description or "")
        if described:
            found["description"] = described
        if self.mime_type:
            found["mimeType"] = self.mime_type
        return found
