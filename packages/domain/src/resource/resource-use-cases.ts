import type { ResourceRow } from "../storage/rows.js";
import type { Actor } from "../tenancy/actor.js";
import { defineUseCase } from "../use-case/define-use-case.js";
import { providerChildUseCases } from "../use-case/provider-child-use-cases.js";
import { toResourceRecord } from "./resource-record.js";
import { ResourceCreate, ResourcePatch } from "./resource-schema.js";

/** The steps of a provider's resources; the use cases below put each behind its scope. */
const resources = providerChildUseCases({
  kind: "resource",
  create: ResourceCreate,
  patch: ResourcePatch,
  reads: (tx) => ({ find: tx.findResource, list: tx.listResources }),
  store: (tx) => ({ insert: tx.insertResource, update: tx.updateResource, remove: tx.deleteResource }),
  build: (input, base): ResourceRow => ({
    ...base,
    name: input.name,
    description: input.description ?? "",
    uri: input.uri,
    mimeType: input.mimeType ?? "",
    size: input.size ?? 0,
    annotations: input.annotations ?? {},
  }),
  merge: (stored, patch): ResourceRow => ({
    ...stored,
    name: patch.name ?? stored.name,
    description: patch.description ?? stored.description,
    uri: patch.uri ?? stored.uri,
    mimeType: patch.mimeType ?? stored.mimeType,
    size: patch.size ?? stored.size,
    annotations: patch.annotations ?? stored.annotations,
  }),
  toRecord: toResourceRecord,
});

/** Input of `listProviderResources`. */
export interface ListProviderResourcesInput {
  readonly providerId: string;
}

/** Input of `createProviderResource`: the resource's fields. */
export interface CreateProviderResourceInput {
  readonly providerId: string;
  readonly resource: ResourceCreate;
}

/** Input of `getProviderResource` and `deleteProviderResource`. */
export interface ProviderResourceRef {
  readonly providerId: string;
  readonly resourceId: string;
}

/** Input of `updateProviderResource`: the fields to change. */
export interface UpdateProviderResourceInput extends ProviderResourceRef {
  readonly resource: ResourcePatch;
}

/** The resources of a provider the actor can see. */
export const listProviderResources = defineUseCase(
  "listProviderResources",
  (actor: Actor, input: ListProviderResourcesInput) => resources.list(actor, input.providerId),
);

/** Adds a resource to a provider of the actor's tenant (a new version of the provider). */
export const createProviderResource = defineUseCase(
  "createProviderResource",
  (actor: Actor, input: CreateProviderResourceInput) => resources.create(actor, input.providerId, input.resource),
);

/** One resource of a provider the actor can see. */
export const getProviderResource = defineUseCase("getProviderResource", (actor: Actor, input: ProviderResourceRef) =>
  resources.get(actor, input.providerId, input.resourceId),
);

/** Changes a resource of a provider of the actor's tenant (a new version of the provider). */
export const updateProviderResource = defineUseCase(
  "updateProviderResource",
  (actor: Actor, input: UpdateProviderResourceInput) =>
    resources.update(actor, input.providerId, input.resourceId, input.resource),
);

/** Deletes a resource of a provider of the actor's tenant, unless a server uses it. */
export const deleteProviderResource = defineUseCase(
  "deleteProviderResource",
  (actor: Actor, input: ProviderResourceRef) => resources.remove(actor, input.providerId, input.resourceId),
);

/** This file's use cases under their operation names (a row of the domain's `USE_CASES`). */
export const PROVIDER_RESOURCE_USE_CASES = {
  listProviderResources,
  createProviderResource,
  getProviderResource,
  updateProviderResource,
  deleteProviderResource,
} as const;
