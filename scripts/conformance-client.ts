// The client program the conformance suite runs for its client scenarios: the generated
// per-request client (StatelessHttpClient of an ext-tasks-2026-07-28 output) against the
// suite's scenario server.
//
//   tsx scripts/conformance-client.ts <server url>
//
// The suite passes the scenario in MCP_CONFORMANCE_SCENARIO and, for some, the calls to make
// in MCP_CONFORMANCE_CONTEXT (JSON). MCP_TASK_GEN_CLIENT_DIR names the generated output to use
// (scripts/conformance.mjs generates one from the current runtime); by default the sample in
// output-samples/. Exits 1 with a message on stderr when a step fails; 2 for an unknown scenario.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";

type Json = Record<string, unknown>;
interface Client {
  request(request: { method: string; params?: Json }, schema: z.ZodType, options?: Json): Promise<Json>;
  discover(): Promise<Json>;
}
interface ClientModule {
  PROTOCOL_VERSION: string;
  StatelessHttpClient: new (options: Json) => Client;
}

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Json;
const dir = process.env.MCP_TASK_GEN_CLIENT_DIR ?? join(import.meta.dirname, "..", "output-samples", "ext-tasks-2026-07-28");
const gen = (await import(pathToFileURL(resolve(dir, "stateless-client.ts")).href)) as ClientModule;

const any = z.looseObject({});
const tools = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })) });
const log = (msg: string, extra: Json = {}) => process.stderr.write(JSON.stringify({ msg, ...extra }) + "\n");

function connect(options: Json = {}): Client {
  return new gen.StatelessHttpClient({
    url,
    clientInfo: { name: "mcp-task-gen-conformance-client", version: "0.0.0" },
    onToolExcluded: (t: { name: string; reason: string }) => log("tool excluded", t),
    ...options,
  });
}

/** Arguments satisfying a tool's required properties (string "x", 1, true, {}, []) for tools the scenario does not give any. */
function argumentsFor(schema: unknown): Json {
  const s = (schema ?? {}) as { properties?: Record<string, { type?: string }>; required?: string[] };
  const out: Json = {};
  for (const name of s.required ?? []) {
    const type = s.properties?.[name]?.type;
    out[name] = type === "integer" || type === "number" ? 1 : type === "boolean" ? true : type === "object" ? {} : type === "array" ? [] : "x";
  }
  return out;
}

const listTools = async (c: Client) => (await c.request({ method: "tools/list" }, tools)).tools as Array<Json & { name: string }>;
const call = (c: Client, name: string, args: Json) => c.request({ method: "tools/call", params: { name, arguments: args } }, any);

const scenarios: Record<string, () => Promise<void>> = {
  /** Lists the tools and calls add_numbers. */
  async tools_call() {
    const c = connect();
    await listTools(c);
    const r = await call(c, "add_numbers", { a: 2, b: 3 });
    log("add_numbers", r);
  },

  /** Every request carries the envelope; a version the server rejects is retried when it names ours as supported. */
  async "request-metadata"() {
    const c = connect({ capabilities: { elicitation: {}, sampling: {}, roots: {} } });
    try {
      await c.discover();
    } catch (e) {
      const data = (e as { data?: { supported?: unknown } }).data;
      if (!Array.isArray(data?.supported) || !data.supported.includes(gen.PROTOCOL_VERSION)) throw e;
      log("discover rejected; the server lists our version as supported, retrying", { supported: data.supported });
      await c.discover();
    }
    await listTools(c);
  },

  /** MRTR: requestState echoed, no state invented, another call in between carries neither, no resultType means complete. */
  async "sep-2322-client-request-state"() {
    const c = connect({
      capabilities: { elicitation: {} },
      onInputRequest: async () => {
        // Another request while this one waits for input: it must not carry this one's answers or state.
        await call(c, "test_mrtr_unrelated", {});
        return { action: "accept", content: { confirmed: true } };
      },
    });
    await listTools(c);
    for (const name of ["test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"]) log(name, await call(c, name, {}));
  },

  /** Mcp-Method and Mcp-Name on every kind of request the scenario serves. */
  async "http-standard-headers"() {
    const c = connect();
    for (const t of await listTools(c)) await call(c, t.name, argumentsFor(t.inputSchema));
    const resources = (await c.request({ method: "resources/list" }, any)).resources as Array<{ uri: string }>;
    for (const r of resources) await c.request({ method: "resources/read", params: { uri: r.uri } }, any);
    const prompts = (await c.request({ method: "prompts/list" }, any)).prompts as Array<{ name: string }>;
    for (const p of prompts) await c.request({ method: "prompts/get", params: { name: p.name } }, any);
  },

  /** The calls the scenario asks for, after tools/list taught the client their header declarations. */
  async "http-custom-headers"() {
    const c = connect();
    const listed = new Set((await listTools(c)).map((t) => t.name));
    for (const t of (context.toolCalls ?? []) as Array<{ name: string; arguments: Json }>) {
      if (!listed.has(t.name)) throw new Error(`the scenario asks to call ${t.name}, which tools/list did not offer`);
      await call(c, t.name, t.arguments);
    }
  },

  /** Calls every tool tools/list leaves usable: the invalid ones are excluded by the client. */
  async "http-invalid-tool-headers"() {
    const c = connect();
    for (const t of await listTools(c)) await call(c, t.name, argumentsFor(t.inputSchema));
  },

  /** Lists the tools (whose schema holds a network $ref, which must not be fetched). */
  async "json-schema-ref-no-deref"() {
    await listTools(connect());
  },

  /** Echoes the focal tool's input schema back as received. */
  async "json-schema-2020-12-preservation"() {
    const c = connect();
    const listed = await listTools(c);
    const focal = listed.find((t) => t.name !== "json_schema_echo");
    if (focal === undefined) throw new Error("tools/list offered no tool besides json_schema_echo");
    await call(c, "json_schema_echo", { schema: focal.inputSchema });
  },
};

const run = scenarios[scenario];
if (url === undefined || run === undefined) {
  console.error(`conformance-client: usage: MCP_CONFORMANCE_SCENARIO=<${Object.keys(scenarios).join("|")}> conformance-client <server url>`);
  process.exit(2);
}
try {
  await run();
} catch (e) {
  console.error(`conformance-client: ${scenario}: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
