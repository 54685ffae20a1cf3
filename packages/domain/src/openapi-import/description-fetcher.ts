import { Context, type Effect } from "effect";
import type { InvalidArgument } from "../errors/domain-errors.js";

/**
 * The port through which an import given `import.url` gets the description's text. The service's adapter
 * fetches under the upstream address policy (apps/api); every refusal is an InvalidArgument at `import.url`.
 */
export class DescriptionFetcher extends Context.Tag("@mcpsm/domain/DescriptionFetcher")<
  DescriptionFetcher,
  { readonly fetch: (url: string) => Effect.Effect<string, InvalidArgument> }
>() {}
