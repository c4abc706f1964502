"""The prompts one request may see: the admin's rows and the code's, by the tools' rule.

A row is seen by whom ``catalog.visibility``'s ``rule_admits`` admits (enabled, and one of
its groups if it names any), the one rule of tools; a prompt declared in code by every
caller the endpoint admits. A row named as a code prompt stands in for it: staff can
rewrite or restrict it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..catalog.admin_state import Rule
from ..models import Prompt
from .messages import Argument, check_arguments
from .registry import CodePrompt, PromptRegistry, prompt_registry

__all__ = ["ServedPrompt", "prompt_rows", "served_prompts"]


@dataclass(frozen=True)
class ServedPrompt:
    """One prompt as a request sees it: from a row of the admin, or from code."""

    name: str
    title: str
    description: str
    arguments: tuple[Argument, ...]
    row: Prompt | None = None
    code: CodePrompt | None = None

    def definition(self, version: str) -> dict[str, Any]:
        """Return the wire ``Prompt`` of ``prompts/list`` at ``version``."""
        wire: dict[str, Any] = {"name": self.name}
        if self.title and version >= "2025-06-18":  # title is 2025-06-18's
            wire["title"] = self.title
        if self.description:
            wire["description"] = self.description
        wire["arguments"] = [argument.wire() for argument in self.arguments]
        return wire


def of_row(row: Prompt) -> ServedPrompt:
    try:
        arguments = tuple(check_arguments(row.arguments))
    except ValueError:
        arguments = ()  # saved past the form (a shell, a fixture): served without them
    return ServedPrompt(row.name, row.title, row.description, arguments, row=row)


def of_code(code: CodePrompt) -> ServedPrompt:
    return ServedPrompt(code.name, code.title, code.description, code.arguments, code=code)


def prompt_rows() -> Iterator[tuple[Prompt, Rule]]:
    """Each ``Prompt`` row with the admin's rule of who sees it (enabled, its groups), in
    two queries."""
    for row in Prompt.objects.prefetch_related("allowed_groups"):
        groups = frozenset(group.pk for group in row.allowed_groups.all())
        yield row, Rule(enabled=row.enabled, group_ids=groups)


def served_prompts(
    admits: Callable[[Rule], bool], registry: PromptRegistry | None = None
) -> tuple[list[ServedPrompt], bool]:
    """Return the prompts ``admits`` lets a caller see, by name, and whether any was hidden
    from this caller (the list then depends on who asks)."""
    registry = prompt_registry if registry is None else registry
    found: dict[str, ServedPrompt] = {code.name: of_code(code) for code in registry}
    hidden = False
    for row, rule in prompt_rows():
        found.pop(row.name, None)  # a row stands in for the code prompt of its name
        if admits(rule):
            found[row.name] = of_row(row)
        else:
            hidden = True
    return [found[name] for name in sorted(found)], hidden
