"""Discovery mode's evaluation: how well ``search_tools`` ranks a large catalog's tools for
what people ask, what it saves in context, and what a search costs.

The labelled set is ``bench/discovery/tasks.json``: natural-language requests, each with
every tool of Nautobot 3.2.7's catalog that answers it, split into ``dev`` (tune on it) and
``held_out`` (score it at the end; its misses stay hidden unless ``--show-held-out``). It
was written, and its split fixed, before the ranker was tuned (bench/README.md#discovery).

The catalog is the JSON list of tool definitions ``make bench-nautobot`` writes to
``bench/.nautobot-data/catalog-admin.json`` (the SDK's snake_case dump: it is put back into
the protocol's camelCase, without nulls, before anything reads or measures it). The ranker
is built through ``mcp_tools.discovery.ranking``'s interface: ``Entry.of_definition``,
``load_backend(dotted_path_or_None)``, ``backend_class(entries)``,
``backend.search(query, among=..., limit=...)``.

    .venv/bin/python bench/discovery.py [--catalog PATH] [--split dev|held_out|all]
        [--backend dotted.path] [--among PATH] [--reps N] [--page-ms X] [--show-held-out]
    .venv/bin/python bench/discovery.py --check     # validates tasks.json alone; exits 0 or 1

It prints one JSON report on stdout (warnings on stderr). Exit status: 0, or 1 when the
task file is invalid, or 2 when the catalog or the ranking module can't be loaded.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
# This checkout's package first, whichever project the venv installed in editable mode.
sys.path.insert(0, str(ROOT))

TASKS = BENCH / "discovery" / "tasks.json"
CATALOG = BENCH / ".nautobot-data" / "catalog-admin.json"
SPLITS = ("dev", "held_out")
PROTOCOL_VERSION = "2025-11-25"
MRR_DEPTH = 10  # MRR counts an answer ranked within the first ten
TIMED_LIMIT = 5  # the limit of the timed searches, search_tools' usual page
MISS_TOP = 5  # how many of the ranked names a miss shows
TASK_ID = re.compile(r"^t(\d{3,})$")


def warn(message: str) -> None:
    print(f"[discovery] {message}", file=sys.stderr, flush=True)


# The catalog ---------------------------------------------------------------------------------


def camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def wire(definition: dict) -> dict:
    """The definition as ``tools/list`` sends it: the SDK's ``model_dump(mode="json")`` writes
    field names (``input_schema``, ``read_only_hint``, ``meta``) and nulls; the protocol has
    their aliases (``inputSchema``, ``readOnlyHint``, ``_meta``) and leaves nulls out. The
    schemas' own keys (property names) are left as they are."""
    out: dict[str, Any] = {}
    for key, value in definition.items():
        if value is None:
            continue
        if key == "meta":
            key = "_meta"
        elif not key.startswith("_"):
            key = camel(key)
        if key in ("annotations", "execution") and isinstance(value, dict):
            value = {camel(name): item for name, item in value.items() if item is not None}
        out[key] = value
    return out


def load_catalog(path: Path) -> list[dict]:
    """Tool definitions in wire form, from a JSON list of them or a ``tools/list`` result."""
    data = json.loads(path.read_text())
    if isinstance(data, dict):
        data = data.get("tools")
    if not isinstance(data, list) or not all(
        isinstance(item, dict) and isinstance(item.get("name"), str) for item in data
    ):
        raise ValueError(f"{path}: not a JSON list of tool definitions")
    return [wire(item) for item in data]


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# The tasks -----------------------------------------------------------------------------------


def expected_split(task_id: str) -> str | None:
    """The split rule, fixed before any scoring: every third id is held out."""
    match = TASK_ID.match(task_id)
    if not match:
        return None
    return "held_out" if int(match.group(1)) % 3 == 0 else "dev"


def check_tasks(document: Any, names: set[str] | None) -> list[str]:
    """Every problem of the task file; with ``names``, answers missing from the catalog too."""
    if not isinstance(document, dict) or not isinstance(document.get("tasks"), list):
        return ['the file is not an object with a "tasks" list']
    problems = [
        f"top-level {key!r} is missing"
        for key in ("catalog", "written", "note")
        if not document.get(key)
    ]
    tasks = document["tasks"]
    ids: set[str] = set()
    queries: set[str] = set()
    held_out = 0
    for number, task in enumerate(tasks):
        if not isinstance(task, dict):
            problems.append(f"task #{number} is not an object")
            continue
        task_id = task.get("id")
        label = task_id if isinstance(task_id, str) else f"task #{number}"
        if not isinstance(task_id, str) or not TASK_ID.match(task_id):
            problems.append(f"{label}: id {task_id!r} is not t followed by digits (t001)")
        elif task_id in ids:
            problems.append(f"{label}: id used twice")
        else:
            ids.add(task_id)
        query = task.get("query")
        if not isinstance(query, str) or not query.strip():
            problems.append(f"{label}: no query")
        elif query.strip().lower() in queries:
            problems.append(f"{label}: query asked twice: {query!r}")
        else:
            queries.add(query.strip().lower())
        answers = task.get("answers")
        if (
            not isinstance(answers, list)
            or not answers
            or not all(isinstance(answer, str) and answer for answer in answers)
        ):
            problems.append(f"{label}: answers is not a non-empty list of tool names")
            answers = []
        elif len(set(answers)) != len(answers):
            problems.append(f"{label}: an answer is listed twice")
        if names is not None:
            problems.extend(
                f"{label}: answer {answer!r} is not in the catalog"
                for answer in answers
                if answer not in names
            )
        split = task.get("split")
        if split not in SPLITS:
            problems.append(f"{label}: split {split!r} is neither dev nor held_out")
        elif isinstance(task_id, str) and expected_split(task_id) not in (None, split):
            problems.append(f"{label}: split {split} breaks the rule (held out: every third id)")
        held_out += split == "held_out"
    wanted = round(len(tasks) / 3)
    if held_out != wanted:
        problems.append(f"{held_out} tasks held out, not a third of {len(tasks)} ({wanted})")
    return problems


def split_counts(tasks: list[dict]) -> dict[str, int]:
    return {split: sum(task.get("split") == split for task in tasks) for split in SPLITS}


# Scoring -------------------------------------------------------------------------------------


def rank_of(ranked: list[str], answers: set[str]) -> int | None:
    """The 1-based position of the first answer in ``ranked``, None when there is none."""
    return next((place for place, name in enumerate(ranked, 1) if name in answers), None)


def scores(rows: list[dict]) -> dict:
    count = len(rows)
    if not count:
        return {"count": 0, "recall@1": None, "recall@5": None, "mrr@10": None}
    ranks = [row["rank"] for row in rows]
    return {
        "count": count,
        "recall@1": round(sum(rank == 1 for rank in ranks) / count, 4),
        "recall@5": round(sum(rank is not None and rank <= 5 for rank in ranks) / count, 4),
        "mrr@10": round(
            sum(1 / rank for rank in ranks if rank is not None and rank <= MRR_DEPTH) / count, 4
        ),
    }


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def discovery_listing() -> dict:
    """The discovery tools' definitions as ``tools/list`` would send them in discovery mode.

    Unlike the ranking module, they may need Django's settings: when the import says so, it
    is tried again with ``DJANGO_SETTINGS_MODULE`` (``tests.settings`` unless set) set up.
    """
    settings = None
    try:
        try:
            from mcp_tools.discovery.tools import discovery_definitions
        except Exception as error:
            if "settings" not in str(error).lower():
                raise
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
            settings = os.environ["DJANGO_SETTINGS_MODULE"]
            import django

            django.setup()
            from mcp_tools.discovery.tools import discovery_definitions
    except Exception as error:
        return {
            "available": False,
            "django_settings": settings,
            "error": f"{type(error).__name__}: {error}",
        }
    try:
        takes_version = bool(inspect.signature(discovery_definitions).parameters)
        definitions = (
            discovery_definitions(PROTOCOL_VERSION) if takes_version else discovery_definitions()
        )
        text = compact(list(definitions))
    except Exception as error:
        return {"available": False, "error": f"{type(error).__name__}: {error}"}
    return {
        "available": True,
        "django_settings": settings,
        "protocol_version": PROTOCOL_VERSION,
        "tools": len(definitions),
        "names": [item.get("name") for item in definitions if isinstance(item, dict)],
        "characters": len(text),
        "tokens_estimate": len(text) // 4,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", type=Path, default=CATALOG, help="tool definitions (JSON)")
    parser.add_argument("--tasks", type=Path, default=TASKS, help="the labelled set")
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="dev")
    parser.add_argument("--backend", default=None, help="dotted path; the default ranker if none")
    parser.add_argument(
        "--among",
        type=Path,
        default=None,
        help="a smaller catalog (catalog-limited.json): rank among its names only, as a "
        "limited caller; tasks none of whose answers it has are skipped",
    )
    parser.add_argument("--reps", type=int, default=3, help="timed searches per query")
    parser.add_argument("--page-ms", type=float, default=None, help="tools/list page time, ms")
    parser.add_argument("--show-held-out", action="store_true", help="list held_out misses too")
    parser.add_argument("--check", action="store_true", help="validate the task file only")
    options = parser.parse_args()

    try:
        document = json.loads(options.tasks.read_text())
    except (OSError, ValueError) as error:
        print(f"discovery: cannot read {options.tasks}: {error}", file=sys.stderr)
        return 1
    catalog: list[dict] | None = None
    if options.catalog.exists():
        try:
            catalog = load_catalog(options.catalog)
        except ValueError as error:
            print(f"discovery: {error}", file=sys.stderr)
            return 2
    names = None if catalog is None else {item["name"] for item in catalog}

    if options.check:
        problems = check_tasks(document, names)
        tasks = document.get("tasks", []) if isinstance(document, dict) else []
        report = {
            "ok": not problems,
            "tasks": len(tasks),
            **split_counts([task for task in tasks if isinstance(task, dict)]),
            "catalog_checked": None if catalog is None else str(options.catalog),
            "problems": problems,
        }
        if catalog is None:
            warn(f"no catalog at {options.catalog}: answers not checked against it")
        print(json.dumps(report, indent=2))
        return 0 if not problems else 1

    if catalog is None:
        print(
            f"discovery: no catalog at {options.catalog}. `make bench-nautobot` writes "
            "bench/.nautobot-data/catalog-admin.json (Nautobot exposed whole); or pass "
            "--catalog PATH",
            file=sys.stderr,
        )
        return 2
    assert names is not None
    structural = check_tasks(document, None)
    if structural:
        print(json.dumps({"ok": False, "problems": structural}, indent=2))
        return 1
    tasks = document["tasks"]
    unknown = sorted({answer for task in tasks for answer in task["answers"]} - names)
    if unknown:
        warn(f"{len(unknown)} answers are not in this catalog: {', '.join(unknown[:10])}")

    among: set[str] | None = None
    if options.among is not None:
        try:
            among = {item["name"] for item in load_catalog(options.among)}
        except (OSError, ValueError) as error:
            print(f"discovery: --among: {error}", file=sys.stderr)
            return 2
        among &= names
    visible = names if among is None else among

    try:
        from mcp_tools.discovery import ranking
        from mcp_tools.discovery.ranking import Entry, load_backend

        backend_class = load_backend(options.backend)
    except Exception as error:
        print(
            f"discovery: cannot load the ranker ({options.backend or 'the default backend'}): "
            f"{type(error).__name__}: {error}",
            file=sys.stderr,
        )
        return 2
    # An editable install's finder can serve mcp_tools' subpackages from the checkout it was
    # installed from when this one lacks them: say which code is being measured.
    ranking_file = getattr(ranking, "__file__", None)
    if ranking_file and not Path(ranking_file).resolve().is_relative_to(ROOT):
        warn(f"the ranking module is {ranking_file}, not this checkout's ({ROOT})")

    started = time.perf_counter()
    entries = [Entry.of_definition(definition) for definition in catalog]
    entries_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    backend = backend_class(entries)
    build_ms = (time.perf_counter() - started) * 1000

    # Scoring: one search per task in the chosen splits, ten names deep for MRR.
    chosen = SPLITS if options.split == "all" else (options.split,)
    rows: dict[str, list[dict]] = {split: [] for split in chosen}
    skipped = dict.fromkeys(chosen, 0)
    stray = {"outside_among": 0, "not_in_catalog": 0, "over_limit": 0}
    for task in tasks:
        if task["split"] not in rows:
            continue
        answers = set(task["answers"]) & visible
        if not answers:
            skipped[task["split"]] += 1
            continue
        ranked = list(backend.search(task["query"], among=among, limit=MRR_DEPTH))
        stray["over_limit"] += len(ranked) > MRR_DEPTH
        stray["not_in_catalog"] += sum(name not in names for name in ranked)
        stray["outside_among"] += sum(name in names and name not in visible for name in ranked)
        rows[task["split"]].append(
            {
                "id": task["id"],
                "query": task["query"],
                "answers": task["answers"],
                "rank": rank_of(ranked, answers),
                "top5": ranked[:MISS_TOP],
            }
        )
    report_scores = {split: {**scores(rows[split]), "skipped": skipped[split]} for split in chosen}
    if options.split == "all":
        everything = [row for split in chosen for row in rows[split]]
        report_scores["all"] = {**scores(everything), "skipped": sum(skipped.values())}
    shown = [s for s in chosen if s == "dev" or options.show_held_out]
    misses = {split: [row for row in rows[split] if row["rank"] != 1] for split in shown}

    # Timing: every task's query, whatever the split (it shows no label), after the pass above.
    timings: list[float] = []
    for _ in range(max(1, options.reps)):
        for task in tasks:
            started = time.perf_counter()
            backend.search(task["query"], among=among, limit=TIMED_LIMIT)
            timings.append((time.perf_counter() - started) * 1000)

    full_text = compact(catalog if among is None else [d for d in catalog if d["name"] in among])
    full = {
        "tools": len(visible),
        "characters": len(full_text),
        "tokens_estimate": len(full_text) // 4,
    }
    discovery = discovery_listing()
    ratio = None
    if discovery.get("available") and discovery["characters"]:
        ratio = round(full["characters"] / discovery["characters"], 1)

    report = {
        "catalog": {
            "path": str(options.catalog),
            "tools": len(catalog),
            "among": None if options.among is None else str(options.among),
            "visible": len(visible),
        },
        "tasks": {
            "path": str(options.tasks),
            "written": document.get("written"),
            "count": len(tasks),
            **split_counts(tasks),
            "answers_not_in_catalog": unknown,
        },
        "backend": f"{backend_class.__module__}.{backend_class.__qualname__}",
        "ranking_module": ranking_file,
        "split": options.split,
        "scores": report_scores,
        "stray_results": stray,
        "misses": misses,
        "held_out_misses": ("shown" if options.show_held_out else "hidden (--show-held-out)")
        if "held_out" in chosen
        else None,
        "context": {
            "full_listing": full,
            "discovery_listing": discovery,
            "ratio": ratio,
        },
        "timing": {
            "entries_ms": round(entries_ms, 2),
            "build_ms": round(build_ms, 2),
            "search_p50_ms": round(statistics.median(timings), 3),
            "search_p90_ms": round(percentile(timings, 0.9), 3),
            "searches": len(timings),
            "search_limit": TIMED_LIMIT,
            "tools_list_page_ms": options.page_ms,
        },
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
