"""The MCP endpoint: the transport, the JSON-RPC methods, streams, start-up."""
