"""The wording of every problem mcp_tools reports: a system check's message and hint, and the
error the registry raises for a misused decorator (the same words, one place).

Problems travel as data (``tools.ToolProblem``: an id and its values); this module words
them, as Django admin keeps its check messages apart from the code that finds problems.
Documented one by one in docs/checks.md.
"""

from __future__ import annotations

from .tool import ToolProblem

INPUT_SCHEMA_HINT = "declare the arguments with @mcp_tool(input_schema=...)"
SCHEMA_CLASS_SETTING = (
    "REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] = 'drf_spectacular.openapi.AutoSchema'"
)

#: id → (message, hint), formatted with the problem's params.
MESSAGES: dict[str, tuple[str, str]] = {
    "mcp_tools.E001": (
        "Tool name {name!r} is used by several views ({routes}); pass name= to @mcp_tool to "
        "tell them apart",
        "Give each tool a unique name of 1-64 characters of [A-Za-z0-9_.-] with "
        "@mcp_tool(name=...), or choose one route with path=.",
    ),
    "mcp_tools.E002": (
        "The tool name {name!r} derived for {where} is not 1-64 characters of [A-Za-z0-9_.-].",
        "Pass name= to @mcp_tool, or rename the URL pattern or the router basename.",
    ),
    "mcp_tools.E003": (
        "{view} {method} is mounted at several URLs ({routes}); pass path= to @mcp_tool to "
        "choose one",
        'Pass path= to @mcp_tool with the route to expose, e.g. path="/api/items/".',
    ),
    "mcp_tools.E004": (
        "Tool {name!r} ({where}): {clash}, so the arguments can't be told apart.",
        "Rename the URL parameter, the filter or the serializer field, or declare the "
        "arguments yourself with @mcp_tool(input_schema=...).",
    ),
    "mcp_tools.E005": (
        "The input_schema of tool {name!r} is not a valid JSON Schema: {problem}.",
        "Pass an object schema (type: object) that is valid JSON Schema 2020-12 and draft-07 "
        "to @mcp_tool(input_schema=...).",
    ),
    "mcp_tools.W001": (
        "{view} is decorated with @mcp_tool but no URL pattern routes to it, so it is not a tool.",
        "Include the view (or its router) in the URLconf, or remove the decorator. On a "
        "function, put @api_view and @mcp_tool right on each other (in either order): a "
        "decorator between them must keep the function reachable with functools.wraps.",
    ),
    "mcp_tools.W002": (
        "Tool {name!r} ({where}): the request serializer could not be read with a synthetic "
        "anonymous request ({error}), so the input schema lists no body fields.",
        "Make get_serializer_class() work for an anonymous request (check "
        "request.user.is_authenticated before using the user), or " + INPUT_SCHEMA_HINT + ".",
    ),
    "mcp_tools.W003": (
        "Tool {name!r} ({where}): the query parameters of the filter backends and the "
        "paginator could not be read ({error}), so the input schema lists none.",
        "Set queryset on the view (filter sets need its model), or " + INPUT_SCHEMA_HINT + ".",
    ),
    "mcp_tools.W010": (
        "{count} tool(s) ({names}) could not be read whole: their views' code queried the "
        "database, which answered {error}.",
        "Run manage.py migrate, then check again: before migrate the database has no tables, "
        "and this says nothing of the tools. Otherwise make the database reachable.",
    ),
    "mcp_tools.W004": (
        "Tool {name!r} ({where}): the field(s) {fields} take uploaded files, which JSON "
        "arguments can't carry; they are left out of the input schema.",
        "Expose a variant of the view whose serializer takes a URL or base64 text instead, "
        "or leave this method out with methods=/actions=.",
    ),
    "mcp_tools.W005": (
        "{view} is decorated with @mcp_tool and routed at /{route}, but it is a plain Django "
        "view, not a Django REST framework view, so it is not a tool.",
        "Put @api_view([...]) with its HTTP methods on {view} (above or below @mcp_tool), or "
        "write it as an APIView.",
    ),
    "mcp_tools.I001": (
        "Tool {name!r} ({where}) takes a request body, but its input schema lists no body "
        "fields, so a model learns what to send only from the view's errors.",
        "Declare the fields where mcp_tools reads them: {places}, or @mcp_tool("
        "input_schema=...). If it takes no body, say so with @mcp_tool(input_schema="
        '{{"type": "object"}}).',
    ),
    "mcp_tools.W006": (
        "Tool {name!r}: drf-spectacular's annotations of its view could not be read ({error}), "
        "so the tool is built without {lost}.",
        "{advice}",
    ),
    "mcp_tools.W007": (
        "Tool name {name!r} is given to two views by two registries: {first} and {second}; "
        "one admin row (ExposedTool) holds the rules of both, and the admin shows the first.",
        "Give one of them another name with @mcp_tool(name=...). If they are one tool on "
        "purpose, silence mcp_tools.W007: the admin's switch, allowed groups and overrides "
        "then apply to both.",
    ),
    "mcp_tools.W008": (
        "{where} could not be read as a tool ({error}), so it is left out.",
        "Fix what raised, or describe the tool yourself: @mcp_tool(input_schema=..., "
        "description=...), or expose(View, ...) for a view you don't own. EXCLUDE_PATHS "
        "leaves it out without this warning.",
    ),
    "mcp_tools.W009": (
        "Left out of the tools {source} makes: {problem}",
        "To include it on purpose, declare that action with expose(View, actions=[...], "
        "input_schema=...) (methods=[...] on an APIView) and the options it needs; to leave "
        "it out without this warning, name the tool in EXCLUDE_TOOLS (or its route in "
        "EXCLUDE_PATHS). (The check was {check}: {hint})",
    ),
    "mcp_tools.E020": (
        "output_schema of tool {name} must be a JSON Schema dict or a Serializer class, not {type}",
        "Pass a JSON Schema dict or a Serializer class as output_schema.",
    ),
    "mcp_tools.E021": (
        "The output schema of tool {name} is not a valid JSON Schema: {error}.",
        "Fix output_schema= (or the serializer it comes from); until then every successful "
        "call of the tool fails its output check.",
    ),
    "mcp_tools.W030": (
        "Tool {name!r}: its permission classes raised {error} on has_permission, so the "
        "tool is listed to every caller and its view decides when it runs.",
        "Make has_permission() answer without the object or a queryset the view builds "
        "late (has_object_permission is the place for object checks).",
    ),
    "mcp_tools.W032": (
        "MCP_TOOLS['CACHE'] is {alias!r}, a {backend}: a cache each process keeps for "
        "itself. What every worker must see goes through the database instead: the admin "
        "state's version (one query per ADMIN_STATE_MAX_AGE, {max_age} s), and the spent "
        "confirmations and the answers to the handshake era's questions (the table "
        "mcp_tools_cache, one query per read).",
        "Point MCP_TOOLS['CACHE'] at a cache every worker shares (Redis, Memcached, the "
        "database cache) to spare those queries.",
    ),
    "mcp_tools.W033": (
        "MCP_TOOLS['CACHE'] is {alias!r}, a {backend}, whose add() is not atomic across "
        "processes: two of them may both take one accepted confirmation and run its view "
        "twice.",
        "Point MCP_TOOLS['CACHE'] at Redis, Memcached or the database cache, whose add() is "
        "atomic.",
    ),
    "mcp_tools.E031": (
        "MCP_TOOLS['CACHE'] names the cache alias {alias!r}, which CACHES does not define.",
        "Add it to CACHES, or set MCP_TOOLS['CACHE'] to one of {aliases}.",
    ),
    "mcp_tools.W031": (
        "MCP_TOOLS['CACHE'] is {alias!r}, a {backend}: it keeps nothing. What every worker "
        "must see goes through the database instead: the admin state's version (one query "
        "per ADMIN_STATE_MAX_AGE, {max_age} s), and the spent confirmations and the answers "
        "to the handshake era's questions (the table mcp_tools_cache, one query per read).",
        "Point MCP_TOOLS['CACHE'] at a cache every worker shares (Redis, Memcached, the "
        "database cache) to spare those queries.",
    ),
    "mcp_tools.W020": (
        "Tool {name}: include_output_schema forces include_structured_content on, although "
        "it is set to False.",
        "Set include_structured_content=True with include_output_schema=True, or turn "
        "include_output_schema off.",
    ),
    "mcp_tools.W021": (
        "Tool {name}: include_output_schema is on, but no output schema is known, so none is "
        "advertised.",
        "Pass output_schema= to @mcp_tool, or give the view a serializer.",
    ),
    "mcp_tools.E040": (
        "The MCP endpoint /{route} authenticates with {cls}, which needs {app!r} in "
        "INSTALLED_APPS: without it every request that carries its credentials fails.",
        "Add {app!r} to INSTALLED_APPS (and migrate), or take {cls} out of the endpoint's "
        "authentication classes.",
    ),
    "mcp_tools.I040": (
        "The MCP endpoint /{route} takes {stand_in} in place of {cls}, a permission class of "
        "REST_FRAMEWORK['DEFAULT_PERMISSION_CLASSES'] that reads a view's queryset, which the "
        "endpoint has none of; each tool's view still applies {cls}.",
        "To choose the endpoint's own policy, set MCP_TOOLS['PERMISSION_CLASSES'] (or "
        "MCPView.as_view(permission_classes=...)); silence mcp_tools.I040 to keep this one.",
    ),
    "mcp_tools.E041": (
        "The MCP endpoint /{route} is given the permission class {cls}, which reads a view's "
        "queryset: the endpoint has none, so every request to it would fail.",
        "Give the endpoint a class that needs no model (IsAuthenticated, a scope check); each "
        "tool's view applies {cls} itself.",
    ),
    "mcp_tools.W040": (
        "The MCP endpoint /{route} admits anonymous callers: its permission classes are DRF's "
        "DEFAULT_PERMISSION_CLASSES ({permissions}), which no setting of mcp_tools chose, so "
        "anyone who reaches it lists and calls every tool anonymous callers may use.",
        "Require authentication: set REST_FRAMEWORK['DEFAULT_PERMISSION_CLASSES'] or "
        "MCP_TOOLS['PERMISSION_CLASSES'] to e.g. ['rest_framework.permissions.IsAuthenticated']. "
        "To serve anonymous callers on purpose, name AllowAny in "
        "MCP_TOOLS['PERMISSION_CLASSES'].",
    ),
    "mcp_tools.W041": (
        "The MCP endpoint /{route} admits anonymous callers, but {count} of its tools ({names}) "
        "refuse them: an anonymous client gets a shorter tools/list and no 401, so it is never "
        "asked to authenticate.",
        "Give the endpoint permission classes that refuse anonymous callers (IsAuthenticated), "
        "or mount a second endpoint for the anonymous tools with MCPView.as_view(tags=...).",
    ),
    "mcp_tools.W042": (
        "OAuth metadata is configured (MCP_TOOLS['OAUTH_AUTHORIZATION_SERVERS']), but the "
        "URLconf serves no /.well-known/oauth-protected-resource: the 401 challenge points "
        "clients at a document that answers 404.",
        "Add path('', include('mcp_tools.urls.well_known')) to the root URLconf, with no prefix.",
    ),
    "mcp_tools.E044": (
        "OAuth metadata is configured (MCP_TOOLS['OAUTH_AUTHORIZATION_SERVERS']), but neither "
        "MCP_TOOLS['PUBLIC_URL'] nor MCP_TOOLS['OAUTH_RESOURCE'] is set: the endpoints don't "
        "know their own resource identifier, so they accept no token and serve no RFC 9728 "
        "document.",
        "Set MCP_TOOLS['PUBLIC_URL'] to the endpoint's public URL, e.g. "
        "'https://example.com/mcp'. It is never taken from the Host or X-Forwarded-Host "
        "header, which the client chooses.",
    ),
    "mcp_tools.W044": (
        "OAuth metadata is configured (MCP_TOOLS['OAUTH_AUTHORIZATION_SERVERS']), but the MCP "
        "endpoint /{route} has no OAuth authentication class ({classes}): clients are sent "
        "to an authorization server whose tokens it does not accept.",
        "Add 'mcp_tools.contrib.oauth.authentication.OAuth2ResourceAuthentication' to "
        "MCP_TOOLS['AUTHENTICATION_CLASSES'] (docs/oauth.md). If a class of yours reads the "
        "tokens, add 'mcp_tools.W044' to SILENCED_SYSTEM_CHECKS.",
    ),
    "mcp_tools.W050": (
        "MCP_TOOLS[{key!r}] is not a setting of mcp_tools, so it is ignored.",
        "{hint}",
    ),
    "mcp_tools.E051": (
        "MCP_TOOLS[{key!r}] is {value!r}; it must be one of {choices}.",
        "Set it to one of {choices}, or leave it out for the default, {default!r}.",
    ),
    "mcp_tools.E052": (
        "MCP_TOOLS[{key!r}] is {value!r}; it must be {bound}.",
        "Set it to {bound}, or leave it out for the default, {default!r}.",
    ),
    "mcp_tools.E053": (
        "MCP_TOOLS['FORMATTER_CLASS'] is {value!r}, which is not a formatter: {problem}.",
        "Name a subclass of mcp_tools.pipeline.formatters.BaseFormatter (ResponseFormatter, or "
        "your own).",
    ),
    "mcp_tools.E054": (
        "MCP_TOOLS['DISPATCH_SKIP_MIDDLEWARE'] is {value!r}; it must be a list of dotted paths "
        "of middleware.",
        "List the middleware to leave out of tool calls, e.g. "
        '["django.middleware.security.SecurityMiddleware", ...] (docs/dispatch.md).',
    ),
    "mcp_tools.E055": (
        "MCP_TOOLS['SEARCH_BACKEND'] is {value!r}, which is not a ranker: {problem}.",
        "Name a class that takes the catalog's entries and has search(query, among, limit), "
        "as mcp_tools.discovery.ranking.LexicalBackend (docs/tools.md#large-apis), or leave "
        "it out for that one.",
    ),
    "mcp_tools.E110": (
        "Resources can't be served: {error}",
        "Fix the @mcp_resource (or expose(..., resource=...)) it names: a template's "
        "variables are its URL's parameters, a URL without parameters has a fixed URI "
        "(docs/resources.md).",
    ),
    "mcp_tools.E100": (
        "Tool {name!r} has a name discovery mode's own tools take ({names}).",
        "Rename the tool (@mcp_tool(name=...), expose(..., name=...)), or set "
        'MCP_TOOLS["DISCOVERY"] (or the endpoint\'s discovery=) to "never" '
        "(docs/tools.md#large-apis).",
    ),
    "mcp_tools.E090": (
        "{where} is {value!r}; it must be a list of URL path prefixes (strings).",
        'List the prefixes as the URL patterns read them: ["api/"], not "api/" '
        "(docs/tools.md#exposing-a-whole-api).",
    ),
    "mcp_tools.E091": (
        "MCP_TOOLS['NEW_TOOLS_ENABLED'] is {value!r}; it must be True or False.",
        "Set it to False to have staff enable each new tool in admin, or leave it out for "
        "the default, True.",
    ),
    "mcp_tools.W090": (
        "No Django REST framework view is routed under the exposed path prefix {prefix!r}, so "
        "it makes no tool.",
        "Write the prefix as the URL patterns read it, includes joined and without the leading "
        "slash: 'api/' for the views of path(\"api/\", include(router.urls)).",
    ),
    "mcp_tools.W091": (
        "No Django REST framework view under an exposed path prefix is routed under the "
        "excluded prefix {prefix!r}, so it leaves nothing out.",
        "EXCLUDE_PATHS only narrows EXPOSE_PATHS: write a prefix that starts with one of "
        "EXPOSE_PATHS (e.g. 'api/internal/' under 'api/'), or remove it. A declared view "
        "(@mcp_tool, expose()) is a tool wherever it is routed.",
    ),
    "mcp_tools.W092": (
        "The exposed path prefix {prefix!r} is under the excluded prefix {exclude!r}, so it "
        "exposes nothing.",
        "Remove one of them, or exclude a narrower prefix under {prefix!r}.",
    ),
    "mcp_tools.E070": (
        "The tools {names} are declared with task=, and TASK_EXECUTOR ({executor}) runs "
        "them on Django's tasks framework, but neither django.tasks (Django 6) nor its "
        "backport django_tasks can be imported: their task calls fail.",
        'Install the backport: pip install "django-mcp-tools[tasks]" (or use Django 6), or '
        "set MCP_TOOLS['TASK_EXECUTOR'] to an executor of your own (docs/tasks.md#executors).",
    ),
    "mcp_tools.E071": (
        "MCP_TOOLS['TASK_EXECUTOR'] is {value!r}, which {problem}.",
        "Name a class with an enqueue(task_id) method by its dotted path, or leave the "
        "setting out for the default, mcp_tools.tasks.executors.DjangoTasksExecutor "
        '(pip install "django-mcp-tools[tasks]" on Django 5.2).',
    ),
    "mcp_tools.E072": (
        "MCP_TOOLS['TASK_BACKEND'] is {alias!r}, which TASKS does not define ({aliases}): "
        "the task calls of {names} fail.",
        "Name one of TASKS' aliases, or add {alias!r} to TASKS, with a worker for it "
        "(manage.py db_worker --backend {alias}) (docs/tasks.md#executors).",
    ),
    "mcp_tools.W070": (
        "The backend of TASKS that TASK_BACKEND names is Django's ImmediateBackend and DEBUG "
        "is off: every "
        "task call of {names} runs inline, in the web worker that answers it, for as long as "
        "the tool takes.",
        "Run the tasks on a worker: TASKS = {{'default': {{'BACKEND': "
        "'django_tasks_db.DatabaseBackend'}}}} with 'django_tasks' and 'django_tasks_db' in "
        "INSTALLED_APPS, and manage.py db_worker beside the server (docs/tasks.md#executors). "
        "Silence mcp_tools.W070 where calling inline is what you want.",
    ),
    "mcp_tools.E080": (
        "Tool {name!r}: the argument {argument!r} is mirrored in a header named {header}, "
        "which is no HTTP header name (one or more letters, digits or !#$%&'*+-.^_`|~).",
        'Name the header with letters, digits and hyphens, e.g. @mcp_tool(headers={{"region": '
        '"Region"}}) for Mcp-Param-Region.',
    ),
    "mcp_tools.E081": (
        "Tool {name!r}: the argument {argument!r} is mirrored in the header Mcp-Param-{header} "
        "but its schema's type is {type}; only a string, integer or boolean argument can be "
        "(clients drop the tool).",
        "Mirror an argument of one type, string, integer or boolean: a number's text is not "
        "the same in every language, and a nullable field's type is a list (drop allow_null, "
        "or declare the property with @mcp_tool(input_schema=...)).",
    ),
    "mcp_tools.E082": (
        "Tool {name!r}: the arguments {other!r} and {argument!r} are both mirrored in the "
        "header Mcp-Param-{header} (header names are the same in any case).",
        "Give each argument header its own name.",
    ),
    "mcp_tools.E083": (
        "Tool {name!r}: its input_schema declares an x-mcp-header at {pointer}, which is not "
        "an argument reached through properties from the root (clients drop the tool).",
        "Put x-mcp-header on a property reached through properties keys only, never under "
        "items, anyOf/oneOf/allOf, not, if/then/else, $defs or a $ref.",
    ),
    "mcp_tools.E084": (
        "{view}: @mcp_tool(headers=...) names {arguments}, which no tool of it takes as an "
        "argument.",
        "Name arguments of the tool's input schema (manage.py mcp_show NAME shows them), or "
        "put headers= on the handler or action that takes them.",
    ),
    "mcp_tools.E085": (
        "Tool {name!r}: headers= mirrors the argument {argument!r} in Mcp-Param-{header}, but "
        "its input_schema already names Mcp-Param-{known} for it.",
        "Declare the argument's header once: in headers= or in the input_schema.",
    ),
    "mcp_tools.W080": (
        "Tool {name!r}: the header Mcp-Param-{header} has an underscore in its name: gunicorn "
        "drops such headers by default (its header_map setting) and Django reads '_' and '-' "
        "alike, so calls can be refused as missing the header.",
        "Name it with hyphens: Mcp-Param-{hyphens}.",
    ),
    "mcp_tools.I060": (
        "Tool calls run through {count} middleware of MIDDLEWARE: {running}. Left out: {skipped}.",
        "The view's request already carries what the left-out classes do "
        "(DISPATCH_SKIP_MIDDLEWARE, docs/dispatch.md); silence this check once you have read it.",
    ),
    "mcp_tools.I061": (
        "Tool calls call their views directly (MCP_TOOLS['DISPATCH'] = 'direct'): {count} "
        "middleware of MIDDLEWARE would run for a direct request and do not for them "
        "({names}), so policy there does not apply.",
        "The attributes the middleware set on the /mcp request are carried over to the view's "
        "request. Use DISPATCH = 'middleware' (the default) where middleware decides who may "
        "call a view (docs/dispatch.md).",
    ),
}

#: Where a view's body fields can be declared, by the kind of view (mcp_tools.I001).
BODY_PLACES = {
    "class": "serializer_class = ... (or get_serializer_class()) on {view}, "
    "@extend_schema(request=...) with drf-spectacular",
    "function": "@extend_schema(request=...) with drf-spectacular, above @api_view on {view}",
}


#: What to do about annotations that can't be read (mcp_tools.W006): the schema class builds
#: on DRF's own AutoSchema, or a method of the project's schema class raised (``raised_in``).
SCHEMA_ADVICE = {
    "base": "Set " + SCHEMA_CLASS_SETTING + ", as drf-spectacular's installation asks, and "
    "make the annotations readable for a synthetic anonymous request.",
    "raised": "Make {raised_in} answer for this operation as drf-spectacular's generator "
    "calls it (the view set up for a synthetic anonymous request, swagger_fake_view set), "
    "or declare the tool yourself: @mcp_tool(input_schema=..., description=...), or "
    "expose(View, ...) for a view you don't own.",
}


def describe(problem: ToolProblem) -> tuple[str, str]:
    """Return the message and the hint of ``problem``."""
    message, hint = MESSAGES[problem.id]
    params = dict(problem.params)
    if "kind" in params:
        params["places"] = BODY_PLACES[params["kind"]].format(**params)
    if problem.id == "mcp_tools.W006":
        unread = params.get("unread") or ()
        params["lost"] = (
            "what " + " and ".join(f"{method}()" for method in unread) + " would declare"
            if unread
            else "them"
        )
        cause = "raised" if params.get("raised_in") else "base"
        params["advice"] = SCHEMA_ADVICE[cause].format(**params)
    return message.format(**params), hint.format(**params)
