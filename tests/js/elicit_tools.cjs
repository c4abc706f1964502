// Call MCP tools with the official TypeScript SDK client, answering the server's
// elicitation/create requests (the handshake era asks on the call's stream).
//
// usage: node elicit_tools.cjs <url> <token|-> <calls.json> <answer.json>
// calls.json: [{"name": ..., "arguments": {...}}, ...]; answer.json: the ElicitResult
// every elicitation gets. Prints one JSON document:
// {"protocolVersion", "asked": [params, ...], "results": [{name, result} | {name, error}]}.
const fs = require("node:fs");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

async function main() {
  const [url, token, callsPath, answerPath] = process.argv.slice(2);
  const calls = JSON.parse(fs.readFileSync(callsPath, "utf8"));
  const answer = JSON.parse(fs.readFileSync(answerPath, "utf8"));
  const headers = token === "-" ? {} : { Authorization: `Token ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client(
    { name: "django-mcp-tools-tests", version: "1.0.0" },
    { capabilities: { elicitation: {} } },
  );
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answer;
  });
  await client.connect(transport);
  const results = [];
  for (const call of calls) {
    try {
      const result = await client.callTool({ name: call.name, arguments: call.arguments || {} });
      results.push({ name: call.name, result });
    } catch (error) {
      results.push({ name: call.name, error: String(error && error.message ? error.message : error) });
    }
  }
  process.stdout.write(JSON.stringify({ protocolVersion: transport.protocolVersion, asked, results }));
  await client.close();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
