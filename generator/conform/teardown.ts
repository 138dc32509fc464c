/**
 * The last check of an invocation over stdio (rule `teardown`): a subscription stream open when the server is shut
 * down the way a stdio client shuts it down (stdin closed, then SIGTERM) is torn down with notifications/cancelled
 * naming its subscribe request. It ends the server process, so nothing is asked of it afterwards.
 */
import { Create } from "./commands/create.js";
import { SUBSCRIPTION_ID_KEY } from "./commands/subscribe.js";
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { streamIds } from "./rules/subscriptions.js";
import { StdioWire } from "./wire.js";
import { count, isObject, mayAugment, type World } from "./world.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Params whose dotted `path` holds `value`. */
function nested(path: readonly string[], value: unknown): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>((acc, k, i) => (i === path.length - 1 ? { [k]: value } : { [k]: acc }), {});
}

/** Waits until `done` holds, or `ms` passed; whether it held. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(25)) if (done()) return true;
  return done();
}

export async function teardownCheck(w: World, skipped: string[]): Promise<void> {
  const sn = w.model.ir.behaviour.statusNotifications;
  if (sn === false || sn.delivery !== "subscription" || sn.subscribeMethod === undefined || sn.subscribeField === undefined) return;
  const wire = w.session.wire;
  if (!(wire instanceof StdioWire)) {
    skipped.push("teardown: over Streamable HTTP the tester cannot make the server stop, so a subscription torn down at its end is not seen");
    return;
  }
  const long = w.outcomes.long;
  if (long === undefined || !w.tools.has(long.name) || !mayAugment(w.model, "tools/call") || !w.augmented("tools/call")) {
    skipped.push("teardown: a subscription torn down when the server stops needs the long outcome's tool");
    return;
  }
  const made = await new Create("long").make(w);
  if (made === undefined) return;
  let id: number | undefined;
  const from = wire.notifications.length;
  const open = w.session.request(sn.subscribeMethod, nested(sn.subscribeField.split("."), [made.t.id]), 60_000, (n) => {
    id = n;
    streamIds.set(w.session, (streamIds.get(w.session) ?? new Set()).add(n));
  });
  void open.catch(() => undefined);
  const ofStream = (method?: string) =>
    wire.notifications.slice(from).find((n) => (method === undefined || n.method === method) && isObject(n.params?._meta) && n.params._meta[SUBSCRIPTION_ID_KEY] === id);
  // The stream opens (its first message); a refusal or no stream is for rule subscriptions to say.
  const opened = await until(() => ofStream() !== undefined, 10_000);
  if (!opened || id === undefined) {
    skipped.push("teardown: the subscription did not open within 10 s");
    return;
  }
  count(w, "once: the server shut down with a subscription open");
  const cancelled = () => wire.notifications.slice(from).some((n) => n.method === "notifications/cancelled" && isObject(n.params) && n.params.requestId === id);
  // Ended: its output closed, so everything it wrote has been read.
  const ended = () => wire.process.outputClosed;
  wire.process.endInput();
  try {
    if (!(await until(() => cancelled() || ended(), 10_000))) {
      wire.process.terminate();
      await until(() => cancelled() || ended(), 10_000);
    }
  } finally {
    // The shutdown is seen through: a server whose work still runs would otherwise outlive its input for as long.
    await wire.process.close();
  }
  checked(rules.teardown);
  if (!cancelled()) {
    fail(
      rules.teardown,
      `the server ${ended() ? "ended" : "was shut down (stdin closed, then SIGTERM)"} with the subscription of request ${id} open, and sent no notifications/cancelled naming it`,
      { method: "notifications/cancelled", params: { requestId: id } },
      wire.notifications.slice(from).map((n) => n.method),
    );
  }
}
