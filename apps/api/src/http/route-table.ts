import type { DomainError } from "@mcpsm/domain/errors";
import * as W from "@mcpsm/domain/schemas";
import * as I from "@mcpsm/domain/openapi-import";
import type { DomainServices, WireOperation } from "@mcpsm/domain/use-cases";
import { MANAGEMENT_ROUTES, type ManagementOperation, type OperationRequest, type Reply } from "@mcpsm/openapi";
import { Effect } from "effect";
import type { DescriptionFetcher } from "../openapi-import/description-fetcher.js";
import { importFromUrl } from "../openapi-import/import-from-url.js";
import type { ImportGate } from "../openapi-import/import-gate.js";

export type { OperationRequest as RouteInput, Reply } from "@mcpsm/openapi";

/** The services the use cases need; provided by the app's runtime. */
export type AppServices = DomainServices | I.OpenApiReader | DescriptionFetcher | ImportGate;

/**
 * One management route as the router mounts it: method, path (router syntax, `:id`), the operation (and so
 * the scope) it is, and its handler. Everything but the router's path syntax and the wire operations'
 * handlers comes from the operation's declaration in @mcpsm/openapi.
 */
export interface Route extends Pick<ManagementOperation, "method" | "operation" | "answerFromServerGraph"> {
  readonly path: string;
  readonly handle: (input: OperationRequest) => Effect.Effect<Reply, DomainError, AppServices>;
  /** Largest accepted body, when not the default. */
  readonly maxBodyBytes?: number;
  /** Deepest accepted body nesting, when not the default. */
  readonly maxBodyDepth?: number;
  /** `import.document` is left unparsed for the reader (a DocumentJson): the OpenAPI imports. */
  readonly unparsedDocument?: boolean;
}

/**
 * The handlers of the operations whose use cases still take the wire body (see @mcpsm/domain/openapi-import):
 * the `import.url` fetch is the service's (the type makes a missing one a compile error).
 */
const WIRE_HANDLERS: { readonly [O in WireOperation]: Route["handle"] } = {
  importProvider: ({ actor, body }) =>
    Effect.map(
      importFromUrl(body, (b, fetchedFrom) => I.importProvider(actor, b, fetchedFrom), actor.tenant),
      ({ created: stored, result }): Reply =>
        stored
          ? {
              status: 201,
              body: result,
              location: `/providers/${result.provider.id}`,
              version: result.provider.version,
            }
          : { status: 200, body: result },
    ),
  resyncProvider: ({ actor, params, body }) =>
    Effect.map(
      importFromUrl(body, (b, fetchedFrom) => I.resyncProvider(actor, params.id ?? "", b, fetchedFrom), actor.tenant),
      (result): Reply => ({ status: 200, body: result, version: result.provider.version }),
    ),
};

/**
 * Path parameters are checked in path order before the body is read (the first bad one answers 400): ids,
 * and a server revision's `{version}` (a whole number). A caller value's `principal` (docs/api-rules.md §23)
 * is no id: its use case checks it.
 */
const pathIds = (params: Readonly<Record<string, string>>) =>
  Effect.forEach(
    Object.entries(params).filter(([name]) => name !== "principal"),
    ([name, value]) =>
      name === "version" ? Effect.asVoid(W.parseVersion(name, value)) : Effect.asVoid(W.decodePathId(name, value)),
    { discard: true },
  );

/** `/providers/{id}/tools/{toolID}` → `/providers/:id/tools/:toolID` (the router's syntax). */
export const routerPath = (template: string): string => template.replace(/\{([^{}]+)\}/g, ":$1");

const handlerOf = (operation: ManagementOperation): Route["handle"] =>
  operation.handle ?? WIRE_HANDLERS[operation.operation as WireOperation];

/**
 * Every management route of the spec and of docs/api-rules.md §§8–10: the operations of @mcpsm/openapi (the
 * ones the OpenAPI document describes, so the two cannot drift), mounted with their handlers.
 */
export const ROUTES: ReadonlyArray<Route> = MANAGEMENT_ROUTES.map((op) => {
  const handle = handlerOf(op);
  return {
    method: op.method,
    path: routerPath(op.path),
    operation: op.operation,
    handle: (input) => Effect.zipRight(pathIds(input.params), handle(input)),
    ...(op.answerFromServerGraph === undefined ? {} : { answerFromServerGraph: op.answerFromServerGraph }),
    ...(op.maxBodyBytes === undefined ? {} : { maxBodyBytes: op.maxBodyBytes }),
    ...(op.maxBodyDepth === undefined ? {} : { maxBodyDepth: op.maxBodyDepth }),
    ...(op.operation in WIRE_HANDLERS ? { unparsedDocument: true } : {}),
  };
});
