// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// The stdio binding of the per-request lifecycle.

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { checkInputResponses, checkProtocolVersion, checkUnsupportedMethod, statelessServerFactory, type StatelessServerOptions } from "./stateless-dispatch.js";
import { TaskSubscriptionTransport } from "./stateless-subscriptions.js";
import type { TaskRuntime } from "./server.js";

/**
 * Serves the runtime over stdio (`serveStdio` of @modelcontextprotocol/server) on the runtime's
 * stdio transport, which answers malformed lines (-32700, -32600) where the SDK's drops them, and
 * refuses a missing or unsupported protocol version, malformed update answers and the spec's
 * unsupported methods as over HTTP ({@link checkProtocolVersion}, {@link checkInputResponses},
 * {@link checkUnsupportedMethod}).
 */
export async function serveStatelessStdio<S extends string, W>(
  runtime: TaskRuntime<S, W>,
  options: StatelessServerOptions & { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream; maxLineBytes?: number } = {},
): Promise<{ close(): Promise<void> }> {
  const { TaskStdioServerTransport } = await import("./transports.js");
  const transport = new TaskStdioServerTransport(options.stdin, options.stdout, {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    check: (message) => {
      const refused = checkProtocolVersion(runtime.plan, message) ?? checkUnsupportedMethod(runtime.plan, message);
      return refused === undefined ? checkInputResponses(runtime.plan, message) : { id: refused.id, ...refused.error };
    },
  });
  // Task subscriptions are served in front of the SDK's entry, which knows no task filter.
  const subscription = runtime.plan.statusSubscription;
  const wire = subscription === undefined ? transport : new TaskSubscriptionTransport(runtime, subscription, transport as never, options.subscriptionPollMs ?? 100, options.serverInfo);
  return serveStdio(statelessServerFactory(runtime, options), {
    transport: wire as never,
    ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
  });
}
