import type { ResourceRow } from "../storage/rows.js";
import { providerChildUseCases } from "../use-case/provider-child-use-cases.js";
import { toResourceRecord } from "./resource-record.js";
import { RESOURCE_OUTPUT_FIELDS, ResourceCreate, ResourcePatch } from "./resource-schema.js";

/** Resources of a provider: create, get, list, update, delete. */
export const resourceUseCases = providerChildUseCases({
  kind: "resource",
  create: ResourceCreate,
  patch: ResourcePatch,
  outputFields: RESOURCE_OUTPUT_FIELDS,
  store: (tx) => ({
    insert: tx.insertResource,
    update: tx.updateResource,
    remove: tx.deleteResource,
    find: tx.findResource,
    list: tx.listResources,
  }),
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
