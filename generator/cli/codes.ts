/** codes: every diagnostic code, with a line on what it means. */
import { CODES } from "../diagnostics.js";
import type { Io } from "./shared.js";

export function codesCmd(io: Io): number {
  for (const [code, what] of Object.entries(CODES)) io.out(`${code}  ${what}`);
  return 0;
}
