import type { FieldProblem } from "@mcpsm/domain";

/** What the service sends a reader worker: the description's text (an object is sent as its compact JSON). */
export interface ReaderRequest {
  readonly text: string;
  readonly sentAsObject: boolean;
  readonly root: string;
}

/** What a reader worker answers: the read description as JSON text, or the problems that stop it. */
export type ReaderReply =
  | { readonly ok: true; readonly json: string }
  | {
      readonly ok: false;
      readonly problems: ReadonlyArray<FieldProblem>;
      readonly detail?: string;
      /** A bug in the reader (not a problem of the document): the service answers 500 for it. */
      readonly crashed?: string;
    };
