"""The code samples of the README and of every page under docs/, as
tests/interop/test_docs.py reads them.

A sample is a fenced block. Its language says how it is checked, and a comment on the line
before it (``<!-- docs-test: live -->``, invisible once rendered) can ask for more:

| Language | Checked by |
| --- | --- |
| ``python`` | executed (see interop/test_docs.py): the README's are replayed as a new project |
| ``json`` | parsed; client configurations must be what ``demo_project.clients`` makes |
| ``jsonc`` | parsed once its ``//`` comments are gone |
| ``console``, ``bash`` | each command: run (the README's, and ``live`` ones) or validated |
| ``javascript`` | run with Node against the README's project (``live``) |
| ``nginx`` | run: nginx in front of the README's project (``live``) |
| ``text`` | not code (messages, diagrams): nothing to run |
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").rglob("*.md"))]

#: What a sample may name in place of a real site and token; the live tests substitute them.
URL = "https://example.com/mcp"
LOCAL_URL = "http://127.0.0.1:8000/mcp"
TOKEN = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"  # DRF's documentation uses this one too

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<marker>[\w-]+)\s*-->\s*$")
TITLE = re.compile(r'title="(?P<title>[^"]+)"')
LANGUAGES = {"python", "json", "jsonc", "console", "bash", "javascript", "nginx", "text"}


@dataclass(frozen=True)
class Sample:
    page: Path
    line: int
    language: str
    text: str
    title: str | None = None
    marker: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    def commands(self) -> list[Command]:
        """The commands of a console (``$ `` lines, then their output) or bash block."""
        found: list[Command] = []
        lines = self.text.splitlines()
        continued = ""
        for line in lines:
            if self.language == "console" and not line.startswith("$ ") and not continued:
                if found:
                    found[-1].output.append(line)
                continue
            line = line[2:] if line.startswith("$ ") else line
            line = line.split(" #", 1)[0] if self.language == "bash" else line
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.endswith("\\"):
                continued += line[:-1]
                continue
            found.append(Command(shlex.split(continued + line), []))
            continued = ""
        return found


@dataclass
class Command:
    argv: list[str]
    output: list[str]

    @property
    def environment(self) -> dict[str, str]:
        """The ``NAME=value`` assignments before the program."""
        return dict(word.split("=", 1) for word in self.argv[: self.start])

    @property
    def start(self) -> int:
        return next(i for i, word in enumerate(self.argv) if "=" not in word)

    @property
    def program(self) -> list[str]:
        return self.argv[self.start :]


def samples(page: Path) -> list[Sample]:
    """Return the fenced blocks of ``page`` with their language, title and marker."""
    found = []
    lines = page.read_text().splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence, info = opening["indent"], opening["fence"], opening["info"].strip()
        body = []
        index += 1
        while lines[index].strip() != fence:
            body.append(lines[index][len(indent) :] if lines[index].startswith(indent) else "")
            index += 1
        before = next((line for line in reversed(lines[: index - len(body) - 1]) if line), "")
        marker = MARKER.match(before)
        title = TITLE.search(info)
        found.append(
            Sample(
                page,
                index - len(body),
                info.split()[0] if info else "",
                "\n".join(body) + "\n",
                title["title"] if title else None,
                marker["marker"] if marker else None,
            )
        )
        index += 1
    return found


def all_samples() -> list[Sample]:
    return [sample for page in PAGES for sample in samples(page)]


def matches(expected: str, actual: str) -> bool:
    """Whether an output line of the docs matches a real one (``...`` stands for anything)."""
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None
