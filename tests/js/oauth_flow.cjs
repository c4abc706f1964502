// Connect to an OAuth-protected MCP endpoint with the TypeScript SDK's own OAuth client.
//
// usage: node oauth_flow.cjs <mcp url> <redirect url> [<client metadata document url>]
// With a client metadata document URL the SDK uses it as its client_id (CIMD); without one
// it registers dynamically (RFC 7591). The SDK discovers everything else itself: the 401's
// resource_metadata, the RFC 9728 document, the RFC 8414 metadata, PKCE, the resource
// parameter. Headless: where a browser would open, this prints "AUTHORIZE <url>" and reads
// the URL the authorization server redirected to (the user approved) from stdin.
// Prints one JSON document: {clientId, scope, tools, results, statuses}.
const readline = require("node:readline");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { UnauthorizedError } = require("@modelcontextprotocol/sdk/client/auth.js");

class MemoryProvider {
  constructor(redirectUrl, clientMetadataUrl) {
    this._redirectUrl = redirectUrl;
    this.clientMetadataUrl = clientMetadataUrl;
    this._client = undefined;
    this._tokens = undefined;
    this._verifier = undefined;
  }
  get redirectUrl() {
    return this._redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: "django-mcp-tools-tests",
      redirect_uris: [this._redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this._client;
  }
  saveClientInformation(info) {
    this._client = info;
  }
  tokens() {
    return this._tokens;
  }
  saveTokens(tokens) {
    this._tokens = tokens;
  }
  redirectToAuthorization(url) {
    process.stdout.write(`AUTHORIZE ${url.href}\n`);
  }
  saveCodeVerifier(verifier) {
    this._verifier = verifier;
  }
  codeVerifier() {
    return this._verifier;
  }
}

function nextLine() {
  const lines = readline.createInterface({ input: process.stdin });
  return new Promise((resolve) => lines.once("line", (line) => (lines.close(), resolve(line))));
}

async function main() {
  const [url, redirectUrl, clientMetadataUrl] = process.argv.slice(2);
  const provider = new MemoryProvider(redirectUrl, clientMetadataUrl);
  const statuses = [];
  // Every response the SDK saw: the wire the test checks (401 challenge, discovery, MCP).
  const fetchFn = async (input, init) => {
    const response = await fetch(input, init);
    statuses.push({
      url: String(input instanceof Request ? input.url : input),
      status: response.status,
      wwwAuthenticate: response.headers.get("www-authenticate"),
    });
    return response;
  };
  const connect = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: fetchFn });
    const client = new Client({ name: "django-mcp-tools-tests", version: "1.0.0" });
    await client.connect(transport);
    return { client, transport };
  };
  let connected;
  try {
    connected = await connect();
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    const redirected = new URL(await nextLine());
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: fetchFn });
    await transport.finishAuth(redirected.searchParams.get("code"));
    connected = await connect();
  }
  const { client } = connected;
  const listed = await client.listTools();
  const results = {};
  for (const name of ["whoami", "whoami_again", "notes_list"]) {
    results[name] = await client.callTool({ name, arguments: {} });
  }
  process.stdout.write(
    JSON.stringify({
      clientId: provider.clientInformation().client_id,
      scope: provider.tokens().scope,
      accessToken: provider.tokens().access_token,
      tools: listed.tools.map((tool) => tool.name).sort(),
      results,
      statuses,
    }) + "\n",
  );
  await client.close();
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
