/**
 * Literal braces in an error message: `{{` and `}}` stand for `{` and `}`, so a message can say `{}`.
 * The spec validates; the generated error function, the runtime's catalog (the descriptor's message
 * filled by formatMessage) and conform's pattern of the declared message all give the same text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorPattern } from "../generator/conform/model.js";
import { compile } from "../generator/pipeline.js";
import { formatMessage } from "../runtime/errors.js";
import { ROOT } from "./helpers/cli.js";

const FILE = "test/fixtures/escapes/literal-braces.yaml";
const WANT = 'Limit reached: send {} or {"limit": {5}}';

describe("literal braces in an error message", () => {
  it("validate accepts {{ and }}, and every side of the wire writes { and }", async () => {
    const r = await compile({ file: FILE, text: readFileSync(join(ROOT, FILE), "utf8") });
    expect(r.diagnostics).toEqual([]);
    const e = r.ir!.errors.find((x) => x.name === "limited")!;
    expect(e.segments).toEqual([{ text: "Limit reached: send {} or {\"limit\": {" }, { param: "limit" }, { text: "}}" }]);
    // The runtime fills the declared message the descriptor hands it.
    expect(formatMessage(e.message, { limit: 5 })).toBe(WANT);
    // An unknown name stays as written; an escaped one is never filled.
    expect(formatMessage("{{limit}} {other}", { limit: 5 })).toBe("{limit} {other}");
    // The generated errors.ts builds the same text.
    const errorsTs = r.files!.find((f) => f.path === "errors.ts")!.contents;
    expect(errorsTs).toContain('`Limit reached: send {} or {\\"limit\\": {${String(ctx.limit)}}}`');
    // conform accepts that message for the declared error, and not one that still has the escapes.
    expect(errorPattern(e).test(WANT)).toBe(true);
    expect(errorPattern(e).test('Limit reached: send {{}} or {{"limit": {{5}}}}')).toBe(false);
  });
});
