import type { PageTokenSigner } from "../secrets/page-token-signer.js";

type Signer = typeof PageTokenSigner.Service;

/** Where a keyset page ends: the last row's time and id. */
export interface PageCursor {
  readonly at: Date;
  readonly id: string;
}

/**
 * A nextToken: the cursor signed together with the tenant and the filters it belongs to. `timeKey` names the
 * time field of the payload, one per listing, so tokens already handed out keep verifying.
 */
export const signPageCursor = (
  signer: Signer,
  tenant: string,
  filterKey: string,
  timeKey: string,
  cursor: PageCursor,
) => signer.sign(JSON.stringify({ t: tenant, f: filterKey, [timeKey]: cursor.at.getTime(), i: cursor.id }));

/** The cursor of a nextToken signed by `signPageCursor` for this tenant and these filters; else undefined. */
export const verifyPageCursor = (
  signer: Signer,
  token: string,
  tenant: string,
  filterKey: string,
  timeKey: string,
): PageCursor | undefined => {
  const payload = signer.verify(token);
  if (payload === undefined) return undefined;
  try {
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    const at = parsed[timeKey];
    if (parsed.t !== tenant || parsed.f !== filterKey || typeof at !== "number" || typeof parsed.i !== "string")
      return undefined;
    return { at: new Date(at), id: parsed.i };
  } catch {
    return undefined;
  }
};
