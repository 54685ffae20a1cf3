// Argument capture (docs/api-rules.md §24), for a server that opted in: the call's arguments kept with their
// shape (keys, array lengths, numbers, booleans, nulls) and every string replaced by a mask, so no value that
// could be a secret or personal data is stored. Values under a key that names a credential are masked
// whatever their type. Deep or wide arguments are cut.

/** What a masked value reads as. */
export const MASK = "***";

const SECRET_KEY = /pass|secret|token|key|auth|credential|cookie|session|signature/i;
const MAX_DEPTH = 8;
const MAX_ITEMS = 20;
const MAX_KEYS = 50;

const masked = (value: unknown, depth: number): unknown => {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : MASK;
  if (typeof value !== "object") return MASK;
  if (depth >= MAX_DEPTH) return MASK;
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => masked(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value).slice(0, MAX_KEYS))
    out[key] = SECRET_KEY.test(key) ? MASK : masked(item, depth + 1);
  return out;
};

/** The arguments of a call as argument capture stores them: shape kept, every string masked. */
export const maskArguments = (args: unknown): unknown => masked(args ?? {}, 0);
