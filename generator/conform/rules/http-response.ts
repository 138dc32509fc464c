/** Rules `http-response` and `http-poll-json`: how Streamable HTTP answers the tester's requests. */
import { checked, defineRule, fail } from "../rule.js";
import { HttpWire } from "../wire.js";
import { checkStreams } from "./http-session.js";
import type { World } from "../world.js";

export const httpResponse = defineRule({
  name: "http-response",
  description: "Streamable HTTP: a POST that carries a request is answered with Content-Type application/json or text/event-stream, and one whose answer is a result with HTTP 200.",
  statements: [
    "mcp-2025-11-25/get.transport-server",
    "mcp-2025-11-25/input.transport-server",
    "mcp-2025-11-25/result.transport-server",
  ],
  reads: [],
});

export const httpPollJson = defineRule({
  name: "http-poll-json",
  description: "Streamable HTTP: the spec's get method (a poll) is answered with JSON, not upgraded to an SSE stream.",
  statements: ["mcp-2025-11-25/input.no-sse-on-get"],
  reads: ["methods.*.operation=get"],
});

/** The HTTP responses to the requests sent since the last look. */
export function checkHttpResponses(w: World): void {
  const wire = w.session.wire;
  if (!(wire instanceof HttpWire)) return;
  checkStreams(w);
  const get = w.model.op("get")?.method;
  for (; w.httpResponsesSeen < wire.responses.length; w.httpResponsesSeen++) {
    const r = wire.responses[w.httpResponsesSeen]!;
    checked(httpResponse);
    const type = r.contentType.split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json" && type !== "text/event-stream") {
      fail(httpResponse, `${r.method} was answered with Content-Type ${JSON.stringify(r.contentType)} (HTTP ${r.status})`, "application/json or text/event-stream", r.contentType);
    }
    // A JSON body (an SSE stream is always 200) that answered: a success is HTTP 200; an error may come with an HTTP error status.
    if (r.status !== 200 && r.status < 400) fail(httpResponse, `${r.method} was answered with HTTP ${r.status}`, 200, r.status);
    if (r.method === get) {
      checked(httpPollJson);
      if (type === "text/event-stream") fail(httpPollJson, `${r.method} was answered on an SSE stream; a poll is answered with JSON where possible`, "application/json", r.contentType);
    }
  }
}
