"""What ``JSON_TEXT`` saves and costs: an indented JSON body's text block with and without
its indentation (docs/results.md).

The body is a listing shaped as Wagtail's API v2 writes one (``meta.total_count`` and
``items``, each page with its ``id``, ``meta`` and ``title``, indented by four), of
``--pages`` pages; ``--pages 2000`` is a body of about 800 KB. The figures are the
characters of the text block and of the structured content, and the formatter's time per
response (the median of ``--repeat`` rounds of ``--number`` calls), each mode measured in
the same run, interleaved.

    .venv/bin/python bench/json_text.py [--pages 20] [--number 2000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import timeit
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def listing(pages: int) -> str:
    """Return a listing of ``pages`` pages as Wagtail's pages endpoint indents it."""
    items = [
        {
            "id": 10 + number,
            "meta": {
                "type": "blog.BlogPage",
                "detail_url": f"http://localhost/api/v2/pages/{10 + number}/",
                "html_url": f"http://localhost/blog/post-{number}/",
                "slug": f"post-{number}",
                "first_published_at": "2026-11-30T09:15:00.000000Z",
            },
            "title": f"Post number {number}: what we learnt",
        }
        for number in range(pages)
    ]
    return json.dumps({"meta": {"total_count": pages}, "items": items}, indent=4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

    import django

    django.setup()
    from django.http import HttpRequest, HttpResponse
    from django.test.utils import override_settings

    from mcp_tools.pipeline.formatters import ResponseFormatter
    from mcp_tools.protocol.jsonrpc import encode
    from mcp_tools.tools.tool import ToolOptions

    tool = types.SimpleNamespace(
        name="page_list", options=ToolOptions(), include_structured_content=True
    )
    body = listing(options.pages)
    response = HttpResponse(body, content_type="application/json")
    formatter, request = ResponseFormatter(), HttpRequest()
    times: dict[str, list[float]] = {"body": [], "compact": []}
    sizes: dict[str, tuple[int, int]] = {}
    for _ in range(options.repeat):
        for mode in times:
            with override_settings(MCP_TOOLS={"JSON_TEXT": mode}):
                result = formatter.format_response(response, request, tool)
                sizes[mode] = (len(result.content[0]["text"]), len(encode(result.structured)))
                seconds = timeit.timeit(
                    lambda: formatter.format_response(response, request, tool),
                    number=options.number,
                )
            times[mode].append(seconds / options.number * 1e6)
    print(f"{options.pages} pages, a body of {len(body):,} characters")
    print(f"{'JSON_TEXT':<10} {'text':>10} {'structured':>11} {'µs/response':>12}")
    for mode, runs in times.items():
        text, structured = sizes[mode]
        print(f"{mode:<10} {text:>10,} {structured:>11,} {statistics.median(runs):>12.1f}")


if __name__ == "__main__":
    main()
