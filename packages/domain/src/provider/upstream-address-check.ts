import { Context, Effect, Option } from "effect";
import type { FieldProblem } from "../errors/domain-errors.js";
import { invalid } from "../validation/decode-write.js";

/**
 * The upstream address policy as a write-time check (the policy itself lives with the outbound client,
 * @mcpsm/mcp-runtime's network policy; apps/api provides this port from it): why a URL the service will
 * call names an address the policy refuses (a literal IP in a refused range, or localhost), or undefined.
 * A host name is judged again at call time, on the address it resolves to.
 */
export class UpstreamAddressCheck extends Context.Tag("@mcpsm/domain/UpstreamAddressCheck")<
  UpstreamAddressCheck,
  { readonly refusal: (url: string) => string | undefined }
>() {}

/** Fails with 400 at `<root>.<field>` for each written URL the policy refuses; nothing when no check is provided. */
export const checkUpstreamUrls = (root: string, urls: Readonly<Record<string, string | undefined>>) =>
  Effect.flatMap(Effect.serviceOption(UpstreamAddressCheck), (check) => {
    if (Option.isNone(check)) return Effect.void;
    const problems: Array<FieldProblem> = [];
    for (const [field, url] of Object.entries(urls)) {
      if (url === undefined || url === "") continue;
      const refusal = check.value.refusal(url);
      if (refusal !== undefined) problems.push({ path: `${root}.${field}`, message: refusal });
    }
    return problems.length === 0 ? Effect.void : Effect.fail(invalid(problems));
  });
