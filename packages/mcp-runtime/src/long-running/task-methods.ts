import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
  type StandardSchemaV1,
} from "@modelcontextprotocol/server";
import { type LongRunningCall, TASKS_EXTENSION } from "./answer-accepted.js";
import type { UpstreamTasks } from "./upstream-tasks.js";

// docs/api-rules.md §22: the tasks extension's methods on the SDK path (2026-07-28 only: in the 2025-11-25
// era a call follows its operation itself), and what a tools/call knows about its caller.

/** True when the request's own capabilities declare the tasks extension (2026-07-28 per-request capabilities). */
const declaresTasks = (ctx: ServerContext): boolean => {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const capabilities = (envelope[CLIENT_CAPABILITIES_META_KEY] ?? envelope.clientCapabilities) as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
};

/** The long-running side of a tools/call: a task for a declaring 2026-07-28 caller, progress when asked. */
export const longRunningCallOf = (ctx: ServerContext, era: "modern" | "legacy", caller: string): LongRunningCall => {
  const token = ctx.mcpReq._meta?.progressToken;
  return {
    taskOwner: era === "modern" && declaresTasks(ctx) ? caller : undefined,
    progress:
      token === undefined
        ? undefined
        : (progress, message) =>
            void ctx.mcpReq
              .notify({ method: "notifications/progress", params: { progressToken: token, progress, message } })
              .catch(() => undefined),
  };
};

/** `{ taskId: string }`, the params of tasks/get and tasks/cancel (a Standard Schema, as the SDK takes). */
const TaskIdParams: StandardSchemaV1<unknown, { taskId: string }> = {
  "~standard": {
    version: 1,
    vendor: "mcpsm",
    validate: (value) => {
      const taskId = (value as { taskId?: unknown } | null)?.taskId;
      return typeof taskId === "string" && taskId.length > 0 && taskId.length <= 200
        ? { value: { taskId } }
        : { issues: [{ message: "taskId must be a non-empty string", path: ["taskId"] }] };
    },
  },
};

const requireExtension = (ctx: ServerContext) => {
  if (!declaresTasks(ctx))
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
};

const notFound = () => new ProtocolError(ProtocolErrorCode.InvalidParams, "Failed to retrieve task: Task not found");

/** Registers tasks/get, tasks/update and tasks/cancel on a 2026-07-28 server instance, for `caller`'s tasks. */
export const registerTaskMethods = (server: Server, tasks: UpstreamTasks, caller: string): void => {
  server.setRequestHandler("tasks/get", { params: TaskIdParams }, async ({ taskId }, ctx) => {
    requireExtension(ctx as ServerContext);
    const task = await tasks.get(caller, taskId);
    if (task === undefined) throw notFound();
    return { ...task };
  });
  // The extension's tasks/update answers a task waiting for input; a task following an upstream operation never
  // waits for input, so a known task refuses it as invalid params.
  server.setRequestHandler("tasks/update", { params: TaskIdParams }, async ({ taskId }, ctx) => {
    requireExtension(ctx as ServerContext);
    if ((await tasks.get(caller, taskId)) === undefined) throw notFound();
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, "The task is not waiting for input");
  });
  server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, async ({ taskId }, ctx) => {
    requireExtension(ctx as ServerContext);
    if (!(await tasks.cancel(caller, taskId))) throw notFound();
    return {};
  });
};
