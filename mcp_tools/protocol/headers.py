"""Argument headers (``x-mcp-header``, ``Mcp-Param-*``) and the value encoding of every
header that mirrors the body (``Mcp-Name`` too).

A property of a tool's ``inputSchema`` may carry ``"x-mcp-header": "<Name>"``; a 2026-07-28
client then mirrors the argument in ``Mcp-Param-<Name>``, and the server refuses a call
whose header and body disagree. The rules are in docs/protocol.md (argument headers).

Pure protocol logic: nothing here imports Django settings or models.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .jsonrpc import HEADER_MISMATCH, JSONRPCError

#: The keyword that declares an argument header, on the argument's property schema.
ANNOTATION = "x-mcp-header"
PARAM_PREFIX = "Mcp-Param-"
#: The types an argument header may mirror: never ``number``, whose text differs between
#: languages (``1e+16`` in Python, ``10000000000000000`` in JavaScript).
HEADER_TYPES = ("string", "integer", "boolean")
#: RFC 9110's token: every character a header name may hold.
TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: What an ``Mcp-*`` value may hold as sent: visible ASCII, space and tab (else Base64).
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e]*")
_PLAIN = re.compile(r"[\x20-\x7e]*")
_SENTINEL = re.compile(r"=\?base64\?(.*)\?=", re.DOTALL)
#: An integer's text a header may carry, compared as a number (``42``, ``-7``, ``42.0``).
_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
#: The whitespace around a field value, which is not part of it (RFC 9110, section 5.5).
OWS = " \t"

# JSON Schema 2020-12 keywords whose values are schemas, by the shape of the value. Only
# ``properties`` keeps a position statically reachable; instance data (``default``,
# ``enum``, ``const``, ``examples``) is never walked, and ``$ref`` never followed.
_ONE_SCHEMA = frozenset(
    {
        "items",
        "contains",
        "additionalItems",
        "unevaluatedItems",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    }
)
# ``items`` as a list is draft-07's form of ``prefixItems``; ``dependencies`` its
# ``dependentSchemas`` (where a value is a schema, not a list of names).
_SCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SCHEMA_MAP = frozenset(
    {"patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"}
)

UNREACHABLE = "unreachable"
BAD_NAME = "name"
BAD_TYPE = "type"
DUPLICATE = "duplicate"


@dataclass(frozen=True, slots=True)
class ArgumentHeader:
    """One argument a tool mirrors in a header: its path in the arguments, the header's
    name (what follows ``Mcp-Param-``) and the argument's type."""

    path: tuple[str, ...]
    name: str
    type: str

    @property
    def header(self) -> str:
        return PARAM_PREFIX + self.name

    @property
    def meta_key(self) -> str:
        """The WSGI ``META`` key the header arrives under."""
        return "HTTP_" + self.header.upper().replace("-", "_")

    @property
    def argument(self) -> str:
        return ".".join(self.path)


class InvalidHeader(ValueError):
    """An ``x-mcp-header`` the specification forbids; ``kind`` names the rule it breaks
    (``UNREACHABLE``, ``BAD_NAME``, ``BAD_TYPE``, ``DUPLICATE``), ``params`` what it is."""

    def __init__(self, kind: str, **params: object) -> None:
        super().__init__(kind)
        self.kind = kind
        self.params = params


def _positions(root: object) -> Iterator[tuple[tuple[str, ...] | None, str, dict[str, Any]]]:
    """Yield ``(path, pointer, schema)`` for every schema position under ``root``.

    ``path`` is the chain of ``properties`` keys leading there, or None once another keyword
    was crossed; ``pointer`` is the position's JSON pointer. An explicit stack: any depth.
    """
    stack: list[tuple[tuple[str, ...] | None, str, object]] = [((), "", root)]
    while stack:
        path, pointer, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield path, pointer or "/", node
        children: list[tuple[tuple[str, ...] | None, str, object]] = []
        for keyword, value in node.items():
            at = f"{pointer}/{_escape(keyword)}"
            if keyword == "properties" and isinstance(value, dict):
                for key, sub in value.items():
                    inner = (*path, key) if path is not None else None
                    children.append((inner, f"{at}/{_escape(key)}", sub))
            elif keyword in _ONE_SCHEMA and not isinstance(value, list):
                children.append((None, at, value))
            elif keyword in _SCHEMA_LIST and isinstance(value, list):
                children.extend((None, f"{at}/{index}", sub) for index, sub in enumerate(value))
            elif keyword in _SCHEMA_MAP and isinstance(value, dict):
                children.extend((None, f"{at}/{_escape(key)}", sub) for key, sub in value.items())
        stack.extend(reversed(children))  # popped in schema order


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def declared(schema: object) -> tuple[ArgumentHeader, ...]:
    """Return the argument headers ``schema`` declares, in schema order.

    Raises ``InvalidHeader`` for the first declaration the specification forbids: one off
    the chain of ``properties`` keys from the root, a name that is no RFC 9110 token, a
    property whose ``type`` is not one string, integer or boolean, a name used twice in any
    case.
    """
    found: list[ArgumentHeader] = []
    seen: dict[str, str] = {}
    for path, pointer, node in _positions(schema):
        if ANNOTATION not in node:
            continue
        if not path:  # None: under another keyword; (): the root, which is no argument
            raise InvalidHeader(UNREACHABLE, pointer=pointer)
        argument = ".".join(path)
        name = node[ANNOTATION]
        if not isinstance(name, str) or not TOKEN.fullmatch(name):
            raise InvalidHeader(BAD_NAME, argument=argument, header=name)
        kind = node.get("type")
        if not isinstance(kind, str) or kind not in HEADER_TYPES:
            raise InvalidHeader(BAD_TYPE, argument=argument, header=name, type=kind)
        other = seen.setdefault(name.lower(), argument)
        if other != argument:
            raise InvalidHeader(DUPLICATE, argument=argument, other=other, header=name)
        found.append(ArgumentHeader(path, name, kind))
    return tuple(found)


def without_annotations(schema: object) -> object:
    """Return ``schema`` without its ``x-mcp-header`` keywords: the same object when it has
    none, else a copy of the objects that held one (a declared schema holds them only on
    the chain of ``properties`` keys; ``declared`` refuses the rest)."""
    if not isinstance(schema, dict):
        return schema
    properties = schema.get("properties")
    changed: dict[str, object] = {}
    if isinstance(properties, dict):
        for key, sub in properties.items():
            stripped = without_annotations(sub)
            if stripped is not sub:
                changed[key] = stripped
    if ANNOTATION not in schema and not changed:
        return schema
    copy = {key: value for key, value in schema.items() if key != ANNOTATION}
    if changed:
        copy["properties"] = {**properties, **changed}  # type: ignore[dict-item]
    return copy


def encode_value(value: str) -> str:
    """Write ``value`` as an ``Mcp-*`` header carries it: as it is when it is plain ASCII with
    no whitespace around it, else ``=?base64?<UTF-8 in Base64>?=``."""
    if _PLAIN.fullmatch(value) and value == value.strip(OWS) and not _SENTINEL.fullmatch(value):
        return value
    return f"=?base64?{base64.b64encode(value.encode()).decode('ascii')}?="


def decode_value(value: str) -> str | None:
    """Read an ``Mcp-*`` header value: ``=?base64?…?=`` decoded, anything else as it is.

    Strict: Base64 with its padding, of the standard alphabet, in its one canonical form,
    of UTF-8 text; else None, which matches no body value.
    """
    match = _SENTINEL.fullmatch(value)
    if match is None:
        return value
    payload = match.group(1)
    try:
        data = base64.b64decode(payload, validate=True)
        if base64.b64encode(data).decode("ascii") != payload:
            return None  # non-zero padding bits: another text decodes to the same bytes
        return data.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def render(value: object) -> str | None:
    """Return the text a client mirrors for an argument value, or None for one it can't
    mirror (an object, an array)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str | int | float):
        return None
    try:
        return str(value)
    except ValueError:  # an integer past Python's digit limit
        return None


def value_at(arguments: Mapping[str, object], path: Sequence[str]) -> object:
    """Return the argument at ``path``, or None where a step is missing or no object."""
    node: object = arguments
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def mirror(headers: Sequence[ArgumentHeader], arguments: Mapping[str, object]) -> dict[str, str]:
    """Return the ``Mcp-Param-*`` headers a client sends with ``arguments``."""
    sent = {}
    for header in headers:
        value = value_at(arguments, header.path)
        text = render(value) if value is not None else None
        if text is not None:
            sent[header.header] = encode_value(text)
    return sent


def field(meta: Mapping[str, object], key: str) -> str | None:
    """Return a header's value from WSGI ``META``, without the whitespace around it."""
    value = meta.get(key)
    return value.strip(OWS) if isinstance(value, str) else None


def check(
    headers: Sequence[ArgumentHeader],
    arguments: Mapping[str, object],
    meta: Mapping[str, object],
    repeated: Collection[str] = (),
) -> None:
    """Raise -32020 (HTTP 400) unless each argument header agrees with its argument.

    A header and its argument come together or not at all (null is absent): a header
    missing while the value is in the body is refused, as is one sent for an absent
    argument. A value must be a valid field value (else Base64), a ``=?base64?…?=`` one
    strict Base64 of UTF-8; integers compare as numbers (``42`` is ``42.0``). A header
    sent more than once is refused: ``repeated`` names (lower-cased) the headers that were,
    where the server can tell (an ASGI request's raw headers; WSGI servers join them).
    """
    for header in headers:
        if header.header.lower() in repeated:
            raise mismatch(f"{header.header} header is sent more than once")
        raw = field(meta, header.meta_key)
        value = value_at(arguments, header.path)
        text = render(value) if value is not None else None
        if text is None:
            if raw is not None and value is None:
                raise mismatch(
                    f"{header.header} header is sent, but the argument {header.argument!r} "
                    "is not in the body"
                )
            if raw is not None:  # an object or an array: no client mirrors it
                raise mismatch(
                    f"{header.header} header does not match the argument {header.argument!r}"
                )
            continue
        if raw is None:
            raise mismatch(
                f"{header.header} header is missing, but the argument {header.argument!r} "
                "is in the body"
            )
        if not _FIELD_VALUE.fullmatch(raw):
            raise mismatch(
                f"{header.header} header holds characters a header value can't carry; "
                "send them as =?base64?...?="
            )
        decoded = decode_value(raw)
        if decoded is None:
            raise mismatch(
                f"{header.header} header is not valid =?base64?...?= (padded Base64 of UTF-8)"
            )
        if not _agrees(header.type, value, text, decoded):
            raise mismatch(
                f"{header.header} header does not match the argument {header.argument!r}"
            )


def _agrees(kind: str, value: Any, text: str, decoded: str) -> bool:
    integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if (
        kind == "integer"
        and integral
        and not isinstance(value, bool)
        and _DECIMAL.fullmatch(decoded)
    ):
        whole, _, fraction = decoded.partition(".")
        try:
            return not fraction.strip("0") and int(whole) == int(value)
        except ValueError:  # past Python's digit limit: no argument is that long
            return False
    return decoded == text


def mismatch(message: str) -> JSONRPCError:
    """Return the -32020 error (HTTP 400) of a header that does not match the body."""
    return JSONRPCError(HEADER_MISMATCH, f"Header mismatch: {message}", status=400)
