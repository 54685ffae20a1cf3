import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { Id } from "../ids/id.js";
import { LongText, Name, Timestamp } from "../validation/text.js";

/** One argument a prompt takes. */
export const PromptArgument = Schema.Struct({
  name: Schema.String.pipe(
    Schema.pattern(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, {
      message: () => "must be 1–64 letters, digits, _ or -, starting with a letter or _",
    }),
  ),
  description: optional(LongText),
  required: optional(Schema.Boolean),
});

/** One MCP prompt message; its text may hold `{{argName}}` placeholders. */
export const PromptMessage = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  content: Schema.Struct({
    type: Schema.Literal("text"),
    text: Schema.String.pipe(Schema.maxLength(100_000, { message: () => "must be at most 100000 characters" })),
  }),
});

const PromptArguments = Schema.Array(PromptArgument).pipe(
  Schema.maxItems(100),
  Schema.filter(
    (args) => {
      const seen = new Set<string>();
      for (const [i, arg] of args.entries()) {
        if (seen.has(arg.name)) return { path: [i, "name"], message: `duplicate argument name '${arg.name}'` };
        seen.add(arg.name);
      }
      return true;
    },
    { jsonSchema: { description: "the prompt's arguments; names are distinct" } },
  ),
);

const promptFields = {
  name: optional(Name),
  description: optional(LongText),
  arguments: optional(PromptArguments),
  messages: optional(Schema.Array(PromptMessage).pipe(Schema.maxItems(100))),
};

/** Write shape of a prompt on update. */
export const PromptPatch = Schema.Struct(promptFields).annotations({ identifier: "PromptPatch" });
export type PromptPatch = typeof PromptPatch.Type;

/** Write shape of a prompt on create: `name` required. */
export const PromptCreate = Schema.Struct({ ...promptFields, name: Name }).annotations({ identifier: "PromptCreate" });
export type PromptCreate = typeof PromptCreate.Type;

/** Output-only prompt fields ignored in writes. */
export const PROMPT_OUTPUT_FIELDS = ["id", "providerID", "createdAt", "updatedAt"] as const;

/** A prompt as returned by the API. */
export const PromptRecord = Schema.Struct({
  id: Id,
  providerID: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  name: Schema.String,
  description: Schema.String,
  arguments: Schema.Array(PromptArgument),
  messages: Schema.Array(PromptMessage),
}).annotations({ identifier: "ProviderPrompt" });
export type PromptRecord = typeof PromptRecord.Type;
export type PromptArgument = typeof PromptArgument.Type;
export type PromptMessage = typeof PromptMessage.Type;
