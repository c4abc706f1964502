"""What a new version of the admin state changed: per kind (tools, resources, prompts), the
names whose row changed, and the rule each had before and after.

A process that holds listeners reads the rows of each new version once (``snapshot``), and
tells each listener the kinds whose change it may see (``Listener.changed``): a tool hidden
from the caller before and after (disabled, or restricted to groups the caller is not in)
changed nothing that caller's list shows (docs/subscriptions.md#what-a-client-hears).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..catalog.admin_state import UNLISTED_DISABLED, AdminState, Rule, load_state
from ..conf import mcp_settings
from ..prompts.served import prompt_rows
from ..resources.state import load_resource_state

__all__ = ["KINDS", "Change", "Snapshot", "diff", "snapshot"]

#: The kinds of list a client may hear has changed, by the capability that names them.
KINDS = ("tools", "resources", "prompts")


@dataclass(frozen=True)
class Entry:
    """One row of the admin: who sees it (``rule``), and what the lists show of it."""

    rule: Rule
    shown: str = ""


@dataclass(frozen=True)
class Snapshot:
    """The admin's rows of one version, by kind and name; the toolsets' contents."""

    version: str
    entries: dict[str, dict[str, Entry]]
    #: Each toolset's tool names and tags, written out (compared, never read).
    toolsets: str = ""
    #: The rule of a tool with no row (``NEW_TOOLS_ENABLED``) in this version.
    unlisted: Rule = field(default_factory=Rule)

    def rule(self, kind: str, name: str) -> Rule | None:
        entry = self.entries[kind].get(name)
        if entry is not None:
            return entry.rule
        return self.unlisted if kind == "tools" else None


@dataclass(frozen=True)
class Change:
    """What changed between two versions, for one kind: each changed name with its rule
    before and after (None: no row, or no such prompt)."""

    kind: str
    rules: dict[str, tuple[Rule | None, Rule | None]]
    #: A toolset's tools changed: every toolset's endpoint lists anew.
    toolsets: bool = False


def _entries(state: AdminState) -> dict[str, Entry]:
    return {name: Entry(state.rule(name)) for name in state.listed}


def _prompts() -> dict[str, Entry]:
    found = {}
    for row, rule in prompt_rows():
        shown = json.dumps([row.title, row.description, row.arguments], sort_keys=True)
        found[row.name] = Entry(rule, shown)
    return found


def snapshot(version: str) -> Snapshot:
    """Read the admin's rows of every kind (about six queries): once per new version, by a
    process that holds listeners."""
    tools = load_state(version)
    toolsets = json.dumps(
        {name: [sorted(rule.names), sorted(rule.tags)] for name, rule in tools.toolsets.items()},
        sort_keys=True,
    )
    unlisted = Rule() if mcp_settings.NEW_TOOLS_ENABLED is True else UNLISTED_DISABLED
    entries = {
        "tools": _entries(tools),
        "resources": _entries(load_resource_state(version)),
        "prompts": _prompts(),
    }
    return Snapshot(version, entries, toolsets, unlisted)


def diff(old: Snapshot, new: Snapshot) -> list[Change]:
    """Return what changed from ``old`` to ``new``, kind by kind (kinds with no change left
    out)."""
    changes = []
    for kind in KINDS:
        before, after = old.entries[kind], new.entries[kind]
        rules: dict[str, Any] = {}
        for name in before.keys() | after.keys():
            if before.get(name) != after.get(name):
                rules[name] = (old.rule(kind, name), new.rule(kind, name))
        toolsets = kind == "tools" and old.toolsets != new.toolsets
        if rules or toolsets:
            changes.append(Change(kind, rules, toolsets))
    return changes
