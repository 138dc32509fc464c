/**
 * The mutant catalogue: each entry is one bug a real server could have, simulated on the wire by the proxy
 * (scripts/mutants/proxy.ts) in front of the project's demo server, with the conform rule(s) that must catch
 * it. The entries know their spec's names (methods, fields): they are fixtures of particular servers.
 *
 * The entries are kept by spec in the catalogue-*.ts modules beside this one; this module lists them in
 * their order (mutant names and order are what reports and tests refer to).
 */
import { extTasks } from "./catalogue-ext-tasks-2026-07-28.js";
import { jobsMutants, leanMutants, relayMutants } from "./catalogue-fixtures.js";
import { mcp20251125Protocol } from "./catalogue-mcp-2025-11-25-protocol.js";
import { mcp20251125Tasks } from "./catalogue-mcp-2025-11-25-tasks.js";
import { sep1686 } from "./catalogue-sep-1686-draft.js";
import type { Mutant } from "./catalogue-shared.js";

export type { Mutant } from "./catalogue-shared.js";

export const CATALOGUE: readonly Mutant[] = [...mcp20251125Tasks, ...mcp20251125Protocol, ...sep1686, ...extTasks, ...jobsMutants, ...leanMutants, ...relayMutants];
