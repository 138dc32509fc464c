/**
 * `types`, and every type expression elsewhere (params, results, error
 * context, meta, behaviour): references, nesting, inheritance, cycles and
 * discriminated unions.
 */
import { PRIMITIVES, type Spec, type TypeExpr } from "../format.js";
import { fieldsOf, parseShorthand, resolveShallow } from "../spec-helpers.js";
import { suggest, type Ctx, type Path } from "./context.js";
import { directRefs, extendsDepths, longestChains, MAX_TYPE_DEPTH, requiredCycles, selfDefined, tooDeep } from "./type-graph.js";

/** Checks the types; false when inheritance is too deep for the checks after them to walk (they are skipped). */
export function checkTypes(ctx: Ctx): boolean {
  const { spec, report, statusType, typeNames, allTypes } = ctx;
  if (typeNames.has(statusType)) {
    report(
      "MTG030",
      "error",
      `type '${statusType}' is generated from \`states\`; remove it from \`types\` or set statusType to another name`,
      ["types", statusType],
      true,
    );
  }
  const walkType = (t: TypeExpr, path: Path, asField: boolean): void => {
    if (typeof t === "string") {
      const p = parseShorthand(t)!;
      if (p.optional && !asField) {
        report("MTG011", "error", `'?' marks an optional field; it cannot be used outside an object's fields`, path);
      }
      if (!(PRIMITIVES as readonly string[]).includes(p.base) && !allTypes.has(p.base)) {
        report(
          "MTG026",
          "error",
          `'${p.base}' is neither a primitive (${PRIMITIVES.join(", ")}) nor a declared type${suggest(p.base, [...allTypes, ...PRIMITIVES])}`,
          path,
        );
      }
      return;
    }
    switch (t.type) {
      case "ref":
        if (!allTypes.has(t.ref)) {
          report("MTG020", "error", `undefined type '${t.ref}'${suggest(t.ref, allTypes)}; declare it under \`types\``, [...path, "ref"]);
        }
        break;
      case "array":
        walkType(t.items, [...path, "items"], false);
        break;
      case "record":
        walkType(t.values, [...path, "values"], false);
        break;
      case "union":
        t.variants.forEach((v, i) => walkType(v, [...path, "variants", i], false));
        break;
      case "object":
        for (const [name, f] of Object.entries(t.fields ?? {})) walkType(f, [...path, "fields", name], true);
        for (const [i, e] of (t.extends ?? []).entries()) {
          if (!typeNames.has(e)) {
            report("MTG020", "error", `undefined type '${e}'${suggest(e, typeNames)}; declare it under \`types\``, [...path, "extends", i]);
          } else if (objectOf(spec, e) === undefined) {
            report("MTG011", "error", `'${e}' is not an object type, so it cannot be extended`, [...path, "extends", i]);
          }
        }
        break;
      case "string":
        if (t.pattern !== undefined) {
          try {
            new RegExp(t.pattern, "u");
          } catch (e) {
            report(
              "MTG080",
              "error",
              `invalid regular expression (${(e as Error).message.replace(/^Invalid regular expression: /, "")}); fix the pattern (ECMAScript syntax, u flag)`,
              [...path, "pattern"],
            );
          }
        }
        break;
    }
    if (t.optional && !asField) {
      report("MTG011", "error", "`optional` only applies to an object's fields", [...path, "optional"], true);
    }
  };
  for (const [name, t] of Object.entries(spec.types)) walkType(t, ["types", name], false);
  for (const [m, def] of Object.entries(spec.methods)) {
    if (def.params !== undefined) walkType(def.params, ["methods", m, "params"], false);
    if (def.result !== undefined) walkType(def.result, ["methods", m, "result"], false);
  }
  for (const [n, e] of Object.entries(spec.errors)) {
    for (const [k, t] of Object.entries(e.context ?? {})) walkType(t, ["errors", n, "context", k], false);
    if (e.data !== undefined) walkType(e.data, ["errors", n, "data"], false);
  }
  for (const [n, m] of Object.entries(spec.meta)) walkType(m.type, ["meta", n, "type"], false);
  const b = spec.behaviour;
  if (b.creation.paramType !== undefined) walkType(b.creation.paramType, ["behaviour", "creation", "paramType"], false);
  if (b.creation.ack.resultType !== undefined) walkType(b.creation.ack.resultType, ["behaviour", "creation", "ack", "resultType"], false);
  for (const side of ["server", "client"] as const) {
    const c = b.capabilities[side];
    if (c && c.type !== undefined) walkType(c.type, ["behaviour", "capabilities", side, "type"], false);
  }

  // Type expressions nested so deep that TypeScript gives up on the types inferred from them.
  const typeRoots: [TypeExpr, Path][] = [
    ...Object.entries(spec.types).map(([name, t]): [TypeExpr, Path] => [t, ["types", name]]),
    ...Object.entries(spec.methods).flatMap(([m, def]) =>
      (["params", "result"] as const).flatMap((k): [TypeExpr, Path][] => (def[k] === undefined ? [] : [[def[k]!, ["methods", m, k]]])),
    ),
    ...Object.entries(spec.errors).flatMap(([n, e]): [TypeExpr, Path][] => [
      ...Object.entries(e.context ?? {}).map(([k, t]): [TypeExpr, Path] => [t, ["errors", n, "context", k]]),
      ...(e.data === undefined ? [] : [[e.data, ["errors", n, "data"]] as [TypeExpr, Path]]),
    ]),
    ...Object.entries(spec.meta).map(([n, m]): [TypeExpr, Path] => [m.type, ["meta", n, "type"]]),
    ...(b.creation.paramType === undefined ? [] : [[b.creation.paramType, ["behaviour", "creation", "paramType"]] as [TypeExpr, Path]]),
    ...(b.creation.ack.resultType === undefined ? [] : [[b.creation.ack.resultType, ["behaviour", "creation", "ack", "resultType"]] as [TypeExpr, Path]]),
    ...(["server", "client"] as const).flatMap((side): [TypeExpr, Path][] => {
      const c = b.capabilities[side];
      return c && c.type !== undefined ? [[c.type, ["behaviour", "capabilities", side, "type"]]] : [];
    }),
  ];
  for (const [t, path] of typeRoots) {
    const deep = tooDeep(t, path);
    if (deep) {
      report(
        "MTG066",
        "error",
        `this type nests ${deep.depth} levels of lists, records, unions and objects; generated code type-checks at most ${MAX_TYPE_DEPTH}, so name an inner part under \`types\` and refer to it`,
        deep.path,
      );
    }
  }

  // Inheritance so deep that flattening it (and reading it) is unreasonable.
  const inherit = extendsDepths(spec);
  const tooDeepParents = new Set<string>();
  for (const [name, d] of inherit) {
    const t = spec.types[name];
    if (d > MAX_TYPE_DEPTH && t && typeof t !== "string" && t.type === "object") for (const e of t.extends ?? []) tooDeepParents.add(e);
  }
  let deepInheritance = false;
  for (const [name, d] of inherit) {
    if (d <= MAX_TYPE_DEPTH || tooDeepParents.has(name)) continue;
    deepInheritance = true;
    report(
      "MTG066",
      "error",
      `type '${name}' inherits through ${d} levels of \`extends\`; at most ${MAX_TYPE_DEPTH} are allowed, so extend fewer types in a row`,
      ["types", name, "extends"],
      true,
    );
  }
  if (deepInheritance) return false;

  // A type that is only itself: TypeScript cannot declare `type A = A | string`.
  const selfDefinedTypes = selfDefined(spec);
  for (const [name, cycle] of selfDefinedTypes) {
    report(
      "MTG065",
      "error",
      `type '${name}' is defined by itself (${cycle.join(" → ")}) with no object, list or record in between; wrap the inner reference in a list or an object field`,
      ["types", name],
      true,
    );
  }
  // A long chain of such references: TypeScript resolves each alias eagerly, one stack frame per link.
  if (selfDefinedTypes.length === 0) {
    const next = (n: string) => [...new Set(directRefs(spec, spec.types[n]!))];
    const chains = longestChains(Object.keys(spec.types), next);
    const inner = new Set<string>();
    for (const [name, d] of chains) if (d > MAX_TYPE_DEPTH) for (const m of next(name)) inner.add(m);
    for (const [name, d] of chains) {
      if (d <= MAX_TYPE_DEPTH || inner.has(name)) continue;
      report(
        "MTG066",
        "error",
        `type '${name}' is defined through ${d} types in a row with no object, list or record in between; TypeScript resolves at most ${MAX_TYPE_DEPTH}, so shorten the chain`,
        ["types", name],
        true,
      );
    }
  }

  // A union over the task's states (discriminated by its status field, every tag a state): where it has a variant
  // for one state of a role, it has one for every state of that role, or a task in the missing one would not fit.
  const statusField = (spec.behaviour as { statusField?: string } | undefined)?.statusField ?? "status";
  const states = (spec.states ?? {}) as Record<string, { role?: string }>;
  const stateCover = (t: Extract<Exclude<TypeExpr, string>, { type: "union" }>, path: Path): void => {
    const tags = new Set<string>();
    for (const v of t.variants) {
      const f = fieldsOf(spec, v)?.[statusField];
      const tag = f === undefined ? undefined : resolveShallow(spec, f);
      if (!tag || typeof tag === "string") return;
      const values = tag.type === "literal" ? [tag.value] : tag.type === "enum" ? tag.values : undefined;
      if (values === undefined) return;
      for (const x of values) {
        if (typeof x !== "string" || !Object.prototype.hasOwnProperty.call(states, x)) return;
        tags.add(x);
      }
    }
    const roles = new Set([...tags].map((x) => states[x]?.role));
    const missing = Object.keys(states).filter((x) => !tags.has(x) && roles.has(states[x]?.role));
    if (missing.length) {
      report(
        "MTG062",
        "error",
        `this union has a variant for each state it covers by '${statusField}', but none for ${missing.map((x) => `'${x}'`).join(", ")} (role ${[...new Set(missing.map((x) => states[x]?.role))].join(", ")}, as ${[...tags].filter((x) => missing.some((m) => states[m]?.role === states[x]?.role)).map((x) => `'${x}'`).join(", ")} has): a task in it would not fit; add a variant for it`,
        path,
      );
    }
  };

  // Discriminated unions: every variant is an object with the discriminator.
  const checkUnions = (t: TypeExpr, path: Path): void => {
    if (typeof t === "string") return;
    if (t.type === "union") {
      if (t.discriminator === statusField) stateCover(t, path);
      if (t.discriminator) {
        t.variants.forEach((v, i) => {
          const fields = fieldsOf(spec, v);
          if (fields === undefined) {
            report("MTG062", "error", `variant ${i + 1} of a union discriminated by '${t.discriminator}' is not an object`, [...path, "variants", i]);
          } else {
            const f = fields[t.discriminator!];
            const tag = f === undefined ? undefined : resolveShallow(spec, f);
            if (!tag || typeof tag === "string" || (tag.type !== "literal" && tag.type !== "enum")) {
              report(
                "MTG062",
                "error",
                `variant ${i + 1} needs a required field '${t.discriminator}' of literal or enum type to be told apart`,
                [...path, "variants", i],
              );
            }
          }
        });
      }
      t.variants.forEach((v, i) => checkUnions(v, [...path, "variants", i]));
    } else if (t.type === "object") {
      for (const [n, f] of Object.entries(t.fields ?? {})) checkUnions(f, [...path, "fields", n]);
    } else if (t.type === "array") checkUnions(t.items, [...path, "items"]);
    else if (t.type === "record") checkUnions(t.values, [...path, "values"]);
  };
  for (const [name, t] of Object.entries(spec.types)) checkUnions(t, ["types", name]);

  // A type that cannot be finite: a cycle through required, non-nullable object fields.
  for (const [name, cycle] of requiredCycles(spec)) {
    report(
      "MTG063",
      "error",
      `type '${name}' requires itself (${cycle.join(" → ")}); make a field on the cycle optional or nullable, or use an array`,
      ["types", name],
      true,
    );
  }
  return true;
}

/** The object type a name resolves to, if it is one. */
function objectOf(spec: Spec, name: string) {
  const r = resolveShallow(spec, name);
  return r && typeof r !== "string" && r.type === "object" ? r : undefined;
}
