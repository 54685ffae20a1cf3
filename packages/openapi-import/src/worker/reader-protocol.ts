import type { FieldProblem } from "@mcpsm/domain";
import type { ApiDescription } from "@mcpsm/domain/openapi-import";

/**
 * What the service sends a reader worker: the description's text, an object as its compact JSON, or the JSON
 * text a request body held (a DocumentJson, parsed in the worker).
 */
export type ReaderRequest = { readonly root: string } & (
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "object"; readonly text: string }
  | { readonly kind: "json"; readonly bytes: Uint8Array; readonly members: number }
);

/**
 * What a reader worker answers: the read description (structured-cloned: shared schemas stay shared, and
 * nothing is written as JSON text to be parsed again), or the problems that stop it.
 */
export type ReaderReply =
  | { readonly ok: true; readonly description: ApiDescription }
  | {
      readonly ok: false;
      readonly problems: ReadonlyArray<FieldProblem>;
      readonly detail?: string;
      /** A bug in the reader (not a problem of the document): the service answers 500 for it. */
      readonly crashed?: string;
    };
