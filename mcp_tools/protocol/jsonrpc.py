"""JSON-RPC 2.0 messages: parsing, envelopes and the one protocol exception.

Pure protocol logic: nothing here imports Django settings or models.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNAUTHORIZED = -32001
#: Too many requests: an endpoint throttle refused this one (HTTP 429).
THROTTLED = -32029
HEADER_MISMATCH = -32020
#: The request needs a client capability the client did not declare (HTTP 400).
MISSING_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022

#: A JSON-RPC request's id; None where it has none (a notification) or no valid one.
RequestId = str | int | None


class JSONRPCError(Exception):
    """A protocol fault, answered as a JSON-RPC error envelope with an HTTP status."""

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        request_id: RequestId = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.status = status
        self.headers = headers or {}
        #: The id of the request it answers, when the request had a valid one.
        self.request_id = request_id

    @classmethod
    def internal(cls, reference: str, detail: str | None = None) -> JSONRPCError:
        """Return the answer to a fault of the server itself: -32603 and its error reference.

        ``detail`` (what failed, when errors are not masked) goes in ``data`` beside it.
        """
        data = (
            {"errorRef": reference} if detail is None else {"errorRef": reference, "detail": detail}
        )
        return cls(INTERNAL_ERROR, "Internal error", data=data, status=500)

    def error_object(self) -> dict[str, object]:
        error: dict[str, object] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def clip(text: str, limit: int = 100) -> str:
    """Return ``text`` cut to ``limit`` characters (marked ``…``): what a message echoes."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_text(value: object) -> str:
    """Return ``value`` as JSON text, as a client wrote it: ``null``, ``true``, ``"x"``."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)  # not a JSON value (a schema built in Python may hold one)


class RawJSON:
    """JSON text that is already encoded, placed into an envelope without re-encoding.

    The view's renderer wrote these bytes once; parsing and re-encoding them for the
    envelope would double the cost of every call (docs/performance.md).
    """

    __slots__ = ("text", "_value")

    _UNPARSED = object()

    def __init__(self, text: str, value: object = _UNPARSED) -> None:
        self.text = text
        self._value = value

    @property
    def value(self) -> Any:
        """Return the decoded value, parsed on first use."""
        if self._value is RawJSON._UNPARSED:
            self._value = json.loads(self.text)
        return self._value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RawJSON):
            return bool(self.value == other.value)
        return bool(self.value == other)

    def __repr__(self) -> str:
        return f"RawJSON({self.text[:40]!r})"


_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


#: The JSON of the constants, and of a string as ``_dumps`` writes it (without its checks).
_CONSTANTS = {True: "true", False: "false", None: "null"}
_string = json.encoder.encode_basestring


def encode(value: object) -> str:
    """Encode ``value`` as compact JSON, splicing ``RawJSON`` values in as they are.

    The common types are told apart by ``type()`` first, which is about twice as fast as
    the ``isinstance()`` checks the rest still get. An object whose keys are all ``str``
    and whose values hold no tuple is written here; any other, and a proxy of a dict
    (``SimpleLazyObject``), as this encoder always has (``_encode_as_before``). Each level of
    nesting takes two frames, as it always has.
    """
    kind = type(value)
    if kind is str:
        return _string(value)  # type: ignore[arg-type]
    if kind is list or kind is tuple:
        return "[" + ",".join([encode(v) for v in value]) + "]"  # type: ignore[attr-defined]
    if kind is RawJSON:
        return value.text  # type: ignore[attr-defined,no-any-return]
    if value is None or value is True or value is False:
        return _CONSTANTS[value]
    if kind is int:
        return int.__repr__(value)  # type: ignore[arg-type]
    if kind is dict or issubclass(kind, dict):
        mapping: dict[Any, object] = value  # type: ignore[assignment]
        for key, item in mapping.items():
            if type(key) is not str or isinstance(item, tuple):
                return _encode_as_before(mapping)
        return "{" + ",".join([f"{_string(k)}:{encode(v)}" for k, v in mapping.items()]) + "}"
    if isinstance(value, RawJSON):
        return value.text
    if isinstance(value, dict):
        return _encode_as_before(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join([encode(v) for v in value]) + "]"
    return _dumps(value)


def _encode_as_before(value: dict[Any, object]) -> str:
    """Encode an object as this encoder always has: by the ``json`` module (its rules for
    keys that are no ``str``) when no value is an object, an array or ``RawJSON``, else with
    each key's ``str()``. ``tests/protocol/test_jsonrpc.py`` pins both."""
    if not any(isinstance(v, dict | list | RawJSON) for v in value.values()):
        return _dumps(value)
    return "{" + ",".join([f"{_string(str(k))}:{encode(v)}" for k, v in value.items()]) + "}"


def result_envelope(request_id: RequestId, result: object) -> str:
    return f'{{"jsonrpc":"2.0","id":{_dumps(request_id)},"result":{encode(result)}}}'


def error_envelope(request_id: RequestId, error: JSONRPCError) -> str:
    # ASCII: an error may echo client input, and a lone surrogate in it can't be UTF-8.
    envelope = {"jsonrpc": "2.0", "id": request_id, "error": error.error_object()}
    return json.dumps(envelope, separators=(",", ":"))


def request_envelope(request_id: str, method: str, params: Mapping[str, object]) -> str:
    """Encode a request the server sends its client (an input request of the handshake era)."""
    return (
        f'{{"jsonrpc":"2.0","id":{_dumps(request_id)},"method":{_dumps(method)},'
        f'"params":{encode(params)}}}'
    )


def notification_envelope(method: str, params: Mapping[str, object]) -> str:
    """Encode a notification the server sends (progress, log messages)."""
    return f'{{"jsonrpc":"2.0","method":{_dumps(method)},"params":{encode(params)}}}'


#: The longest string ``progressToken`` taken, in characters. Clients use a counter or a
#: UUID (36 characters); every progress event of the call repeats the token.
MAX_PROGRESS_TOKEN_LENGTH = 256
#: The largest integer a JSON reader holds exactly (2**53 - 1, JavaScript's
#: ``Number.MAX_SAFE_INTEGER``): past it a client could not match the token to its request.
MAX_SAFE_INTEGER = 2**53 - 1


@dataclass(frozen=True, slots=True)
class Message:
    """One incoming JSON-RPC message."""

    method: str | None
    id: RequestId
    params: dict[str, Any]
    is_request: bool
    #: ``params._meta`` when it is an object, else empty.
    meta: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        meta = self.params.get("_meta")
        object.__setattr__(self, "meta", meta if isinstance(meta, dict) else {})

    @property
    def progress_token(self) -> str | int | None:
        """Return ``_meta.progressToken`` when it is a valid one, else None."""
        token = self.meta.get("progressToken")
        return None if token is None or _progress_token_fault(token) else token

    def check_progress_token(self) -> None:
        """Raise -32602 when ``_meta.progressToken`` is there but not a valid one."""
        token = self.meta.get("progressToken")
        if token is not None and (fault := _progress_token_fault(token)):
            raise JSONRPCError(INVALID_PARAMS, f"Invalid params: _meta.progressToken {fault}")


def _progress_token_fault(token: object) -> str | None:
    """Return why ``token`` is not a progress token we take, or None when it is one.

    Every progress event repeats the token, so it is bounded: a string of at most
    ``MAX_PROGRESS_TOKEN_LENGTH`` characters, or an integer a JSON reader holds exactly.
    """
    if not _valid_id(token):
        return "must be a string or an integer"
    if isinstance(token, str) and len(token) > MAX_PROGRESS_TOKEN_LENGTH:
        return f"is longer than {MAX_PROGRESS_TOKEN_LENGTH} characters"
    if isinstance(token, int) and abs(token) > MAX_SAFE_INTEGER:
        return f"must be an integer from -{MAX_SAFE_INTEGER} to {MAX_SAFE_INTEGER}"
    return None


def _depth_exceeds(value: dict[str, object] | list[object], limit: int) -> bool:
    """Return whether containers nest deeper than ``limit`` (iteratively: no recursion)."""
    stack: list[tuple[dict[str, object] | list[object], int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


#: A ``\uD800``–``\uDFFF`` escape in JSON text: the only way a surrogate reaches a string.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
#: A surrogate left in a decoded string: the decoder joins every valid pair, so it is lone.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _holds_surrogate(value: object) -> bool:
    """Return whether any string or key in ``value`` holds a lone surrogate (iteratively)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class NotStrictJSON(ValueError):
    """JSON text that a strict reader refuses (see ``decode``); ``code`` is its JSON-RPC code."""

    code = PARSE_ERROR


class TooDeep(NotStrictJSON):
    code = INVALID_REQUEST


class DuplicateKey(NotStrictJSON):
    code = INVALID_REQUEST

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {clip(key, 64)!r} appears twice in one object")


class LoneSurrogate(NotStrictJSON):
    code = INVALID_REQUEST


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return value


def _no_constant(name: str) -> NoReturn:
    raise NotStrictJSON(f"{name} is not JSON")


#: One decoder for every body, as ``json.loads`` keeps one for its defaults: ``loads()``
#: with hooks makes a decoder and its scanner per call (about 3 us). It holds no state
#: between calls.
_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant)


def decode(text: str, *, max_depth: int) -> object:
    """Decode JSON text as strictly as any other reader of it would; raise ``NotStrictJSON``.

    JSON as RFC 8259 defines it: no ``NaN`` or ``Infinity`` literals, no key twice in one
    object (a reader that takes the first ``name`` would see another tool than the one that
    runs), containers nested at most ``max_depth`` deep, and no string holding a lone
    UTF-16 surrogate (such a string has no UTF-8 form, and the endpoint echoes strings).
    """
    try:
        value = _STRICT_DECODER.decode(text)
    except RecursionError as exc:
        # Nested past the interpreter's own limit: far deeper than any MAX_JSON_DEPTH.
        raise TooDeep(f"JSON nested deeper than {max_depth}") from exc
    except NotStrictJSON:
        raise
    except ValueError as exc:  # bad JSON, or an integer past Python's digit limit
        raise NotStrictJSON("not valid JSON") from exc
    # No walk when the text has too few brackets to nest that deep (nearly every request).
    nested = isinstance(value, dict | list) and text.count("{") + text.count("[") > max_depth
    if nested and _depth_exceeds(value, max_depth):
        raise TooDeep(f"JSON nested deeper than {max_depth}")
    if _SURROGATE_ESCAPE.search(text) and _holds_surrogate(value):
        raise LoneSurrogate("a string holds a lone UTF-16 surrogate, which is not Unicode text")
    return value


def loads(body: bytes, *, max_depth: int) -> object:
    """Decode a request body, raising -32700 for bad JSON and -32600 for deep nesting.

    The body must be UTF-8 text and strict JSON (``decode``): a NaN literal or a body in
    another encoding is -32700; a duplicate key, nesting past ``max_depth`` or a lone
    surrogate is -32600. All of it is refused here, before anything runs.
    """
    try:
        # Strict UTF-8: json.loads(bytes) would pass the raw bytes of a surrogate through.
        text = body.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONRPCError(
            PARSE_ERROR, "Parse error: the body is not valid JSON", status=400
        ) from exc
    try:
        return decode(text, max_depth=max_depth)
    except NotStrictJSON as exc:
        kind = "Parse error" if exc.code == PARSE_ERROR else "Invalid Request"
        what = "the body is not valid JSON" if exc.code == PARSE_ERROR else str(exc)
        raise JSONRPCError(exc.code, f"{kind}: {what}", status=400) from exc


def _valid_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def id_of(value: object) -> RequestId:
    """Return the id of a decoded message when it is a valid one, else None."""
    request_id = value.get("id") if isinstance(value, dict) else None
    return request_id if _valid_id(request_id) else None


def parse_message(value: object) -> Message:
    """Check one JSON-RPC message's shape and return it, raising -32600 when it is wrong.

    The error carries the message's id when that id is valid, so the answer can name it.
    """
    request_id = value.get("id") if isinstance(value, dict) else None
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        raise _invalid(value, "expected a JSON-RPC 2.0 object")
    has_id = "id" in value
    if has_id and not _valid_id(request_id):
        raise _invalid(value, "id must be a string or an integer")
    if "method" in value:
        method = value["method"]
        if not isinstance(method, str):
            raise _invalid(value, "method must be a string")
        params = value.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise _invalid(value, "params must be an object")
        return Message(method, request_id, params, is_request=has_id)
    if has_id and ("result" in value or "error" in value):
        # A response to a request the server never sent (stateless: none); acknowledged.
        return Message(None, request_id, {}, is_request=False)
    raise _invalid(value, "no method")


def _invalid(value: object, reason: str) -> JSONRPCError:
    """Return the -32600 refusal of the message ``value``, naming its id if valid."""
    return JSONRPCError(
        INVALID_REQUEST, f"Invalid Request: {reason}", status=400, request_id=id_of(value)
    )
