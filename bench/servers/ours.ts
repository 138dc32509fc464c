/**
 * The generated server of a spec (output-samples/<spec>/server.ts) with one
 * task in its store, for the end-to-end bench (see setup.ts).
 *
 *   node [tsx loader] bench/servers/ours.ts <spec> stdio|http
 *
 * Prints `BENCH-READY {"taskId": ..., "url"?: ...}` on stderr once serving:
 * stdio with the generated TaskStdioServerTransport, HTTP with the generated
 * serveStreamableHttp.
 */
import { ourServer } from "./setup.js";

const [spec, mode] = process.argv.slice(2);
if (!spec || (mode !== "stdio" && mode !== "http")) {
  process.stderr.write("usage: ours.ts <spec> stdio|http\n");
  process.exit(2);
}
const { taskId, make, module: S } = await ourServer(spec);
if (mode === "stdio") {
  await make().connect(new S!.TaskStdioServerTransport());
  process.stderr.write(`BENCH-READY ${JSON.stringify({ taskId })}\n`);
} else {
  const served = await S!.serveStreamableHttp(make, { port: 0, host: "127.0.0.1", log: () => {} });
  process.stderr.write(`BENCH-READY ${JSON.stringify({ taskId, url: served.url })}\n`);
}
