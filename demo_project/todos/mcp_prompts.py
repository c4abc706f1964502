"""The demo's prompt: a large task broken into todos the client then creates."""

from mcp_tools import mcp_prompt

SIZES = ["small", "medium", "large"]


def sizes(request, value, arguments):
    return [size for size in SIZES if size.startswith(value.lower())]


@mcp_prompt(title="Break a task into todos", complete={"size": sizes})
def todo_breakdown(request, task, size="small"):
    """Break a task into todos, then create them with todo_create."""
    return (
        f"Break this task into {size} steps: {task}. "
        "Create one todo per step with the todo_create tool, in the order they should be done."
    )
