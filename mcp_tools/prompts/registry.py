"""``PromptRegistry``: the prompts declared in code with ``@mcp_prompt``.

An instance with a lazy default, as Django admin's ``site``: tests use a fresh one. Each
app's ``mcp_prompts`` module is imported when the project starts (``apps.ready``), as
each app's ``admin`` module is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:  # the endpoint imports this module: prompts.messages waits for a prompt
    from ..pipeline.invocation import Call
    from .messages import Argument

__all__ = ["CodePrompt", "PromptRegistry", "capabilities", "prompt_registry", "serves_prompts"]

#: A completion function: (the caller's request, the argument's value so far, the other
#: arguments) → values.
Completer = Callable[[Any, str, dict[str, str]], Any]


@dataclass(frozen=True)
class CodePrompt:
    """A prompt declared in code: its texts, its arguments, and the function that writes
    its messages (``function(request, **arguments)``)."""

    name: str
    function: Callable[..., Any]
    title: str = ""
    description: str = ""
    arguments: tuple[Argument, ...] = ()
    #: argument name → its completion function.
    completers: dict[str, Completer] = field(default_factory=dict)


class PromptRegistry:
    """The prompts declared in code, by name."""

    def __init__(self) -> None:
        self._prompts: dict[str, CodePrompt] = {}

    def register(self, prompt: CodePrompt) -> None:
        """Add ``prompt``; a second prompt of the same name is a start-up error."""
        known = self._prompts.get(prompt.name)
        if known is not None and known.function is not prompt.function:
            raise ImproperlyConfigured(
                f"@mcp_prompt: the name {prompt.name!r} is declared twice "
                f"({_where(known.function)} and {_where(prompt.function)})"
            )
        self._prompts[prompt.name] = prompt

    def get(self, name: str) -> CodePrompt | None:
        return self._prompts.get(name)

    def __iter__(self) -> Iterator[CodePrompt]:
        return iter(self._prompts.values())

    def __len__(self) -> int:
        return len(self._prompts)


def _where(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def serves_prompts(endpoint: object) -> bool:
    """Return whether ``endpoint`` serves prompts: its default catalog, no toolset, no tags."""
    return getattr(endpoint, "toolset", None) is None and getattr(endpoint, "tags", None) is None


def capabilities(call: Call, live: bool = False) -> dict[str, Any]:
    """Return the capabilities prompts and completion add at ``call``'s version; ``live``:
    where its server holds listeners' streams (docs/subscriptions.md)."""
    if not serves_prompts(call.endpoint):
        return {}
    found: dict[str, Any] = {"prompts": {"listChanged": live}}
    if call.version >= "2025-03-26":  # completions is declared since 2025-03-26
        found["completions"] = {}
    return found


#: The default registry, which ``@mcp_prompt`` fills unless given another.
prompt_registry = PromptRegistry()
