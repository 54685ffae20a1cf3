// The real-API tool catalog of ../shared/tool-catalog (read at run time; the bench only), as the tools
// an OpenAPI import makes: name from the operationId, title from the summary, method, path, argument names.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const CATALOG_PATH = process.env.TOOL_CATALOG ?? resolve(here, "../../../shared/tool-catalog/catalog.json");

/** A tool name by the service's rule (camelCase, 1-20 characters): `repos/list-for-org` → `reposListForOrg`. */
const camelName = (operationId) => {
  const parts = operationId.split(/[^A-Za-z0-9]+/).filter((p) => p !== "");
  const joined = parts
    .map((p, i) => (i === 0 ? p[0].toLowerCase() + p.slice(1) : p[0].toUpperCase() + p.slice(1)))
    .join("");
  return joined.slice(0, 20);
};

/** [{ id, api, tool: SearchableTool, summary, description }] */
export const loadCatalog = () => {
  const { tools } = JSON.parse(readFileSync(CATALOG_PATH, "utf8"));
  const taken = new Set();
  const toolName = (operationId) => {
    const base = camelName(operationId);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 20 - String(n).length)}${n}`;
    taken.add(name);
    return name;
  };
  return tools.map((t) => ({
    id: t.id,
    api: t.api,
    summary: t.summary ?? "",
    description: t.description ?? "",
    tool: {
      name: toolName(t.operationId),
      title: t.summary ?? t.short ?? "",
      description: t.description ?? "",
      method: t.method,
      path: t.path,
      arguments: [...t.parameters, ...t.body_parameters].map((name) => ({ name })),
    },
  }));
};
