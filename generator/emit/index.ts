/**
 * Emitters: pure functions of the IR that return virtual files. Each one
 * builds a view of the IR for its Handlebars template; the code fragments
 * that recurse over types come from render.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { trustedBuild } from "../build-id.js";
import type Handlebars from "handlebars";
import { EMPTY_PARAMS, guardName, RESULT_OBJECT_GUARD, schemaName, templatesDir } from "../emit-names.js";
import { collectRefs, topoOrder, type IR, type IRType, type IRTypeDecl } from "../ir.js";
import {
  access,
  collectPatterns,
  docComment,
  FORMAT_CONST,
  FORMAT_PATTERNS,
  CHAIN_MAX,
  guardStmts,
  prop,
  tsDecl,
  tsType,
  zodExpr,
  type GuardContext,
  type ZodContext,
} from "./render.js";
import { jsLiteral, jsString, jsValue, lineComment, mdCode, mdText, shellWord, templateText } from "./escape.js";
import { RUNTIME_EMITTERS } from "./runtime.js";
import { contractEmitter } from "./contract.js";
import type { Emitter, EmitEnv, VirtualFile } from "./emitter.js";

export type { Emitter, EmitEnv, VirtualFile } from "./emitter.js";

// ---------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------

export { templatesDir };

/** The options every template is compiled with, at build time (scripts/precompile-templates.mjs) or here. */
export const TEMPLATE_OPTIONS = { noEscape: true, strict: true } as const;

type HandlebarsEnv = typeof Handlebars;
type Precompiled = Record<string, { source: string; spec: TemplateSpecification }>;
type TemplateSpecification = Parameters<HandlebarsEnv["template"]>[0];

const require = createRequire(import.meta.url);
const compiled = new Map<string, Handlebars.TemplateDelegate>();
const envs: { runtime?: HandlebarsEnv; full?: HandlebarsEnv } = {};
let precompiled: Precompiled | null | undefined;

function withHelpers(h: HandlebarsEnv): HandlebarsEnv {
  // Spec text reaches templates only through these (see escape.ts); `{{{x}}}` is for generated code.
  const args = (a: unknown[]) => a.slice(0, -1); // the last argument is Handlebars' options
  h.registerHelper("json", (v: unknown) => (v === undefined ? "" : jsLiteral(v)));
  h.registerHelper("str", (...a: unknown[]) => jsString(args(a).map(String).join("")));
  h.registerHelper("comment", (...a: unknown[]) => lineComment(args(a).map(String).join("")));
  h.registerHelper("md", (s: unknown) => mdText(String(s ?? "")));
  h.registerHelper("mdcode", (s: unknown) => mdCode(String(s ?? "")));
  h.registerHelper("sh", (s: unknown) => shellWord(String(s ?? "")));
  // Markdown only (a fenced json block): JSON escapes every line terminator, so no line can close the fence.
  h.registerHelper("jsonPretty", (v: unknown) => JSON.stringify(v, null, 2));
  return h;
}

/**
 * The templates as `npm run build` precompiled them (next to this module in
 * dist/), each with the source it was compiled from; null when there are none
 * (running from the TypeScript sources).
 */
function precompiledTemplates(): Precompiled | null {
  if (precompiled === undefined) {
    try {
      precompiled = require("./templates.precompiled.cjs") as Precompiled;
    } catch {
      precompiled = null;
    }
  }
  return precompiled;
}

/**
 * A template, from the build's precompiled form when it was compiled from
 * exactly the source on disk (then only the Handlebars runtime is loaded),
 * else compiled here (a template edited since the build). Both are the same
 * compiler's output with the same options, so they render the same text.
 * While the build id is trusted (build-id.ts), templates/ is as the build
 * left it, so its sources are not read again.
 */
function template(name: string): Handlebars.TemplateDelegate {
  let t = compiled.get(name);
  if (t) return t;
  const pre = precompiledTemplates()?.[name];
  const src = pre !== undefined && trustedBuild() !== undefined ? pre.source : readFileSync(join(templatesDir(), name), "utf8");
  if (pre && pre.source === src) {
    try {
      // The runtime as the package ships it in one file (the same code as handlebars/runtime, which
      // loads it as 20 modules).
      envs.runtime ??= withHelpers((require("handlebars/dist/handlebars.runtime.js") as HandlebarsEnv).create());
      t = envs.runtime.template(pre.spec);
    } catch {
      t = undefined;
    }
  }
  if (!t) {
    envs.full ??= withHelpers((require("handlebars") as HandlebarsEnv).create());
    t = envs.full.compile(src, TEMPLATE_OPTIONS);
  }
  compiled.set(name, t);
  return t;
}

export function renderTemplate(name: string, context: object): string {
  return template(name)(context);
}

// ---------------------------------------------------------------------------
// Shared views
// ---------------------------------------------------------------------------

const emptyParamsDecl: IRTypeDecl = {
  name: EMPTY_PARAMS,
  description: "Params of a message that declares none: only `_meta`.",
  recursive: false,
  type: {
    kind: "object",
    open: true,
    strict: false,
    nullable: false,
    fields: [
      {
        name: "_meta",
        optional: true,
        deprecated: false,
        type: { kind: "record", values: { kind: "unknown", nullable: false }, nullable: false },
      },
    ],
  },
};

interface MethodView {
  method: string;
  kind: "request" | "notification";
  messageName: string;
  paramsName: string;
  resultName?: string;
  paramsOptional: boolean;
  inline: IRTypeDecl[];
  doc: string;
}

/** All type declarations the emitted files hold: declared types, inline message types, EmptyParams. */
function allDecls(ir: IR): { decls: IRTypeDecl[]; methods: MethodView[] } {
  const declared = new Set(ir.types.map((t) => t.name));
  let needsEmpty = false;
  const methods: MethodView[] = ir.methods.map((m) => {
    const inline: IRTypeDecl[] = [];
    const named = (t: IRType | undefined, name: string | undefined, what: string) => {
      if (t !== undefined && name !== undefined && !declared.has(name)) {
        inline.push({ name, type: t, description: `The ${what} of \`${m.method}\`.`, recursive: false });
      }
    };
    named(m.params, m.paramsName, "params");
    named(m.result, m.resultName, "result");
    if (m.params === undefined) needsEmpty = true;
    return {
      method: m.method,
      kind: m.kind,
      messageName: m.messageName,
      paramsName: m.paramsName ?? EMPTY_PARAMS,
      resultName: m.resultName,
      paramsOptional: m.params === undefined,
      inline,
      doc: docComment(m.description, [`Sent by: ${m.from}.`, ...(m.errors.length ? [`Errors: ${m.errors.join(", ")}.`] : [])]),
    };
  });
  const decls = [...ir.types, ...methods.flatMap((m) => m.inline), ...(needsEmpty ? [emptyParamsDecl] : [])];
  return { decls, methods };
}

// ---------------------------------------------------------------------------
// Emitters
// ---------------------------------------------------------------------------

const typesEmitter: Emitter = {
  name: "types",
  emit(ir, env) {
    const { decls, methods } = allDecls(ir);
    const declNames = new Set(ir.types.map((d) => d.name));
    const topLevel = decls.filter((d) => declNames.has(d.name) || d.name === EMPTY_PARAMS);
    const methodViews = methods.map((m) => ({
      method: m.method,
      messageName: m.messageName,
      doc: m.doc,
      inlineDecls: m.inline.map(tsDecl).join("\n\n"),
      paramsField: `params${m.paramsOptional ? "?" : ""}: ${m.paramsName};`,
    }));
    const contents = env.render("types.ts.hbs", {
      header: env.header,
      decls: topLevel.map(tsDecl),
      methods: methodViews,
      requests: methods
        .filter((m) => m.kind === "request")
        .map((m) => ({
          method: m.method,
          paramsType: m.paramsOptional ? `${m.paramsName} | undefined` : m.paramsName,
          resultType: m.resultName ?? "Record<string, unknown>",
        })),
      notifications: methods
        .filter((m) => m.kind === "notification")
        .map((m) => ({ method: m.method, paramsType: m.paramsOptional ? `${m.paramsName} | undefined` : m.paramsName })),
    });
    return [{ path: "types.ts", contents }];
  },
};

const guardsEmitter: Emitter = {
  name: "guards",
  emit(ir, env) {
    const { decls, methods } = allDecls(ir);
    const patterns = collectPatterns(ir);
    const ctx: GuardContext = {
      patterns,
      helpers: [],
      helperPrefix: "variant$",
      decls: new Map(decls.map((d) => [d.name, d])),
    };
    const guards = decls.map((d) => ({ fn: guardName(d.name), type: d.name, body: guardStmts(d.type, "v", ctx) }));
    const paramsGuard = (m: MethodView) => (m.paramsOptional ? `(v: unknown): v is T.${EMPTY_PARAMS} | undefined => v === undefined || ${guardName(EMPTY_PARAMS)}(v)` : guardName(m.paramsName));
    const contents = env.render("guards.ts.hbs", {
      header: env.header,
      formats: { dateTime: FORMAT_PATTERNS["date-time"], uri: FORMAT_PATTERNS.uri, uuid: FORMAT_PATTERNS.uuid },
      patterns: patterns.entries.map((p) => ({ name: p.name, anchored: `^(?:${p.source})$` })),
      tables: ctx.tables ?? [],
      guards,
      helpers: ctx.helpers,
      requests: methods
        .filter((m) => m.kind === "request")
        .map((m) => ({ method: m.method, params: paramsGuard(m), result: m.resultName ? guardName(m.resultName) : RESULT_OBJECT_GUARD })),
      notifications: methods.filter((m) => m.kind === "notification").map((m) => ({ method: m.method, params: paramsGuard(m) })),
    });
    const needsResultObject = methods.some((m) => m.kind === "request" && !m.resultName);
    const extra = needsResultObject
      ? `\nfunction ${RESULT_OBJECT_GUARD}(v: unknown): v is Record<string, unknown> {\n  return typeof v === "object" && v !== null && !Array.isArray(v);\n}\n`
      : "";
    return [{ path: "guards.ts", contents: contents + extra }];
  },
};

const validatorsEmitter: Emitter = {
  name: "validators",
  emit(ir, env) {
    const { decls, methods } = allDecls(ir);
    const ordered = topoOrder(decls);
    const lazy = new Set(decls.filter((d) => d.recursive).map((d) => d.name));
    const objectTypes = new Set(decls.filter((d) => d.type.kind === "object").map((d) => d.name));
    const patterns = collectPatterns(ir);
    const zctx: ZodContext = { lazy, patterns, objectTypes };
    const schemas = ordered.map((d) => ({
      name: schemaName(d.name),
      type: d.name,
      doc: docComment(d.description ?? d.type.description),
      annotate: d.recursive,
      expr: d.recursive ? `z.lazy(() => ${zodExpr(d.type, { ...zctx, lazy: new Set() })})` : zodExpr(d.type, zctx),
    }));
    const paramsSchema = (m: MethodView) =>
      m.paramsOptional ? `${schemaName(EMPTY_PARAMS)}.optional()` : schemaName(m.paramsName);
    const body = schemas.map((s) => s.expr).join("\n");
    const regexImports = [...Object.values(FORMAT_CONST), ...patterns.entries.map((p) => p.name)]
      .filter((n) => new RegExp(`\\b${n}\\b`).test(body))
      .join(", ");
    const contents = env.render("validators.ts.hbs", {
      header: env.header,
      regexImports,
      schemas,
      messages: methods.map((m) => ({ name: schemaName(m.messageName), method: m.method, params: paramsSchema(m) })),
      requests: methods
        .filter((m) => m.kind === "request")
        .map((m) => ({
          method: m.method,
          params: paramsSchema(m),
          result: m.resultName ? schemaName(m.resultName) : "z.record(z.string(), z.unknown())",
        })),
      notifications: methods.filter((m) => m.kind === "notification").map((m) => ({ method: m.method, params: paramsSchema(m) })),
    });
    return [{ path: "validators.ts", contents }];
  },
};

export function mermaid(ir: IR): string {
  const lines = ["stateDiagram-v2", `  [*] --> ${ir.initialState}`];
  for (const t of ir.transitions) lines.push(`  ${t.from} --> ${t.to}${t.guard ? `: [${t.guard}]` : ""}`);
  for (const s of ir.terminalStates) lines.push(`  ${s} --> [*]`);
  return lines.join("\n");
}

const transitionsEmitter: Emitter = {
  name: "transitions",
  emit(ir, env) {
    const table = ir.states.map((s) => {
      const out = ir.transitions.filter((t) => t.from === s.name);
      return {
        from: s.name,
        to: out.map((t) => t.to),
        cells: out.map((t) => ({ to: t.to, cell: t.guard ? 2 : 1 })),
      };
    });
    const guardExpr = (g: IR["guards"][number]) => {
      const v = access("ctx", g.field);
      const lit = jsValue(g.value);
      switch (g.op) {
        case "equals":
          return `${v} === ${lit}`;
        case "notEquals":
          return `${v} !== undefined && ${v} !== ${lit}`;
        case "atLeast":
          return `${v} !== undefined && ${v} >= ${lit}`;
        case "atMost":
          return `${v} !== undefined && ${v} <= ${lit}`;
      }
    };
    const fields = new Map<string, string>();
    for (const g of ir.guards) if (g.field !== "pendingInputs") fields.set(g.field, g.valueType === "integer" ? "number" : g.valueType);
    const contents = env.render("transitions.ts.hbs", {
      header: env.header,
      statusType: ir.statusType,
      states: ir.states,
      initialState: ir.initialState,
      terminalStates: ir.terminalStates,
      isTerminal:
        ir.terminalStates.length > CHAIN_MAX
          ? `(TERMINAL_STATES as readonly string[]).includes(status)`
          : ir.terminalStates.map((s) => `status === ${jsValue(s)}`).join(" || "),
      roles: Object.entries(ir.roles).map(([role, state]) => ({ role, state })),
      table,
      contextFields: [...fields].map(([name, type]) => ({ name, type })),
      guards: ir.guards.map((g) => ({ name: g.name, doc: docComment(g.description), expr: guardExpr(g) })),
      guarded: ir.transitions.filter((t) => t.guard).map((t) => ({ key: `${t.from}->${t.to}`, guard: t.guard })),
      mermaid: mermaid(ir),
    });
    return [{ path: "transitions.ts", contents }];
  },
};

const errorsEmitter: Emitter = {
  name: "errors",
  emit(ir, env) {
    const declared = new Set(ir.types.map((t) => t.name));
    const qualified = (n: string) => (declared.has(n) ? `T.${n}` : n);
    const errors = ir.errors.map((e) => {
      const ctxType = e.context.length ? `{ ${e.context.map((c) => `${prop(c.name)}: ${tsType(c.type, qualified)}`).join("; ")} }` : undefined;
      const params = [ctxType ? `ctx: ${ctxType}` : "", e.data ? `data?: ${tsType(e.data, qualified)}` : ""].filter(Boolean).join(", ");
      const message =
        "`" + e.segments.map((s) => ("text" in s ? templateText(s.text) : `\${String(${access("ctx", s.param)})}`)).join("") + "`";
      return {
        name: e.name,
        code: e.code,
        doc: docComment(e.description, [`Code ${e.code}: "${e.message}"`]),
        params,
        message,
        data: e.data ? "data" : "undefined",
        http: e.http === undefined ? "undefined" : String(e.http),
      };
    });
    const usesTypes = ir.errors.some((e) => e.context.some((c) => usesRef(c.type)) || (e.data && usesRef(e.data)));
    let contents = env.render("errors.ts.hbs", { header: env.header, errors });
    if (!usesTypes) contents = contents.replace('import type * as T from "./types.js";\n', "");
    return [{ path: "errors.ts", contents }];
  },
};

function usesRef(t: IRType): boolean {
  const acc = new Set<string>();
  collectRefs(t, acc);
  return acc.size > 0;
}

const protocolEmitter: Emitter = {
  name: "protocol",
  emit(ir, env) {
    const contents = env.render("protocol.ts.hbs", {
      header: env.header,
      spec: { id: ir.spec.name, sha256: ir.spec.hash, protocol: ir.spec.protocol },
      meta: ir.meta,
      behaviour: ir.behaviour,
    });
    return [{ path: "protocol.ts", contents }];
  },
};

const indexEmitter: Emitter = {
  name: "index",
  emit(_ir, env) {
    return [{ path: "index.ts", contents: env.render("index.ts.hbs", { header: env.header }) }];
  },
};

const readmeEmitter: Emitter = {
  name: "readme",
  emit(ir, env) {
    const contents = env.render("README.md.hbs", {
      headerText: env.header.replace(/^\/\/ ?/gm, "").replace(/\n/g, " "),
      spec: ir.spec,
      protocol: ir.spec.protocol,
      perRequest: ir.spec.protocol.lifecycle === "per-request",
      mermaid: mermaid(ir),
      states: ir.states.map((s) => ({ ...s, description: mdText(s.description ?? "") })),
      transitions: ir.transitions,
      methods: ir.methods,
      errors: ir.errors,
      meta: ir.meta,
      behaviour: ir.behaviour,
    });
    return [{ path: "README.md", contents }];
  },
};

/** The emitters, in output order. */
export const EMITTERS: readonly Emitter[] = [
  typesEmitter,
  guardsEmitter,
  validatorsEmitter,
  transitionsEmitter,
  errorsEmitter,
  protocolEmitter,
  ...RUNTIME_EMITTERS,
  contractEmitter,
  indexEmitter,
  readmeEmitter,
];
