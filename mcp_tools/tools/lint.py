"""Tool definitions scored as a model reads them: six components, and the smells that lower them.

The components follow "MCP Tool Descriptions Are Smelly!" (2026): purpose; how to use the
tool; its limitations; its parameters explained; length and completeness; examples. Each
scores 0 (missing) to 2 (stated); each gap is a named smell with a level and a hint
(``manage.py mcp_lint``, docs/tools.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .naming import needs
from .tool import Tool

#: Smell levels, lowest first.
LEVELS = ("info", "warning", "error")
COMPONENTS = ("purpose", "usage", "limitations", "parameters", "length", "examples")

#: Characters per token, the approximation used without a tokenizer.
CHARS_PER_TOKEN = 4
#: A description shorter than this says too little; a definition longer than this costs a
#: model more steps than it saves (the study's finding on long descriptions).
MIN_DESCRIPTION_CHARS = 20
MAX_DEFINITION_TOKENS = 2000

LIMIT_WORDS = re.compile(
    r"\b(needs?|requires?|only|must|permission|allowed|throttl\w*|limit\w*)\b", re.I
)
RETURN_WORDS = re.compile(
    r"\b(returns?|answers?|results?|shows?|exports?|gives?|draws?|publish\w*|lists?|counts?)\b",
    re.I,
)
USAGE_WORDS = re.compile(r"\b(call|pass|use|with|give|send|set)\b", re.I)
EXAMPLE_WORDS = re.compile(r"\b(e\.g\.|for example|example)", re.I)


@dataclass(frozen=True)
class Smell:
    """One gap in a tool's definition."""

    component: str
    code: str
    level: str
    message: str
    hint: str


@dataclass
class Report:
    """A tool's scores (0-2 per component) and smells."""

    name: str
    tokens: int
    scores: dict[str, int] = field(default_factory=dict)
    smells: list[Smell] = field(default_factory=list)

    @property
    def score(self) -> int:
        return sum(self.scores.values())

    def smell(self, component: str, code: str, level: str, message: str, hint: str) -> None:
        self.smells.append(Smell(component, code, level, message, hint))
        self.scores[component] = min(self.scores[component], 0 if level != "info" else 1)


def definition_tokens(definition: dict[str, Any]) -> int:
    """Return a definition's size in tokens, as characters of its compact JSON ÷ 4."""
    text = json.dumps(definition, separators=(",", ":"), ensure_ascii=False, default=str)
    return round(len(text) / CHARS_PER_TOKEN)


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def lint_tool(tool: Tool, definition: dict[str, Any] | None = None) -> Report:
    """Score one tool's definition (as a client lists it) and name its smells."""
    definition = definition if definition is not None else tool.definition()
    description = str(definition.get("description") or "").strip()
    title = str(definition.get("title") or "").strip()
    schema = definition.get("inputSchema") or {}
    properties = _properties(schema)
    report = Report(tool.name, definition_tokens(definition), dict.fromkeys(COMPONENTS, 2))

    if len(description.split()) < 3 or description.rstrip(".").lower() == title.lower():
        report.smell(
            "purpose",
            "unclear-purpose",
            "error",
            "the description does not say what the tool does",
            "Start the view's docstring (or description=) with what the tool does, as a verb.",
        )

    undescribed = [name for name, prop in properties.items() if not _described(prop)]
    for name in undescribed:
        report.smell(
            "parameters",
            "undescribed-parameter",
            "warning",
            f"argument {name!r} has no description",
            "Give the serializer field (or filter) a help_text, or the model field a verbose_name.",
        )

    required = [name for name in schema.get("required", []) if name in properties]
    if required and undescribed and not USAGE_WORDS.search(description):
        report.smell(
            "usage",
            "no-usage",
            "warning",
            "neither the description nor the arguments say how to call the tool",
            "Describe the required arguments, or say in the description what to pass.",
        )

    restricted = needs(tool.operation)
    if restricted and not (LIMIT_WORDS.search(description) or _names_any(description, restricted)):
        report.smell(
            "limitations",
            "unstated-limitations",
            "warning",
            f"the view restricts its callers ({restricted}) and the description does not say so",
            "Let the description say who may call the tool and how often.",
        )

    if len(description) < MIN_DESCRIPTION_CHARS:
        report.smell(
            "length",
            "too-short",
            "warning",
            f"the description is {len(description)} characters long",
            "Say what the tool does, what it needs and what it returns in a sentence each.",
        )
    if "outputSchema" not in definition and not RETURN_WORDS.search(description):
        report.smell(
            "length",
            "no-return",
            "warning",
            "the description does not say what a call returns",
            "Name what the result holds, or advertise an output schema (include_output_schema).",
        )
    if report.tokens > MAX_DEFINITION_TOKENS:
        report.smell(
            "length",
            "too-long",
            "info",
            f"the definition is about {report.tokens} tokens",
            "Shorten the description, or leave long choice lists to a lookup tool.",
        )

    if properties and not (EXAMPLE_WORDS.search(description) or _has_examples(properties)):
        report.smell(
            "examples",
            "no-examples",
            "info",
            "no example of a call or of an argument",
            "Add an example call to the description, or examples= to an argument's schema.",
        )
    return report


def _described(prop: Any) -> bool:
    return isinstance(prop, dict) and bool(str(prop.get("description") or "").strip())


def _has_examples(properties: dict[str, Any]) -> bool:
    return any(isinstance(prop, dict) and "examples" in prop for prop in properties.values())


def _names_any(description: str, restricted: str) -> bool:
    names = re.findall(r"[A-Z]\w+", restricted)
    return any(name in description for name in names)


def at_or_above(smell: Smell, level: str) -> bool:
    """Return whether ``smell`` is at ``level`` or above it."""
    return LEVELS.index(smell.level) >= LEVELS.index(level)
