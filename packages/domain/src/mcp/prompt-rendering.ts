import { Either } from "effect";
import { InvalidArgument } from "../errors/domain-errors.js";
import type { PromptRow } from "../storage/rows.js";

// `prompts/get`: a stored prompt's messages with `{{arg}}` replaced by the caller's arguments.

/** The rendered messages, or InvalidArgument naming the missing arguments. */
export type PromptRendering = Either.Either<PromptRow["messages"], InvalidArgument>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g;

/**
 * Renders a prompt. A required argument that is missing (or not a string) fails; a declared optional one
 * that is absent renders as ""; `{{name}}` for a name the prompt does not declare is left as written.
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
  const messages = prompt.messages.map((message) => ({
    role: message.role,
    content: {
      type: message.content.type,
      text: message.content.text.replace(PLACEHOLDER, (whole, name: string) => {
        if (!declared.has(name)) return whole;
        const value = args[name];
        return typeof value === "string" ? value : "";
      }),
    },
  }));
  return Either.right(messages);
};
