/** Whether a generator source is newer than its dist/ output, or the precompiled templates are missing. */
export function distIsStale(): boolean;
/** Builds runtime/dist/ and dist/ where a source is newer than its output; leaves up-to-date output alone. */
export function ensureBuilt(): void;
