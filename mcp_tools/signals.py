"""Signals of mcp_tools, for a project's own metrics and audit trails (docs/admin.md)."""

from collections.abc import Callable
from typing import Any

from django.dispatch import Signal

__all__ = ["tool_called"]

#: The ``dispatch_uid`` the call log's receiver is connected under (``MCPToolsConfig``).
CALL_LOG_UID = "mcp_tools.calllog.writer"


class ToolCalled(Signal):
    """A signal that knows whether any receiver besides the call log's was connected, so
    that a call the call log would not keep sends nothing when no one else listens.

    It counts connections and disconnections by their own arguments (public API alone): a
    receiver connected twice, or one gone with its last reference, is counted still, which
    costs a send and never loses one."""

    def __init__(self) -> None:
        super().__init__(use_caching=True)
        #: How many receivers besides the call log's were connected (and not disconnected).
        self.others = 0
        #: Whether the call log keeps a call that ended so (``calllog.writer.keeps``), set
        #: where its receiver is connected (``MCPToolsConfig.ready``).
        self.keeps: Callable[..., bool] | None = None

    def wanted(self, **ended: Any) -> bool:
        """Whether a receiver will act on a call that ended as ``ended`` says."""
        return self.others > 0 or (self.keeps is not None and self.keeps(**ended))

    def connect(
        self, receiver: Any, sender: Any = None, weak: bool = True, dispatch_uid: Any = None
    ) -> None:
        super().connect(receiver, sender, weak, dispatch_uid)
        if dispatch_uid != CALL_LOG_UID:
            self.others += 1

    def disconnect(
        self, receiver: Any = None, sender: Any = None, dispatch_uid: Any = None
    ) -> bool:
        disconnected = super().disconnect(receiver, sender, dispatch_uid)
        if disconnected and dispatch_uid != CALL_LOG_UID and self.others:
            self.others -= 1
        return disconnected


#: Sent after every tool call the endpoint answered with a result (also when the arguments
#: were refused before the view ran), with ``sender`` the tool's view class and:
#: ``tool`` (its name), ``user`` (None for anonymous callers), ``started_at`` (an aware
#: datetime), ``duration_ms``, ``status`` (the view's HTTP status; None when it raised or
#: never ran), ``is_error``, ``error_ref`` (the masked error's reference, or None),
#: ``arguments`` (as received), ``protocol_version``, ``client_name``, ``request`` (the
#: /mcp request) and ``result_type``: ``"complete"``, or ``"input_required"`` for a round
#: that ended asking the client for input (the call goes on when the client retries;
#: docs/input.md); ``outcome`` (``"ok"``, ``"error"``: the view's or the tool's, or
#: ``"refused"``: the endpoint stopped the call), ``refusal`` (why: ``"invalid_arguments"``,
#: ``"hidden"``, ``"too_large"``, ``"throttled"``, ``"unconfirmed"``, ``"cancelled"``; else
#: None), ``error_message`` (what the model read, "" when ok) and ``task_id`` (the id of the
#: ``ToolTask`` the call ran as, in a task worker: docs/tasks.md; None for an inline call),
#: and ``kind`` (``"tool"``, or ``"resource"`` for a ``resources/read``: docs/resources.md).
#: A call of discovery mode's ``search_tools`` (docs/tools.md#large-apis) is sent too, with
#: ``sender`` the endpoint's view class and ``found``: the names of the tools it returned.
#: A known tool hidden from the caller, or refused by the endpoint's throttles, is sent too
#: (``status`` None). The call log is one receiver; it logs complete calls only.
#: Its receivers are looked up once per view class, not per call (``use_caching``); a call the
#: call log would not keep is not sent while no other receiver is connected.
tool_called = ToolCalled()
