/** conform: a running MCP server tested against a spec (generator/conform/, entered through its command module). */
import { conformCmd as conform, ConformUsageError } from "../conform/command.js";
import { UsageError, type Io } from "./shared.js";

export async function conformCmd(io: Io, o: Parameters<typeof conform>[1]): Promise<number> {
  try {
    return await conform(io, o);
  } catch (e) {
    throw e instanceof ConformUsageError ? new UsageError(e.message) : e;
  }
}
