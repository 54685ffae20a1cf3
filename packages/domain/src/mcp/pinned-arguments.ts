import type { ServerToolSettings } from "../server/tool-settings-schema.js";
import type { ApprovalPolicy, FixedArgs, ToolApproval } from "../server/tool-settings-schema.js";
import type { ToolRow } from "../storage/rows.js";
import { ARGUMENT_PARTS, methodTraits } from "./tool-arguments.js";

// docs/api-rules.md §20: a server may pin argument values of a tool (they vanish from the schema its callers
// see and are merged over every call, so no caller can change them), rename and re-describe it, and make
// its calls wait for a person's approval.

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const COLUMN = {
  pathArgs: "pathArgsJSONSchema",
  queryArgs: "queryArgsJSONSchema",
  bodyArgs: "reqBodyJSONSchema",
} as const;

/**
 * A part schema without the pinned properties (neither listed nor required); null when nothing is left for
 * the caller to give (the part then disappears from the offered schema).
 */
const withoutPinned = (
  schema: Record<string, unknown>,
  pinned: ReadonlyArray<string>,
): Record<string, unknown> | null => {
  const { properties, required, ...rest } = schema;
  const kept = isRecord(properties)
    ? Object.fromEntries(Object.entries(properties).filter(([name]) => !pinned.includes(name)))
    : properties;
  const stillRequired = Array.isArray(required) ? required.filter((name) => !pinned.includes(name)) : required;
  if (isRecord(kept) && Object.keys(kept).length === 0) return null;
  return {
    ...rest,
    ...(kept === undefined ? {} : { properties: kept }),
    ...(stillRequired === undefined || (Array.isArray(stillRequired) && stillRequired.length === 0)
      ? {}
      : { required: stillRequired }),
  };
};

/**
 * The tool as a server offers it: named by its alias, described by the server's description, and with
 * the pinned arguments gone from its argument schemas (what `tools/list` shows). Calls are planned from the
 * stored tool, never from this.
 */
export const offeredTool = (tool: ToolRow, settings: ServerToolSettings): ToolRow => {
  let offered: ToolRow = {
    ...tool,
    name: settings.alias === "" ? tool.name : settings.alias,
    description: settings.description === "" ? tool.description : settings.description,
  };
  for (const part of ARGUMENT_PARTS) {
    const pinned = Object.keys(settings.fixedArgs[part] ?? {});
    const schema = tool[COLUMN[part]];
    if (pinned.length > 0 && schema !== null) offered = { ...offered, [COLUMN[part]]: withoutPinned(schema, pinned) };
  }
  return offered;
};

/** MCP arguments with the server's pinned values merged over them: a caller's value for a pinned name is replaced. */
export const withPinnedArguments = (fixed: FixedArgs, args: unknown): unknown => {
  if (Object.keys(fixed).length === 0 || (args !== undefined && !isRecord(args))) return args;
  const merged: Record<string, unknown> = { ...(args ?? {}) };
  for (const part of ARGUMENT_PARTS) {
    const pinned = fixed[part];
    if (pinned === undefined) continue;
    const given = merged[part];
    merged[part] = { ...(isRecord(given) ? given : {}), ...pinned };
  }
  return merged;
};

/**
 * Whether a call of the tool waits for a person's approval: the tool's own setting, else the server's
 * policy (DESTRUCTIVE: the tools MCP annotates destructiveHint; WRITES: every method but GET, HEAD, OPTIONS).
 */
export const approvalNeeded = (policy: ApprovalPolicy, approval: ToolApproval, method: ToolRow["method"]): boolean => {
  if (approval !== "INHERIT") return approval === "ALWAYS";
  const traits = methodTraits(method);
  return policy === "DESTRUCTIVE" ? traits.destructive : policy === "WRITES" ? !traits.readOnly : false;
};
