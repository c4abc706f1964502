"""The catalog: a tool set as admins configured it, for one version of the admin state.

The admin state (``ExposedTool`` rows) is read from the database once per version, not per
request. Every change saved in admin publishes a new version stamp in the shared cache
(``MCP_TOOLS["CACHE"]``). A process reads that stamp at most once per
``ADMIN_STATE_MAX_AGE`` (one cache read) and reloads the rows only when it changed, so a
change reaches every worker of every host within that time. When the cache has no stamp
(evicted, restarted), the stamp is computed from the database itself, so it is always the
same for the same state; with a per-process cache (``LocMemCache``, ``DummyCache``), which
can't carry a stamp to other processes, it is always computed from the database (one
query per ``ADMIN_STATE_MAX_AGE``; check ``mcp_tools.W032``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from django.core.cache import caches
from django.db import transaction
from django.db.models import F

from ..conf import mcp_settings
from ..core import broadcast
from ..core.shared_cache import is_per_process
from ..pipeline.plans import CallPlan
from ..protocol.content import TOOL_ANNOTATION_TYPES
from ..protocol.jsonrpc import RawJSON
from ..tools.definitions import with_overrides
from ..tools.registry import RoutedTools
from ..tools.tool import Tool

__all__ = ["Catalog", "catalog_for", "catalogs", "publish"]

logger = logging.getLogger("mcp_tools")

VERSION_KEY = "mcp_tools:admin-state"


@dataclass(frozen=True)
class Rule:
    """What the admin said of one tool; the defaults are those of a tool with no row."""

    enabled: bool = True
    #: Only members of these groups see and call the tool; empty: everyone.
    group_ids: frozenset[int] = frozenset()
    title: str = ""
    description: str = ""
    annotations: dict[str, Any] = field(default_factory=dict)
    include_structured_content: bool | None = None
    include_output_schema: bool | None = None
    #: Listed in discovery mode too (docs/tools.md#large-apis).
    pinned: bool = False

    @property
    def overrides(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "description": self.description,
            "annotations": self.annotations,
            "include_structured_content": self.include_structured_content,
            "include_output_schema": self.include_output_schema,
        }


DEFAULT_RULE = Rule()
#: The rule of a tool no row names yet (a deploy before its sync) when new tools start
#: disabled (``NEW_TOOLS_ENABLED = False``): hidden until staff enable it.
UNLISTED_DISABLED = Rule(enabled=False)


@dataclass(frozen=True)
class ToolsetRule:
    """What a toolset holds: the tools it names, and those with one of its tags."""

    names: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()

    def holds(self, tool: Tool) -> bool:
        return tool.name in self.names or bool(self.tags.intersection(tool.options.tags))


@dataclass(frozen=True)
class AdminState:
    """Every tool's rule, as of one version stamp."""

    version: str
    rules: dict[str, Rule]
    #: The names that have a row (those whose rule is the default are not in ``rules``).
    listed: frozenset[str] = frozenset()
    #: The toolsets, by name (docs/tools.md#toolsets).
    toolsets: dict[str, ToolsetRule] = field(default_factory=dict)

    def rule(self, name: str) -> Rule:
        rule = self.rules.get(name)
        if rule is not None:
            return rule
        if name in self.listed or mcp_settings.NEW_TOOLS_ENABLED is True:
            return DEFAULT_RULE
        return UNLISTED_DISABLED


def database_version() -> str:
    """Read the admin state's version stamp from the database (the cache's fallback): the
    row's epoch and the number every publish bumps (``AdminStateVersion``), one query.

    A stamp never comes back: a row made again (after a ``flush``, or a restored backup)
    has a new epoch, and without a row each read is a stamp of its own, so every process
    reloads the state until the next publish makes one.
    """
    from ..models import AdminStateVersion, new_epoch

    row = AdminStateVersion.objects.filter(pk=1).values_list("epoch", "number").first()
    if row is None:
        return f"none.{new_epoch()}"
    epoch, number = row
    return f"{epoch}.{number}"


def bump_version() -> str:
    """Add one to the database's version number; return the new stamp."""
    from ..models import AdminStateVersion

    with transaction.atomic():
        if not AdminStateVersion.objects.filter(pk=1).update(number=F("number") + 1):
            # The row of the migration is gone: start again (two processes may race here).
            row, created = AdminStateVersion.objects.select_for_update().get_or_create(pk=1)
            if not created:
                AdminStateVersion.objects.filter(pk=1).update(number=F("number") + 1)
    return database_version()


def read_version() -> str:
    """Read the admin state's version stamp: the shared cache's, else the database's."""
    cache = caches[mcp_settings.CACHE]
    if is_per_process(cache):
        return database_version()
    version = cache.get(VERSION_KEY)
    if version is None:
        version = database_version()
        cache.add(VERSION_KEY, version, timeout=None)
    return str(version)


def publish() -> str:
    """Publish a new version of the admin state: every worker reloads it within
    ``ADMIN_STATE_MAX_AGE``, this process at once.

    Called after every change saved through the models (admin, ``mcp_sync``); call it after
    changing rows with ``QuerySet.update()``, which sends no signal. Clients listening for
    changes hear of it (docs/subscriptions.md): at once where the shared cache is Redis.
    """
    version = bump_version()
    cache = caches[mcp_settings.CACHE]
    if not is_per_process(cache):
        cache.set(VERSION_KEY, version, timeout=None)
    catalogs.saw(version)
    broadcast.publish({"admin": version})
    return version


def _valid_annotations(name: str, annotations: object) -> dict[str, Any]:
    """Keep the annotation overrides the protocol defines; drop (and log) any other."""
    if not isinstance(annotations, dict):
        logger.warning("Tool %s: the admin's annotations are not an object; ignored", name)
        return {}
    kept = {
        key: value
        for key, value in annotations.items()
        if key in TOOL_ANNOTATION_TYPES and isinstance(value, TOOL_ANNOTATION_TYPES[key])
    }
    if len(kept) != len(annotations):
        logger.warning("Tool %s: invalid admin annotations ignored", name)
    return kept


def load_state(version: str) -> AdminState:
    """Read every ``ExposedTool`` row (one query for the rows, one for their groups).

    The rows are read as values, not model instances: a catalog of hundreds of tools has as
    many rows, and this is on the way of the first ``tools/list`` after every change.
    """
    from ..models import ExposedTool

    rows = list(
        ExposedTool.objects.values_list(
            "pk",
            "name",
            "enabled",
            "title",
            "description",
            "annotations",
            "include_structured_content",
            "include_output_schema",
            "pinned",
        )
    )
    groups: dict[int, set[int]] = {}
    if rows:
        field: Any = ExposedTool._meta.get_field("allowed_groups")
        through: Any = ExposedTool.allowed_groups.through
        links = through.objects.values_list(
            f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"
        )
        for tool_id, group_id in links:
            groups.setdefault(tool_id, set()).add(group_id)
    rules = {}
    for pk, name, enabled, title, description, hints, structured, advertised, pinned in rows:
        rule = Rule(
            enabled=enabled,
            group_ids=frozenset(groups.get(pk, ())),
            title=title,
            description=description,
            annotations=_valid_annotations(name, hints),
            include_structured_content=structured,
            include_output_schema=advertised,
            pinned=pinned,
        )
        if rule != DEFAULT_RULE:  # most rows say nothing: a tool without one is the same
            rules[name] = rule
    return AdminState(version, rules, frozenset(row[1] for row in rows), load_toolsets())


def load_toolsets() -> dict[str, ToolsetRule]:
    """Read every ``Toolset`` and the names of its tools (two queries)."""
    from ..models import Toolset

    sets = list(Toolset.objects.values_list("pk", "name", "tags"))
    if not sets:
        return {}
    names: dict[int, set[str]] = {}
    links = Toolset.tools.through.objects.values_list("toolset_id", "exposedtool__name")
    for toolset_id, name in links:
        names.setdefault(toolset_id, set()).add(name)
    return {
        name: ToolsetRule(frozenset(names.get(pk, ())), frozenset(_strings(tags)))
        for pk, name, tags in sets
    }


def _strings(value: object) -> list[str]:
    """The tags of a toolset's row: a list of strings (the form checks it; a row written
    otherwise holds none)."""
    return [tag for tag in value if isinstance(tag, str)] if isinstance(value, list) else []


class Catalog:
    """One tool set with the admin's rules applied: each tool as callers see it."""

    def __init__(self, routed: RoutedTools, state: AdminState) -> None:
        self.routed = routed
        self.state = state
        self.tools: dict[str, Tool] = {}
        for tool in routed:
            rule = state.rule(tool.name)
            self.tools[tool.name] = with_overrides(tool, **rule.overrides)
        #: Encoded tools/list pages, built once per key (see handlers.list_tools).
        self.pages: OrderedDict[Hashable, RawJSON] = OrderedDict()
        #: Each tool's call plan, made at its first call (``plan``).
        self._plans: dict[str, CallPlan] = {}

    @property
    def version(self) -> str:
        return self.state.version

    def rule(self, name: str) -> Rule:
        return self.state.rule(name)

    def plan(self, tool: Tool) -> CallPlan:
        """Return what every call of ``tool`` (one of this catalog's) shares: made once,
        and again only when the settings change (docs/performance.md#the-call-plan)."""
        plan = self._plans.get(tool.name)
        if plan is None or not plan.current:
            plan = self._plans[tool.name] = CallPlan(tool)  # a race makes it twice: harmless
        return plan

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools.values())


class _Catalogs:
    """The process's catalogs: one per tool set, rebuilt when the admin state changes.

    ``load`` reads the rows of one version: ``load_state`` (``ExposedTool``), or the
    resources' (``mcp_tools.resources.state``); all share the one version stamp."""

    def __init__(self, load: Callable[[str], AdminState] | None = None) -> None:
        self._load = load or load_state
        self._lock = threading.Lock()
        self._state: AdminState | None = None
        self._catalogs: WeakKeyDictionary[RoutedTools, Catalog] = WeakKeyDictionary()
        #: The version stamp last read, and when (``time.monotonic()``).
        self._seen: tuple[str, float] | None = None
        #: The other sets of catalogs under the same stamp, told of what this one publishes.
        self._others: list[_Catalogs] = []

    def sharing(self, load: Callable[[str], AdminState]) -> _Catalogs:
        """Return catalogs of other rows (``load``) under this one's version stamp."""
        other = _Catalogs(load)
        self._others.append(other)
        return other

    def version(self) -> str:
        """Return the admin state's version stamp, read at most once per
        ``ADMIN_STATE_MAX_AGE``."""
        seen = self._seen
        now = time.monotonic()
        if seen is not None and now - seen[1] < mcp_settings.ADMIN_STATE_MAX_AGE:
            return seen[0]
        version = read_version()
        self._seen = (version, now)
        return version

    def saw(self, version: str) -> None:
        """Take ``version`` as read now: this process published it."""
        self._seen = (version, time.monotonic())
        for other in self._others:
            other.saw(version)

    def get(self, routed: RoutedTools) -> Catalog:
        version = self.version()
        catalog = self._catalogs.get(routed)
        if catalog is not None and catalog.version == version:
            return catalog
        with self._lock:
            state = self._state
            if state is None or state.version != version:
                state = self._state = self._load(version)
            catalog = self._catalogs.get(routed)
            if catalog is None or catalog.version != version:
                catalog = self._catalogs[routed] = Catalog(routed, state)
        return catalog

    def clear(self) -> None:
        with self._lock:
            self._state = None
            self._catalogs = WeakKeyDictionary()
            self._seen = None
        for other in self._others:
            other.clear()


catalogs = _Catalogs()


def current_version() -> str:
    """Return the admin state's version stamp as this process knows it (at most
    ``ADMIN_STATE_MAX_AGE`` old)."""
    return catalogs.version()


def catalog_for(routed: RoutedTools) -> Catalog:
    """Return the catalog of ``routed`` for the admin state's current version."""
    return catalogs.get(routed)
