import type { DescribedOperation } from "./api-description.js";
import { wordsOf } from "./tool-naming.js";

// The text of an imported tool (docs/api-rules.md §15a): a title always (the summary, else a sentence made
// from the method and path), and a description in Markdown (the reader converts HTML) that ends with the
// line naming the operation it calls.

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

const VERBS: Readonly<Record<string, string>> = {
  get: "Get",
  post: "Create",
  put: "Replace",
  patch: "Update",
  delete: "Delete",
  head: "Check",
  options: "Get the options of",
  trace: "Trace",
};

/** `GET /v1/customers/{customer}/sources` → "Get v1 customers sources by customer". */
const sentenceOf = (method: string, path: string): string => {
  const segments = path
    .split(/[?#]/)[0]!
    .split("/")
    .filter((s) => s !== "");
  const words = segments.flatMap((s) => (/^\{[^{}]*\}$/.test(s) ? [] : wordsOf(s.replace(/\{[^{}]*\}/g, " "))));
  const last = segments.at(-1);
  const by = last !== undefined && /^\{[^{}]*\}$/.test(last) ? ["by", ...wordsOf(last.slice(1, -1))] : [];
  const verb = VERBS[method.toLowerCase()] ?? method.toUpperCase();
  const object = [...words, ...by].join(" ");
  return object === "" ? `${verb} the root resource` : `${verb} ${object}`;
};

/** The tool's title: the summary on one line, else a sentence from the method and path; at most `max`. */
export const toolTitle = (operation: DescribedOperation, max: number): string => {
  const summary = operation.summary.replace(/\s+/g, " ").trim();
  return cut(summary !== "" ? summary : sentenceOf(operation.method, operation.path), max);
};

/**
 * What the tool of a long-running operation says about itself (docs/api-rules.md §22): the call may take a
 * while, and a client with the tasks extension gets a task.
 */
export const LONG_RUNNING_NOTE =
  "Long-running: the API accepts the request (202) and finishes it later; the call follows the operation " +
  "until it is done (a 2026-07-28 client with the tasks extension gets a task to poll).";

/** The tool's description: summary and description (Markdown), then the operation it calls; at most `max`. */
export const toolDescription = (operation: DescribedOperation, max: number): string => {
  const method = operation.method.toUpperCase();
  const operationLine =
    operation.operationId !== ""
      ? `OpenAPI operation ${operation.operationId} (${method} ${operation.path})`
      : `OpenAPI operation ${method} ${operation.path}`;
  const idLine = operation.longRunning === true ? `${operationLine}\n\n${LONG_RUNNING_NOTE}` : operationLine;
  const text = [operation.summary.trim(), operation.description.trim()]
    .filter((t, i, all) => t !== "" && (i === 0 || t !== all[0]))
    .join("\n\n");
  return text === "" ? idLine : `${cut(text, max - idLine.length - 2)}\n\n${idLine}`;
};
