/**
 * The MCP Inspector's CLI, as the scaffold's README runs it: the Inspector needs Node 22.19 or later, so it
 * and a Node 22 live in the conformance folder (test/helpers/node22.ts).
 */
import { conformanceFile, node22 } from "./node22.js";

/** [node 22, the Inspector's entry point]: run `node22 entry --cli <target> --method ...`. */
export function inspectorCli(): [string, string] {
  const entry = conformanceFile("@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
  return [node22(), entry];
}
