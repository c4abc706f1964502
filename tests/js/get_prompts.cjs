// List, get and complete MCP prompts with the official TypeScript SDK client; print what it
// accepted (the SDK validates each result against its schemas and throws on a mismatch).
//
// usage: node get_prompts.cjs <url> <token|-> <requests.json>
// requests.json: {"gets": [{"name", "arguments"}], "completions": [{"ref", "argument"}],
// "answer": the result given to every elicitation/create the server sends}.
// Prints one JSON document: {"protocolVersion", "capabilities", "prompts": [...], "asked":
// [elicitation params], "gets": [{name, result} | {name, error, code}], "completions":
// [{result} | {error, code}]}.
const fs = require("node:fs");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

function failure(error) {
  return { error: String(error && error.message ? error.message : error), code: error && error.code };
}

async function main() {
  const [url, token, requestsPath] = process.argv.slice(2);
  const requests = JSON.parse(fs.readFileSync(requestsPath, "utf8"));
  const headers = token === "-" ? {} : { Authorization: `Token ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client(
    { name: "django-mcp-tools-tests", version: "1.0.0" },
    { capabilities: { elicitation: {} } },
  );
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return requests.answer || { action: "decline" };
  });
  await client.connect(transport);
  const prompts = [];
  let cursor;
  do {
    const listed = await client.listPrompts(cursor === undefined ? {} : { cursor });
    prompts.push(...listed.prompts);
    cursor = listed.nextCursor;
  } while (cursor !== undefined);
  const gets = [];
  for (const get of requests.gets) {
    try {
      gets.push({ name: get.name, result: await client.getPrompt(get) });
    } catch (error) {
      gets.push({ name: get.name, ...failure(error) });
    }
  }
  const completions = [];
  for (const completion of requests.completions) {
    try {
      completions.push({ result: await client.complete(completion) });
    } catch (error) {
      completions.push(failure(error));
    }
  }
  process.stdout.write(
    JSON.stringify({
      protocolVersion: transport.protocolVersion,
      capabilities: client.getServerCapabilities(),
      prompts,
      asked,
      gets,
      completions,
    }),
  );
  await client.close();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
