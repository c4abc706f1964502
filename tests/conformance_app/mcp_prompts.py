"""The conformance suite's prompt declared in code: it asks the user before it answers."""

from mcp_tools import elicit, mcp_prompt

CONTEXT_SCHEMA = {
    "type": "object",
    "properties": {"context": {"type": "string"}},
    "required": ["context"],
}


@mcp_prompt(description="A prompt that asks the user for its context first")
def test_input_required_result_prompt(request):
    answer = elicit(request, "user_context", "What context should the prompt use?", CONTEXT_SCHEMA)
    content = answer["content"] if answer["action"] == "accept" else None
    context = content.get("context", "") if isinstance(content, dict) else "none given"
    return f"Write the answer for this context: {context}"
