import { countTokens, measureTokens } from "../tokens/count-tokens.js";
import { type PagingHints, pagingHintsOf } from "./paging-hints.js";

/** What a cut left out, and how to ask for the rest. */
export interface CutNote {
  /** Each array that lost items: where (`data`, `result.items`; `` for the root), how many stayed, of how many. */
  readonly arrays: ReadonlyArray<{ readonly path: string; readonly kept: number; readonly of: number }>;
  /** Properties left out whole (optional ones only), by path. */
  readonly properties: ReadonlyArray<string>;
  readonly narrowWith: PagingHints;
  /** The note for the model, in one paragraph (the runtime adds it as a text block beside the answer). */
  readonly message: string;
}

export interface FitOutcome {
  /** The answer, cut or not. */
  readonly value: unknown;
  readonly text: string;
  /** False when even the smallest cut the schema allows is over the limit (the runtime answers a tool error). */
  readonly fits: boolean;
  /** Before and after the cut; `after` is counted whenever a cut was made, `exact` says whether `before` was. */
  readonly tokens: { readonly before: number; readonly after: number; readonly exact: boolean };
  readonly cut: CutNote | undefined;
}

export interface FitOptions {
  /** The JSON Schema the answer must still satisfy (the value's own, before any `{result: …}` wrapping). */
  readonly schema?: unknown;
  /** The tool's `queryArgsJSONSchema`, for the arguments that page or narrow the request. */
  readonly queryArgsSchema?: unknown;
  /** The answer's JSON text, when the caller has it. */
  readonly text?: string;
}

type Path = ReadonlyArray<string>;
type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The subschema at `path` through `properties` (undefined where the schema does not say). */
const schemaAt = (schema: unknown, path: Path): JsonObject | undefined => {
  let node: unknown = schema;
  for (const key of path) {
    const properties = isObject(node) ? node.properties : undefined;
    node = isObject(properties) ? properties[key] : undefined;
  }
  return isObject(node) ? node : undefined;
};

const at = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), value);

/** `value` with the node at `path` replaced (copies along the path only), or removed when `next` is absent. */
const replaced = (value: unknown, path: Path, next: unknown, remove = false): unknown => {
  if (path.length === 0) return next;
  const [head, ...rest] = path as [string, ...string[]];
  if (!isObject(value)) return value;
  const copy: JsonObject = { ...value };
  if (rest.length === 0 && remove) delete copy[head];
  else copy[head] = replaced(value[head], rest, next, remove);
  return copy;
};

/** The paths of the answer's non-empty arrays outside other arrays. */
const arrayPaths = (value: unknown, path: Path = [], depth = 0): Array<Path> => {
  if (Array.isArray(value)) return value.length > 0 ? [path] : [];
  if (!isObject(value) || depth > 6) return [];
  return Object.entries(value).flatMap(([k, v]) => arrayPaths(v, [...path, k], depth + 1));
};

/**
 * Those arrays with their JSON length, largest first. An array's length is the answer's less the answer's
 * with the array emptied: cheap when the array is most of the answer, as the one worth cutting is.
 */
const arraysOf = (value: unknown, textLength: number): Array<{ path: Path; size: number }> =>
  arrayPaths(value)
    .map((path) => ({ path, size: textLength - JSON.stringify(replaced(value, path, [])).length + 2 }))
    .sort((a, b) => b.size - a.size);

const pathText = (path: Path): string => path.join(".");

const noteOf = (
  before: number,
  after: number,
  limit: number,
  arrays: CutNote["arrays"],
  properties: ReadonlyArray<string>,
  hints: PagingHints,
): string => {
  const parts = [
    ...arrays.map((a) => `kept ${a.kept} of ${a.of} items of ${a.path === "" ? "the answer" : `\`${a.path}\``}`),
    ...(properties.length > 0 ? [`left out ${properties.map((p) => `\`${p}\``).join(", ")}`] : []),
  ];
  return `This answer was cut to fit the server's limit of ${limit} tokens (it had about ${before}; ${after} remain): ${parts.join("; ")}.${narrowingAdvice(hints)}`;
};

/** The sentence that tells the model which query arguments page or narrow the request. */
export const narrowingAdvice = (hints: PagingHints): string => {
  const args = [...hints.pageSize, ...hints.position, ...hints.narrow];
  return args.length > 0
    ? ` To see the rest, page or narrow the request with the query arguments ${args.map((a) => `\`${a}\``).join(", ")}.`
    : " Ask for fewer records to see the rest.";
};

/**
 * The answer cut at JSON boundaries to fit `limit` o200k_base tokens: items off the end of its largest
 * arrays (never below the schema's `minItems`), then optional properties of the root (largest first, never
 * a `required` one), so the cut answer still validates against `schema`. An answer that fits is returned
 * as is, uncounted when its byte length already proves it (`measureTokens`).
 */
export const fitToTokens = (value: unknown, limit: number, options: FitOptions = {}): FitOutcome => {
  const text = options.text ?? JSON.stringify(value) ?? "null";
  const first = measureTokens(text, limit);
  if (first.within)
    return {
      value,
      text,
      fits: true,
      tokens: { before: first.tokens, after: first.tokens, exact: first.exact },
      cut: undefined,
    };
  const hints = pagingHintsOf(options.queryArgsSchema);
  let current = value;
  let currentText = text;
  let tokens = first.tokens;
  const kept = new Map<string, { kept: number; of: number }>();
  const dropped: Array<string> = [];
  for (let round = 0; round < 8; round++) {
    // Aim a little under the limit, at the token density the answer has.
    const targetChars = Math.floor((currentText.length * limit * 0.97) / tokens);
    let excess = currentText.length - targetChars;
    for (const array of arraysOf(current, currentText.length)) {
      if (excess <= 0) break;
      const items = at(current, array.path) as ReadonlyArray<unknown>;
      const minItems = Number(schemaAt(options.schema, array.path)?.minItems ?? 0);
      const room = array.size - excess;
      let size = 2;
      let keep = 0;
      while (keep < items.length) {
        const next = size + JSON.stringify(items[keep]).length + (keep > 0 ? 1 : 0);
        if (next > room && keep >= minItems) break;
        size = next;
        keep += 1;
      }
      if (keep === items.length) continue;
      current = replaced(current, array.path, items.slice(0, keep));
      excess -= array.size - size;
      const key = pathText(array.path);
      kept.set(key, { kept: keep, of: kept.get(key)?.of ?? items.length });
    }
    if (excess > 0 && isObject(current)) {
      const required = new Set((schemaAt(options.schema, [])?.required as Array<string> | undefined) ?? []);
      const optional = Object.entries(current)
        .filter(([k]) => !required.has(k))
        .map(([k, v]) => ({ k, size: JSON.stringify(v).length + k.length + 4 }))
        .sort((a, b) => b.size - a.size);
      for (const { k, size } of optional) {
        if (excess <= 0) break;
        current = replaced(current, [k], undefined, true);
        dropped.push(k);
        excess -= size;
      }
    }
    const nextText = JSON.stringify(current);
    if (nextText === currentText) break;
    currentText = nextText;
    tokens = countTokens(currentText);
    if (tokens <= limit) break;
  }
  const arrays = [...kept].map(([path, k]) => ({ path, ...k }));
  const fits = tokens <= limit;
  return {
    value: current,
    text: currentText,
    fits,
    tokens: { before: first.tokens, after: tokens, exact: first.exact },
    cut: {
      arrays,
      properties: dropped,
      narrowWith: hints,
      message: noteOf(first.tokens, tokens, limit, arrays, dropped, hints),
    },
  };
};
