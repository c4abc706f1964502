"""A call tree of some calls, with the tracer's own cost taken out of every figure.

``sys.setprofile`` sees every call and return; each path through the Python code gets a
node with its calls and time (a C function's time is its caller's, but its calls are
counted). The tracer costs about the same for every Python call it sees, and about the same
for every C call, so a node's time is too high by those costs times the calls inside it.
``calibrate`` finds the two costs: their ratio by tracing two tiny loops, their level by
comparing each traced request with the same request timed without the tracer. cProfile's
figures can't be corrected so: it keeps one figure per (caller, callee) pair, not per path,
so it can't count the calls beneath one.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

#: A Python function: (file name, first line, name).
Key = tuple[str, int, str]


@dataclass
class Node:
    """One path through the code: calls made along it and their time, in nanoseconds."""

    key: Key
    parent: Node | None = None
    calls: int = 0
    time_ns: int = 0
    children: dict[Key, Node] = field(default_factory=dict)
    #: C functions called from this node's own code.
    c_calls: int = 0
    #: Python and C calls beneath this node, set by ``CallTree.finish``.
    py_within: int = 0
    c_within: int = 0

    def child(self, key: Key) -> Node:
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = Node(key, self)
        return node

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children.values():
            yield from child.walk()

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


@dataclass(frozen=True)
class Costs:
    """What the tracer adds per Python call (its call and return) and per C call, in ns."""

    python_ns: float = 0.0
    c_ns: float = 0.0


class CallTree:
    """Trace calls of a function and keep their call tree."""

    def __init__(self) -> None:
        self.root = Node(("<root>", 0, "<root>"))
        self._stack: list[tuple[Node, int]] = []
        self.costs = Costs()

    def _event(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            now = time.perf_counter_ns()
            parent = self._stack[-1][0] if self._stack else self.root
            code = frame.f_code
            node = parent.child((code.co_filename, code.co_firstlineno, code.co_name))
            node.calls += 1
            self._stack.append((node, now))
        elif event == "return":
            if self._stack:
                node, start = self._stack.pop()
                node.time_ns += time.perf_counter_ns() - start
        elif event == "c_call" and self._stack:
            self._stack[-1][0].c_calls += 1

    def trace(self, function: Callable[[], Any], times: int) -> None:
        """Call ``function`` ``times`` times under the tracer, the garbage collector off.

        A collection would land on whichever node happens to be running, and the tree's
        own nodes make collections more frequent than without the tracer.
        """
        gc.collect()
        gc.disable()
        sys.setprofile(self._event)
        try:
            for _ in range(times):
                function()
        finally:
            sys.setprofile(None)
            gc.enable()
        self._stack.clear()
        self.finish()

    def finish(self) -> None:
        def count(node: Node) -> tuple[int, int]:
            py, c = 0, node.c_calls
            for child in node.children.values():
                child_py, child_c = count(child)
                py += child.calls + child_py
                c += child_c
            node.py_within, node.c_within = py, c
            return py, c

        count(self.root)

    def excess_ns(self, node: Node, costs: Costs | None = None) -> float:
        """Return what the tracer added to a node's time: its calls beneath, and its own."""
        costs = costs or self.costs
        return costs.python_ns * (node.py_within + node.calls) + costs.c_ns * node.c_within

    def corrected_ns(self, node: Node) -> float:
        """Return a node's time less the tracer's."""
        return max(node.time_ns - self.excess_ns(node), 0.0)


def _empty() -> None:
    pass


def _loop_ns(function: Callable[[], Any], times: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(times):
        function()
    return float(time.perf_counter_ns() - start)


def unit_costs(times: int = 50_000) -> Costs:
    """Return the tracer's cost per Python call and per C call, from two tiny loops."""
    empty: tuple[()] = ()

    def python_loop() -> None:
        for _ in range(times):
            _empty()

    def c_loop() -> None:
        for _ in range(times):
            len(empty)

    costs = []
    for loop in (python_loop, c_loop):
        # The least of a few tries: the machine's noise only ever adds time.
        plain = min(_loop_ns(loop, 1) for _ in range(5))
        traced = min(_traced_ns(CallTree(), loop) for _ in range(5))
        costs.append(max(traced - plain, 0.0) / times)
    return Costs(*costs)


def _traced_ns(tree: CallTree, loop: Callable[[], None]) -> float:
    start = time.perf_counter_ns()
    tree.trace(loop, 1)
    return float(time.perf_counter_ns() - start)


def calibrate(trees: list[tuple[CallTree, Node, float]]) -> list[Costs]:
    """Set the tracer's costs on each tree, and return them.

    Each item is a tree, the node that is one whole call of what was timed, and the
    nanoseconds those calls took without the tracer, in all. The two tiny loops give the
    ratio of the two costs; each tree's own timing, how large they were while tracing it,
    so that each whole call comes out as long as it was measured.
    """
    unit = unit_costs()
    found = []
    for tree, node, untraced in trees:
        estimated = tree.excess_ns(node, unit)
        scale = (node.time_ns - untraced) / estimated if estimated > 0 else 1.0
        tree.costs = Costs(unit.python_ns * max(scale, 0.0), unit.c_ns * max(scale, 0.0))
        found.append(tree.costs)
    return found
