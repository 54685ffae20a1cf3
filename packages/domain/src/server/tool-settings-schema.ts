import { Schema } from "effect";
import { Id } from "../ids/id.js";
import { ToolName } from "../tool/tool-schema.js";
import { optional } from "../validation/optional-field.js";
import { JsonObject, LongText } from "../validation/text.js";

// The settings a server gives one of its chosen tools (docs/api-rules.md §20): the name and description it
// is offered under, the arguments the server pins, and whether a call waits for a person's approval.

/** A tool's approval in one server: as the server's policy says, never, or always. */
export const ToolApproval = Schema.Literal("INHERIT", "NEVER", "ALWAYS").annotations({
  identifier: "ToolApproval",
  description: "INHERIT: as the server's approvalPolicy says; NEVER; ALWAYS",
});
export type ToolApproval = typeof ToolApproval.Type;

/** Which calls of a server wait for approval unless a tool says otherwise. */
export const ApprovalPolicy = Schema.Literal("NONE", "DESTRUCTIVE", "WRITES").annotations({
  identifier: "ApprovalPolicy",
  description:
    "NONE (default); DESTRUCTIVE: tools annotated destructiveHint; WRITES: every method but GET, HEAD, OPTIONS",
});
export type ApprovalPolicy = typeof ApprovalPolicy.Type;

/** Argument values a server pins, by part: each property disappears from the schema the caller sees. */
export const FixedArgs = Schema.Struct({
  pathArgs: optional(JsonObject),
  queryArgs: optional(JsonObject),
  bodyArgs: optional(JsonObject),
}).annotations({ identifier: "FixedArgs" });
export type FixedArgs = typeof FixedArgs.Type;

/** Write shape of `PATCH /servers/{id}/tools/{toolID}` (and of the association's extra fields). */
export const ServerToolSettingsPatch = Schema.Struct({
  alias: optional(
    Schema.Union(ToolName, Schema.Literal("")).annotations({
      description: 'the MCP tool name in this server (the tool-name rule); "" for the tool\'s own name',
    }),
  ),
  description: optional(LongText.annotations({ description: 'replaces the tool\'s description here; "" for its own' })),
  fixedArgs: optional(FixedArgs),
  approval: optional(ToolApproval),
}).annotations({ identifier: "ServerToolSettingsPatch" });
export type ServerToolSettingsPatch = typeof ServerToolSettingsPatch.Type;

/** A chosen tool's settings as the server answer shows them (every field present). */
export const ServerToolSettings = Schema.Struct({
  alias: Schema.String,
  description: Schema.String,
  fixedArgs: FixedArgs,
  approval: ToolApproval,
}).annotations({ identifier: "ServerToolSettings" });
export type ServerToolSettings = typeof ServerToolSettings.Type;

/** The stored settings of one chosen tool; a tool without a row has the defaults. */
export const ServerToolSettingsRow = Schema.Struct({
  toolId: Schema.String,
  alias: Schema.String,
  description: Schema.String,
  fixedArgs: FixedArgs,
  approval: ToolApproval,
});
export type ServerToolSettingsRow = typeof ServerToolSettingsRow.Type;

/** The settings a tool has when the server set none. */
export const DEFAULT_TOOL_SETTINGS: ServerToolSettings = {
  alias: "",
  description: "",
  fixedArgs: {},
  approval: "INHERIT",
};

/** Body of `POST /servers/{id}/tools`: the tool, its provider, and optionally its settings in this server. */
export const ServerToolLink = Schema.Struct({
  providerID: Id,
  toolID: Id,
  ...ServerToolSettingsPatch.fields,
}).annotations({ identifier: "ServerToolLink" });
export type ServerToolLink = typeof ServerToolLink.Type;
