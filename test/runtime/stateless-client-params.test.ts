/**
 * Tool arguments mirrored into `Mcp-Param-{Name}` headers by the runtime's StatelessHttpClient:
 * the `x-mcp-header` declarations of a tool's input schema (which are valid, which make the tool
 * unusable), the header values (plain or base64-wrapped), and the client against a node:http
 * server on 127.0.0.1 that lists tools and records the headers of each call.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { descriptorOf } from "./descriptors.js";
import { StatelessHttpClient, paramHeadersOf, scanParamHeaders, type ExcludedTool } from "../../runtime/stateless-client.js";
import { TaskClient } from "../../runtime/client.js";
import { TaskProtocolError } from "../../runtime/errors.js";

type Json = Record<string, unknown>;
const str = (header: string) => ({ type: "string", "x-mcp-header": header });
const schema = (properties: Json) => ({ type: "object", properties });

/** Decodes a header value as the conformance suite and servers do. */
const decode = (v: string) => {
  const m = /^=\?base64\?(.*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, "base64").toString("utf8") : v;
};

describe("scanParamHeaders: the declarations of an input schema", () => {
  it("string, integer and boolean properties, nested ones through properties, names kept as declared", () => {
    const scan = scanParamHeaders(
      schema({
        region: str("Region"),
        priority: { type: "integer", "x-mcp-header": "Priority" },
        verbose: { type: "boolean", "x-mcp-header": "Verbose" },
        query: { type: "string" },
        target: { type: "object", properties: { zone: str("Zone") } },
      }),
    );
    expect(scan).toEqual({
      ok: true,
      headers: [
        { path: ["region"], name: "Region", type: "string" },
        { path: ["priority"], name: "Priority", type: "integer" },
        { path: ["verbose"], name: "Verbose", type: "boolean" },
        { path: ["target", "zone"], name: "Zone", type: "string" },
      ],
    });
    expect(scanParamHeaders(schema({ q: { type: "string" } }))).toEqual({ ok: true, headers: [] });
    expect(scanParamHeaders(undefined)).toEqual({ ok: true, headers: [] });
  });

  it.each([
    ["an empty name", schema({ v: str("") }), "must be a non-empty string"],
    ["a name that is not a string", schema({ v: { type: "string", "x-mcp-header": 7 } }), "must be a non-empty string"],
    ["a space in the name", schema({ v: str("My Region") }), "is not an HTTP field name"],
    ["a colon in the name", schema({ v: str("Region:Primary") }), "is not an HTTP field name"],
    ["a non-ASCII name", schema({ v: str("Région") }), "is not an HTTP field name"],
    ["a control character in the name", schema({ v: str("Region\t1") }), "is not an HTTP field name"],
    ["a number property", schema({ v: { type: "number", "x-mcp-header": "Score" } }), "not number"],
    ["an object property", schema({ v: { type: "object", "x-mcp-header": "Data" } }), "not object"],
    ["an array property", schema({ v: { type: "array", items: { type: "string" }, "x-mcp-header": "Items" } }), "not array"],
    ["a null property", schema({ v: { type: "null", "x-mcp-header": "Nil" } }), "not null"],
    ["an untyped property", schema({ v: { "x-mcp-header": "Any" } }), "not an untyped one"],
    ["the same name twice", schema({ a: str("Region"), b: str("Region") }), 'repeats "Region"'],
    ["the same name in another case", schema({ a: str("MyField"), b: str("myfield") }), 'repeats "MyField"'],
    ["a declaration under items", schema({ list: { type: "array", items: str("Id") } }), "reached through 'properties' alone"],
    ["a declaration under anyOf", { type: "object", anyOf: [schema({ v: str("V") })] }, "reached through 'properties' alone"],
    ["a declaration in $defs", { type: "object", $defs: { id: str("Id") } }, "reached through 'properties' alone"],
    ["a declaration on the root", { type: "string", "x-mcp-header": "Root" }, "the schema root"],
  ])("rejects %s", (_what, inputSchema, reason) => {
    const scan = scanParamHeaders(inputSchema);
    expect(scan.ok).toBe(false);
    expect((scan as { reason: string }).reason).toContain(reason);
  });
});

describe("paramHeadersOf: the headers of one call", () => {
  const declared = [
    { path: ["region"], name: "Region", type: "string" },
    { path: ["priority"], name: "Priority", type: "integer" },
    { path: ["verbose"], name: "Verbose", type: "boolean" },
    { path: ["target", "zone"], name: "Zone", type: "string" },
  ];

  it("text forms: strings as they are, integers in decimal, booleans true/false; nested arguments found by path", () => {
    expect(paramHeadersOf(declared, { region: "us-west1", priority: 42, verbose: false, target: { zone: "b" } })).toEqual({
      "mcp-param-region": "us-west1",
      "mcp-param-priority": "42",
      "mcp-param-verbose": "false",
      "mcp-param-zone": "b",
    });
  });

  it("null, absent, mistyped and inexact arguments get no header", () => {
    expect(paramHeadersOf(declared, { region: null, verbose: "yes", priority: 2 ** 60, target: "b" })).toEqual({ "mcp-param-verbose": "yes" });
    expect(paramHeadersOf(declared, undefined)).toEqual({});
    expect(paramHeadersOf(declared, { priority: 1.5 })).toEqual({});
  });

  it.each([
    ["plain visible ASCII with inner spaces", "us west 1", false],
    ["non-ASCII", "Hello, 世界", true],
    ["a leading space", " us-west1", true],
    ["a trailing space", "us-west1 ", true],
    ["a line break", "line1\nline2", true],
    ["CR LF", "line1\r\nline2", true],
    ["a tab", "\tindented", true],
    ["the empty string", "", true],
    ["text that looks like the base64 wrapper", "=?base64?eA==?=", true],
  ])("%s (%j)", (_what, value, wrapped) => {
    const v = paramHeadersOf([{ path: ["v"], name: "V", type: "string" }], { v: value })["mcp-param-v"]!;
    expect(v.startsWith("=?base64?")).toBe(wrapped);
    expect(decode(v)).toBe(value);
  });
});

describe("StatelessHttpClient: Mcp-Param-* headers and tools with invalid declarations", () => {
  const seen: Array<{ headers: IncomingHttpHeaders; body: { method: string; params: Json } }> = [];
  let server: Server;
  let url: string;
  const tools = [
    {
      name: "execute_sql",
      inputSchema: schema({ region: str("Region"), priority: { type: "integer", "x-mcp-header": "Priority" }, query: { type: "string" } }),
    },
    { name: "plain", inputSchema: schema({ q: { type: "string" } }) },
    { name: "bad_number", inputSchema: schema({ score: { type: "number", "x-mcp-header": "Score" } }) },
    { name: "bad_dup", inputSchema: schema({ a: str("X"), b: str("x") }) },
  ];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = "";
      req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
      req.on("end", () => {
        const body = JSON.parse(raw) as { id: number; method: string; params: Json };
        seen.push({ headers: req.headers, body });
        const result = body.method === "tools/list" ? { resultType: "complete", tools } : { resultType: "complete", content: [{ type: "text", text: "ok" }] };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  async function connect() {
    const excluded: ExcludedTool[] = [];
    const client = new StatelessHttpClient(await descriptorOf("ext-tasks-2026-07-28"), { url, onToolExcluded: (t) => void excluded.push(t) });
    return { client, excluded };
  }

  it("tools/list leaves out the tools with invalid declarations and says why", async () => {
    const { client, excluded } = await connect();
    const listed = await client.request({ method: "tools/list" }, z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })) }));
    expect(listed.tools.map((t) => t.name)).toEqual(["execute_sql", "plain"]);
    expect(excluded.map((t) => t.name)).toEqual(["bad_number", "bad_dup"]);
    expect(excluded[0]!.reason).toContain("string, integer or boolean");
    expect(excluded[1]!.reason).toContain('repeats "X"');
  });

  it("a call of a listed tool mirrors its declared arguments (and nothing else) into Mcp-Param-* headers", async () => {
    const { client } = await connect();
    await client.request({ method: "tools/list" }, z.looseObject({}));
    seen.length = 0;
    await client.request({ method: "tools/call", params: { name: "execute_sql", arguments: { region: "eu west", priority: 3, query: "SELECT 1" } } }, z.looseObject({}));
    const h = seen[0]!.headers;
    expect(h["mcp-param-region"]).toBe("eu west");
    expect(h["mcp-param-priority"]).toBe("3");
    expect(Object.keys(h).filter((k) => k.startsWith("mcp-param-")).sort()).toEqual(["mcp-param-priority", "mcp-param-region"]);
    expect(h["mcp-name"]).toBe("execute_sql");
  });

  it("a tool never listed gets no Mcp-Param-* header; registerTools teaches the client one", async () => {
    const { client } = await connect();
    seen.length = 0;
    const call = { method: "tools/call", params: { name: "execute_sql", arguments: { region: "r1" } } };
    await client.request(call, z.looseObject({}));
    expect(seen[0]!.headers["mcp-param-region"]).toBeUndefined();
    expect(client.registerTools([tools[0], tools[2]]).map((t) => t.name)).toEqual(["execute_sql"]);
    await client.request(call, z.looseObject({}));
    expect(seen[1]!.headers["mcp-param-region"]).toBe("r1");
  });

  it("calling an excluded tool is refused before anything is sent", async () => {
    const { client } = await connect();
    await client.request({ method: "tools/list" }, z.looseObject({}));
    seen.length = 0;
    const err = await client.request({ method: "tools/call", params: { name: "bad_number", arguments: { score: 1 } } }, z.looseObject({})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskProtocolError);
    expect(err).toMatchObject({ code: -32602 });
    expect((err as Error).message).toContain("Tool 'bad_number' is not usable");
    expect(seen).toHaveLength(0);
  });

  it("the TaskClient on the connection lists only the usable tools", async () => {
    const { client } = await connect();
    const tasks = new TaskClient(await descriptorOf("ext-tasks-2026-07-28"), client, { defaultPollFrequency: 50 });
    expect((await tasks.listTools()).map((t) => t.name)).toEqual(["execute_sql", "plain"]);
  });
});
