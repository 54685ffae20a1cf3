import { Either } from "effect";
import { InvalidArgument } from "../errors/domain-errors.js";
import type { PromptRow } from "../storage/rows.js";
import { MAX_PROMPT_SUBSTITUTIONS, MAX_RENDERED_PROMPT_CHARS } from "./expansion-limits.js";

// `prompts/get`: a stored prompt's messages with `{{arg}}` replaced by the caller's arguments.

/** The rendered messages, or InvalidArgument naming the missing arguments. */
export type PromptRendering = Either.Either<PromptRow["messages"], InvalidArgument>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g;

/**
 * Renders a prompt. A required argument that is missing (or not a string) fails; a declared optional one
 * that is absent renders as ""; `{{name}}` for a name the prompt does not declare is left as written. A
 * rendering that would make more than MAX_PROMPT_SUBSTITUTIONS substitutions or MAX_RENDERED_PROMPT_CHARS
 * characters fails, its size computed before any text is built.
 */
export const renderPrompt = (prompt: PromptRow, args: Readonly<Record<string, unknown>>): PromptRendering => {
  const missing = prompt.arguments
    .filter((arg) => arg.required === true && typeof args[arg.name] !== "string")
    .map((arg) => arg.name);
  if (missing.length > 0)
    return Either.left(
      new InvalidArgument({
        detail: `prompt '${prompt.name}' needs the argument${missing.length > 1 ? "s" : ""} ${missing.map((n) => `'${n}'`).join(", ")}`,
        errors: missing.map((name) => ({ path: `arguments.${name}`, message: "is required" })),
      }),
    );
  const declared = new Set(prompt.arguments.map((arg) => arg.name));
  const argumentText = (name: string): string => {
    const value = args[name];
    return typeof value === "string" ? value : "";
  };
  let substitutions = 0;
  let size = 0;
  const tooLarge = (detail: string) =>
    Either.left(new InvalidArgument({ detail, errors: [{ path: "arguments", message: detail }] }));
  for (const message of prompt.messages) {
    size += message.content.text.length;
    for (const [whole, name] of message.content.text.matchAll(PLACEHOLDER))
      if (name !== undefined && declared.has(name)) {
        // Counting stops at the limit: refusing costs no more than a rendering that is allowed.
        if (++substitutions > MAX_PROMPT_SUBSTITUTIONS)
          return tooLarge(
            `prompt '${prompt.name}' has more than ${MAX_PROMPT_SUBSTITUTIONS} argument placeholders, more than one rendering may fill`,
          );
        size += argumentText(name).length - whole.length;
      }
  }
  if (size > MAX_RENDERED_PROMPT_CHARS)
    return tooLarge(
      `prompt '${prompt.name}' would render to ${size} characters with these arguments, more than ${MAX_RENDERED_PROMPT_CHARS}; use shorter arguments`,
    );
  const messages = prompt.messages.map((message) => ({
    role: message.role,
    content: {
      type: message.content.type,
      text: message.content.text.replace(PLACEHOLDER, (whole, name: string) =>
        declared.has(name) ? argumentText(name) : whole,
      ),
    },
  }));
  return Either.right(messages);
};
