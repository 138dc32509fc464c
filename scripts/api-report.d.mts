/** The runtime package's public entry points: the subpaths its package.json exports (but its package.json). */
export function entryPoints(): string[];
/** The report's file name of an entry point (runtime/api/<entry>.api.md). */
export function reportName(entry: string): string;
/** The folder of the API reports. */
export const REPORT_DIR: string;
/** Runs api-extractor over each entry point's built declarations; the entry points whose report differs from the committed one. */
export function apiReports(options?: { check?: boolean }): Promise<{ entry: string; built: string }[]>;
