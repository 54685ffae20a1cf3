import type { ToolRow } from "@mcpsm/domain/storage";
import {
  applyFilter,
  type CompiledFilter,
  type FitOutcome,
  fitTextToTokens,
  fitToTokens,
  measureTokens,
  structuredContentOf,
} from "@mcpsm/response-shaping";
import type { UpstreamLimits, UpstreamResponse } from "@mcpsm/upstream-http";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { bodyText, errorResult, toolResultOf } from "../calls/tool-result.js";
import type { McpInstrumentation } from "../instrumentation.js";
import { isJsonType, isTextualType } from "../media-type.js";
import { filterOf, resultSchemaOf } from "./filtered-schema.js";

// docs/api-rules.md §19: a 2xx answer goes through the tool's response filter (bounded: a failure or an
// overrun is a tool error naming the tool, never a stall), then is cut to the server's maxResultTokens at
// JSON boundaries (whole items, whole optional properties) with a note saying what was cut and which query
// arguments page or narrow the request. The SDK path and the fast lane both run this, and the shape preview
// runs `shapeValue`, so a preview shows what a call answers.

/** A filtered and fitted value, or why the filter gave none. */
export type ShapedValue =
  | { readonly ok: true; readonly fit: FitOutcome }
  | { readonly ok: false; readonly reason: "failed" | "over-budget"; readonly message: string };

/** A parsed JSON answer through the filter (when there is one), then cut to `maxResultTokens`. */
export const shapeValue = async (
  tool: ToolRow,
  filter: CompiledFilter | undefined,
  value: unknown,
  text: string,
  maxResultTokens: number,
): Promise<ShapedValue> => {
  let shaped = value;
  let shapedText = text;
  if (filter !== undefined) {
    const outcome = await applyFilter(filter, value, { text });
    if (!outcome.ok) return outcome;
    shaped = outcome.value;
    shapedText = outcome.text;
  }
  const fit = fitToTokens(shaped, maxResultTokens, {
    schema: resultSchemaOf(tool, filter),
    queryArgsSchema: tool.queryArgsJSONSchema ?? undefined,
    text: shapedText,
  });
  return { ok: true, fit };
};

/** The tool error of a filter that gave no value. */
export const filterFailure = (tool: ToolRow, reason: "failed" | "over-budget", message: string): CallToolResult =>
  errorResult(
    reason === "over-budget"
      ? `the response filter of tool '${tool.name}' ran past its budget: ${message}`
      : `the response filter of tool '${tool.name}' failed: ${message}`,
  );

const NOT_JSON = Symbol("not JSON");

const parsedOrNot = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
};

/** Where shaping reports what it did: result tokens before and after, and filter failures. */
type ShapingObserver = Pick<McpInstrumentation, "resultTokens" | "filterFailure">;

/**
 * The tool result of an upstream response, shaped. Without a filter and within the limit it is exactly
 * `toolResultOf`'s (text and structuredContent of the answer as sent); a cut answer carries the note as a
 * second text block; an answer that not even a cut brings under the limit is a tool error with that note.
 */
export const shapedToolResult = async (
  tool: ToolRow,
  response: UpstreamResponse,
  limits: UpstreamLimits,
  maxResultTokens: number,
  observer: ShapingObserver,
): Promise<CallToolResult> => {
  if (response.status < 200 || response.status > 299 || !isTextualType(response.contentType))
    return toolResultOf(response, limits);
  const prepared = filterOf(tool);
  if (prepared !== undefined && !prepared.ok)
    return errorResult(`the response filter of tool '${tool.name}' does not compile: ${prepared.problem.message}`);
  const filter = prepared?.filter;
  const raw = response.body.toString("utf8");
  const whole = !response.truncated && isJsonType(response.contentType) && response.body.length > 0;
  const parsed = whole ? parsedOrNot(raw) : NOT_JSON;
  if (parsed === NOT_JSON) {
    if (filter !== undefined)
      return errorResult(
        `the response filter of tool '${tool.name}' needs a whole JSON answer; the upstream answered ${response.contentType}${response.truncated ? ` larger than ${limits.maxResponseBytes} bytes` : ""}`,
      );
    const text = bodyText(response, limits);
    const fit = fitTextToTokens(text, maxResultTokens, { queryArgsSchema: tool.queryArgsJSONSchema ?? undefined });
    observer.resultTokens?.(fit.tokens.before, fit.tokens.after);
    if (fit.cut === undefined) return toolResultOf(response, limits);
    return {
      content: [
        { type: "text", text: fit.text },
        { type: "text", text: fit.cut },
      ],
    };
  }
  const shaped = await shapeValue(tool, filter, parsed, raw, maxResultTokens);
  if (!shaped.ok) {
    observer.filterFailure?.(shaped.reason);
    return filterFailure(tool, shaped.reason, shaped.message);
  }
  const { fit } = shaped;
  // Before shaping: the upstream's answer (its own count when no filter ran, else measured as fitting does).
  const before = filter === undefined ? fit.tokens.before : measureTokens(raw, maxResultTokens).tokens;
  observer.resultTokens?.(before, fit.tokens.after);
  if (!fit.fits) return errorResult(fit.cut?.message ?? `the answer is larger than ${maxResultTokens} tokens`);
  return {
    content: [
      { type: "text", text: fit.text },
      ...(fit.cut === undefined ? [] : [{ type: "text" as const, text: fit.cut.message }]),
    ],
    structuredContent: structuredContentOf(fit.value),
  };
};
