/** The shape of conform's commands: each runs against the world and checks the notifications that came meanwhile. */
import fc from "fast-check";
import { ViolationError } from "../report.js";
import { checkNotifications } from "../rules/notifications.js";
import { checkServerRequests } from "../rules/related-task.js";
import { checkHttpResponses } from "../rules/http-response.js";
import { checkErrorsAnswered, type ModelTask, type World } from "../world.js";

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

export abstract class Cmd implements fc.AsyncCommand<object, World, boolean> {
  check(_m: Readonly<object>): boolean {
    return true;
  }
  /** Runs the command; a violation of a rule the user chose to ignore is counted as a deviation instead. */
  async run(_m: object, w: World): Promise<void> {
    try {
      await this.exec(w);
      checkNotifications(w);
      checkServerRequests(w);
      checkHttpResponses(w);
      checkErrorsAnswered(w);
    } catch (e) {
      if (!(e instanceof ViolationError) || !w.ignore.has(e.violation.rule)) throw e;
      const d = (w.deviations[e.violation.rule] ??= { count: 0, first: e.violation });
      d.count++;
    }
  }
  abstract exec(w: World): Promise<void>;
  abstract toString(): string;
}

/** Picks a task of the model by a drawn index (so that shrinking keeps sequences meaningful). */
export abstract class TaskCmd extends Cmd {
  constructor(readonly pick: number) {
    super();
  }
  task(w: World): ModelTask | undefined {
    const live = w.tasks.filter((t) => !t.gone);
    return live.length ? live[this.pick % live.length] : undefined;
  }
  /** A task not seen ended, where there is one (else any): what only a running task can show. */
  openTask(w: World): ModelTask | undefined {
    const live = w.tasks.filter((t) => !t.gone);
    const open = live.filter((t) => !w.model.terminal.has(t.status));
    const pool = open.length ? open : live;
    return pool.length ? pool[this.pick % pool.length] : undefined;
  }
}
