import type { FieldProblem } from "../errors/domain-errors.js";
import { matchKey } from "../openapi-import/operation-mapping.js";
import { pathPlaceholders } from "../tool/tool-schema.js";
import type { ServerExportDocument } from "./export-schema.js";

// The rules of an import document that its schema cannot state alone: what would otherwise fail half-way
// through the transaction as a uniqueness breach is refused up front as a 400 naming the document's path.

/** Every `{placeholder}` of a tool path must be a required property of its path arguments schema. */
const placeholderProblem = (path: string, schema: Readonly<Record<string, unknown>> | undefined) => {
  const required = Array.isArray(schema?.required) ? (schema.required as ReadonlyArray<unknown>) : [];
  const properties = schema?.properties;
  const declared = typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
  return pathPlaceholders(path).filter((name) => !required.includes(name) || !declared.includes(name));
};

/** Each value of `keyOf` at most once in `items`; a repeat is reported at `path(i)`. */
const duplicates = <T>(
  items: ReadonlyArray<T>,
  keyOf: (item: T) => string,
  path: (i: number) => string,
  what: (item: T) => string,
  problems: Array<FieldProblem>,
) => {
  const seen = new Map<string, number>();
  for (const [i, item] of items.entries()) {
    const key = keyOf(item);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else problems.push({ path: path(i), message: `${what(item)} is listed twice (also at index ${first})` });
  }
};

/**
 * The problems of a decoded document beyond its schema: a provider twice (by name), a tool twice in a provider
 * (by name, or by method and path), a prompt or resource twice in a provider (by name), a chosen tool name
 * twice in the server (one MCP tool list), a path placeholder its schema does not require, a variable twice.
 */
export const documentProblems = (document: ServerExportDocument): ReadonlyArray<FieldProblem> => {
  const problems: Array<FieldProblem> = [];
  duplicates(
    document.providers,
    (p) => p.name,
    (i) => `providers[${i}].name`,
    (p) => `provider '${p.name}'`,
    problems,
  );
  const toolNames = new Map<string, string>();
  for (const [i, provider] of document.providers.entries()) {
    const at = `providers[${i}]`;
    duplicates(
      provider.tools,
      (t) => t.name,
      (j) => `${at}.tools[${j}].name`,
      (t) => `tool '${t.name}'`,
      problems,
    );
    duplicates(
      provider.tools,
      (t) => matchKey(t.method, t.path),
      (j) => `${at}.tools[${j}].path`,
      (t) => `operation ${t.method} ${t.path}`,
      problems,
    );
    duplicates(
      provider.prompts,
      (p) => p.name,
      (j) => `${at}.prompts[${j}].name`,
      (p) => `prompt '${p.name}'`,
      problems,
    );
    duplicates(
      provider.resources,
      (r) => r.name,
      (j) => `${at}.resources[${j}].name`,
      (r) => `resource '${r.name}'`,
      problems,
    );
    for (const [j, tool] of provider.tools.entries()) {
      for (const name of placeholderProblem(tool.path, tool.pathArgsJSONSchema))
        problems.push({
          path: `${at}.tools[${j}].pathArgsJSONSchema`,
          message: `placeholder {${name}} of the path must be a required property of pathArgsJSONSchema`,
        });
      const other = toolNames.get(tool.name);
      if (other !== undefined && !other.startsWith(`${at}.`))
        problems.push({
          path: `${at}.tools[${j}].name`,
          message: `tool '${tool.name}' is also chosen at ${other}; a server's tool names must differ`,
        });
      else if (other === undefined) toolNames.set(tool.name, `${at}.tools[${j}]`);
    }
  }
  duplicates(
    document.variables,
    (v) => v.name,
    (i) => `variables[${i}].name`,
    (v) => `variable '${v.name}'`,
    problems,
  );
  return problems;
};
