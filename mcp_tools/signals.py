"""Signals of mcp_tools, for a project's own metrics and audit trails (docs/admin.md)."""

from django.dispatch import Signal

__all__ = ["tool_called"]

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
#: ``ToolTask`` the call ran as, in a task worker: docs/tasks.md; None for an inline call).
#: A call of discovery mode's ``search_tools`` (docs/tools.md#large-apis) is sent too, with
#: ``sender`` the endpoint's view class and ``found``: the names of the tools it returned.
#: A known tool hidden from the caller, or refused by the endpoint's throttles, is sent too
#: (``status`` None). The call log is one receiver; it logs complete calls only.
#: Its receivers are looked up once per view class, not per call (``use_caching``).
tool_called = Signal(use_caching=True)
