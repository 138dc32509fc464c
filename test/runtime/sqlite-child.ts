/**
 * The child of the SQLite kill -9 test (store-sqlite.test.ts): opens the store
 * at argv[2] and writes as fast as it can, printing one line per write once its
 * promise resolved (an acknowledgement, as the runtime's reply on the wire
 * would be), until it is killed:
 *   created <taskId> <seq>       the task exists, status working
 *   completed <taskId>           status completed with its result
 * Every even task is completed, every odd one stays working (as if its work
 * were running when the process died). Stdout is a pipe: writes to it are
 * synchronous on Linux, so a printed line left the process before the next write.
 */
import { SqliteTaskStore } from "../../runtime/store-sqlite.js";

const file = process.argv[2]!;
const store = await SqliteTaskStore.open(file);
const ack = (line: string) => process.stdout.write(line + "\n");
ack("open");
for (let i = 0; ; i++) {
  const taskId = `k${i}`;
  const now = Date.now();
  const created = await store.create({
    taskId,
    owner: `owner-${i % 3}`,
    status: "working",
    method: "tools/call",
    requestId: i,
    createdAt: now,
    updatedAt: now,
    terminalAt: null,
    keepAlive: 3_600_000,
    pollFrequency: 1000,
    expiresAt: now + 3_600_000,
    pendingInputs: 0,
  });
  if (!created) throw new Error(`create ${taskId} refused`);
  ack(`created ${taskId} ${created.seq}`);
  if (i % 2 === 0) {
    const done = await store.update(taskId, "working", {
      status: "completed",
      terminalAt: Date.now(),
      result: { content: [{ type: "text", text: `result of ${taskId}` }] },
    });
    if (!done) throw new Error(`update ${taskId} refused`);
    ack(`completed ${taskId}`);
  }
}
