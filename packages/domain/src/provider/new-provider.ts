import { Effect } from "effect";
import { ResourceExhausted } from "../errors/domain-errors.js";
import { newId } from "../ids/id.js";
import type { ProviderRow } from "../storage/rows.js";
import type { StorageTx } from "../storage/storage-port.js";
import { Quotas } from "../tenancy/quotas.js";
import { secretPrefixOf } from "./secret-prefix.js";

// What every way of making a provider shares (a create, an OpenAPI import, a server import): the tenant's
// provider quota and the new row with its defaults.

/** The fields a new provider is made of; absent optional ones take their defaults. */
export type NewProviderFields = Pick<ProviderRow, "name" | "baseURL" | "oauth2Config"> &
  Partial<Pick<ProviderRow, "apiType" | "visibilityType" | "documentURL" | "iconURL" | "description" | "secretPrefix">>;

/** A new provider's row: the tenant's, at version 1, made at `at`; its secret prefix from its base URL unless given. */
export const newProviderRow = (tenant: string, at: Date, fields: NewProviderFields): ProviderRow => ({
  id: newId(),
  tenant,
  createdAt: at,
  updatedAt: at,
  version: 1,
  apiType: fields.apiType ?? "REST",
  visibilityType: fields.visibilityType ?? "INTERNAL",
  baseURL: fields.baseURL,
  documentURL: fields.documentURL ?? "",
  iconURL: fields.iconURL ?? "",
  secretPrefix: fields.secretPrefix ?? secretPrefixOf(fields.baseURL),
  name: fields.name,
  description: fields.description ?? "",
  oauth2Config: fields.oauth2Config,
});

/** Fails with 429 when the tenant already holds its quota of providers (counted under the caller's quota lock). */
export const roomForProvider = (tx: StorageTx, tenant: string) =>
  Effect.gen(function* () {
    const quotas = yield* Quotas;
    if ((yield* tx.countProviders(tenant)) >= quotas.providersPerTenant)
      return yield* new ResourceExhausted({ detail: `the tenant already has ${quotas.providersPerTenant} providers` });
  });
