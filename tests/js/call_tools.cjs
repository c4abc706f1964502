// Call MCP tools with the official TypeScript SDK client and print what it accepted.
//
// usage: node call_tools.cjs <url> <token> <calls.json>
// calls.json: [{"name": ..., "arguments": {...}}, ...]. Prints one JSON document:
// {"protocolVersion", "tools": {name: definition}, "results": [{name, result} | {name, error}]}.
// The client validates structuredContent against each tool's outputSchema after listTools()
// and throws on a mismatch: such a throw is reported as {name, error}.
const fs = require("node:fs");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [url, token, callsPath] = process.argv.slice(2);
  const calls = JSON.parse(fs.readFileSync(callsPath, "utf8"));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Token ${token}` } },
  });
  const client = new Client({ name: "django-mcp-tools-tests", version: "1.0.0" });
  await client.connect(transport);
  // Every page: the test project serves more tools than one page holds.
  const tools = {};
  let cursor;
  do {
    const listed = await client.listTools(cursor === undefined ? {} : { cursor });
    for (const tool of listed.tools) tools[tool.name] = tool;
    cursor = listed.nextCursor;
  } while (cursor !== undefined);
  const results = [];
  for (const call of calls) {
    try {
      const result = await client.callTool({ name: call.name, arguments: call.arguments || {} });
      results.push({ name: call.name, result });
    } catch (error) {
      results.push({ name: call.name, error: String(error && error.message ? error.message : error) });
    }
  }
  process.stdout.write(
    JSON.stringify({ protocolVersion: transport.protocolVersion, tools, results }),
  );
  await client.close();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
