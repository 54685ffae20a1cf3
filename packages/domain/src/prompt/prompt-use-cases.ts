import type { PromptRow } from "../storage/rows.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { providerChildUseCases } from "../use-case/provider-child-use-cases.js";
import { toPromptRecord } from "./prompt-record.js";
import { PromptCreate, PromptPatch } from "./prompt-schema.js";

/** The steps of a provider's prompts; the use cases below put each behind its scope. */
const prompts = providerChildUseCases({
  kind: "prompt",
  create: PromptCreate,
  patch: PromptPatch,
  reads: (tx) => ({ find: tx.findPrompt, list: tx.listPrompts }),
  store: (tx) => ({ insert: tx.insertPrompt, update: tx.updatePrompt, remove: tx.deletePrompt }),
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

/** Input of `listProviderPrompts`. */
export interface ListProviderPromptsInput {
  readonly providerId: string;
}

/** Input of `createProviderPrompt`: the prompt's fields. */
export interface CreateProviderPromptInput {
  readonly providerId: string;
  readonly prompt: PromptCreate;
}

/** Input of `getProviderPrompt` and `deleteProviderPrompt`. */
export interface ProviderPromptRef {
  readonly providerId: string;
  readonly promptId: string;
}

/** Input of `updateProviderPrompt`: the fields to change. */
export interface UpdateProviderPromptInput extends ProviderPromptRef {
  readonly prompt: PromptPatch;
}

/** The prompts of a provider the actor can see. */
export const listProviderPrompts = defineUseCase(
  "listProviderPrompts",
  (actor: Actor, input: ListProviderPromptsInput) => prompts.list(actor, input.providerId),
);

/** Adds a prompt to a provider of the actor's tenant (a new version of the provider). */
export const createProviderPrompt = defineUseCase(
  "createProviderPrompt",
  (actor: Actor, input: CreateProviderPromptInput) => prompts.create(actor, input.providerId, input.prompt),
);

/** One prompt of a provider the actor can see. */
export const getProviderPrompt = defineUseCase("getProviderPrompt", (actor: Actor, input: ProviderPromptRef) =>
  prompts.get(actor, input.providerId, input.promptId),
);

/** Changes a prompt of a provider of the actor's tenant (a new version of the provider). */
export const updateProviderPrompt = defineUseCase(
  "updateProviderPrompt",
  (actor: Actor, input: UpdateProviderPromptInput) =>
    prompts.update(actor, input.providerId, input.promptId, input.prompt),
);

/** Deletes a prompt of a provider of the actor's tenant, unless a server uses it. */
export const deleteProviderPrompt = defineUseCase("deleteProviderPrompt", (actor: Actor, input: ProviderPromptRef) =>
  prompts.remove(actor, input.providerId, input.promptId),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const PROVIDER_PROMPT_USE_CASES = {
  listProviderPrompts,
  createProviderPrompt,
  getProviderPrompt,
  updateProviderPrompt,
  deleteProviderPrompt,
} as const;
