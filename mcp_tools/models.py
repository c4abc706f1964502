"""What admins manage: the exposed tools and the log of their calls (docs/admin.md)."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _


class ExposedTool(models.Model):
    """One tool of the registry as admins see it: a switch, overrides and who may use it.

    Rows mirror the registry (``mcp_sync``, and after every ``migrate``); a tool the code no
    longer registers keeps its row, with ``registered`` false. Blank and null fields mean
    "as the code says".
    """

    name = models.CharField(_("name"), max_length=64, unique=True)
    enabled = models.BooleanField(
        _("enabled"), default=True, help_text=_("Disabled tools are hidden and can't be called.")
    )
    title = models.CharField(
        _("title"), max_length=200, blank=True, help_text=_("Blank: the title the code gives.")
    )
    description = models.TextField(
        _("description"), blank=True, help_text=_("Blank: the description the code gives.")
    )
    annotations = models.JSONField(
        _("annotations"),
        default=dict,
        blank=True,
        help_text=_(
            "Tool annotations merged over the code's: title, readOnlyHint, destructiveHint, "
            "idempotentHint, openWorldHint."
        ),
    )
    include_structured_content = models.BooleanField(
        _("include structured content"),
        null=True,
        blank=True,
        help_text=_(
            "Whether results carry structuredContent. The code's choice: what the tool's code "
            "and MCP_TOOLS say."
        ),
    )
    include_output_schema = models.BooleanField(
        _("include output schema"),
        null=True,
        blank=True,
        help_text=_(
            "Whether tools/list advertises an outputSchema. The code's choice: what the "
            "tool's code and MCP_TOOLS say."
        ),
    )
    pinned = models.BooleanField(
        _("pinned"),
        default=False,
        help_text=_(
            "Listed even in discovery mode, where a large catalog is listed as a search tool: "
            "for the few tools most calls start with."
        ),
    )
    allowed_groups = models.ManyToManyField(
        "auth.Group",
        verbose_name=_("groups"),
        blank=True,
        related_name="mcp_tools",
        help_text=_(
            "Only members of these groups see and call the tool. None chosen: everyone the "
            "view's permissions admit."
        ),
    )
    registered = models.BooleanField(
        _("registered"),
        default=True,
        editable=False,
        help_text=_("Whether the code still registers this tool."),
    )
    changed_at = models.DateTimeField(_("changed"), auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("exposed tool")
        verbose_name_plural = _("exposed tools")

    def __str__(self) -> str:
        return self.name


class ExposedResource(models.Model):
    """One resource (or resource template) of the registry as admins see it: a switch, its
    wording and who may read it (docs/resources.md). Synced like ``ExposedTool``."""

    name = models.CharField(_("name"), max_length=64, unique=True)
    uri = models.CharField(
        _("URI"),
        max_length=500,
        blank=True,
        editable=False,
        help_text=_("The URI, or URI template, the code gives."),
    )
    enabled = models.BooleanField(
        _("enabled"),
        default=True,
        help_text=_("Disabled resources are not listed and can't be read."),
    )
    title = models.CharField(
        _("title"), max_length=200, blank=True, help_text=_("Blank: the title the code gives.")
    )
    description = models.TextField(
        _("description"), blank=True, help_text=_("Blank: the description the code gives.")
    )
    allowed_groups = models.ManyToManyField(
        "auth.Group",
        verbose_name=_("groups"),
        blank=True,
        related_name="mcp_resources",
        help_text=_(
            "Only members of these groups see and read the resource. None chosen: everyone "
            "the view's permissions admit."
        ),
    )
    registered = models.BooleanField(
        _("registered"),
        default=True,
        editable=False,
        help_text=_("Whether the code still registers this resource."),
    )
    changed_at = models.DateTimeField(_("changed"), auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("exposed resource")
        verbose_name_plural = _("exposed resources")

    def __str__(self) -> str:
        return self.name


def validate_tag_list(value: object) -> None:
    """Refuse tags that are no list of strings (a toolset's)."""
    if not (isinstance(value, list) and all(isinstance(tag, str) for tag in value)):
        raise ValidationError(_('Tags are a list of strings: ["orders", "billing"].'))


class Toolset(models.Model):
    """A named set of tools a client picks by the endpoint's URL (``/mcp/toolsets/<name>``):
    the tools named, and those with one of the tags; nothing else, for list, search and call
    (docs/tools.md#toolsets)."""

    name = models.SlugField(
        _("name"),
        max_length=64,
        unique=True,
        help_text=_("In the endpoint's URL: /mcp/toolsets/<name>."),
    )
    title = models.CharField(_("title"), max_length=200, blank=True)
    description = models.TextField(_("description"), blank=True)
    tools = models.ManyToManyField(
        ExposedTool, verbose_name=_("tools"), blank=True, related_name="toolsets"
    )
    tags = models.JSONField(
        _("tags"),
        default=list,
        blank=True,
        validators=[validate_tag_list],
        help_text=_("A tool with one of these tags (@mcp_tool(tags=...)) is in the set too."),
    )
    changed_at = models.DateTimeField(_("changed"), auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("toolset")
        verbose_name_plural = _("toolsets")

    def __str__(self) -> str:
        return self.title or self.name


class Prompt(models.Model):
    """A prompt written in the admin: messages whose ``{argument}`` placeholders a client's
    ``prompts/get`` fills by plain substitution, never the template language
    (docs/prompts.md)."""

    name = models.CharField(
        _("name"),
        max_length=64,
        unique=True,
        validators=[RegexValidator(r"^[A-Za-z0-9_.-]{1,64}$", _("Letters, digits, _ . - only."))],
    )
    title = models.CharField(_("title"), max_length=200, blank=True)
    description = models.TextField(_("description"), blank=True)
    arguments = models.JSONField(
        _("arguments"),
        default=list,
        blank=True,
        help_text=_(
            'What the client fills in: [{"name": "topic", "description": "...", '
            '"required": true, "choices": ["a", "b"]}]. {topic} in a message is replaced by '
            "its value."
        ),
    )
    messages = models.JSONField(
        _("messages"),
        default=list,
        help_text=_(
            'A list of {"role": "user" or "assistant"} with one of "text": "...", "image": '
            '"<path of a static file>", or "resource": {"uri"} (read from this site as the '
            'caller) or {"uri", "mimeType", "text"}.'
        ),
    )
    enabled = models.BooleanField(
        _("enabled"), default=True, help_text=_("Disabled prompts are hidden.")
    )
    allowed_groups = models.ManyToManyField(
        "auth.Group",
        verbose_name=_("groups"),
        blank=True,
        related_name="mcp_prompts",
        help_text=_("Only members of these groups see and get the prompt. None chosen: everyone."),
    )
    changed_at = models.DateTimeField(_("changed"), auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("prompt")
        verbose_name_plural = _("prompts")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        # The stored form is prompts/'s to define: read only when a row is checked.
        from .prompts.messages import check_arguments, check_messages
        from .prompts.static import read_static

        errors = {}
        try:
            check_arguments(self.arguments)
        except ValueError as exc:
            errors["arguments"] = str(exc)
        try:
            check_messages(self.messages, read_static)
        except ValueError as exc:
            errors["messages"] = str(exc)
        if errors:
            raise ValidationError(errors)


class ToolCall(models.Model):
    """One logged tool call (``CALL_LOG``): who called what, how long it took, how it ended."""

    OK = "ok"
    ERROR = "error"
    REFUSED = "refused"
    OUTCOMES = [
        (OK, _("ok")),
        (ERROR, _("error")),
        (REFUSED, _("refused")),
    ]
    #: Why a call was refused, as the endpoint decided it (docs/calllog.md).
    REFUSALS = [
        ("invalid_arguments", _("invalid arguments")),
        ("hidden", _("hidden from the caller")),
        ("too_large", _("answer too large")),
        ("throttled", _("throttled")),
        ("unconfirmed", _("not confirmed")),
        ("cancelled", _("cancelled")),
    ]
    #: What was called: a tool, a resource read (``resources/read``) or a prompt.
    KINDS = [
        ("tool", _("tool call")),
        ("resource", _("resource read")),
        ("prompt", _("prompt")),
    ]

    tool_name = models.CharField(_("tool"), max_length=64, db_index=True)
    kind = models.CharField(
        _("kind"), max_length=8, choices=KINDS, default="tool", db_default="tool"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    started_at = models.DateTimeField(_("started"), db_index=True)
    duration_ms = models.FloatField(_("duration (ms)"))
    http_status = models.PositiveSmallIntegerField(
        _("HTTP status"),
        null=True,
        blank=True,
        help_text=_(
            "The status of the view's response. Empty when the view never ran (the call was "
            "refused before it) or raised an exception."
        ),
    )
    outcome = models.CharField(
        _("outcome"),
        max_length=8,
        choices=OUTCOMES,
        default=OK,
        help_text=_(
            "ok: the tool answered a result. error: the view or the tool failed. refused: the "
            "endpoint stopped the call (see the refusal)."
        ),
    )
    refusal = models.CharField(
        _("refusal"),
        max_length=20,
        choices=REFUSALS,
        blank=True,
        help_text=_("Why the endpoint refused the call; empty when it did not."),
    )
    error_message = models.TextField(
        _("error message"),
        blank=True,
        help_text=_(
            "What the model read, clipped to 1,000 characters; for a masked error, "
            '"Internal server error" and its reference.'
        ),
    )
    is_error = models.BooleanField(
        _("error"), default=False, help_text=_("Not ok: an error or a refusal (the outcome).")
    )
    error_ref = models.CharField(
        _("error reference"),
        max_length=32,
        blank=True,
        db_index=True,
        help_text=_("The reference a masked error was logged under, for the server's logs."),
    )
    argument_names = models.JSONField(_("argument names"), default=list, blank=True)
    arguments = models.JSONField(
        _("arguments"), null=True, blank=True, help_text=_("Only with CALL_LOG_ARGUMENTS.")
    )
    #: What a ``search_tools`` call returned (its query is among its ``arguments``).
    found = models.JSONField(
        _("tools found"),
        null=True,
        blank=True,
        help_text=_(
            "The tools a search returned, best first. Only with CALL_LOG_ARGUMENTS, for "
            "search_tools."
        ),
    )
    protocol_version = models.CharField(_("protocol version"), max_length=16, blank=True)
    client_name = models.CharField(_("client"), max_length=200, blank=True)
    #: The ``ToolTask`` this call ran as, by id: not a foreign key, since a task is deleted
    #: past its TTL (or at once, when its call was answered inline) and its call stays logged.
    task_id = models.CharField(
        _("task"),
        max_length=64,
        null=True,
        blank=True,
        db_index=True,
        help_text=_("The task this call ran as, in a task worker; empty for an inline call."),
    )

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("tool call")
        verbose_name_plural = _("tool calls")
        indexes = [
            models.Index(fields=["tool_name", "-started_at"]),
            # The overview's latest errors: read backwards from the newest, ten rows.
            models.Index(fields=["is_error", "-started_at"], name="mcp_toolcall_errors"),
            # The overview's searches that found nothing: the logged searches alone, newest
            # first (a partial index; a full one where the database has none: MySQL).
            models.Index(
                fields=["tool_name", "-started_at"],
                condition=models.Q(found__isnull=False),
                name="mcp_toolcall_searches",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tool_name} at {self.started_at:%Y-%m-%d %H:%M:%S}"


class ToolTask(models.Model):
    """One tool call run as an MCP task (docs/tasks.md): what was asked, by whom, where it
    stands, and what it answered, kept until ``expires_at``.

    The row is written, with its job enqueued in the same transaction, before the client
    gets its handle; a worker runs the view as the caller and holds the task by its lease
    (``leased_until``) while it runs.
    """

    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    STATUSES = [
        (WORKING, _("working")),
        (INPUT_REQUIRED, _("input required")),
        (COMPLETED, _("completed")),
        (FAILED, _("failed")),
        (CANCELLED, _("cancelled")),
    ]
    #: The statuses a task never leaves.
    TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})

    id = models.CharField(_("task id"), max_length=64, primary_key=True)
    tool_name = models.CharField(_("tool"), max_length=64, db_index=True)
    #: Who may see the task: ``auth.caller.caller_key`` of its caller.
    caller = models.CharField(_("caller"), max_length=200)
    #: Whose ``MAX_TASKS_PER_CALLER`` it counts against: the caller, or for an anonymous one
    #: its client address as DRF's throttles read it (``auth.caller.quota_key``).
    quota = models.CharField(_("quota"), max_length=200, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    #: What the worker checks again of the caller's credential, and who the view saw
    #: (``tasks.identity``): references to token rows and the scopes granted, no secret.
    grant = models.JSONField(default=dict, blank=True)
    endpoint_path = models.CharField(_("endpoint"), max_length=200)
    protocol_version = models.CharField(_("protocol version"), max_length=16)
    client_name = models.CharField(_("client"), max_length=200, blank=True)
    #: The ``tools/call`` params the view runs with (arguments, input responses, request state).
    params = models.JSONField(_("call"), default=dict)
    #: What of the /mcp request the worker's request copies (host, scheme, client address).
    environ = models.JSONField(default=dict)
    status = models.CharField(_("status"), max_length=16, choices=STATUSES, default=WORKING)
    status_message = models.CharField(_("status message"), max_length=500, blank=True)
    result = models.JSONField(_("result"), null=True, blank=True)
    error = models.JSONField(_("error"), null=True, blank=True)
    input_requests = models.JSONField(_("input requests"), null=True, blank=True)
    #: The signed state of the round that asked (never sent: the task's id stands for it).
    request_state = models.TextField(blank=True)
    created_at = models.DateTimeField(_("created"), db_index=True)
    updated_at = models.DateTimeField(_("updated"))
    expires_at = models.DateTimeField(_("expires"), db_index=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    leased_until = models.DateTimeField(_("leased until"), null=True, blank=True)
    worker = models.CharField(_("worker"), max_length=200, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    #: Run again, rather than failed, when its worker dies: its tool is idempotent.
    retryable = models.BooleanField(_("retryable"), default=False)
    #: The bytes it keeps of its caller's (its call's params, its result, error or input
    #: requests, as JSON in UTF-8): what ``MAX_TASK_BYTES_PER_CALLER`` sums
    #: (``tasks.store.stored_size``).
    size = models.PositiveBigIntegerField(_("stored bytes"), default=0)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("tool task")
        verbose_name_plural = _("tool tasks")
        indexes = [
            # A caller's working tasks (MAX_TASKS_PER_CALLER, the 2025-11-25 tasks/list).
            models.Index(fields=["caller", "status"], name="mcp_tooltask_caller"),
            # The reaper: running tasks whose lease ran out.
            models.Index(fields=["status", "leased_until"], name="mcp_tooltask_leases"),
            # The bytes a quota's tasks keep (MAX_TASK_BYTES_PER_CALLER): a sum over its rows.
            models.Index(fields=["quota", "expires_at"], name="mcp_tooltask_quota"),
        ]

    def __str__(self) -> str:
        return f"{self.tool_name} task {self.id}"

    @property
    def terminal(self) -> bool:
        return self.status in self.TERMINAL


class ToolCallDay(models.Model):
    """The call log's calls of one day (``TIME_ZONE``'s), counted by tool, outcome, client
    and protocol version: what the overview reads instead of the log (docs/admin.md).

    Kept by the log's writer in the transaction of each batch it writes (``summary``);
    ``mcp_summarize`` builds it from the log's rows.
    """

    day = models.DateField(_("day"))
    tool_name = models.CharField(_("tool"), max_length=64)
    outcome = models.CharField(_("outcome"), max_length=8, choices=ToolCall.OUTCOMES)
    client_name = models.CharField(_("client"), max_length=200, blank=True)
    protocol_version = models.CharField(_("protocol version"), max_length=16, blank=True)
    calls = models.PositiveBigIntegerField(_("calls"), default=0)
    slowest_ms = models.FloatField(_("slowest (ms)"))
    last_at = models.DateTimeField(_("last call"))

    class Meta:
        verbose_name = _("day of tool calls")
        verbose_name_plural = _("days of tool calls")
        constraints = [
            models.UniqueConstraint(
                fields=["day", "tool_name", "outcome", "client_name", "protocol_version"],
                name="mcp_toolcallday_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.tool_name} on {self.day}: {self.calls} {self.outcome}"


class ToolCallLatency(models.Model):
    """How many calls of a tool on one day took a duration in one bucket of a fixed,
    log-spaced histogram (``summary.BUCKETS``): the overview's p50 and p95 are read from
    it, within the bound docs/admin.md states."""

    day = models.DateField(_("day"))
    tool_name = models.CharField(_("tool"), max_length=64)
    bucket = models.PositiveSmallIntegerField(_("bucket"))
    calls = models.PositiveBigIntegerField(_("calls"), default=0)

    class Meta:
        verbose_name = _("latency of tool calls")
        verbose_name_plural = _("latencies of tool calls")
        constraints = [
            models.UniqueConstraint(
                fields=["day", "tool_name", "bucket"], name="mcp_toolcalllatency_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.tool_name} on {self.day}, bucket {self.bucket}: {self.calls}"


def new_epoch() -> str:
    """Return a random name for a new ``AdminStateVersion`` row's run of numbers."""
    return secrets.token_hex(8)


class AdminStateVersion(models.Model):
    """The admin state's version number: one row, bumped by every publish (docs/admin.md).

    Where the cache can't carry the version stamp to other processes (a per-process cache),
    or has lost it, each process reads it here: a real counter, so no change is missed
    whatever the order its transactions commit in or the clocks of the hosts. Its
    ``epoch`` is new whenever the row is (a ``flush``, a restored backup): the count starts
    again, but no stamp a process saw before comes back.
    """

    number = models.PositiveBigIntegerField(_("number"), default=0)
    epoch = models.CharField(_("epoch"), max_length=32, default=new_epoch)

    class Meta:
        verbose_name = _("admin state version")
        verbose_name_plural = _("admin state versions")

    def __str__(self) -> str:
        return str(self.number)


class SharedCacheEntry(models.Model):
    """One value every worker must see, where ``MCP_TOOLS["CACHE"]`` is a cache each process
    keeps for itself (``LocMemCache``, ``DummyCache``): the table of the Django database
    cache that stands in for it (``mcp_tools.core.shared_cache``), with the columns Django's
    ``createcachetable`` makes.
    """

    cache_key = models.CharField(max_length=255, primary_key=True)
    value = models.TextField()
    expires = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "mcp_tools_cache"
        verbose_name = _("shared cache entry")
        verbose_name_plural = _("shared cache entries")

    def __str__(self) -> str:
        return self.cache_key
