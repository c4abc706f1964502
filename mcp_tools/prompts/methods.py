"""``prompts/list`` and ``prompts/get``, for the endpoint's handler tables (docs/prompts.md).

Only an endpoint's default catalog serves prompts: an endpoint of a toolset, or of some
tags, serves none (no capability, an empty list). The handlers read their call through a
small protocol, which the endpoint's ``Call`` meets: nothing here imports the endpoint.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..conf import mcp_settings
from ..inputs.asks import StreamNeeded
from ..pipeline.invocation import Call
from ..protocol import versions
from ..protocol.cursors import decode_cursor, encode_cursor
from ..protocol.jsonrpc import INVALID_PARAMS, THROTTLED, JSONRPCError, clip
from ..protocol.results import InputRequiredResult
from ..resources.methods import read_contents
from .registry import PromptRegistry, capabilities, serves_prompts
from .runs import PromptRun, logged_messages, report_refused, result_of
from .served import ServedPrompt, served_prompts

__all__ = ["capabilities", "find", "get_prompt", "list_prompts", "serves_prompts"]


def _registry(call: Call) -> PromptRegistry | None:
    return getattr(call.endpoint, "prompt_registry", None)


def visible(call: Call) -> tuple[list[ServedPrompt], bool]:
    """Return the prompts ``call``'s caller sees, and whether some were hidden from them."""
    if not serves_prompts(call.endpoint):
        return [], False
    admits = call.exchange.visibility.rule_admits
    return served_prompts(admits, _registry(call))


def is_served(call: Call, name: str) -> bool:
    """Return whether this endpoint serves a prompt ``name`` to someone (the caller or not)."""
    if not serves_prompts(call.endpoint):
        return False
    every, _ = served_prompts(lambda rule: True, _registry(call))
    return any(prompt.name == name for prompt in every)


def find(call: Call, name: object) -> ServedPrompt:
    """Return the prompt ``name`` if ``call``'s caller may get it; else -32602, the same for
    an unknown prompt and a hidden one."""
    if not isinstance(name, str):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: name must be a string")
    for prompt in visible(call)[0]:
        if prompt.name == name:
            return prompt
    raise JSONRPCError(INVALID_PARAMS, f"Unknown prompt: {clip(name)}")


def list_prompts(call: Call) -> dict[str, Any]:
    prompts, hidden = visible(call)
    size = mcp_settings.PAGE_SIZE
    cursor = call.message.params.get("cursor")
    start = decode_cursor(cursor, len(prompts)) if cursor is not None else 0
    end = start + size if size else len(prompts)
    result: dict[str, Any] = {
        "prompts": [prompt.definition(call.version) for prompt in prompts[start:end]]
    }
    if end < len(prompts):
        result["nextCursor"] = encode_cursor(end)
    # As tools/list: private when the list depends on who asks.
    private = call.caller.is_authenticated or hidden
    result["cacheScope"] = "private" if private else "public"
    result["ttlMs"] = mcp_settings.CACHE_TTL_MS
    return result


def get_prompt(call: Call) -> dict[str, Any] | InputRequiredResult | PromptRun:
    """Answer ``prompts/get``: its result, the input a code prompt asks for (2026-07-28), or
    the ``PromptRun`` to stream when it asked in the handshake era (docs/prompts.md)."""
    params = call.message.params
    name, started = params.get("name"), time.perf_counter()
    try:
        prompt = find(call, name)
    except JSONRPCError as error:
        if isinstance(name, str) and is_served(call, name):  # hidden: logged as a tool's is
            report_refused(call, name, started, error.message, "hidden")
        raise
    try:
        call.exchange.count_call()  # a batch's further gets count as requests
    except JSONRPCError as error:
        if error.code == THROTTLED:
            report_refused(call, prompt.name, started, error.message, "throttled")
        raise
    values = argument_values(prompt, params.get("arguments"))
    capabilities: Mapping[str, object] | None = None
    if call.era.modern:
        declared = call.message.meta.get(versions.CLIENT_CAPABILITIES_META_KEY)
        capabilities = declared if isinstance(declared, dict) else {}
    try:
        messages = logged_messages(
            call,
            prompt,
            values,
            params=params,
            capabilities=capabilities,
            # A handshake-era client that reads streams is asked on one (endpoint.streaming).
            stream_on_ask=call.version if call.exchange.asks and not call.era.modern else None,
            # A resource of this site, read as resources/read reads it for this caller.
            read_resource=lambda uri: read_contents(call, uri),
        )
    except StreamNeeded:
        return PromptRun(call, prompt, values, params)
    if isinstance(messages, InputRequiredResult):
        return messages
    return result_of(prompt, messages)


def argument_values(prompt: ServedPrompt, given: object) -> dict[str, str]:
    """Return the values of ``prompt``'s declared arguments among ``given``; -32602 when one
    is not a string or a required one is missing. Arguments it does not declare are left
    out: they fill nothing."""
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise JSONRPCError(INVALID_PARAMS, "Invalid params: arguments must be an object")
    values: dict[str, str] = {}
    missing = []
    for argument in prompt.arguments:
        value = given.get(argument.name)
        if value is None:
            if argument.required:
                missing.append(argument.name)
            continue
        if not isinstance(value, str):
            raise JSONRPCError(
                INVALID_PARAMS, f"Invalid params: argument {argument.name} must be a string"
            )
        values[argument.name] = value
    if missing:
        raise JSONRPCError(
            INVALID_PARAMS,
            f"Invalid params: prompt {prompt.name} needs the argument"
            f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}",
        )
    return values
