"""A prompt's stored form, as staff write it in the admin, checked and made wire messages.

Arguments are a list of ``{"name", "description", "required", "choices"}``; messages a list
of ``{"role": "user" | "assistant"}`` with one of ``text``, ``image`` (the path of one of
the site's static files) or ``resource``: ``{"uri"}`` alone, a resource of this site read at
``prompts/get`` as the caller (what ``resources/read`` gives them), or ``{"uri",
"mimeType", "text"}``, contents written as they are sent. Placeholders ``{argument}`` are
filled by ``prompts.substitution.fill`` in the text, the resource's URI and its text
(docs/prompts.md).
"""

from __future__ import annotations

import base64
import mimetypes
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..protocol.content import check_block
from .substitution import fill

__all__ = [
    "Argument",
    "MAX_IMAGE_BYTES",
    "check_arguments",
    "check_messages",
    "is_site_read",
    "render",
    "wire_message",
]

ROLES = ("user", "assistant")
KINDS = ("text", "image", "resource")
ARGUMENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")
#: An image a prompt may carry: larger files are refused when the prompt is saved.
MAX_IMAGE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Argument:
    """One argument of a prompt: what the client fills in."""

    name: str
    description: str = ""
    required: bool = False
    #: The values completion offers (and nothing else checks: a prompt takes any string).
    choices: tuple[str, ...] = field(default_factory=tuple)

    def wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"name": self.name}
        if self.description:
            wire["description"] = self.description
        wire["required"] = self.required
        return wire


def check_arguments(value: object) -> list[Argument]:
    """Return the arguments ``value`` declares; raise ``ValueError`` saying what is wrong."""
    if not isinstance(value, list):
        raise ValueError('Arguments are a list: [{"name": "topic", "required": true}].')
    found: list[Argument] = []
    seen: set[str] = set()
    for index, item in enumerate(value, 1):
        where = f"Argument {index}"
        if not isinstance(item, dict):
            raise ValueError(f"{where} is not an object.")
        unknown = set(item) - {"name", "description", "required", "choices"}
        if unknown:
            raise ValueError(f"{where} has unknown keys: {', '.join(sorted(unknown))}.")
        name = item.get("name")
        if not isinstance(name, str) or not ARGUMENT_NAME.match(name):
            raise ValueError(
                f"{where}: name must be a string of letters, digits, _ . - "
                "(starting with a letter or _)."
            )
        if name in seen:
            raise ValueError(f"{where}: the name {name} is declared twice.")
        seen.add(name)
        description = item.get("description", "")
        if not isinstance(description, str):
            raise ValueError(f"{where} ({name}): description must be a string.")
        required = item.get("required", False)
        if not isinstance(required, bool):
            raise ValueError(f"{where} ({name}): required must be true or false.")
        choices = item.get("choices", [])
        if not (isinstance(choices, list) and all(isinstance(c, str) for c in choices)):
            raise ValueError(f"{where} ({name}): choices must be a list of strings.")
        found.append(Argument(name, description, required, tuple(choices)))
    return found


def check_messages(value: object, find_image: Any = None) -> None:
    """Raise ``ValueError`` saying what is wrong with ``value`` as a prompt's messages.

    ``find_image`` (a path → bytes or None) checks that each image exists.
    """
    if not isinstance(value, list) or not value:
        raise ValueError('Messages are a non-empty list: [{"role": "user", "text": "..."}].')
    for index, item in enumerate(value, 1):
        where = f"Message {index}"
        if not isinstance(item, dict):
            raise ValueError(f"{where} is not an object.")
        if item.get("role") not in ROLES:
            raise ValueError(f'{where}: role must be "user" or "assistant".')
        kinds = [kind for kind in KINDS if kind in item]
        unknown = set(item) - {"role", *KINDS}
        if unknown:
            raise ValueError(f"{where} has unknown keys: {', '.join(sorted(unknown))}.")
        if len(kinds) != 1:
            raise ValueError(f"{where} needs exactly one of text, image or resource.")
        kind = kinds[0]
        content = item[kind]
        if kind == "text" and not isinstance(content, str):
            raise ValueError(f"{where}: text must be a string.")
        if kind == "image":
            if not isinstance(content, str) or not content:
                raise ValueError(f"{where}: image is the path of a static file (img/chart.png).")
            if not image_type(content):
                raise ValueError(f"{where}: {content} is no image type (png, jpeg, gif, webp).")
            if find_image is not None:
                data = find_image(content)
                if data is None:
                    raise ValueError(f"{where}: no static file {content} was found.")
                if len(data) > MAX_IMAGE_BYTES:
                    raise ValueError(f"{where}: {content} is larger than {MAX_IMAGE_BYTES} bytes.")
        if kind == "resource":
            check_resource(where, content)


def check_resource(where: str, content: object) -> None:
    """Raise ``ValueError`` saying what is wrong with ``content`` as an embedded resource:
    ``{"uri"}`` (read from the site) or ``{"uri", "mimeType", "text"}`` (written here)."""
    if not isinstance(content, dict) or set(content) - {"uri", "mimeType", "text"}:
        raise ValueError(
            f'{where}: resource is {{"uri"}} (read from this site) or '
            f'{{"uri", "mimeType", "text"}}.'
        )
    uri = content.get("uri")
    if not isinstance(uri, str) or not uri:
        raise ValueError(f"{where}: the resource's uri must be a string.")
    if uri.lower().startswith("file:"):
        raise ValueError(f"{where}: a resource of this site is never a file:// URI.")
    if is_site_read(content):
        if "mimeType" in content:
            raise ValueError(
                f"{where}: a resource read from this site has the media type its read "
                "gives: leave out mimeType, or write its text."
            )
        return
    if not isinstance(content.get("text"), str) or not content.get("text"):
        raise ValueError(f"{where}: the resource's text must be a string.")
    if not isinstance(content.get("mimeType", "text/plain"), str):
        raise ValueError(f"{where}: the resource's mimeType must be a string.")


def is_site_read(resource: Mapping[str, Any]) -> bool:
    """Return whether a message's ``resource`` is read from the site at ``prompts/get`` (its
    URI alone) rather than sent as written (with its text)."""
    return "text" not in resource


def image_type(path: str) -> str | None:
    """Return the media type of the image at ``path``, by its name, or None."""
    kind, _encoding = mimetypes.guess_type(path)
    return kind if kind in ("image/png", "image/jpeg", "image/gif", "image/webp") else None


def render(
    messages: Sequence[Mapping[str, Any]],
    arguments: Sequence[Argument],
    values: Mapping[str, str],
    read_image: Any,
    read_resource: Callable[[str], list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """Return the wire ``PromptMessage`` list of stored ``messages`` with ``values`` filled in.

    ``read_image`` reads a static file's bytes (a path → bytes); ``read_resource`` reads a
    resource of the site (a URI → the contents ``resources/read`` gives, or its error):
    each of its contents is a message of the role written. Without it, a message that
    reads the site raises ``ValueError``.
    """
    names = [argument.name for argument in arguments]
    rendered = []
    for message in messages:
        if "text" in message:
            content: dict[str, Any] = {"type": "text", "text": fill(message["text"], names, values)}
        elif "image" in message:
            data = read_image(message["image"])
            content = {
                "type": "image",
                "data": base64.b64encode(data).decode("ascii"),
                "mimeType": image_type(message["image"]),
            }
        elif is_site_read(message["resource"]):
            uri = fill(message["resource"]["uri"], names, values)
            if read_resource is None:
                raise ValueError(f"the resource {uri} is read from the site by prompts/get")
            for contents in read_resource(uri):
                embedded = {"type": "resource", "resource": contents}
                rendered.append({"role": message["role"], "content": embedded})
            continue
        else:
            resource = message["resource"]
            content = {
                "type": "resource",
                "resource": {
                    "uri": fill(resource["uri"], names, values),
                    "mimeType": resource.get("mimeType", "text/plain"),
                    "text": fill(resource["text"], names, values),
                },
            }
        rendered.append({"role": message["role"], "content": content})
    return rendered


def wire_message(item: object) -> dict[str, Any]:
    """Return one message an ``@mcp_prompt`` function returned as a wire ``PromptMessage``:
    a string (the user's text), or ``{"role", "content"}`` as the protocol writes it.
    Raises ``TypeError`` for anything else."""
    if isinstance(item, str):
        return {"role": "user", "content": {"type": "text", "text": item}}
    if (
        isinstance(item, Mapping)
        and item.get("role") in ROLES
        and isinstance(item.get("content"), Mapping)
    ):
        content = dict(item["content"])
        try:
            check_block(content)
        except ValueError as exc:  # the content check's wording, said of a prompt
            shown = str(exc).removeprefix("mcp_output: ")
            raise TypeError(f"A prompt's message: {shown}") from None
        return {"role": item["role"], "content": content}
    raise TypeError(
        "A prompt function returns a string, or a list of strings and "
        '{"role": "user" | "assistant", "content": {...}} messages'
    )
