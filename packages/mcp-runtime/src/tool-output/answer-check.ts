import type { ToolRow } from "@mcpsm/domain/storage";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { outputProblems } from "../argument-validator.js";
import type { McpLogger } from "../error-mapping.js";
import type { McpInstrumentation, OutputMismatch } from "../instrumentation.js";
import { outputSchemaOf } from "../wire/list-entries.js";

// docs/api-rules.md §15a: a 2xx answer of a tool that declares an `outputSchema` is checked against it. With
// the default (outputSchemaMode LENIENT) it reaches the caller as a successful result whatever the check
// says (an answer that does not fit keeps its text content and gets the empty structuredContent the lenient
// schema accepts, which clients check); a mismatch is logged (tool and provider ids, the reason and a count: no value of the answer) and
// counted. With EXACT, a mismatch is a tool error saying why, as clients reject such structuredContent.

/** Where a lenient mismatch is reported. */
export interface AnswerCheckServices {
  readonly log: McpLogger;
  readonly instrumentation: McpInstrumentation;
}

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: "text", text }] });

const textOf = (result: CallToolResult): string =>
  result.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .filter((t) => t !== "")
    .join("\n");

/** Why a successful answer does not fit the declared outputSchema (with its problems), or undefined when it does. */
const mismatchOf = (
  tool: ToolRow,
  schema: Record<string, unknown>,
  result: CallToolResult,
): { readonly reason: OutputMismatch; readonly problems: ReadonlyArray<string> } | undefined => {
  if (result.structuredContent === undefined) return { reason: "not_json", problems: [] };
  const problems = outputProblems(tool, schema, result.structuredContent);
  return problems.length === 0 ? undefined : { reason: "schema", problems };
};

/** The result of a tools/call of `tool` once its answer has been checked against the declared outputSchema. */
export const checkedAnswer = (tool: ToolRow, result: CallToolResult, services: AnswerCheckServices): CallToolResult => {
  const schema = outputSchemaOf(tool);
  if (schema === undefined || result.isError === true) return result;
  const mismatch = mismatchOf(tool, schema, result);
  if (mismatch === undefined) return result;
  if (tool.outputSchemaMode === "EXACT") {
    const text = textOf(result);
    return errorResult(
      mismatch.reason === "not_json"
        ? `the upstream's answer is not the JSON its description declares (outputSchema)${text !== "" ? `\n${text}` : ""}`
        : `the upstream's answer does not match the schema its description declares (outputSchema): ${mismatch.problems.join("; ")}${text !== "" ? `\n${text}` : ""}`,
    );
  }
  services.instrumentation.outputMismatch?.(mismatch.reason);
  // The answer is in the text content whole; the structuredContent a client requires of a tool with an
  // outputSchema (and checks against it) is then the empty form the lenient schema accepts, so the success
  // reaches the caller as one: `{}`, or `{result: null}` for a wrapped schema.
  const placeholder = { structuredContent: "required" in schema ? { result: null } : {} };
  services.log.warn(
    { toolId: tool.id, providerId: tool.providerId, reason: mismatch.reason, problems: mismatch.problems.length },
    "a tool's 2xx answer does not match its lenient outputSchema; returned as a success",
  );
  return { ...result, ...placeholder };
};
