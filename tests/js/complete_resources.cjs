// Complete resource template variables with the official TypeScript SDK client; print what it
// accepted (the SDK validates each result against its schemas and throws on a mismatch).
//
// usage: node complete_resources.cjs <url> <token|-> <completions.json>
// completions.json: [{"ref": {"type": "ref/resource", "uri"}, "argument": {"name", "value"}}].
// Prints one JSON document: {"protocolVersion", "capabilities", "templates": [...],
// "completions": [{result} | {error, code}]}.
const fs = require("node:fs");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [url, token, completionsPath] = process.argv.slice(2);
  const requests = JSON.parse(fs.readFileSync(completionsPath, "utf8"));
  const headers = token === "-" ? {} : { Authorization: `Token ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "django-mcp-tools-tests", version: "1.0.0" });
  await client.connect(transport);
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  const completions = [];
  for (const request of requests) {
    try {
      completions.push({ result: await client.complete(request) });
    } catch (error) {
      completions.push({ error: String(error && error.message ? error.message : error), code: error.code });
    }
  }
  process.stdout.write(
    JSON.stringify({
      protocolVersion: transport.protocolVersion,
      capabilities: client.getServerCapabilities(),
      templates,
      completions,
    }),
  );
  await client.close();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
