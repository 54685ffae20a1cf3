import { queryDecoder, type RawQuery } from "../listing/query-parameters.js";
import { ProviderListParameters } from "../provider/provider-schema.js";

export type { RawQuery };

/**
 * Decodes the query string of `GET /providers` with `ProviderListParameters`: every bad, repeated or unknown
 * parameter is reported at once, located by its name.
 */
export const decodeProviderListQuery = queryDecoder(ProviderListParameters);
