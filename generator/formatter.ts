/**
 * Formatting the generated files with prettier: a function from a virtual file
 * to a virtual file, the last step of the pure core (pipeline.ts).
 *
 * In a cold process prettier is most of a generate (loading it, then running
 * its parser and printers before the JIT has warmed up). So the CLI starts a
 * format worker (a thread) first thing: it loads prettier and warms it up
 * while the main thread loads, checks and renders the spec, and formats each
 * file as soon as it is rendered. It runs the same prettier with the same
 * options, so the bytes are the same as formatting in-process, which stays the
 * default of compile/emit.
 *
 * Only the worker loads prettier. Having the main thread format some files
 * too, once it has rendered them all, was measured slower on 2 cores: a second
 * cold prettier (loading and JIT-compiling it again) costs more than it takes
 * off the worker, as node's own background threads (GC, JIT) already use part
 * of the second core.
 *
 * The worker never keeps the process alive: it is unref'd whenever it has no
 * file in flight, and close() terminates it. Any failure of the worker (it
 * cannot start, it dies, a file fails there) has the file formatted
 * in-process instead, which reproduces any error exactly as before.
 */
import { Worker } from "node:worker_threads";
import type { VirtualFile } from "./emit/index.js";

/** Formats one file; files that prettier does not handle come back as they are. */
export type Formatter = (file: VirtualFile) => Promise<VirtualFile>;

/** The prettier parser for a generated file, if it is formatted. */
export function parserFor(path: string): string | undefined {
  // babel-ts, not typescript: the same printer and, on every built-in spec's output, the same bytes
  // (test/samples.test.ts holds it to that), but its parser costs a third less in a cold process.
  return path.endsWith(".ts") ? "babel-ts" : path.endsWith(".md") ? "markdown" : path.endsWith(".json") ? "json" : undefined;
}

let prettier: Promise<typeof import("prettier")> | undefined;

/** Loads prettier (once per thread). */
export function loadPrettier(): Promise<typeof import("prettier")> {
  return (prettier ??= import("prettier"));
}

/** Formats a file in this thread. */
export const formatInProcess: Formatter = async (f) => {
  const parser = parserFor(f.path);
  if (!parser) return f;
  const p = await loadPrettier();
  const contents = await p.format(f.contents, { parser, printWidth: 110, endOfLine: "lf", proseWrap: "preserve" });
  return { path: f.path, contents };
};

// ---------------------------------------------------------------------------
// The format worker
// ---------------------------------------------------------------------------

export interface FormatWorker {
  format: Formatter;
  /** Terminates the worker; files still in flight are formatted in-process. */
  close(): Promise<void>;
}

interface Job {
  file: VirtualFile;
  resolve: (f: VirtualFile) => void;
  reject: (e: unknown) => void;
}

/**
 * Starts a worker thread that loads and warms up prettier at once, and
 * returns a formatter that has it format each file.
 */
export function startFormatWorker(): FormatWorker {
  const inFlight = new Map<number, Job>();
  let nextId = 0;
  let worker: Worker | undefined;

  const here = (job: Job) => void formatInProcess(job.file).then(job.resolve, job.reject);

  const gone = () => {
    worker = undefined;
    const jobs = [...inFlight.values()];
    inFlight.clear();
    for (const job of jobs) here(job);
  };

  try {
    const w = new Worker(new URL("./format-worker.js", import.meta.url));
    w.on("message", (m: { id: number; contents?: string; failed?: boolean }) => {
      const job = inFlight.get(m.id);
      if (!job) return;
      inFlight.delete(m.id);
      if (inFlight.size === 0) w.unref();
      // A file that failed there is formatted here: the same error, or the same bytes.
      if (m.failed || typeof m.contents !== "string") here(job);
      else job.resolve({ path: job.file.path, contents: m.contents });
    });
    w.on("error", () => worker === w && gone());
    w.on("exit", () => worker === w && gone());
    w.unref();
    worker = w;
  } catch {
    worker = undefined;
  }

  return {
    format(file) {
      if (!parserFor(file.path)) return Promise.resolve(file);
      return new Promise<VirtualFile>((resolve, reject) => {
        const job: Job = { file, resolve, reject };
        if (!worker) return here(job);
        const id = nextId++;
        inFlight.set(id, job);
        worker.ref();
        worker.postMessage({ id, path: file.path, contents: file.contents });
      });
    },
    async close() {
      const w = worker;
      gone();
      await w?.terminate();
    },
  };
}
