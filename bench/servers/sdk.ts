/**
 * The baseline server of the end-to-end bench: an SDK McpServer with the
 * SDK's InMemoryTaskStore holding one task (see setup.ts).
 *
 *   node [tsx loader] bench/servers/sdk.ts stdio|http
 *
 * Prints `BENCH-READY {"taskId": ..., "url"?: ...}` on stderr once serving.
 * stdio: the SDK's StdioServerTransport. HTTP: plain node:http, one McpServer
 * and StreamableHTTPServerTransport per session (as the SDK's examples do),
 * sharing the store.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { sdkServer } from "./setup.js";

const mode = process.argv[2];
if (mode !== "stdio" && mode !== "http") {
  process.stderr.write("usage: sdk.ts stdio|http\n");
  process.exit(2);
}
const { taskId, make } = await sdkServer();
if (mode === "stdio") {
  await make().connect(new StdioServerTransport());
  process.stderr.write(`BENCH-READY ${JSON.stringify({ taskId })}\n`);
} else {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const sid = req.headers["mcp-session-id"];
      if (typeof sid === "string") {
        const t = sessions.get(sid);
        if (!t) return void res.writeHead(404).end();
        return t.handleRequest(req, res);
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      transport.onclose = () => void (transport.sessionId && sessions.delete(transport.sessionId));
      await make().connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const addr = http.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  process.stderr.write(`BENCH-READY ${JSON.stringify({ taskId, url: `http://127.0.0.1:${port}/mcp` })}\n`);
}
