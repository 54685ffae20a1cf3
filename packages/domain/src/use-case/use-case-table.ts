import type { Effect } from "effect";
import { AUDIT_USE_CASES } from "../audit/audit-listing.js";
import { CALL_LOG_USE_CASES } from "../call-log/call-log-use-cases.js";
import type { DomainError } from "../errors/domain-errors.js";
import { EXPORT_USE_CASES } from "../export/export-use-cases.js";
import { SERVER_IMPORT_USE_CASES } from "../export/server-import.js";
import { GIT_CONNECTION_USE_CASES } from "../git-connection/git-connection-use-cases.js";
import { PROVIDER_PROMPT_USE_CASES } from "../prompt/prompt-use-cases.js";
import { PROVIDER_USE_CASES } from "../provider/provider-use-cases.js";
import { PROVIDER_RESOURCE_USE_CASES } from "../resource/resource-use-cases.js";
import { REVISION_USE_CASES } from "../revision/revision-use-cases.js";

import { SHAPE_PREVIEW_USE_CASES } from "../response-shaping/shape-preview.js";
import type { Operation } from "../scopes/scope-policy.js";
import { SERVER_MEMBER_USE_CASES } from "../server/server-associations.js";
import { SERVER_TOOL_SETTINGS_USE_CASES } from "../server/server-tool-settings.js";
import { APPROVAL_USE_CASES } from "../approval/approval-use-cases.js";
import { SERVER_USE_CASES } from "../server/server-use-cases.js";
import { SERVER_TOKEN_USE_CASES } from "../server-token/server-token-use-cases.js";
import type { Actor } from "../tenancy/actor.js";
import { PROVIDER_TOOL_USE_CASES } from "../tool/tool-use-cases.js";
import { CONNECTION_USE_CASES } from "../upstream-connection/connection-use-cases.js";
import { VARIABLE_USE_CASES } from "../variable/variable-use-cases.js";
import { CALLER_VALUE_USE_CASES } from "../caller-value/caller-value-use-cases.js";
import type { DomainServices } from "./domain-services.js";
import type { OpenApiReader } from "../openapi-import/api-description.js";
import type { DescriptionFetcher } from "../openapi-import/description-fetcher.js";
import type { OPENAPI_IMPORT_USE_CASES } from "../openapi-import/import-use-cases.js";

/** Any use case: a function of the actor and a typed input. */
// biome-ignore lint/suspicious/noExplicitAny: the table holds use cases of every input and output type
export type AnyUseCase = (actor: Actor, input: any) => Effect.Effect<unknown, DomainError, DomainServices>;

/** The ports only the OpenAPI import runs with (a reader and a fetcher of descriptions): the service provides them. */
export type ImportServices = OpenApiReader | DescriptionFetcher;

/** The operations of @mcpsm/domain/openapi-import, whose use cases also need the ImportServices. */
export type ImportOperation = keyof typeof OPENAPI_IMPORT_USE_CASES;

/** A use case a management operation runs: any of the table's, or an OpenAPI import. */
export type AnyOperationUseCase = (
  actor: Actor,
  // biome-ignore lint/suspicious/noExplicitAny: as AnyUseCase
  input: any,
) => Effect.Effect<unknown, DomainError, DomainServices | ImportServices>;

/**
 * Every management use case under its operation name (the names of the scope policy and of the OpenAPI
 * operations), gathered from each concept's own table; the type makes a missing one a compile error (a
 * test, a misnamed one). The Promise facade and the management API's operations (@mcpsm/openapi) are built from it. The
 * OpenAPI import and re-sync are not in it: they run with the ImportServices too (OPENAPI_IMPORT_USE_CASES).
 */
export const USE_CASES = {
  ...SERVER_USE_CASES,
  ...SERVER_MEMBER_USE_CASES,
  ...SERVER_TOOL_SETTINGS_USE_CASES,
  ...APPROVAL_USE_CASES,
  ...SERVER_TOKEN_USE_CASES,
  ...PROVIDER_USE_CASES,
  ...PROVIDER_TOOL_USE_CASES,
  ...SHAPE_PREVIEW_USE_CASES,
  ...PROVIDER_PROMPT_USE_CASES,
  ...PROVIDER_RESOURCE_USE_CASES,
  ...VARIABLE_USE_CASES,
  ...CALLER_VALUE_USE_CASES,
  ...AUDIT_USE_CASES,
  ...CALL_LOG_USE_CASES,
  ...CONNECTION_USE_CASES,
  ...GIT_CONNECTION_USE_CASES,
  ...EXPORT_USE_CASES,
  ...SERVER_IMPORT_USE_CASES,
  ...REVISION_USE_CASES,
} as const satisfies { readonly [O in Exclude<Operation, ImportOperation>]: AnyUseCase };

/** The table's type: each operation's use case with its own input and output types. */
export type UseCases = typeof USE_CASES;
