import type { JsonObject } from "../validation/text.js";

// docs/api-rules.md §15a: an operation path may carry a fixed query or a fragment (`/{Bucket}?uploads`,
// `/?Action=DescribeRegions&Version=2016-11-15`, `/#X-Amz-Target=Service.Op`, `/files/{id}#add`). The tool
// calls the part before `?`/`#`; each fixed query pair is sent on every call as a `const` query argument; the
// fragment only tells operations apart (the whole path as written is what a re-sync matches by).

/** An operation path taken apart. */
export interface OperationPath {
  /** The part the tool calls: before `?` and `#` ("/" when that part is empty). */
  readonly path: string;
  /** The fixed query pairs, in order: `?uploads` is `["uploads", ""]`. */
  readonly query: ReadonlyArray<readonly [string, string]>;
  /** The fragment without `#` ("" when none). */
  readonly fragment: string;
}

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
};

/** Takes `/a/{id}?x=1&y#frag` apart into `/a/{id}`, `[[x, 1], [y, ""]]` and `frag`. */
export const splitOperationPath = (written: string): OperationPath => {
  const hash = written.indexOf("#");
  const beforeHash = hash < 0 ? written : written.slice(0, hash);
  const fragment = hash < 0 ? "" : written.slice(hash + 1);
  const question = beforeHash.indexOf("?");
  const path = question < 0 ? beforeHash : beforeHash.slice(0, question);
  const query =
    question < 0
      ? []
      : beforeHash
          .slice(question + 1)
          .split("&")
          .filter((pair) => pair !== "")
          .map((pair): readonly [string, string] => {
            const equals = pair.indexOf("=");
            return equals < 0 ? [decoded(pair), ""] : [decoded(pair.slice(0, equals)), decoded(pair.slice(equals + 1))];
          });
  return { path: path === "" ? "/" : path, query, fragment };
};

/**
 * The query arguments a path's fixed pairs add: `const` string properties, required. A pair whose value is a
 * `{placeholder}`, or whose name the operation declares as a query parameter, is left to that parameter.
 */
export const fixedQueryProperties = (
  query: OperationPath["query"],
  declared: ReadonlySet<string>,
): Array<[string, JsonObject]> =>
  query
    .filter(([name], i) => query.findIndex(([other]) => other === name) === i)
    .filter(([name, value]) => name !== "" && !declared.has(name) && !/\{[^{}]*\}/.test(value))
    .map(([name, value]) => [
      name,
      { type: "string", const: value, description: "fixed by the API description: sent on every call" },
    ]);
