import { Schema } from "effect";
import { Id } from "../ids/id.js";
import { optional } from "../validation/optional-field.js";
import { Timestamp, utf8Bytes } from "../validation/text.js";

/** Variable kinds: `ENV` is plain configuration, `SECRET` is stored encrypted and never returned. */
export const VariableType = Schema.Literal("ENV", "SECRET");
export type VariableType = typeof VariableType.Type;

/** A variable name: an identifier of letters, digits and `_`, at most 128 characters. */
export const VariableName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, {
    message: () => "must start with a letter or _, then letters, digits or _, 128 characters at most",
  }),
);

/** A variable value: at most 64 KiB of UTF-8. */
export const VariableValue = Schema.String.pipe(
  Schema.filter((s) => (utf8Bytes(s) <= 64 * 1024 ? true : "must be at most 64 KiB"), {
    // A UTF-8 byte limit: a value of more than 65536 characters is always too long.
    jsonSchema: { maxLength: 64 * 1024, description: "at most 64 KiB of UTF-8" },
  }),
);

/**
 * `perCaller` (docs/api-rules.md §23, SECRET only): each MCP caller may hold a value of its own, and `value`
 * is the default ("" for none).
 */
const PerCaller = Schema.Boolean.annotations({
  description:
    'SECRET only: each MCP caller (an OAuth subject or a server token) holds its own value, entered in a form of the service; `value` is then the default ("" for none)',
});

/** Write shape of a variable on create. */
export const VariableCreate = Schema.Struct({
  type: VariableType,
  name: VariableName,
  value: VariableValue,
  perCaller: optional(PerCaller),
}).annotations({ identifier: "VariableCreate" });
export type VariableCreate = typeof VariableCreate.Type;

/** Write shape of a variable on update: the value (the default of a per-caller one), and `perCaller`. */
export const VariablePatch = Schema.Struct({ value: optional(VariableValue), perCaller: optional(PerCaller) })
  .pipe(
    Schema.filter((patch) =>
      patch.value !== undefined || patch.perCaller !== undefined ? true : { path: ["value"], message: "is missing" },
    ),
  )
  .annotations({ identifier: "VariablePatch" });
export type VariablePatch = typeof VariablePatch.Type;

/** Output-only variable fields ignored in writes. */
export const VARIABLE_OUTPUT_FIELDS = ["id", "createdAt", "updatedAt"] as const;

/** What a SECRET variable's value reads as. */
export const MASKED_VALUE = "***";

/** A variable as returned by the API (a SECRET's value masked). */
export const VariableRecord = Schema.Struct({
  id: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  type: VariableType,
  value: Schema.String,
  name: Schema.String,
  perCaller: PerCaller,
}).annotations({ identifier: "Variable" });
export type VariableRecord = typeof VariableRecord.Type;
