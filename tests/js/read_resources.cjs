// List and read MCP resources with the official TypeScript SDK client; print what it accepted.
//
// usage: node read_resources.cjs <url> <token or -> <uris.json>
// uris.json: ["test://static-text", ...]. Prints one JSON document:
// {"protocolVersion", "capabilities", "resources", "templates", "reads": [{uri, result} | {uri, error, code}]}.
// The client validates every result against its schema: a result it refuses is a {uri, error}.
const fs = require("node:fs");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [url, token, urisPath] = process.argv.slice(2);
  const uris = JSON.parse(fs.readFileSync(urisPath, "utf8"));
  const headers = token === "-" ? {} : { Authorization: `Token ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "django-mcp-tools-tests", version: "1.0.0" });
  await client.connect(transport);
  const resources = (await client.listResources()).resources;
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  const reads = [];
  for (const uri of uris) {
    try {
      reads.push({ uri, result: await client.readResource({ uri }) });
    } catch (error) {
      reads.push({ uri, error: String(error && error.message ? error.message : error), code: error.code });
    }
  }
  process.stdout.write(
    JSON.stringify({
      protocolVersion: transport.protocolVersion,
      capabilities: client.getServerCapabilities(),
      resources,
      templates,
      reads,
    }),
  );
  await client.close();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
