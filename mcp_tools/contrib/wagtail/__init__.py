"""Wagtail API v2 as MCP tools: what its views, filters and paginator read, taught to the
schema adapters' registry (docs/tools.md#exposing-an-api-you-didnt-write)."""
