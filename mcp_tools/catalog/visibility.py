"""Who sees which tool: the one rule of ``tools/list`` and ``tools/call``.

A caller sees, and may call, a tool when the admin has it enabled, the caller is in one of
its allowed groups (if it has any), and the view's permission classes admit the caller:
``has_permission`` on a view set up for that action, with a request as the view itself
would see the caller. Object permissions (``has_object_permission``) are the view's to
check when it runs, as in DRF. A hidden tool is an unknown tool, never a 403 that names it,
but for an OAuth token that lacks only scopes (``missing_scopes``: the 403 of a step-up).

Most views share a few permission classes that read nothing but the caller and the method
(DRF's ``AllowAny``, ``IsAuthenticated``, ``IsAdminUser``, ``IsAuthenticatedOrReadOnly``):
those are asked once per request and per (classes, method, authentication), whatever the
number of tools, and the list they give is kept per catalog and per answer.

DRF's model permissions (``DjangoModelPermissions`` and its subclasses, NetBox's and
Nautobot's ``TokenPermissions``) read the model of the view's queryset and the caller's
permissions on it. Where a view declares its ``queryset``, they are asked with that
queryset, not what its ``get_queryset()`` builds (a restricted, optimised queryset costs
Nautobot 2.7 ms a view, 3 s a listing): the model it declares is the model it lists. The
view's other permission classes see the view itself. A view that refuses a caller inside
``get_queryset()`` refuses them when it runs, as it does a direct request. DRF's own model
permission classes are moreover asked once per (model, method, authentication), as the
caller-only ones are (docs/performance.md#a-listing-of-a-large-api).
"""

from __future__ import annotations

import copy
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from django.db.models import QuerySet
from django.http import HttpRequest
from rest_framework.authentication import (
    BasicAuthentication,
    RemoteUserAuthentication,
    SessionAuthentication,
    TokenAuthentication,
)
from rest_framework.exceptions import APIException
from rest_framework.parsers import JSONParser
from rest_framework.permissions import (
    AllowAny,
    BasePermission,
    DjangoModelPermissions,
    DjangoModelPermissionsOrAnonReadOnly,
    DjangoObjectPermissions,
    IsAdminUser,
    IsAuthenticated,
    IsAuthenticatedOrReadOnly,
)
from rest_framework.request import Request
from rest_framework.views import APIView

from ..auth.caller import Caller, picks_own_authenticators
from ..auth.refusals import missing_scopes
from ..authentication import BearerTokenAuthentication
from ..tools.naming import permission_name
from ..tools.tool import Tool
from .admin_state import Catalog, Rule

logger = logging.getLogger("mcp_tools")

#: Authentication classes whose answer depends only on what the view's request carries of
#: the /mcp request (its headers, cookies, the client's address, the session's user) and
#: the method: whom they accepted when visibility asked them, on a copy of the /mcp request,
#: is whom they would accept on the view's. A class that reads the path, the query or the
#: body (a signature, an OAuth audience, a key bound to a tenant's URL), or any subclass,
#: authenticates again on the view's own request.
HEADER_AUTHENTICATION = frozenset(
    {
        BasicAuthentication,
        BearerTokenAuthentication,
        RemoteUserAuthentication,
        SessionAuthentication,
        TokenAuthentication,
    }
)


def reads_headers_only(request: Request) -> bool:
    """Whether each class that authenticated ``request`` (a copy of the /mcp request) reads
    only what the view's request carries too (``HEADER_AUTHENTICATION``): a class that
    reads more may refuse there, even one before the class that accepted."""
    return HEADER_AUTHENTICATION.issuperset(type(each) for each in request.authenticators or ())


#: DRF's permission classes whose answer depends on the request's user and method alone.
CALLER_ONLY_PERMISSIONS = frozenset(
    {AllowAny, IsAuthenticated, IsAdminUser, IsAuthenticatedOrReadOnly}
)

#: DRF's permission classes whose ``has_permission`` depends on the request's user and
#: method and the model of the view's queryset alone (the object's permissions are the
#: view's to check when it runs).
MODEL_PERMISSIONS = frozenset(
    {DjangoModelPermissions, DjangoModelPermissionsOrAnonReadOnly, DjangoObjectPermissions}
)

#: Tools whose permission classes raised: warned about once per process.
_warned: set[str] = set()
_warned_lock = threading.Lock()


def access_key(tool: Tool) -> Hashable | None:
    """Return what the tool's ``has_permission`` depends on, when it is only the caller
    (and the model the view declares).

    Tools with equal keys get the same answer for the same caller; None means the view's
    permission classes may look at anything (the view, its queryset, settings) and are
    asked for this tool alone (once per request).
    """
    view_class = tool.view_class
    classes = tool.declared("permission_classes")
    if view_class.get_permissions is not APIView.get_permissions or classes is None:
        return None
    if set(classes) <= {AllowAny}:
        return "anyone"
    # What the view sees of the caller depends on its own authentication.
    if all(cls in CALLER_ONLY_PERMISSIONS for cls in classes):
        return classes, tool.method, tool.authentication
    queryset = declared_queryset(view_class)
    if queryset is not None and all(
        cls in CALLER_ONLY_PERMISSIONS | MODEL_PERMISSIONS for cls in classes
    ):
        ignored = getattr(view_class, "_ignore_model_permissions", False)
        return classes, tool.method, tool.authentication, queryset.model, ignored
    return None


def declared_queryset(view_class: type[APIView]) -> QuerySet | None:
    """Return the queryset ``view_class`` declares (``queryset = Device.objects.all()``), or
    None."""
    queryset = getattr(view_class, "queryset", None)
    return queryset if isinstance(queryset, QuerySet) else None


class DeclaredQueryset:
    """A view as DRF's model permissions are asked it: its declared queryset in place of what
    its ``get_queryset()`` builds; everything else the view's own."""

    def __init__(self, view: APIView, queryset: QuerySet) -> None:
        self._view = view
        self._queryset = queryset

    def get_queryset(self) -> QuerySet:
        return self._queryset.all()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._view, name)


#: Lists kept per catalog (one per distinct signature and endpoint).
MAX_LISTS = 256


class Plan:
    """What the visibility of one catalog's tools depends on, worked out once per version."""

    def __init__(self, catalog: Catalog) -> None:
        self.keys: dict[str, Hashable | None] = {tool.name: access_key(tool) for tool in catalog}
        #: One tool per distinct key: its answer is every such tool's.
        self.shared: dict[Hashable, Tool] = {}
        for tool in catalog:
            key = self.keys[tool.name]
            if key is not None:
                self.shared.setdefault(key, tool)
        #: Whether a tool's permission classes must be asked for that tool alone.
        self.uncached = any(key is None for key in self.keys.values())
        #: The tools in URLconf order: a page of ``Visibility.page`` starts at a position.
        self.ordered: list[Tool] = list(catalog)
        #: The groups some rule names: a caller's other groups change nothing.
        self.rule_groups = frozenset(
            group for tool in catalog for group in catalog.rule(tool.name).group_ids
        )
        self.lists: OrderedDict[Hashable, list[Tool]] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, key: Hashable, tools: list[Tool]) -> None:
        with self._lock:
            self.lists[key] = tools
            while len(self.lists) > MAX_LISTS:
                self.lists.popitem(last=False)


_plans: WeakKeyDictionary[Catalog, Plan] = WeakKeyDictionary()


def plan_for(catalog: Catalog) -> Plan:
    plan = _plans.get(catalog)
    if plan is None:
        plan = _plans[catalog] = Plan(catalog)  # a race builds it twice: harmless
    return plan


class Visibility:
    """Decide, for one /mcp request, which tools its caller sees."""

    def __init__(self, request: HttpRequest, caller: Caller, endpoint: object = None) -> None:
        self.request = request
        self.caller = caller
        #: The endpoint the request is for: the view's requests are for its resource too
        #: (their parsers' ``view``; nothing here reads it).
        self.endpoint = endpoint
        self._group_ids: frozenset[int] | None = None
        #: Per (method, authentication): the view's request, or None when the view's own
        #: authentication refuses the caller's credentials.
        self._requests: dict[Hashable, Request | None] = {}
        #: Per access key: the answer of the permission classes for this caller.
        self._answers: dict[Hashable, bool] = {}

    def visible_tools(
        self, catalog: Catalog, serves: Callable[[Tool], bool], endpoint: Hashable
    ) -> tuple[list[Tool], Hashable]:
        """Return the tools of ``catalog`` this caller sees among those ``serves`` keeps, and
        what the list depends on (a cache key for what is built from it)."""
        plan = plan_for(catalog)
        signature = self.signature(plan)
        if signature is None:
            tools = [tool for tool in catalog if serves(tool) and self.sees(tool, catalog)]
            return tools, tuple(tool.name for tool in tools)
        key = (signature, endpoint)
        cached = plan.lists.get(key)
        if cached is None:
            cached = [tool for tool in catalog if serves(tool) and self.sees(tool, catalog)]
            plan.remember(key, cached)
        return cached, key

    def asks_each_tool(self, catalog: Catalog) -> bool:
        """Return whether some tool's permission classes must be asked for that tool alone
        (a project's own classes): no list of this caller's tools can be kept."""
        return plan_for(catalog).uncached

    def page(
        self, catalog: Catalog, serves: Callable[[Tool], bool], start: int, size: int
    ) -> tuple[list[Tool], int | None]:
        """Return up to ``size`` tools this caller sees, found from the catalog's position
        ``start`` on, and the position of the next one it sees (the next page's start), or
        None: each tool is asked once, for the page it is on, not for every page."""
        ordered = plan_for(catalog).ordered
        found: list[Tool] = []
        for index in range(start, len(ordered)):
            tool = ordered[index]
            if not (serves(tool) and self.sees(tool, catalog)):
                continue
            if len(found) == size:
                return found, index
            found.append(tool)
        return found, None

    def signature(self, plan: Plan) -> Hashable | None:
        """Return everything this caller's list depends on, or None when it can't be said.

        The answers for each access key, and the caller's groups among those the rules
        name: equal signatures give equal lists, so one list serves them all.
        """
        if plan.uncached:
            return None  # some tool's permission classes must be asked one by one
        answers = tuple(self.answer(key, tool) for key, tool in plan.shared.items())
        groups = self.group_ids() & plan.rule_groups if plan.rule_groups else frozenset()
        return answers, groups

    def sees(self, tool: Tool, catalog: Catalog) -> bool:
        """Return whether the caller sees (and may call) ``tool`` of ``catalog``."""
        if not self.rule_admits(catalog.rule(tool.name)):
            return False
        key = plan_for(catalog).keys.get(tool.name)
        return self.answer(("tool", tool.name) if key is None else key, tool)

    def read_groups(self, catalog: Catalog) -> None:
        """Read the caller's groups when a rule of ``catalog`` names any (once per request),
        whichever tool is asked for, or none."""
        if plan_for(catalog).rule_groups:
            self.group_ids()

    def answer(self, key: Hashable, tool: Tool) -> bool:
        """Return the permission classes' answer shared by the tools of ``key`` (asked once)."""
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = key == "anyone" or self.permitted(tool)
        return answer

    def rule_admits(self, rule: Rule) -> bool:
        """Return whether the admin's rule admits the caller: enabled, and its groups."""
        return rule.enabled and not (rule.group_ids and not rule.group_ids & self.group_ids())

    def missing_scopes(self, tool: Tool, rule: Rule) -> list[str] | None:
        """Return the scopes the caller's token needs for ``tool`` when they are all it
        lacks (the admin's rule admits the caller), else None: a step-up can help.

        Asked of the authentication class that accepted the token (``insufficient_scope``,
        ``mcp_tools.contrib.oauth``); the view's own permission classes say what they need.
        """
        if not self.rule_admits(rule):
            return None
        request = self.view_request(tool)
        if request is None:
            return None
        view = tool.operation.view_with(request)
        try:
            return missing_scopes(self.caller.authenticator, request, view)
        except Exception:
            logger.warning(
                "Tool %s: its required scopes could not be read", tool.name, exc_info=True
            )
            return None

    def group_ids(self) -> frozenset[int]:
        """Return the caller's groups, read once per request, and only if a rule needs them."""
        if self._group_ids is None:
            user = self.caller.user
            if getattr(user, "is_authenticated", False):
                self._group_ids = frozenset(user.groups.values_list("pk", flat=True))
            else:
                self._group_ids = frozenset()
        return self._group_ids

    def permitted(self, tool: Tool) -> bool:
        """Return whether the view's permission classes admit the caller (``has_permission``)."""
        return self.refusing(tool) is None

    def refusing(self, tool: Tool) -> Reason | None:
        """Return what of the view refuses the caller: its authentication (it refuses the
        caller's credentials) or the first permission class that says no; None: admitted."""
        request = self.view_request(tool)
        if request is None:
            # The view's own authentication refuses the caller's credentials.
            return authentication_refusal(tool)
        view = tool.operation.view_with(request)
        queryset = declared_queryset(tool.view_class)
        declared = view if queryset is None else DeclaredQueryset(view, queryset)
        permission: BasePermission | None = None
        try:
            for permission in view.get_permissions():
                # A model permission reads the model it declares; any other class, the view.
                asked: Any = declared if isinstance(permission, DjangoModelPermissions) else view
                if not permission.has_permission(request, asked):
                    return Reason.of_permission(permission)
        except APIException as exc:
            # NotAuthenticated, PermissionDenied raised rather than returned.
            return Reason.of_permission(permission, str(exc.detail))
        except Exception:
            # A permission class that can't answer here (it needs the object, a queryset the
            # view builds late, ...): listed, and the view decides when it runs.
            with _warned_lock:
                first = tool.name not in _warned
                _warned.add(tool.name)
            if first:
                logger.warning(
                    "Tool %s: its permission classes raised on has_permission; it is listed to "
                    "every caller and the view decides when it runs",
                    tool.name,
                    exc_info=True,
                )
        return None

    def view_request(self, tool: Tool) -> Request | None:
        """Return the DRF request the tool's view would see (its method, the caller as the
        view's own authentication reads the credentials), or None when that refuses them.

        Built once per (method, authentication) of this /mcp request.
        """
        identity = self.caller.identity_for(tool)
        key = self._request_key(tool.method, identity, tool.authentication)
        if key not in self._requests:
            # A copy of the /mcp request, so that nothing DRF writes (the user) reaches it.
            http = copy.copy(self.request)
            http.method = tool.method
            if identity is not None:
                http._force_auth_user, http._force_auth_token = identity  # type: ignore[attr-defined]
                self._requests[key] = Request(http)
            else:
                if picks_own_authenticators(tool.view_class):  # it may read its request
                    view = tool.operation.view_with()
                else:
                    view = tool.view_class(**tool.initkwargs)
                # Its JSON parser serves DRF's CSRF check of a session caller (it reads .POST),
                # as the endpoint's own request's does.
                request = Request(
                    http,
                    parsers=[JSONParser()],
                    authenticators=view.get_authenticators(),
                    parser_context={"view": self.endpoint, "args": (), "kwargs": {}},
                )
                try:
                    request.user  # noqa: B018  (authenticate now, as the view would)
                except APIException:
                    self._requests[key] = None
                else:
                    self._requests[key] = request
        return self._requests[key]

    def identity_for(self, tool: Tool) -> tuple[Any, object] | None:
        """Return ``(user, token)`` to hand over to ``tool``'s view, so that its
        authentication classes don't check credentials already checked for it: the caller's,
        where the view's classes are the endpoint's (``Caller.identity_for``); else whom the
        view's own classes accepted when this request asked whether the caller sees the
        tool, where each of those classes reads only what the view's request carries too
        (``HEADER_AUTHENTICATION``). None: the view authenticates the copied
        credentials itself (an anonymous caller's too, refused as a direct call would be).
        """
        identity = self.caller.identity_for(tool)
        if identity is not None or self.caller.in_task:
            return identity
        classes = tool.authentication
        if not isinstance(classes, tuple):
            # A view that picks its authenticators (keyed by its class) was asked with a
            # request of the endpoint's making: it may pick others for the one it runs on.
            return None
        request = self._requests.get(self._request_key(tool.method, None, classes))
        if request is None or request.successful_authenticator is None:
            return None
        return (request.user, request.auth) if reads_headers_only(request) else None

    @staticmethod
    def _request_key(
        method: str, identity: tuple[Any, object] | None, authentication: object
    ) -> Hashable:
        """The ``view_request`` a tool shares with the others of its ``method`` and
        authentication: the caller handed over, or the view's classes that read it."""
        return method, identity is not None or authentication


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason a caller doesn't see a tool (``explain``): data, for a page to word."""

    #: ``"disabled"``, ``"groups"``, ``"authentication"`` or ``"permission"``.
    kind: str
    #: What it names: the rule's group ids, the view's authentication classes, or the
    #: permission class that refuses.
    names: tuple[Any, ...] = ()
    #: The permission's own message (DRF's ``message``, or what it raised), if any.
    message: str = ""

    @classmethod
    def of_permission(cls, permission: Any, message: str | None = None) -> Reason:
        name = permission_name(permission) if permission is not None else ""
        if message is None:
            message = str(getattr(permission, "message", "") or "")
        return cls("permission", (name,) if name else (), message)


def authentication_refusal(tool: Tool) -> Reason:
    """The reason of a caller whose credentials the view's own authentication refuses,
    naming its classes."""
    classes = tool.declared("authentication_classes") or ()
    return Reason("authentication", tuple(each.__name__ for each in classes))


def explain(visibility: Visibility, tool: Tool, rule: Rule) -> list[Reason]:
    """Return every reason the caller of ``visibility`` doesn't see ``tool`` under the admin's
    ``rule``, in the order the rule asks them; empty when they see it (``sees``).

    The same checks as ``sees``, each asked even when an earlier one already hides the tool,
    so that a page can say everything that would have to change.
    """
    reasons = []
    if not rule.enabled:
        reasons.append(Reason("disabled"))
    if rule.group_ids and not rule.group_ids & visibility.group_ids():
        reasons.append(Reason("groups", tuple(sorted(rule.group_ids))))
    refusing = visibility.refusing(tool)
    if refusing is not None and refusing.kind == "permission":
        request = visibility.view_request(tool)
        if is_authenticated(visibility.caller.user) and not is_authenticated(
            getattr(request, "user", None)
        ):
            # The view's own authentication doesn't read the caller's credentials (a session,
            # a view that takes Basic only): that, not the permission, is what refuses.
            refusing = authentication_refusal(tool)
    if refusing is not None:
        reasons.append(refusing)
    return reasons


def is_authenticated(user: object) -> bool:
    return bool(getattr(user, "is_authenticated", False))
