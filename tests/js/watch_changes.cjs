// Follow live changes with the official TypeScript SDK client (1.x), handshake era: after
// connect it opens the GET notification stream itself; subscribe to a resource, then wait for
// the server to say the tool list changed and the resource was updated.
//
// usage: node watch_changes.cjs <url> <uri> <timeout ms>
// Prints one JSON line once the GET stream is open (or 5 s passed) and the subscription made
// ({"ready", "gets", "getOpenedMs", "subscribed"}),
// then, once both notifications came or the time is up, one JSON line:
// {"protocolVersion", "capabilities", "gets": [status...], "handled": {...}, "raw": [messages]}
// "handled" holds what the SDK's handlers received (each validated by the SDK's schema);
// "raw" every message the server sent on a GET stream, parsed from the SSE bytes as they came.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const {
  ToolListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} = require("@modelcontextprotocol/sdk/types.js");

const raw = [];
const gets = [];

// A fetch that records each GET's status and tees its SSE body into `raw`.
async function teeFetch(input, init) {
  const response = await fetch(input, init);
  const method = (init && init.method) || "GET";
  if (method !== "GET") return response;
  gets.push(response.status);
  if (!response.ok || !response.body) return response;
  const [mine, theirs] = response.body.tee();
  (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of mine) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, end).replace(/\r$/, "");
          buffer = buffer.slice(end + 1);
          if (line.startsWith("data:")) raw.push(JSON.parse(line.slice(5).trim()));
        }
      }
    } catch (error) {
      // closed as the client left
    }
  })();
  return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main() {
  const [url, uri, timeoutMs] = process.argv.slice(2);
  const deadline = Date.now() + Number(timeoutMs);
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: teeFetch });
  const client = new Client({ name: "django-mcp-tools-tests", version: "1.0.0" });
  const handled = { tools: [], updated: [] };
  client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => handled.tools.push(n));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => handled.updated.push(n));
  await client.connect(transport);
  const connected = Date.now();
  // The SDK opens its GET stream itself, once the server accepted `initialized`: its
  // fetch resolves when the status and headers came.
  while (gets.length === 0 && Date.now() < Math.min(deadline, connected + 5000)) await sleep(10);
  const getOpenedMs = gets.length ? Date.now() - connected : null;
  const subscribed = await client.subscribeResource({ uri });
  process.stdout.write(JSON.stringify({ ready: true, gets, getOpenedMs, subscribed }) + "\n");
  while (!(handled.tools.length && handled.updated.length) && Date.now() < deadline) await sleep(20);
  await sleep(200); // anything else that came after
  process.stdout.write(
    JSON.stringify({
      protocolVersion: transport.protocolVersion,
      capabilities: client.getServerCapabilities(),
      gets,
      handled,
      raw,
    }) + "\n",
  );
  await client.close();
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
