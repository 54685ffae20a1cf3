import { Schema } from "effect";
import { Timestamp } from "../validation/text.js";

// A per-caller value on the wire (docs/api-rules.md §23): whose it is and when it was set — never the value.

/** One caller's own value of a per-caller variable, as `GET /variables/{id}/caller-values` lists it. */
export const CallerValueRecord = Schema.Struct({
  principal: Schema.String.annotations({
    description: "the MCP caller it belongs to: `oauth:<sub>` or `server-token:<token id>`",
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}).annotations({ identifier: "CallerValue" });
export type CallerValueRecord = typeof CallerValueRecord.Type;

/** The answer of `GET /variables/{id}/caller-values`. */
export const CallerValueList = Schema.Struct({ callerValues: Schema.Array(CallerValueRecord) }).annotations({
  identifier: "CallerValueList",
});
export type CallerValueList = typeof CallerValueList.Type;

/** A principal as a path parameter: `oauth:<sub>` or `server-token:<token id>`, at most 512 characters. */
export const isPrincipal = (value: string): boolean =>
  value.length <= 512 && /^(?:oauth:.+|server-token:[A-Za-z0-9]{11})$/s.test(value) && !/[\u0000-\u001f]/.test(value);
