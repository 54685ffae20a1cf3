// The size of tools/list for a 500-tool server, with and without dynamic tool discovery, in tokens.
// Tools: 500 operations of the 18-API catalog of catalog.mjs, round-robin over the APIs, each defined the way
// the service shows it (toolEntry: path/query/body argument schemas with one string property per
// parameter; real imported schemas with types and descriptions are larger, so "without" is a lower bound).
// Tokens: gpt-tokenizer's o200k_base BPE (GPT-4o family) over the JSON result; other models' tokenizers differ
// by some percent, and ~4 characters per token is the usual rule of thumb (characters are printed too).
//   node bench/tool-search/tokens.mjs      (after `pnpm run build`)
import { discoveryToolList, toolEntry } from "@mcpsm/mcp-runtime";
import { ToolIndex } from "@mcpsm/tool-search";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { loadCatalog } from "./catalog.mjs";

const SIZE = 500;
const catalog = await loadCatalog();
// Round-robin over the APIs so the 500 tools mix domains like a composed server would.
const byApi = Object.groupBy(catalog, (c) => c.api);
const picked = [];
for (let i = 0; picked.length < SIZE; i++)
  for (const list of Object.values(byApi)) if (list[i] && picked.length < SIZE) picked.push(list[i]);

const objectOf = (names) =>
  names.length === 0
    ? null
    : { type: "object", properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])) };
const definitions = picked.map(({ tool }) => {
  const placeholders = new Set([...tool.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]));
  const params = tool.arguments.map((a) => a.name);
  const pathArgs = objectOf(params.filter((p) => placeholders.has(p)));
  return toolEntry(
    {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      method: tool.method,
      path: tool.path,
      pathArgsJSONSchema: pathArgs && { ...pathArgs, required: Object.keys(pathArgs.properties) },
      queryArgsJSONSchema: objectOf(params.filter((p) => !placeholders.has(p))),
      reqBodyJSONSchema: null,
      respBodyJSONSchema: {},
      // The tool row's response filter (issue 28): none, so the declared output schema is the answer's.
      responseFilter: null,
    },
    { name: "", iconURL: "" },
  );
});

const measure = (value) => {
  const text = JSON.stringify(value);
  return { chars: text.length, tokens: countTokens(text) };
};
const without = measure({ tools: definitions });
const withDiscovery = measure({ tools: discoveryToolList({ toolList: definitions }) });
const index = new ToolIndex(picked.map((c) => c.tool));
const search = index.search("create a pull request", 10);
const searchResult = measure({ tools: search.ok ? search.hits : [] });
const oneDefinition = measure(definitions[0]);
const tokensPerHit = search.ok && search.hits.length > 0 ? searchResult.tokens / search.hits.length : 0;
console.log(`tools/list of a ${SIZE}-tool server (o200k_base tokens / characters):`);
console.log(`  without discovery: ${without.tokens} tokens / ${without.chars} chars`);
console.log(`  with discovery:    ${withDiscovery.tokens} tokens / ${withDiscovery.chars} chars`);
console.log(
  `  a searchTools answer (10 hits, one-line descriptions and required arguments): ${searchResult.tokens} tokens (${tokensPerHit.toFixed(0)} a hit); a getToolDefinition answer: ${oneDefinition.tokens} tokens`,
);
