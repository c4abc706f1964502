"""``completion/complete``: a prompt argument's declared choices or completion function,
and a resource template variable's through ``completion.resources`` (docs/prompts.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sized
from typing import Any

from ..pipeline.invocation import Call
from ..prompts.methods import find
from ..prompts.runs import caller_request
from ..protocol.jsonrpc import INVALID_PARAMS, JSONRPCError, clip
from .resources import resource_values
from .values import Completion, matching

__all__ = ["complete"]


def _invalid(message: str) -> JSONRPCError:
    return JSONRPCError(INVALID_PARAMS, f"Invalid params: {message}")


def complete(call: Call) -> dict[str, Any]:
    call.exchange.count_call()  # a batch's further completions count as requests
    params = call.message.params
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict):
        raise _invalid("ref must be an object")
    if not (
        isinstance(argument, dict)
        and isinstance(argument.get("name"), str)
        and isinstance(argument.get("value"), str)
    ):
        raise _invalid("argument must be an object with a name and a value, both strings")
    context = params.get("context", {})
    others = context.get("arguments", {}) if isinstance(context, dict) else None
    if not (isinstance(others, dict) and all(isinstance(v, str) for v in others.values())):
        raise _invalid("context.arguments must map names to strings")
    name, typed = argument["name"], argument["value"]
    kind = ref.get("type")
    if kind == "ref/prompt":
        return prompt_completion(call, ref.get("name"), name, typed, others).wire()
    if kind == "ref/resource":
        uri = ref.get("uri")
        if not isinstance(uri, str):
            raise _invalid("ref/resource needs a uri")
        return resource_values(call, uri, name, typed, others).wire()
    raise _invalid(f"unknown ref type: {clip(str(kind))}")


def prompt_completion(
    call: Call, prompt_name: object, name: str, typed: str, others: dict[str, str]
) -> Completion:
    """Complete the argument ``name`` of the prompt ``prompt_name`` (as ``prompts/get``
    finds it for this caller: an unknown or hidden prompt is -32602)."""
    prompt = find(call, prompt_name)
    argument = next((each for each in prompt.arguments if each.name == name), None)
    if argument is None:
        raise _invalid(f"prompt {prompt.name} has no argument {clip(name)}")
    completer = prompt.code.completers.get(name) if prompt.code is not None else None
    if completer is None:
        return matching(argument.choices, typed)
    found: Iterable[object] = completer(
        caller_request(call.request, call.caller), typed, dict(others)
    )
    return Completion.bounded(found, counted=isinstance(found, Sized))
