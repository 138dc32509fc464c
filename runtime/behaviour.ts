// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The declared behaviour of a task protocol, as data: the shape of a spec's
 * `behaviour` section after checking. The runtime chooses every strategy from
 * these values; it never asks which revision it serves.
 */

export type StateRole = "queued" | "running" | "paused" | "input_required" | "completed" | "failed" | "cancelled" | "unknown";
export type TaskSupport = "forbidden" | "optional" | "required";

export interface CreationBehaviour {
  readonly via: "meta" | "param" | "client-capability";
  readonly meta?: string;
  readonly param?: string;
  readonly capabilityMeta?: string;
  readonly capability?: string;
  readonly decidedBy: "requestor" | "receiver";
  readonly retentionField?: string;
  readonly taskId: {
    readonly assignedBy: "requestor" | "receiver";
    readonly field?: string;
    readonly unguessable: boolean;
    readonly duplicateError?: string;
  };
  readonly requests: { readonly server: readonly string[]; readonly client: readonly string[] };
  readonly toolSwitch:
    | false
    | {
        readonly field: string;
        readonly values: readonly TaskSupport[];
        readonly default: TaskSupport;
        readonly forbiddenError: string;
        readonly requiredError: string;
      };
  readonly requiredTaskError?: string;
  readonly durableBeforeAck?: boolean;
  readonly progressTokenLifetime?: "request" | "task";
  readonly ack: { readonly mode: "notification" | "result" | "flat-result"; readonly notification?: string; readonly resultType?: unknown };
}

export interface RetentionBehaviour {
  readonly field: string;
  readonly countedFrom: "creation" | "terminal";
  readonly nullMeansUnlimited: boolean;
  readonly default: number;
  readonly max: number;
  readonly reachableWholeTime: boolean;
  readonly expiredError?: string;
}

export interface ResultsBehaviour {
  readonly mode: "error-until-completed" | "block-until-terminal" | "inline";
  readonly method?: string;
  readonly notReadyError?: string;
  readonly resultField?: string;
  readonly errorField?: string;
  readonly replaysErrors: boolean;
  readonly cancelledError?: string;
}

export interface OutcomesBehaviour {
  readonly toolError: string;
  readonly protocolError: string;
  readonly unexpected: string;
  readonly failureField?: string;
  readonly failureShape: "message" | "error-object";
  readonly statusMessageField?: string;
}

export interface CancellationBehaviour {
  readonly via: "cancelled-notification" | "method";
  readonly method?: string;
  readonly reply: "none" | "task" | "ack";
  readonly timing: "before-reply" | "eventual";
  readonly terminal: "ignore" | "error" | "ack";
  readonly terminalError?: string;
  readonly deleteMethod: string | false;
  readonly deletableStatuses?: readonly string[];
  readonly deleteRefusedError?: string;
  readonly ignoreLateInput?: boolean;
}

export interface InputBehaviour {
  readonly via: "side-request" | "result-stream" | "inline-poll";
  readonly status: string;
  readonly resume: string;
  readonly requests: readonly string[];
  readonly requestsField?: string;
  readonly updateMethod?: string;
  readonly responsesField?: string;
  readonly partial: boolean;
}

export type ListingBehaviour =
  | false
  | { readonly method: string; readonly pageSize: number; readonly maxPageSize: number; readonly invalidCursorError: string };

export type StatusNotificationBehaviour =
  | false
  | {
      readonly method: string;
      readonly delivery: "push" | "subscription";
      readonly payload: "task" | "detailed-task";
      readonly subscribeMethod?: string;
      readonly subscribeField?: string;
      readonly forbiddenOnStream?: readonly string[];
    };

export type CapabilityBehaviour =
  | false
  | {
      readonly path: readonly string[];
      readonly value: unknown;
      readonly type?: unknown;
      readonly gates?: Readonly<Record<string, readonly string[]>>;
      readonly augments?: Readonly<Record<string, readonly string[]>>;
      readonly requiredBy?: readonly string[];
      readonly missingError?: string;
    };

export type RelatedTaskBehaviour =
  | false
  | {
      readonly meta: string;
      readonly requests: boolean;
      readonly notifications: boolean;
      readonly taskMethodRequests: boolean;
      readonly results: readonly string[];
      readonly notOnResults?: readonly string[];
      readonly onInlineResult: boolean;
    };

export interface LimitsBehaviour {
  readonly maxConcurrentPerRequestor: number;
  readonly createPerMinute: number;
  readonly pollPerMinute: number;
  readonly listPerMinute: number;
  readonly resultPerMinute?: number;
  readonly rateLimitError: string;
  readonly concurrencyError: string;
}

/**
 * The state each event leads a task to, where the spec says so (otherwise the
 * runtime's defaults apply: see `StatusPlan`).
 */
export interface EventsBehaviour {
  /** The task's retention ran out before it ended. */
  readonly expiry?: string;
  /** A requestor cancelled it. */
  readonly cancel?: string;
  /** Its work threw something that is neither a result nor a protocol error. */
  readonly exception?: string;
  /** The server restarted while the task was not in a terminal state (durable stores). */
  readonly restart?: string;
}

export interface Behaviour {
  readonly taskType?: string;
  readonly events?: EventsBehaviour;
  /** The task's id field (default taskId), also in the params of the methods that address one task. */
  readonly taskIdField?: string;
  /** The task's status field (default status). */
  readonly statusField?: string;
  readonly creation: CreationBehaviour;
  /** false: tasks are kept until deleted (or as the server's own options say). */
  readonly retention: RetentionBehaviour | false;
  /** false: tasks carry no suggested poll interval. */
  readonly polling: { readonly field: string; readonly default: number } | false;
  readonly results: ResultsBehaviour;
  readonly outcomes: OutcomesBehaviour;
  readonly cancellation: CancellationBehaviour;
  /** false: tasks never ask their requestor for input. */
  readonly input: InputBehaviour | false;
  readonly listing: ListingBehaviour;
  readonly statusNotifications: StatusNotificationBehaviour;
  readonly capabilities: { readonly server: CapabilityBehaviour; readonly client: CapabilityBehaviour };
  readonly relatedTask: RelatedTaskBehaviour;
  readonly http: false | { readonly header: string; readonly methods: readonly string[]; readonly mismatchError: string };
  readonly resultType: false | { readonly field: string; readonly task: string; readonly complete: string };
  /** The error for a task id the requestor cannot see (default: the one named taskNotFound). */
  readonly notFoundError?: string;
  /** The error for the server's own failures (default: the one named internalError). */
  readonly internalError?: string;
  readonly unsupportedMethods?: { readonly methods: readonly string[]; readonly error: string };
  readonly limits: LimitsBehaviour;
  readonly sessionBinding: "session" | "auth" | "session-and-auth" | "none";
}
