import type { PromptRow } from "../storage/rows.js";
import { providerChildUseCases } from "../use-case/provider-child-use-cases.js";
import { toPromptRecord } from "./prompt-record.js";
import { PROMPT_OUTPUT_FIELDS, PromptCreate, PromptPatch } from "./prompt-schema.js";

/** Prompts of a provider: create, get, list, update, delete. */
export const promptUseCases = providerChildUseCases({
  kind: "prompt",
  create: PromptCreate,
  patch: PromptPatch,
  outputFields: PROMPT_OUTPUT_FIELDS,
  store: (tx) => ({
    insert: tx.insertPrompt,
    update: tx.updatePrompt,
    remove: tx.deletePrompt,
    find: tx.findPrompt,
    list: tx.listPrompts,
  }),
  build: (input, base): PromptRow => ({
    ...base,
    name: input.name,
    description: input.description ?? "",
    arguments: input.arguments ?? [],
    messages: input.messages ?? [],
  }),
  merge: (stored, patch): PromptRow => ({
    ...stored,
    name: patch.name ?? stored.name,
    description: patch.description ?? stored.description,
    arguments: patch.arguments ?? stored.arguments,
    messages: patch.messages ?? stored.messages,
  }),
  toRecord: toPromptRecord,
});
