import type { BodyEncoding } from "../tool/tool-body-fields.js";

// An `application/x-www-form-urlencoded` body by the serialisation rules of OpenAPI 3 (Encoding Object:
// `style`, `explode`, `contentType` per top-level property). Defaults: style `form`, explode true.
// - scalars: `name=value`; null is left out;
// - arrays: form+explode `name=a&name=b`; form `name=a,b`; spaceDelimited `name=a b`; pipeDelimited
//   `name=a|b`; deepObject `name[0]=a&name[1]=b`;
// - objects: form+explode `k1=v1&k2=v2`; form `name=k1,v1,k2,v2`; deepObject `name[k1]=v1`;
// - what OpenAPI leaves undefined (values nested deeper than those forms reach) takes bracket keys at any
//   depth, `items[0][price]=p` (Stripe's convention, that of Rails, PHP and `qs`);
// - a property whose encoding names a JSON `contentType` is sent as its JSON text.

type Pair = [string, string];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const scalarText = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : undefined;

/** `value` under bracket keys: `key[a][0]=v` at any depth. */
export const bracketPairs = (key: string, value: unknown, out: Array<[string, string]>): void => {
  if (value === null || value === undefined) return;
  const text = scalarText(value);
  if (text !== undefined) out.push([key, text]);
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) bracketPairs(`${key}[${i}]`, item, out);
  else if (isRecord(value))
    for (const [name, item] of Object.entries(value)) bracketPairs(`${key}[${name}]`, item, out);
};

const DELIMITERS = { form: ",", spaceDelimited: " ", pipeDelimited: "|" } as const;

/** The pairs of one top-level property. */
const propertyPairs = (name: string, value: unknown, encoding: BodyEncoding[string] | undefined, out: Array<Pair>) => {
  if (value === null || value === undefined) return;
  const text = scalarText(value);
  if (text !== undefined) {
    out.push([name, text]);
    return;
  }
  const contentType = encoding?.contentType?.toLowerCase() ?? "";
  if (/^application\/(?:[\w.+-]+\+)?json\b/.test(contentType)) {
    out.push([name, JSON.stringify(value)]);
    return;
  }
  const style = encoding?.style ?? "form";
  const explode = encoding?.explode ?? style === "form";
  if (style === "deepObject") return bracketPairs(name, value, out);
  const flat = (items: ReadonlyArray<unknown>) =>
    items.every((item) => scalarText(item) !== undefined || item === null);
  if (Array.isArray(value) && flat(value)) {
    const texts = value.flatMap((item) => (item === null ? [] : [scalarText(item) as string]));
    if (explode && style === "form") for (const item of texts) out.push([name, item]);
    else out.push([name, texts.join(DELIMITERS[style])]);
    return;
  }
  if (isRecord(value) && flat(Object.values(value))) {
    const entries = Object.entries(value).filter(([, item]) => item !== null && item !== undefined);
    if (explode && style === "form") for (const [key, item] of entries) out.push([key, scalarText(item) as string]);
    else out.push([name, entries.flatMap(([key, item]) => [key, scalarText(item) as string]).join(",")]);
    return;
  }
  bracketPairs(name, value, out);
};

/** The name/value pairs of a form body, in the order of `value`'s properties. */
export const formPairs = (value: Record<string, unknown>, encoding: BodyEncoding): Array<Pair> => {
  const out: Array<Pair> = [];
  for (const [name, item] of Object.entries(value)) propertyPairs(name, item, encoding[name], out);
  return out;
};
