"""``@mcp_prompt``: a prompt declared in code (docs/prompts.md#prompts-in-code)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from .messages import Argument, check_arguments
from .registry import CodePrompt, Completer, PromptRegistry, prompt_registry

__all__ = ["mcp_prompt"]

F = TypeVar("F", bound=Callable[..., Any])
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def mcp_prompt(
    name: str | None = None,
    *,
    title: str | None = None,
    description: str | None = None,
    arguments: Sequence[Mapping[str, Any]] | None = None,
    complete: Mapping[str, Completer] | None = None,
    registry: PromptRegistry | None = None,
) -> Callable[[F], F]:
    """Declare ``function(request, **arguments)`` a prompt; return it unchanged.

    The function returns a string (the user's text) or a list of strings and
    ``{"role", "content"}`` messages; it may ask the client for input with
    ``mcp_tools.elicit``/``request_input`` on its ``request``, as a view does. Its
    arguments are its keyword parameters (required where they have no default), unless
    ``arguments`` declares them as a ``Prompt`` row does; ``complete`` maps an argument
    to a completion function ``(request, value, other_arguments) → values``.
    """
    if callable(name):
        raise TypeError("@mcp_prompt needs parentheses: @mcp_prompt() or @mcp_prompt('name')")

    def decorate(function: F) -> F:
        prompt_name = name or function.__name__
        if not NAME.match(prompt_name):
            raise ValueError(
                f"@mcp_prompt: {prompt_name!r} is no prompt name (letters, digits, _ . -; "
                "at most 64)"
            )
        declared = (
            tuple(check_arguments([dict(item) for item in arguments]))
            if arguments is not None
            else signature_arguments(function)
        )
        known = {argument.name for argument in declared}
        for argument in complete or {}:
            if argument not in known:
                raise ValueError(
                    f"@mcp_prompt {prompt_name}: complete names {argument!r}, no argument of it"
                )
        doc = inspect.getdoc(function) or ""
        (prompt_registry if registry is None else registry).register(
            CodePrompt(
                name=prompt_name,
                function=function,
                title=title or "",
                description=description if description is not None else doc.split("\n\n")[0],
                arguments=declared,
                completers=dict(complete or {}),
            )
        )
        return function

    return decorate


def signature_arguments(function: Callable[..., Any]) -> tuple[Argument, ...]:
    """Return the arguments of ``function(request, ...)``: its parameters after the first,
    required where they have no default."""
    parameters = list(inspect.signature(function).parameters.values())
    if not parameters:
        raise TypeError(f"@mcp_prompt: {function.__qualname__} must take the request first")
    found = []
    for parameter in parameters[1:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        required = parameter.default is parameter.empty
        found.append(Argument(parameter.name, required=required))
    return tuple(found)
