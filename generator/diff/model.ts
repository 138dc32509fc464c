/**
 * The Diff: what `diffSpecs` returns and `--json` prints (its sections, the
 * changes in it, the counts), and `--fail-on` applied to it.
 */
import type { Impact, RuleId } from "./rules.js";

export const DIFF_FORMAT = "mcp-task-gen.diff/1";

export type Side = "client" | "server";
export type Direction = "client-to-server" | "server-to-client";
export type FailOn = "breaking" | "any" | "none";
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Sections, in the order a migration guide reads them. */
export const SECTIONS = ["methods", "behaviour", "states", "transitions", "guards", "errors", "meta", "types", "fields"] as const;
export type Section = (typeof SECTIONS)[number];

export const SECTION_TITLES: Record<Section, string> = {
  methods: "Methods",
  behaviour: "Behaviour",
  states: "States",
  transitions: "Transitions",
  guards: "Guards",
  errors: "Errors",
  meta: "Meta keys",
  types: "Types",
  fields: "Fields",
};

export interface SpecRef {
  name: string;
  protocol: string;
  revision: string;
  protocolVersion?: string;
  status?: string;
}

export interface Change {
  section: Section;
  rule: RuleId;
  path: string;
  subject: string;
  summary: string;
  before?: Json;
  after?: Json;
  client: Impact;
  server: Impact;
  directions: Direction[];
  priority: number;
  hint: string;
}

export interface SectionCounts {
  changes: number;
  breakingForClient: number;
  breakingForServer: number;
}

export interface Diff {
  format: typeof DIFF_FORMAT;
  old: SpecRef;
  new: SpecRef;
  summary: {
    changes: number;
    breaking: { client: number; server: number; any: number };
    sections: Record<Section, SectionCounts>;
  };
  changes: Change[];
}

export const isBreaking = (c: Change): boolean => c.client === "breaking" || c.server === "breaking";

/** `--fail-on`: breaking (default) fails on a change breaking for either side, any on any change, none never. */
export function diffFails(d: Diff, failOn: FailOn = "breaking"): boolean {
  if (failOn === "none") return false;
  if (failOn === "any") return d.changes.length > 0;
  return d.changes.some(isBreaking);
}
