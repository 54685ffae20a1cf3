import type { DomainError } from "@mcpsm/domain/errors";
import * as W from "@mcpsm/domain/schemas";
import { OPENAPI_IMPORT_USE_CASES } from "@mcpsm/domain/openapi-import";
import type { DomainServices, ImportServices } from "@mcpsm/domain/use-cases";
import { MANAGEMENT_ROUTES, type ManagementOperation, type OperationRequest, type Reply } from "@mcpsm/openapi";
import { Effect } from "effect";
import { gated, type ImportGate } from "../openapi-import/import-gate.js";

export type { OperationRequest as RouteInput, Reply } from "@mcpsm/openapi";

/** The services the use cases need; provided by the app's runtime. */
export type AppServices = DomainServices | ImportServices | ImportGate;

/**
 * One management route as the router mounts it: method, path (router syntax, `:id`), the operation (and so
 * the scope) it is, and its handler. Everything but the router's path syntax and the import gate comes from the
 * operation's declaration in @mcpsm/openapi.
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

/** An OpenAPI import (fetch and read included) runs as one of its tenant's imports at once (ImportGate). */
const isImport = (operation: ManagementOperation) => operation.operation in OPENAPI_IMPORT_USE_CASES;

const handlerOf = (operation: ManagementOperation): Route["handle"] =>
  isImport(operation) ? (input) => gated(input.actor.tenant, operation.handle(input)) : operation.handle;

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
    ...(isImport(op) ? { unparsedDocument: true } : {}),
  };
});
