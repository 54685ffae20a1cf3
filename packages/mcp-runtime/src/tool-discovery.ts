import { InvalidArgument } from "@mcpsm/domain/errors";
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { Either } from "effect";
import type { CompiledServer, CompiledTool } from "./compiled-server.js";

// Dynamic tool discovery (docs/api-rules.md §14): with the server's dynamicToolDiscoveryEnabled on, `tools/list`
// holds only these three tools and the model finds, reads and runs the real ones through them. The hook
// into the MCP server is two calls: `discoveryToolList` for tools/list and `discoveryToolCall` for
// tools/call. The latter is pure: it answers searchTools and getToolDefinition itself, and for useTool names
// the real tool and arguments, which the MCP server then runs through the very function tools/call uses.
// Caller mistakes (bad arguments, unknown names, a refused pattern) are InvalidArgument, which the edge's
// error model answers as a tool error result.

export const SEARCH_TOOLS = "searchTools";
export const GET_TOOL_DEFINITION = "getToolDefinition";
export const USE_TOOL = "useTool";

const SEARCH_LIMIT_DEFAULT = 10;
const SEARCH_LIMIT_MAX = 50;
const QUERY_MAX_LENGTH = 1_000;
const NAME_MAX_LENGTH = 256;

const searchSchema = {
  type: "object",
  properties: {
    query: {
      type: "string",
      minLength: 1,
      maxLength: QUERY_MAX_LENGTH,
      description:
        'What you want to do, in a few plain words ("refund a payment", "list open issues"), or a case-insensitive regular expression over tool names and titles written between slashes ("/^create/").',
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: SEARCH_LIMIT_MAX,
      default: SEARCH_LIMIT_DEFAULT,
      description: `How many tools to return, best first (1-${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT}).`,
    },
  },
  required: ["query"],
  additionalProperties: false,
} as const;

const nameProperty = {
  type: "string",
  minLength: 1,
  maxLength: NAME_MAX_LENGTH,
  description: "The exact tool name, as searchTools returned it.",
} as const;

const definitionSchema = {
  type: "object",
  properties: { name: nameProperty },
  required: ["name"],
  additionalProperties: false,
} as const;

const useSchema = {
  type: "object",
  properties: {
    name: nameProperty,
    arguments: {
      type: "object",
      description:
        'The tool\'s arguments, shaped exactly as the inputSchema from getToolDefinition says (for example {"pathArgs": {...}, "queryArgs": {...}, "bodyArgs": {...}}); {} when it takes none.',
    },
  },
  required: ["name", "arguments"],
  additionalProperties: false,
} as const;

/** The three tools `tools/list` shows when discovery is on (the count of tools behind them is in the text). */
export const discoveryToolList = (compiled: CompiledServer): Array<Tool> => [
  {
    name: SEARCH_TOOLS,
    title: "Search tools",
    description:
      `This server has ${compiled.toolList.length} tools, which are not listed directly. Call searchTools first ` +
      "with a few words describing the task; it returns the best matching tools (name, title, a one-line " +
      "description, required arguments, relevance score), best first. Then call getToolDefinition with the chosen name to read its input schema, " +
      "and useTool to run it. Search again with other words if nothing fits.",
    inputSchema: searchSchema as unknown as Tool["inputSchema"],
    annotations: {
      title: "Search tools",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
  {
    name: GET_TOOL_DEFINITION,
    title: "Get tool definition",
    description:
      "Returns one tool's full definition (name, title, description, inputSchema, annotations) by its exact " +
      "name from searchTools. Read its inputSchema before calling useTool: it says which arguments the tool " +
      "takes and which are required.",
    inputSchema: definitionSchema as unknown as Tool["inputSchema"],
    annotations: {
      title: "Get tool definition",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
  {
    name: USE_TOOL,
    title: "Use tool",
    description:
      "Runs one tool of this server by its exact name with arguments matching the inputSchema from " +
      "getToolDefinition, and returns exactly what the tool answers. The tool may change data: check its " +
      "annotations (readOnlyHint, destructiveHint) first.",
    inputSchema: useSchema as unknown as Tool["inputSchema"],
    annotations: {
      title: "Use tool",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
];

const ajv = new Ajv2020({ strict: true, allErrors: true, useDefaults: true });
const validators = {
  [SEARCH_TOOLS]: ajv.compile(searchSchema),
  [GET_TOOL_DEFINITION]: ajv.compile(definitionSchema),
  [USE_TOOL]: ajv.compile(useSchema),
} satisfies Record<string, ValidateFunction>;

const structuredResult = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value,
});

const invalid = (detail: string, path = "arguments") =>
  Either.left(new InvalidArgument({ detail, errors: [{ path, message: detail }] }));

const unknownTool = (name: string) =>
  invalid(`unknown tool '${name}': call ${SEARCH_TOOLS} to find the names of this server's tools`, "name");

/** The arguments' problems (the same `invalid arguments:` listing tools/call gives), or undefined when valid. */
const problemsOf = (validate: ValidateFunction, args: unknown): InvalidArgument | undefined => {
  if (validate(args)) return undefined;
  const errors = (validate.errors ?? []).map((error) => ({
    path: error.instancePath.replaceAll("/", ".").replace(/^\./, "") || "arguments",
    message: `${error.message ?? "is invalid"}${
      error.keyword === "additionalProperties"
        ? ` ('${String((error.params as { additionalProperty?: string }).additionalProperty)}')`
        : ""
    }`,
  }));
  return new InvalidArgument({
    detail: `invalid arguments:\n${errors.map((e) => `- ${e.path}: ${e.message}`).join("\n")}`,
    errors,
  });
};

/** What a discovery tool call comes to: an answer, or the real tool to run as tools/call would (useTool). */
export type DiscoveryAnswer =
  | { readonly kind: "result"; readonly result: CallToolResult }
  | { readonly kind: "use"; readonly tool: CompiledTool; readonly arguments: unknown };

/**
 * A tools/call of one of the three discovery tools, or undefined when `name` is not one of them (the caller
 * then treats it as an ordinary tool call). Only meaningful when the server has discovery on.
 */
export const discoveryToolCall = (
  compiled: CompiledServer,
  name: string,
  rawArgs: unknown,
): Either.Either<DiscoveryAnswer, InvalidArgument> | undefined => {
  if (name !== SEARCH_TOOLS && name !== GET_TOOL_DEFINITION && name !== USE_TOOL) return undefined;
  // ajv's useDefaults writes into the object it checks (only searchTools has a default): validate a copy of
  // its arguments; useTool's are checked in place, so running a tool through it copies nothing.
  const args: unknown = rawArgs === undefined ? {} : name === SEARCH_TOOLS ? structuredClone(rawArgs) : rawArgs;
  const problems = problemsOf(validators[name], args);
  if (problems !== undefined) return Either.left(problems);
  const given = args as Record<string, unknown>;
  if (name === SEARCH_TOOLS) {
    const outcome = compiled.toolIndex().search(given.query as string, given.limit as number);
    if (!outcome.ok) return invalid(outcome.message, "query");
    return Either.right({ kind: "result", result: structuredResult({ tools: outcome.hits }) });
  }
  const tool = compiled.tools.get(given.name as string);
  if (tool === undefined) return unknownTool(given.name as string);
  if (name === GET_TOOL_DEFINITION)
    return Either.right({ kind: "result", result: structuredResult(tool.definition as Record<string, unknown>) });
  return Either.right({ kind: "use", tool, arguments: (rawArgs as Record<string, unknown>).arguments });
};
