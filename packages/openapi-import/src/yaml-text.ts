import type { FieldProblem } from "@mcpsm/domain";
import { createRequire } from "node:module";

// YAML descriptions, read in time linear in their text, with budgets that count what they walk:
// - a first pass over the characters bounds the entries (lines and flow items) before any parser runs;
// - duplicate keys are found with one Set per mapping (the parser's own `uniqueKeys` check is quadratic);
// - aliases are counted in the syntax tree before the value is built (resolving one alias scans the
//   anchors before it, so their number must be bounded first);
// - a document the strict YAML 1.2 parser refuses is read again by js-yaml, which accepts what YAML 1.1
//   tools accept (Docker Engine's description continues double-quoted text at the key's indentation).
// What aliases expand into is bounded afterwards, on the value (shared-nodes.ts), whichever parser made it.

const require = createRequire(import.meta.url);
/** The parsers, loaded with the first YAML description rather than with the service (most arrive as JSON). */
const yaml = () => require("yaml") as typeof import("yaml");
const jsYaml = () => require("js-yaml") as typeof import("js-yaml");

/** Most entries (line breaks plus commas) a YAML text may hold: Stripe's 4 MiB description has 117,000. */
export const MAX_YAML_ENTRIES = 500_000;

/** Most aliases (`*name`) one YAML document may use. */
export const MAX_YAML_ALIASES = 10_000;

export type ReadYaml =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: Array<FieldProblem> };

const errorText = (error: unknown) =>
  error instanceof RangeError ? "it is nested too deeply" : error instanceof Error ? error.message : String(error);

/** Line breaks and commas of `text`: an upper bound of its YAML entries, counted without parsing. */
const entriesOf = (text: string): number => {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 44) count++;
  }
  return count;
};

type YamlDocument = ReturnType<typeof import("yaml").parseDocument>;

/**
 * One walk of the syntax tree, without recursion and without following aliases: the aliases it holds and
 * the first duplicate key of a mapping (with its line), each mapping's keys in a Set.
 */
const syntaxProblems = (document: YamlDocument, root: string, text: string): Array<FieldProblem> => {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yaml();
  const stack: Array<unknown> = [document.contents];
  let aliases = 0;
  /** The line of an offset, for the one problem reported. */
  const lineOf = (offset: number | undefined) => {
    if (offset === undefined) return "";
    let line = 1;
    for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
    return ` at line ${line}`;
  };
  while (stack.length > 0) {
    const node = stack.pop();
    if (isAlias(node)) {
      if (++aliases > MAX_YAML_ALIASES)
        return [{ path: root, message: `uses more than ${MAX_YAML_ALIASES.toLocaleString("en")} YAML aliases` }];
    } else if (isMap(node)) {
      const keys = new Set<string>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          const key = String(pair.key.value);
          if (keys.has(key))
            return [
              {
                path: root,
                message: `is not valid YAML: the key '${key.slice(0, 100)}' appears twice in one mapping${lineOf(pair.key.range?.[0])}`,
              },
            ];
          keys.add(key);
        } else if (pair.key !== null) stack.push(pair.key);
        if (pair.value !== null) stack.push(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) if (item !== null) stack.push(isPair(item) ? item.value : item);
    }
  }
  return [];
};

/** The value of a YAML text, or every problem that stops it being read. */
export const readYaml = (text: string, root: string): ReadYaml => {
  const entries = entriesOf(text);
  if (entries > MAX_YAML_ENTRIES)
    return {
      ok: false,
      problems: [
        {
          path: root,
          message: `holds ${entries.toLocaleString("en")} YAML entries (lines and flow items); a description may hold at most ${MAX_YAML_ENTRIES.toLocaleString("en")}`,
        },
      ],
    };
  let parsed: YamlDocument;
  try {
    parsed = yaml().parseDocument(text, { prettyErrors: true, uniqueKeys: false, strict: true });
  } catch (error) {
    return { ok: false, problems: [{ path: root, message: `cannot be read as YAML: ${errorText(error)}` }] };
  }
  if (parsed.errors.length > 0) {
    // What YAML 1.1 tools accept, such as a double-quoted text continued at its key's indentation.
    try {
      return { ok: true, value: jsYaml().load(text, { json: false }) };
    } catch {
      // Not YAML for either parser: the strict parser's messages say where it breaks.
    }
    return {
      ok: false,
      // With prettyErrors, the first line of each message ends with "at line L, column C:".
      problems: parsed.errors.slice(0, 50).map((error) => ({
        path: root,
        message: `is not valid JSON or YAML: ${error.message.split("\n")[0]?.replace(/:$/, "")}`,
      })),
    };
  }
  try {
    const problems = syntaxProblems(parsed, root, text);
    if (problems.length > 0) return { ok: false, problems };
    // Aliases become shared references, not copies; what they expand into is bounded by the caller.
    return { ok: true, value: parsed.toJS({ maxAliasCount: -1 }) };
  } catch (error) {
    return { ok: false, problems: [{ path: root, message: `cannot be read as YAML: ${errorText(error)}` }] };
  }
};
