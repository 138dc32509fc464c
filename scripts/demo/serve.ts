/**
 * How the demo is served: on stdio or Streamable HTTP, by a server per session (the low-level Server with
 * the tools, a resource and a prompt, or with --mcp-server the high-level McpServer) or, for a spec of the
 * per-request lifecycle, by the emitted stateless binding; and how it stops on SIGINT/SIGTERM.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { z } from "zod";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { DemoOptions } from "./args.js";
import { bearerMatches, requireBearer, tokenAuth } from "./auth.js";
import { type DemoRuntime, log, type ProtocolModule, type ServerModule, type StatelessModule, type StatelessRuntimeModule } from "./common.js";
import type { demoTools } from "./tools.js";

export interface Serving {
  /** The spec's name (or file), for the logs and the server's instructions. */
  spec: string;
  /** The directory of its generated code. */
  dir: string;
  gen: ServerModule;
  runtime: DemoRuntime;
  tools: ReturnType<typeof demoTools>;
  /** --http: the port (0: a free one); undefined: stdio. */
  http: number | undefined;
  httpLimits: NonNullable<DemoOptions["http"]>;
  /** --mcp-server */
  mcp: boolean;
  /** --auth tokens. */
  auth: string[];
}

/** Serves the demo until it is stopped. */
export async function serve({ spec, dir, gen, runtime, tools, http, httpLimits, mcp, auth }: Serving): Promise<void> {
  // --mcp-server: the same tools on the high-level McpServer, made task-augmentable with runtime.tool().
  const createMcpServer = () => {
    const server = new McpServer({ name: "mcp-task-gen-demo", version: "0.1.0" });
    // Its tools log their work (notifications/message).
    server.server.registerCapabilities({ logging: {} });
    runtime.install(server);
    for (const t of tools) {
      const shape = (t.inputSchema as unknown as z.ZodObject).shape;
      server.registerTool(
        t.name,
        { description: t.description ?? t.name, inputSchema: shape },
        runtime.tool((args, ctx) => (t.handler as (a: unknown, c: typeof ctx) => ReturnType<typeof t.handler>)(args, ctx)) as never,
      );
    }
    return server;
  };

  const createServer = () => {
    if (mcp) return createMcpServer();
    const server = new Server(
      { name: "mcp-task-gen-demo", version: "0.1.0" },
      { capabilities: { resources: {}, prompts: {}, logging: {} }, instructions: `Demo of the generated ${spec} task support.` },
    );
    runtime.install(server);
    runtime.registerTools(server, tools);
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: [{ uri: "demo://report", name: "report", mimeType: "text/plain" }],
    }));
    server.setRequestHandler(
      ReadResourceRequestSchema,
      runtime.handle("resources/read", async (req) => {
        if (req.params.uri !== "demo://report") throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${req.params.uri}`);
        return { contents: [{ uri: "demo://report", mimeType: "text/plain", text: "All systems nominal." }] };
      }),
    );
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: "summary", description: "A summary prompt" }] }));
    server.setRequestHandler(
      GetPromptRequestSchema,
      runtime.handle("prompts/get", async (req) => {
        if (req.params.name !== "summary") throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
        return { messages: [{ role: "user" as const, content: { type: "text" as const, text: "Summarise the report." } }] };
      }),
    );
    return server;
  };

  // A per-request lifecycle (core 2026-07-28) is served by the emitted stateless binding
  // on @modelcontextprotocol/server 2.x: no initialize, no session, one POST per request.
  const protocolMod = (await import(pathToFileURL(join(dir, "protocol.ts")).href)) as ProtocolModule;
  if ((protocolMod.SPEC.protocol as { lifecycle?: string }).lifecycle === "per-request") {
    const stateless = (await import(pathToFileURL(join(dir, "stateless-server.ts")).href)) as StatelessModule;
    runtime.addTools(tools as never);
    const serverInfo = { name: "mcp-task-gen-demo", version: "0.1.0" };
    const instructions = `Demo of the generated ${spec} task support.`;
    if (http === undefined) {
      // On the runtime's stdio transport, which answers malformed lines (-32700, -32600) instead of dropping them.
      const { serveStatelessStdio } = (await import("@mcp-task-gen/runtime/stateless-server")) as StatelessRuntimeModule;
      // SIGTERM/SIGINT close it: open task subscriptions get their closing response first.
      stopOnSignals(await serveStatelessStdio(runtime as never, { serverInfo, instructions }), runtime);
      log("serving on stdio", { spec });
      return;
    }
    const authenticate = (request: Request) => {
      const token = auth.find((t) => bearerMatches(request.headers.get("authorization"), t));
      if (token === undefined) throw new Error("missing or wrong bearer token");
      return tokenAuth(token);
    };
    const served = await stateless.serveStatelessHttp(runtime as never, {
      ...httpLimits,
      port: http,
      host: "127.0.0.1",
      serverInfo,
      instructions,
      ...(auth.length === 0 ? {} : { authenticate }),
    });
    log("listening", { spec, url: served.url });
    stopOnSignals(served, runtime);
    return;
  }

  if (http === undefined) {
    const server = createServer();
    const transport = new gen.TaskStdioServerTransport();
    const low = server instanceof McpServer ? server.server : server;
    low.onclose = () => {
      void runtime.close().finally(() => process.exit(0));
    };
    await server.connect(transport);
    log("serving on stdio", { spec });
  } else {
    const served = await gen.serveStreamableHttp(createServer, { ...httpLimits, port: http, host: "127.0.0.1" });
    if (auth.length > 0) requireBearer(served.server, auth);
    log("listening", { spec, url: served.url });
    stopOnSignals(served, runtime);
  }
}

/** On SIGINT/SIGTERM: stop listening, close the runtime, exit. */
function stopOnSignals(served: { close(): Promise<unknown> }, runtime: { close(): Promise<unknown> }): void {
  const stop = () => {
    void served
      .close()
      .then(() => runtime.close())
      .finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
