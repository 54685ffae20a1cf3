import { Effect } from "effect";
import { ResourceExhausted } from "../errors/domain-errors.js";
import { orderedIds } from "../ids/ordered-ids.js";
import { newProviderRow, roomForProvider } from "../provider/new-provider.js";
import { alreadyExists } from "../use-case/use-case-kit.js";
import type { ExportedProvider } from "./export-schema.js";
import { type Base, promptRowOf, resourceRowOf, toolRowOf } from "./exported-rows.js";
import { type ImportRun, insertAll, needCreate, type ResolvedProvider } from "./server-import-run.js";

/** A provider of the document (`providers[i]`) that the tenant lacks: created with all its members. */
export const createdProvider = (run: ImportRun, doc: ExportedProvider, i: number) =>
  Effect.gen(function* () {
    const { tx, actor, at, quotas, report } = run;
    yield* needCreate(run, `provider '${doc.name}'`);
    yield* roomForProvider(tx, actor.tenant);
    if (doc.tools.length > quotas.toolsPerProvider)
      return yield* new ResourceExhausted({
        detail: `providers[${i}] has ${doc.tools.length} tools; a provider may hold at most ${quotas.toolsPerProvider}`,
      });
    const row = newProviderRow(actor.tenant, at, {
      ...doc,
      oauth2Config:
        doc.oauth2Config === undefined
          ? null
          : {
              clientID: doc.oauth2Config.clientID ?? "",
              clientSecretCipher: null,
              authURL: doc.oauth2Config.authURL ?? "",
              tokenURL: doc.oauth2Config.tokenURL ?? "",
            },
    });
    yield* tx.insertProvider(row).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.fail(alreadyExists(e))));
    run.newIds.add(row.id);
    const base = (id: string): Base => ({ id, providerId: row.id, createdAt: at, updatedAt: at });
    const toolIds = orderedIds(doc.tools.length);
    const tools = doc.tools.map((tool, j) => toolRowOf(tool, base(toolIds[j]!)));
    const prompts = orderedIds(doc.prompts.length).map((id, j) => promptRowOf(doc.prompts[j]!, base(id)));
    const resources = orderedIds(doc.resources.length).map((id, j) => resourceRowOf(doc.resources[j]!, base(id)));
    yield* insertAll(run, tools, tx.insertTool, (j) => `providers[${i}].tools[${j}]`);
    yield* insertAll(run, prompts, tx.insertPrompt, (j) => `providers[${i}].prompts[${j}]`);
    yield* insertAll(run, resources, tx.insertResource, (j) => `providers[${i}].resources[${j}]`);
    report.providers.created.push({ id: row.id, name: row.name, baseURL: row.baseURL });
    for (const tool of tools)
      report.tools.created.push({ provider: row.name, name: tool.name, method: tool.method, path: tool.path });
    for (const p of prompts) report.prompts.created.push({ provider: row.name, name: p.name });
    for (const r of resources) report.resources.created.push({ provider: row.name, name: r.name });
    if (row.oauth2Config !== null)
      report.warnings.push({
        path: `providers[${i}].oauth2Config`,
        message: `provider '${row.name}' was created without a client secret (an export never holds one): set oauth2Config.clientSecret with PATCH /providers/{id} if its authorization server requires one`,
      });
    return { row, tools, prompts, resources } satisfies ResolvedProvider;
  });
