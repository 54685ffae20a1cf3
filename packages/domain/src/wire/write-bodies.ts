import { Effect, type Schema } from "effect";
import type { InvalidArgument } from "../errors/domain-errors.js";
import { GIT_CONNECTION_OUTPUT_FIELDS, GitConnectionCreate } from "../git-connection/git-connection-schema.js";
import { PROMPT_OUTPUT_FIELDS, PromptCreate, PromptPatch } from "../prompt/prompt-schema.js";
import { PROVIDER_OUTPUT_FIELDS, ProviderCreate, ProviderPatch } from "../provider/provider-schema.js";
import { RESOURCE_OUTPUT_FIELDS, ResourceCreate, ResourcePatch } from "../resource/resource-schema.js";
import {
  SERVER_OUTPUT_FIELDS,
  ServerCreate,
  ServerPatch,
  ServerPromptLink,
  ServerResourceLink,
  ServerToolLink,
} from "../server/server-schema.js";
import { ServerToolSettingsPatch } from "../server/tool-settings-schema.js";
import { SERVER_TOKEN_OUTPUT_FIELDS, ServerTokenCreate } from "../server-token/server-token-schema.js";
import { TOOL_OUTPUT_FIELDS, ToolCreate, ToolPatch } from "../tool/tool-schema.js";
import { decodeEnvelope } from "../validation/decode-write.js";
import { markDecoded } from "../validation/validate-input.js";
import { VARIABLE_OUTPUT_FIELDS, VariableCreate, VariablePatch } from "../variable/variable-schema.js";

// The request bodies of the management API travel in an envelope, `{ "<kind>": { ...fields } }`. Each
// decoder below reads one: output-only fields a client echoes back are dropped, any other unknown field is
// refused, and every problem is reported with its JSON path (`provider.baseURL`). What they return is the
// typed input of the matching use case.

type Decoder<A> = (body: unknown) => Effect.Effect<A, InvalidArgument>;

const envelope =
  <A extends object, I>(name: string, schema: Schema.Schema<A, I>, ignored: ReadonlyArray<string> = []): Decoder<A> =>
  (body) =>
    Effect.map(decodeEnvelope(name, schema, ignored, body), markDecoded);

/** `{ "provider": ProviderCreate }`, the body of `createProvider`. */
export const decodeProviderCreate = envelope("provider", ProviderCreate, PROVIDER_OUTPUT_FIELDS);
/** `{ "provider": ProviderPatch }`, the body of `updateProvider`. */
export const decodeProviderPatch = envelope("provider", ProviderPatch, PROVIDER_OUTPUT_FIELDS);
/** `{ "tool": ToolCreate }`, the body of `createProviderTool`. */
export const decodeToolCreate = envelope("tool", ToolCreate, TOOL_OUTPUT_FIELDS);
/** `{ "tool": ToolPatch }`, the body of `updateProviderTool`. */
export const decodeToolPatch = envelope("tool", ToolPatch, TOOL_OUTPUT_FIELDS);
/** `{ "prompt": PromptCreate }`, the body of `createProviderPrompt`. */
export const decodePromptCreate = envelope("prompt", PromptCreate, PROMPT_OUTPUT_FIELDS);
/** `{ "prompt": PromptPatch }`, the body of `updateProviderPrompt`. */
export const decodePromptPatch = envelope("prompt", PromptPatch, PROMPT_OUTPUT_FIELDS);
/** `{ "resource": ResourceCreate }`, the body of `createProviderResource`. */
export const decodeResourceCreate = envelope("resource", ResourceCreate, RESOURCE_OUTPUT_FIELDS);
/** `{ "resource": ResourcePatch }`, the body of `updateProviderResource`. */
export const decodeResourcePatch = envelope("resource", ResourcePatch, RESOURCE_OUTPUT_FIELDS);
/** `{ "server": ServerCreate }`, the body of `createServer`. */
export const decodeServerCreate = envelope("server", ServerCreate, SERVER_OUTPUT_FIELDS);
/** `{ "server": ServerPatch }`, the body of `updateServer`. */
export const decodeServerPatch = envelope("server", ServerPatch, SERVER_OUTPUT_FIELDS);
/** `{ "tool": ServerToolLink }`, the body of `addServerTool`. */
export const decodeServerToolLink = envelope("tool", ServerToolLink);
/** `{ "tool": ServerToolSettingsPatch }`, the body of `updateServerTool` (docs/api-rules.md §20). */
export const decodeServerToolSettingsPatch = envelope("tool", ServerToolSettingsPatch);
/** `{ "resource": ServerResourceLink }`, the body of `addServerResource`. */
export const decodeServerResourceLink = envelope("resource", ServerResourceLink);
/** `{ "prompt": ServerPromptLink }`, the body of `addServerPrompt`. */
export const decodeServerPromptLink = envelope("prompt", ServerPromptLink);
/** `{ "token": ServerTokenCreate }`, the body of `createServerToken`. */
export const decodeServerTokenCreate = envelope("token", ServerTokenCreate, SERVER_TOKEN_OUTPUT_FIELDS);
/** `{ "variable": VariableCreate }`, the body of `createVariable`. */
export const decodeVariableCreate = envelope("variable", VariableCreate, VARIABLE_OUTPUT_FIELDS);
/** `{ "variable": VariablePatch }`, the body of `updateVariable`. */
export const decodeVariablePatch = envelope("variable", VariablePatch, VARIABLE_OUTPUT_FIELDS);
/** `{ "gitConnection": GitConnectionCreate }`, the body of `createGitConnection`. */
export const decodeGitConnectionCreate = envelope("gitConnection", GitConnectionCreate, GIT_CONNECTION_OUTPUT_FIELDS);
