"""Input requests and responses of 2026-07-28 (multi round-trip requests, SEP-2322).

A server that needs something from the client mid-call answers with an input-required
result naming its ``inputRequests``; the client retries with ``inputResponses``. This
module checks both sides as the protocol defines them and tells which client capability
each request needs (docs/input.md).

Pure protocol logic: nothing here imports Django settings or models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema

from .jsonrpc import clip

ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
LIST_ROOTS = "roots/list"
#: The requests a server may put in ``inputRequests``.
INPUT_METHODS = (ELICIT, SAMPLE, LIST_ROOTS)
ELICIT_ACTIONS = ("accept", "decline", "cancel")
ROLES = ("user", "assistant")


def check_requests(requests: object) -> dict[str, dict[str, Any]]:
    """Return ``requests`` (key → ``{"method", "params"}``) as plain dicts, or raise ValueError.

    What a view passes to ``request_input``: a mistake is the developer's, so the message
    says what is wrong where the view asked.
    """
    if not isinstance(requests, Mapping) or not requests:
        raise ValueError("request_input: requests must be a non-empty dict of key → request")
    checked: dict[str, dict[str, Any]] = {}
    for key, request in requests.items():
        if not isinstance(key, str) or not key:
            raise ValueError(f"request_input: keys must be non-empty strings, not {key!r}")
        if not isinstance(request, Mapping):
            raise ValueError(f"request_input: {key!r} must be a dict with method and params")
        method = request.get("method")
        if method not in INPUT_METHODS:
            raise ValueError(
                f"request_input: {key!r} has method {method!r}; use one of "
                + ", ".join(INPUT_METHODS)
            )
        params = request.get("params", {})
        if not isinstance(params, Mapping):
            raise ValueError(f"request_input: the params of {key!r} must be a dict")
        params = dict(params)
        if method == ELICIT:
            _check_elicitation(key, params)
        elif method == SAMPLE and not (
            isinstance(params.get("messages"), list) and isinstance(params.get("maxTokens"), int)
        ):
            raise ValueError(
                f"request_input: the sampling request {key!r} needs messages (a list) "
                "and maxTokens (an integer)"
            )
        checked[key] = {"method": method, "params": params}
    return checked


def _check_elicitation(key: str, params: dict[str, object]) -> None:
    if not isinstance(params.get("message"), str):
        raise ValueError(f"request_input: the elicitation {key!r} needs a message (a string)")
    if params.get("mode") == "url":
        if not isinstance(params.get("url"), str) or not isinstance(
            params.get("elicitationId"), str
        ):
            raise ValueError(
                f"request_input: the URL elicitation {key!r} needs url and elicitationId"
            )
        return
    schema = params.get("requestedSchema")
    if (
        not isinstance(schema, Mapping)
        or schema.get("type") != "object"
        or not isinstance(schema.get("properties"), Mapping)
    ):
        raise ValueError(
            f"request_input: the elicitation {key!r} needs a requestedSchema of "
            '{"type": "object", "properties": {...}}'
        )
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(
            f"request_input: the requestedSchema of {key!r} is invalid: {exc.message}"
        ) from None


def required_capabilities(request: Mapping[str, Any]) -> dict[str, Any]:
    """Return the client capabilities ``request`` needs, as a ``ClientCapabilities`` object."""
    method, params = request["method"], request["params"]
    if method == ELICIT:
        return {"elicitation": {"url": {}} if params.get("mode") == "url" else {}}
    if method == SAMPLE:
        return {"sampling": {"tools": {}} if "tools" in params else {}}
    return {"roots": {}}


def declares(capabilities: Mapping[str, object], request: Mapping[str, Any]) -> bool:
    """Return whether a client that declared ``capabilities`` can answer ``request``."""
    method, params = request["method"], request["params"]
    if method == ELICIT:
        elicitation = capabilities.get("elicitation")
        if not isinstance(elicitation, Mapping):
            return False
        if params.get("mode") == "url":
            return "url" in elicitation
        # An empty object is form mode: what clients declared before modes existed.
        return "form" in elicitation or "url" not in elicitation
    if method == SAMPLE:
        sampling = capabilities.get("sampling")
        if not isinstance(sampling, Mapping):
            return False
        return "tools" not in params or "tools" in sampling
    return isinstance(capabilities.get("roots"), Mapping)


#: The first handshake-era version of each request a server may send its client: sampling
#: and roots since 2024-11-05, elicitation since 2025-06-18; URL elicitation, forms with a
#: multiple choice (an ``array`` property, SEP-1330) and sampling with tools since
#: 2025-11-25 (versions are dates: they compare as strings).
SINCE = {SAMPLE: "2024-11-05", LIST_ROOTS: "2024-11-05", ELICIT: "2025-06-18"}
SINCE_EXTENDED = "2025-11-25"


def handshake_supports(version: str, request: Mapping[str, Any]) -> bool:
    """Return whether a client of handshake-era ``version`` can be sent ``request`` at all.

    Whether it will answer is the client's to say: that era declares capabilities only at
    ``initialize``, which a stateless server never sees again.
    """
    method, params = request["method"], request["params"]
    if method == ELICIT:
        extended = params.get("mode") == "url" or _multiple_choice(params)
    else:
        extended = method == SAMPLE and "tools" in params
    return version >= (SINCE_EXTENDED if extended else SINCE[method])


def _multiple_choice(params: Mapping[str, object]) -> bool:
    form = params.get("requestedSchema")
    properties = form.get("properties") if isinstance(form, Mapping) else None
    if not isinstance(properties, Mapping):
        return False
    return any(
        isinstance(field, Mapping) and field.get("type") == "array" for field in properties.values()
    )


def check_responses(value: object) -> dict[str, dict[str, Any]]:
    """Return ``inputResponses`` if it is a valid ``InputResponses`` object, else raise ValueError.

    Each value must be one of the results a client returns (an elicitation, sampling or
    roots result): keys the server did not ask for are ignored later, but never a value
    that is not a result at all.
    """
    if not isinstance(value, dict):
        raise ValueError("inputResponses must be an object")
    for key, response in value.items():
        if not isinstance(response, dict) or response_kind(response) is None:
            raise ValueError(
                f"inputResponses[{clip(key)!r}] must be an elicitation, sampling or roots result"
            )
    return value


def response_kind(response: Mapping[str, object]) -> str | None:
    """Return the input method whose result ``response`` is, or None if it is none of them."""
    if "action" in response:
        return ELICIT if _is_elicit_result(response) else None
    if "roots" in response:
        roots = response["roots"]
        valid = isinstance(roots, list) and all(
            isinstance(root, dict) and isinstance(root.get("uri"), str) for root in roots
        )
        return LIST_ROOTS if valid else None
    content = response.get("content")
    if (
        response.get("role") in ROLES
        and isinstance(response.get("model"), str)
        and isinstance(content, dict | list)
    ):
        return SAMPLE
    return None


def _is_elicit_result(response: Mapping[str, object]) -> bool:
    if response.get("action") not in ELICIT_ACTIONS:
        return False
    content = response.get("content")
    if content is None:
        return "content" not in response
    return isinstance(content, dict) and all(
        _is_primitive(item)
        or (isinstance(item, list) and all(isinstance(entry, str) for entry in item))
        for item in content.values()
    )


def _is_primitive(value: object) -> bool:
    return isinstance(value, str | bool | int | float)


def answers(request: Mapping[str, Any], response: Mapping[str, object]) -> bool:
    """Return whether ``response`` is a usable answer to ``request``.

    The right kind of result, and for an accepted form elicitation, content that matches
    the requested schema: a view reads what it asked for, or is asked again.
    """
    method = request["method"]
    if response_kind(response) != method:
        return False
    if method != ELICIT or response.get("action") != "accept":
        return True
    params = request["params"]
    if params.get("mode") == "url":
        return True
    schema = params["requestedSchema"]
    content = response.get("content", {})
    return bool(jsonschema.validators.validator_for(schema)(schema).is_valid(content))
