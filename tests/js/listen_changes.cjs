// Follow live changes with the TypeScript client v2 (@modelcontextprotocol/client) at
// 2026-07-28: negotiate ("auto"), `listen` for the tool list and a resource, then wait for the
// server to say the tool list changed and the resource was updated.
//
// usage: node listen_changes.cjs <url> <uri> <timeout ms>
// Prints one JSON line once the listen is acknowledged ({"ready", "honored"}), then, once both
// notifications came or the time is up, one JSON line:
// {"protocolVersion", "capabilities", "honored", "posts": [[method, status]...], "handled": {...},
//  "raw": [messages], "closed"}
// "handled" holds what the client's handlers received; "raw" every message the server sent on
// the listen's SSE stream, parsed from the bytes as they came.
const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");

const raw = [];
const posts = [];

async function teeFetch(input, init) {
  const response = await fetch(input, init);
  let method = null;
  try {
    method = JSON.parse(init && init.body ? init.body : "null").method;
  } catch (error) {
    method = null;
  }
  posts.push([method, response.status]);
  const type = response.headers.get("content-type") || "";
  if (method !== "subscriptions/listen" || !type.startsWith("text/event-stream") || !response.body) {
    return response;
  }
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
      // aborted as the subscription closed
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
  const client = new Client(
    { name: "django-mcp-tools-tests", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  const handled = { tools: [], updated: [] };
  client.setNotificationHandler("notifications/tools/list_changed", (n) => handled.tools.push(n));
  client.setNotificationHandler("notifications/resources/updated", (n) => handled.updated.push(n));
  await client.connect(transport);
  const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: [uri] });
  process.stdout.write(JSON.stringify({ ready: true, honored: subscription.honoredFilter }) + "\n");
  while (!(handled.tools.length && handled.updated.length) && Date.now() < deadline) await sleep(20);
  await sleep(200); // anything else that came after
  await subscription.close();
  const closed = await subscription.closed;
  process.stdout.write(
    JSON.stringify({
      protocolVersion: client.getNegotiatedProtocolVersion(),
      capabilities: client.getServerCapabilities(),
      honored: subscription.honoredFilter,
      posts,
      handled,
      raw,
      closed,
    }) + "\n",
  );
  await client.close();
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
