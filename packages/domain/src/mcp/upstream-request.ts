import { Either } from "effect";
import { FailedPrecondition, type FieldProblem, InvalidArgument } from "../errors/domain-errors.js";
import type { ToolRow } from "../storage/rows.js";
import { pathPlaceholders } from "../tool/tool-schema.js";
import { MAX_UPSTREAM_PATH_CHARS } from "./expansion-limits.js";
import { fixedQueryValues } from "./fixed-query.js";
import { bracketPairs } from "./form-encoding.js";
import { holdsVariableReference } from "./header-templates.js";
import { type PlannedBody, planBody } from "./request-body.js";

// The pure half of `tools/call`: validated MCP arguments in, the upstream HTTP request out. No I/O here.

/** The upstream request a tool call makes (headers come separately, see header-templates.ts). */
export interface UpstreamRequestPlan {
  readonly method: ToolRow["method"];
  readonly url: URL;
  /** `bodyArgs` in the tool's `reqContentType`, when the call carries a body. */
  readonly body: PlannedBody | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A scalar as the text it is sent as; objects and arrays have no path or query form. */
const scalarText = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : undefined;

/**
 * The upstream URL: the provider's base URL (its path kept, a trailing `/` dropped) followed by the tool's
 * path with each `{placeholder}` replaced by its percent-encoded argument. A value of `.` or `..` (or an
 * empty one) would change which resource the path names, so it is refused rather than sent; so is a path
 * longer than MAX_UPSTREAM_PATH_CHARS.
 */
const buildPath = (tool: ToolRow, pathArgs: Record<string, unknown>, problems: Array<FieldProblem>): string => {
  let path = tool.path;
  for (const name of placeholdersOf(tool.path)) {
    const text = scalarText(pathArgs[name]);
    if (text === undefined) {
      problems.push({
        path: `pathArgs.${name}`,
        message: pathArgs[name] === undefined ? "is required" : "must be a string, number or boolean",
      });
      continue;
    }
    if (text === "" || text === "." || text === "..") {
      problems.push({ path: `pathArgs.${name}`, message: `must not be empty, '.' or '..'` });
      continue;
    }
    const encoded = encodeURIComponent(text);
    // A template may repeat a placeholder hundreds of times: measure before building.
    const occurrences = path.split(`{${name}}`).length - 1;
    const size = path.length + occurrences * (encoded.length - name.length - 2);
    if (size > MAX_UPSTREAM_PATH_CHARS) {
      problems.push({
        path: `pathArgs.${name}`,
        message: `makes the upstream path ${size} characters long, more than ${MAX_UPSTREAM_PATH_CHARS}`,
      });
      continue;
    }
    path = path.split(`{${name}}`).join(encoded);
  }
  return path;
};

/**
 * Query parameters from `queryArgs`: arrays of scalars become repeated keys, null/undefined are left out;
 * an object (or an array holding one) takes bracket keys, `created[gt]=1`, `items[0][id]=a`
 * (docs/api-rules.md §15a: Stripe's `deepObject` query parameters).
 */
const appendQuery = (url: URL, queryArgs: Record<string, unknown>, problems: Array<FieldProblem>) => {
  for (const [key, value] of Object.entries(queryArgs)) {
    if (isRecord(value) || (Array.isArray(value) && value.some((item) => typeof item === "object" && item !== null))) {
      const pairs: Array<[string, string]> = [];
      bracketPairs(key, value, pairs);
      for (const [name, text] of pairs) url.searchParams.append(name, text);
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    for (const [i, item] of values.entries()) {
      if (item === null || item === undefined) continue;
      const text = scalarText(item);
      if (text === undefined) {
        problems.push({
          path: Array.isArray(value) ? `queryArgs.${key}[${i}]` : `queryArgs.${key}`,
          message: "must be a string, number or boolean (or an array of them)",
        });
        continue;
      }
      url.searchParams.append(key, text);
    }
  }
};

/**
 * The distinct placeholders of a path template, worked out once per template rather than once per call (a
 * server's tools are called again and again with the same few templates). Bounded: cleared when full.
 */
const placeholderCache = new Map<string, ReadonlyArray<string>>();
const MAX_CACHED_TEMPLATES = 4096;
const placeholdersOf = (path: string): ReadonlyArray<string> => {
  let names = placeholderCache.get(path);
  if (names === undefined) {
    names = [...new Set(pathPlaceholders(path))];
    if (placeholderCache.size >= MAX_CACHED_TEMPLATES) placeholderCache.clear();
    placeholderCache.set(path, names);
  }
  return names;
};

/** A provider's base URL as every call starts from it: parsed once (undefined: not a valid URL). */
interface ParsedBase {
  readonly href: string;
  /** Its path with trailing `/` dropped: the tool's path is appended to it. */
  readonly basePath: string;
}
const baseCache = new Map<string, ParsedBase | undefined>();
const parsedBase = (baseURL: string): ParsedBase | undefined => {
  if (baseCache.has(baseURL)) return baseCache.get(baseURL);
  let parsed: ParsedBase | undefined;
  try {
    const base = new URL(baseURL);
    parsed = { href: base.href, basePath: base.pathname.replace(/\/+$/, "") };
  } catch {
    parsed = undefined;
  }
  if (baseCache.size >= MAX_CACHED_TEMPLATES) baseCache.clear();
  baseCache.set(baseURL, parsed);
  return parsed;
};

/** Methods that never carry a request body upstream. */
const BODYLESS = new Set(["GET", "HEAD"]);

/** The arguments cannot become a request: every problem, each naming the argument it is about. */
const invalidArguments = (problems: ReadonlyArray<FieldProblem>) =>
  new InvalidArgument({
    detail: `invalid arguments:\n${problems.map((p) => `- ${p.path}: ${p.message}`).join("\n")}`,
    errors: problems,
  });

/**
 * Turns (already schema-validated) MCP arguments into the upstream request of `tool` under `baseURL`.
 * Problems that the schemas cannot express (path traversal, non-scalar path or query values) are
 * reported together, as one InvalidArgument. A `${NAME}` in the base URL or the tool path fails with
 * FailedPrecondition: variables resolve only in header values, and the template itself must not be sent.
 */
export const planUpstreamRequest = (
  baseURL: string,
  tool: ToolRow,
  args: Record<string, unknown>,
): Either.Either<UpstreamRequestPlan, InvalidArgument | FailedPrecondition> => {
  const templated = [
    ...(holdsVariableReference(baseURL) ? ["the provider's base URL"] : []),
    ...(holdsVariableReference(tool.path) ? ["the tool's path"] : []),
  ];
  if (templated.length > 0)
    return Either.left(
      new FailedPrecondition({
        detail: `${templated.join(" and ")} hold${templated.length > 1 ? "" : "s"} a \${…} reference, which only header values resolve; the request was not sent`,
        references: [],
      }),
    );
  const problems: Array<FieldProblem> = [];
  const pathArgs = isRecord(args.pathArgs) ? args.pathArgs : {};
  // docs/api-rules.md §15a: fixed query pairs (`const` properties) are sent when the caller leaves them out.
  const queryArgs = { ...fixedQueryValues(tool), ...(isRecord(args.queryArgs) ? args.queryArgs : {}) };
  const path = buildPath(tool, pathArgs, problems);
  const base = parsedBase(baseURL);
  if (base === undefined)
    return Either.left(invalidArguments([{ path: "baseURL", message: "the provider's base URL is not a valid URL" }]));
  const url = new URL(base.href);
  url.pathname = `${base.basePath}${path}`;
  url.hash = "";
  appendQuery(url, queryArgs, problems);
  const body = BODYLESS.has(tool.method) ? undefined : planBody(tool, args.bodyArgs, problems);
  if (problems.length > 0) return Either.left(invalidArguments(problems));
  return Either.right({ method: tool.method, url, body });
};
