// Drive 2025-11-25's experimental tasks with the official TypeScript SDK client; print what it saw.
//
// usage: node task_tools.cjs <url> <token> <tool> <done-arguments.json> <cancel-arguments.json>
//
// The API is the SDK's own: client.experimental.tasks.callToolStream() (which makes the call
// a task because listTools() showed the tool's execution.taskSupport and the server's tasks
// capability, polls tasks/get at the task's pollInterval and fetches tasks/result once it
// completed), then cancelTask(), getTask() and listTasks(). Prints one JSON document:
// {"protocolVersion", "tools", "done": [stream messages], "cancelled": {...}, "listed",
//  "exchanges": [{"request", "status", "contentType", "body"}]}: every POST as sent and
// answered, for the test to check against the 2025-11-25 schema.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

const exchanges = [];

// fetch, recording each POST and what came back (the SDK reads a clone of the answer).
async function recordingFetch(url, init) {
  const response = await fetch(url, init);
  if (init && init.method === "POST") {
    const body = await response.clone().text();
    exchanges.push({
      request: JSON.parse(init.body),
      status: response.status,
      contentType: response.headers.get("content-type") || "",
      body,
    });
  }
  return response;
}

function messageOf(message) {
  if (message.type === "error") return { type: "error", error: String(message.error.message) };
  return message;
}

async function main() {
  const [url, token, tool, doneArgs, cancelArgs] = process.argv.slice(2);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Token ${token}` } },
    fetch: recordingFetch,
  });
  const client = new Client({ name: "django-mcp-tools-tests", version: "1.0.0" });
  await client.connect(transport);
  const tools = {};
  const listed = await client.listTools();
  for (const definition of listed.tools) tools[definition.name] = definition;

  // A task run to its end: taskCreated, taskStatus (each poll), result.
  const done = [];
  const stream = client.experimental.tasks.callToolStream({ name: tool, arguments: JSON.parse(doneArgs) });
  for await (const message of stream) done.push(messageOf(message));

  // A task cancelled as soon as it was created: the stream ends with the SDK's error.
  const cancelled = { stream: [] };
  const slow = client.experimental.tasks.callToolStream(
    { name: tool, arguments: JSON.parse(cancelArgs) },
    undefined,
    { task: { ttl: 60000 } },
  );
  for await (const message of slow) {
    cancelled.stream.push(messageOf(message));
    if (message.type === "taskCreated") {
      cancelled.taskId = message.task.taskId;
      cancelled.ack = await client.experimental.tasks.cancelTask(message.task.taskId);
    }
  }
  cancelled.after = await client.experimental.tasks.getTask(cancelled.taskId);

  const tasks = await client.experimental.tasks.listTasks();
  process.stdout.write(
    JSON.stringify({
      protocolVersion: transport.protocolVersion,
      tools,
      done,
      cancelled,
      listed: tasks,
      exchanges,
    }),
  );
  await client.close();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.stderr.write(JSON.stringify(exchanges) + "\n");
  process.exit(1);
});
