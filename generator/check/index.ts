/**
 * Checks: the shape of the document (from the zod schema of the format), then
 * the meaning (references, state machine, error codes and templates, the
 * completeness of declared behaviours). Every finding is a Diagnostic.
 */
import { diag, type Code, type Diagnostic } from "../diagnostics.js";
import { SpecSchema, type Spec } from "../format.js";
import type { Loaded } from "../load.js";
import { checkBehaviourRefs, checkCreation, checkCreationParamType, checkLimits } from "./behaviour.js";
import { context, type Ctx, type Path } from "./context.js";
import { checkEndings } from "./endings.js";
import { checkErrors, checkStandardCodeMeanings } from "./errors.js";
import { checkExamples } from "./examples.js";
import { checkMetaPlacement, checkRuntimeFields, checkStateRoles, checkUnperformed } from "./honoured.js";
import { checkCoreMethods, checkMethodDeclarations, checkMethodUse, checkOperations } from "./methods.js";
import { checkGeneratedNames, checkNameStrings, checkPrototypeNames, reservedProto } from "./names.js";
import { checkRuntimeResults } from "./results.js";
import { flattenIssues, type ZIssue } from "./schema.js";
import { checkSdkCapabilityKeys, checkSdkTaskShape } from "./sdk.js";
import { checkEvents, checkStateCount, checkStates } from "./states.js";
import { checkTaskRequest, checkTaskType } from "./task.js";
import { checkTypes } from "./types.js";
import { checkCapabilityValues, checkDefaults } from "./values.js";

export { CORE_REQUESTS } from "./behaviour.js";
export { JSONRPC_STANDARD_CODES, PER_REQUEST_CORE_CODES } from "./errors.js";
export { DOTTED_PATH_RE, HTTP_TOKEN_RE, META_KEY_RE } from "./names.js";
export { MAX_STATES } from "./states.js";
export { MAX_TYPE_DEPTH } from "./type-graph.js";
export { fieldsOf, methodStem, parseShorthand, resolveShallow, stronglyConnected, type ShorthandParts } from "../spec-helpers.js";

export interface Checked {
  spec?: Spec;
  diagnostics: Diagnostic[];
}

export function check(loaded: Loaded): Checked {
  const diagnostics: Diagnostic[] = [];
  const report = (code: Code, severity: "error" | "warning", message: string, path: Path, key = false) => {
    let location = loaded.locate(path, { key });
    // Point at the placeholder itself when it is on the located line.
    const placeholder = code === "MTG051" ? /^placeholder (\{[^{}]*\})/.exec(message)?.[1] : undefined;
    if (location && placeholder && location.lineText !== undefined) {
      const at = location.lineText.indexOf(placeholder, location.col - 1);
      if (at >= 0) location = { ...location, col: at + 1, length: placeholder.length };
    }
    diagnostics.push(diag(code, severity, message, path, location));
  };

  // `__proto__` would be dropped or become a prototype on the way through the schema: refuse it first.
  const reserved = reservedProto(loaded.data);
  for (const r of reserved) {
    report(
      "MTG031",
      "error",
      r.key
        ? "'__proto__' cannot be a key: in JavaScript it names an object's prototype, not a property; rename it"
        : "'__proto__' cannot be a value here: generated code and the runtime would read an object's prototype for it; use another name",
      r.path,
      r.key,
    );
  }
  if (reserved.length > 0) return { diagnostics };

  const parsed = SpecSchema.safeParse(loaded.data);
  if (!parsed.success) {
    for (const issue of flattenIssues(parsed.error.issues as ZIssue[], loaded.data)) {
      report(issue.code, "error", issue.message, issue.path, issue.key);
    }
    return { diagnostics };
  }
  const spec = parsed.data;
  semanticChecks(context(spec, report));
  return { spec, diagnostics };
}

/**
 * The meaning of a spec that has the right shape, section by section. The
 * order is the order of the findings; a later check may rely on an earlier
 * one (inheritance too deep to walk ends them all).
 */
function semanticChecks(ctx: Ctx): void {
  if (!checkTypes(ctx)) return;
  checkMethodDeclarations(ctx);
  checkGeneratedNames(ctx);
  checkStates(ctx);
  checkErrors(ctx);
  checkStandardCodeMeanings(ctx);
  checkCreation(ctx);
  const task = checkTaskType(ctx);
  checkCreationParamType(ctx);
  checkPrototypeNames(ctx);
  checkStateCount(ctx);
  checkCoreMethods(ctx);
  checkTaskRequest(ctx, task);
  checkOperations(ctx, task.idField);
  checkEvents(ctx);
  checkEndings(ctx, task);
  checkSdkTaskShape(ctx, task);
  checkSdkCapabilityKeys(ctx);
  checkBehaviourRefs(ctx, task);
  checkRuntimeResults(ctx, task);
  checkStateRoles(ctx);
  checkRuntimeFields(ctx, task);
  checkUnperformed(ctx);
  checkMetaPlacement(ctx);
  checkCapabilityValues(ctx);
  checkDefaults(ctx, task);
  checkNameStrings(ctx);
  checkLimits(ctx);
  checkExamples(ctx);
  checkMethodUse(ctx);
}
