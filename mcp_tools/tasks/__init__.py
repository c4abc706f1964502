"""MCP tasks: the stored task, its JSON-RPC methods, its run in a worker."""
