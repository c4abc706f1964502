"""Who a task's view runs as: worked out in the web process, checked again in the worker.

An inline tool call hands its view the caller the endpoint authenticated, or lets the
view's own authentication classes read the request's credentials (docs/dispatch.md). A
task's view runs later, in a worker whose request carries no credential. So when the task
is made, and each time a client's answers send it back to a worker, ``grant_for`` works out
the identity its view would see inline, with the same code the tool's visibility asks
(``Visibility.view_request``), and keeps it in the task's ``grant`` as references to rows
(``auth.credentials``), never as a secret. ``caller_for`` loads them again in the worker: a
credential revoked or expired since, or a user who can no longer sign in, fails the task
(docs/tasks.md#who-runs-the-view).

The grant also keeps the scopes the task was made with: a caller reads the task, and its
input rounds, only with a credential that has at least those (``store.find``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model

from ..auth.caller import Caller, unauthenticated_user
from ..auth.credentials import Revoked, Uncarried, reference, restore
from ..catalog.visibility import reads_headers_only
from ..protocol.jsonrpc import UNAUTHORIZED, JSONRPCError

if TYPE_CHECKING:
    from ..endpoint.exchange import Call
    from ..models import ToolTask
    from ..tools.tool import Tool

__all__ = ["caller_for", "grant_for", "renewed", "scopes_of_task"]

#: What a task's run answers when its credential can no longer be used.
REVOKED = (
    "Unauthorized: the credential this task was made with was revoked or has expired; "
    "call the tool again"
)
SIGNED_OUT = "Unauthorized: the user this task runs as can't sign in"
REFUSED = "Unauthorized: the tool's view refuses the credentials this task was made with"


def grant_for(call: Call, tool: Tool) -> dict[str, Any]:
    """Return what the worker needs to run ``tool``'s view as ``call``'s inline run would:
    the caller's credential and scopes, and the identity the view sees.

    Raises ``auth.credentials.Uncarried`` for a credential no row stands for (a JWT), or
    one that only the view's own request can check (a key its classes bind to a URL)."""
    caller = call.caller
    visibility = call.exchange.visibility
    identity = visibility.identity_for(tool)  # who the view is handed inline
    view: dict[str, Any]
    if identity is not None:
        view = identity_reference(*identity)
    else:
        # The view's own authentication of the credentials, asked now if no rule needed it.
        request = visibility.view_request(tool)
        if request is None:
            view = {"refused": True}
        elif request.successful_authenticator is not None and not reads_headers_only(request):
            # Accepted by classes that may read what only the view's own request carries
            # (its path, its body): inline, they check them there; a worker can't.
            raise Uncarried(type(request.successful_authenticator).__name__)
        else:
            view = identity_reference(request.user, request.auth)
    scopes = caller.scopes
    grant = {
        "auth": reference(caller.auth),
        "scopes": sorted(scopes) if scopes is not None else None,
        "view": view,
    }
    # The user the project's middleware set on the /mcp request (its session's, or nobody
    # for a token's caller): what the middleware the view's chain skips would set again.
    found = call.request.__dict__
    if "user" in found:
        grant["request_user"] = user_pk(found["user"])
    return grant


def renewed(call: Call, task: ToolTask) -> dict[str, Any] | None:
    """Return the grant of ``task``'s next run, sent by ``call`` (the client's answers):
    the answering caller's credential as it is now (an OAuth token refreshed since the
    task was made), with the scopes the task was made with. None when the tool is gone
    (its run fails as the endpoint would refuse it)."""
    tool = call.exchange.catalog.tools.get(task.tool_name)
    if tool is None:
        return None
    return {**grant_for(call, tool), "scopes": scopes_of_task(task)}


def identity_reference(user: Any, auth: object) -> dict[str, Any]:
    return {"user": user_pk(user), "auth": reference(auth)}


def user_pk(user: Any) -> Any:
    return user.pk if getattr(user, "is_authenticated", False) else None


def scopes_of_task(task: ToolTask) -> list[str] | None:
    """Return the scopes ``task`` was made with (None: a credential without scopes)."""
    scopes = (task.grant or {}).get("scopes")
    return scopes if isinstance(scopes, list) else None


def caller_for(task: ToolTask) -> Caller:
    """Return the caller ``task`` runs as: its user loaded again, its credential found
    again, and the identity its view saw. Raises ``JSONRPCError`` (-32001) when the user
    can no longer sign in, the credential is gone or expired, or the view refused it."""
    grant = task.grant or {}
    user = load_user(task.user_id) if task.user_id is not None else unauthenticated_user()
    try:
        auth = restore(grant.get("auth"))
        identity = view_identity(grant, user, auth)
    except Revoked:
        raise JSONRPCError(UNAUTHORIZED, REVOKED) from None
    scopes = scopes_of_task(task)
    return Caller.for_task(user, auth, frozenset(scopes) if scopes is not None else None, identity)


def request_user(task: ToolTask, caller: Caller) -> Any:
    """Return the user to set on the worker's request, as the /mcp request's middleware
    had (``MISSING`` when it set none): its session's, not the token's caller."""
    grant = task.grant or {}
    if "view" not in grant:  # a task made before grants: its user, as it was then
        return caller.user
    if "request_user" not in grant:
        return MISSING
    pk = grant["request_user"]
    if pk is None:
        return unauthenticated_user()
    return caller.user if pk == getattr(caller.user, "pk", None) else load_user(pk)


#: No user on the worker's request: the /mcp request's middleware set none.
MISSING = object()


def view_identity(grant: dict[str, Any], user: Any, auth: object) -> tuple[Any, object] | None:
    """Return ``(user, token)`` to hand the task's view, or None when it saw nobody."""
    view = grant.get("view")
    if view is None:  # a task made before grants: its user, as it was then
        return (user, None) if getattr(user, "is_authenticated", False) else None
    if view.get("refused"):
        raise JSONRPCError(UNAUTHORIZED, REFUSED)
    if view.get("user") is None:
        return None
    seen = user if view["user"] == getattr(user, "pk", None) else load_user(view["user"])
    token = auth if view.get("auth") == grant.get("auth") else restore(view.get("auth"))
    return seen, token


def load_user(pk: Any) -> Any:
    user = get_user_model()._default_manager.filter(pk=pk).first()
    if user is None or not getattr(user, "is_active", True):
        raise JSONRPCError(UNAUTHORIZED, SIGNED_OUT)
    return user
