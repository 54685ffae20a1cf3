import { Effect, Either, ParseResult, Schema, SchemaAST } from "effect";
import { type FieldProblem, InvalidArgument } from "../errors/domain-errors.js";
import { isId } from "../ids/id.js";

/** Renders a path like ["providers", 0, "id"] under `root` as `root.providers[0].id`. */
export const jsonPath = (root: string, path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : `${acc}${acc === "" ? "" : "."}${String(key)}`),
    root,
  );

/** Longest problem message: effect's messages quote the offending value, which may be a megabyte. */
const MAX_MESSAGE_CHARS = 300;

const problemMessage = (issue: ParseResult.ArrayFormatterIssue): string => {
  switch (issue._tag) {
    case "Unexpected":
      return "unknown field";
    case "Missing":
      return "is required";
    default:
      return issue.message.length > MAX_MESSAGE_CHARS ? `${issue.message.slice(0, MAX_MESSAGE_CHARS)}…` : issue.message;
  }
};

/**
 * A bad value fails every member of a union: a literal list is a union of literals and `NullOr(X)` is
 * `X | null`, so the raw issues repeat "Expected \"GET\"", "Expected \"POST\"", ... or add "Expected null"
 * beside the real problem. Keep the members that got further than a type mismatch; when none did, one
 * mismatch against the whole union (without any `undefined` member) remains.
 */
const simplifyUnions = (issue: ParseResult.ParseIssue): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Pointer":
      return new ParseResult.Pointer(issue.path, issue.actual, simplifyUnions(issue.issue));
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, simplifyUnions(issue.issue));
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, issue.actual, issue.kind, simplifyUnions(issue.issue));
    case "Composite": {
      const issues = (
        Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      ) as ReadonlyArray<ParseResult.ParseIssue>;
      const union = SchemaAST.isUnion(issue.ast) ? issue.ast : undefined;
      const [first, ...rest] = issues
        .map(simplifyUnions)
        .filter((member) => union === undefined || member._tag !== "Type");
      if (union !== undefined && first === undefined) {
        const defined = union.types.filter((member) => !SchemaAST.isUndefinedKeyword(member));
        return new ParseResult.Type(SchemaAST.Union.make(defined), issue.actual);
      }
      if (first === undefined) return issue;
      return union !== undefined && rest.length === 0
        ? first
        : new ParseResult.Composite(issue.ast, issue.actual, [first, ...rest], issue.output);
    }
    default:
      return issue;
  }
};

/** All problems of a parse error, located under `root`. */
export const parseProblems = (root: string, error: ParseResult.ParseError): ReadonlyArray<FieldProblem> =>
  ParseResult.ArrayFormatter.formatIssueSync(simplifyUnions(error.issue)).map((issue) => ({
    path: jsonPath(root, issue.path),
    message: problemMessage(issue),
  }));

/** Most problems one InvalidArgument lists; `errorCount` then says how many were found. */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * An InvalidArgument listing `errors` (the first MAX_LISTED_PROBLEMS), with a detail summarising the first;
 * `found` is how many problems there are when `errors` holds only some of them.
 */
export const invalid = (errors: ReadonlyArray<FieldProblem>, found = errors.length): InvalidArgument => {
  const [first] = errors;
  const summary = first === undefined ? "invalid request" : `${first.path}: ${first.message}`;
  const more = found > 1 ? ` (and ${found - 1} more)` : "";
  return found > MAX_LISTED_PROBLEMS
    ? new InvalidArgument({
        detail: `${summary}${more}; the first ${MAX_LISTED_PROBLEMS} are listed`,
        errors: errors.slice(0, MAX_LISTED_PROBLEMS),
        errorCount: found,
      })
    : new InvalidArgument({ detail: `${summary}${more}`, errors });
};

/** Largest body (in JSON values) whose every problem is listed; a larger one gets its first problem. */
export const FULL_REPORT_VALUES = 2_000;

/** How many JSON values `value` holds, counting stops past `limit`. */
export const jsonValueCount = (value: unknown, limit: number): number => {
  let count = 0;
  const stack: Array<unknown> = [value];
  while (stack.length > 0 && count <= limit) {
    const node = stack.pop();
    count++;
    if (Array.isArray(node)) for (const item of node) stack.push(item);
    else if (typeof node === "object" && node !== null) for (const item of Object.values(node)) stack.push(item);
  }
  return count;
};

const knownFieldsCache = new WeakMap<SchemaAST.AST, ReadonlySet<PropertyKey> | undefined>();

/** The field names a struct schema's encoded side declares; undefined when it takes any (index signatures). */
const knownFields = (ast: SchemaAST.AST): ReadonlySet<PropertyKey> | undefined => {
  if (!knownFieldsCache.has(ast)) {
    const encoded = SchemaAST.encodedAST(ast);
    const open = SchemaAST.isTypeLiteral(encoded) && encoded.indexSignatures.length > 0;
    knownFieldsCache.set(
      ast,
      open ? undefined : new Set(SchemaAST.getPropertySignatures(encoded).map((signature) => signature.name)),
    );
  }
  return knownFieldsCache.get(ast);
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be stored, or undefined: U+0000 (PostgreSQL text and jsonb cannot hold it) and unpaired
 * UTF-16 surrogates (not Unicode text: jsonb refuses their escapes and a text column would silently turn them
 * into U+FFFD). The message never repeats the value, which may be a secret.
 */
export const unstorableText = (value: string): string | undefined =>
  value.includes("\u0000")
    ? "must not contain the NUL character (U+0000)"
    : LONE_SURROGATE.test(value)
      ? "must be well-formed Unicode (no unpaired surrogate)"
      : undefined;

/**
 * Every string of a JSON value (object keys included) that cannot be stored, located under `root`. One
 * check for every field of every write, so no field can forget it.
 */
export const unstorableTextProblems = (root: string, value: unknown): ReadonlyArray<FieldProblem> => {
  const problems: Array<FieldProblem> = [];
  const visit = (node: unknown, path: ReadonlyArray<PropertyKey>) => {
    if (typeof node === "string") {
      const message = unstorableText(node);
      if (message !== undefined) problems.push({ path: jsonPath(root, path), message });
    } else if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, [...path, index]);
    } else if (typeof node === "object" && node !== null)
      for (const [key, item] of Object.entries(node)) {
        const message = unstorableText(key);
        // A bad key is reported at its parent, since the key itself cannot be printed safely.
        if (message !== undefined)
          problems.push({ path: jsonPath(root, path), message: `a field name here ${message}` });
        visit(item, [...path, key]);
      }
  };
  visit(value, []);
  return problems;
};

/**
 * Decodes a write body `{ <envelope>: {...} }` with `schema`: output-only `ignored` fields are dropped,
 * any other unknown field is refused, and every problem is reported with its JSON path (the first
 * MAX_LISTED_PROBLEMS of them; only the first one for a body of more than FULL_REPORT_VALUES values).
 */
export const decodeEnvelope = <A, I>(
  envelope: string,
  schema: Schema.Schema<A, I>,
  ignored: ReadonlyArray<string>,
  body: unknown,
): Effect.Effect<A, InvalidArgument> => {
  if (!isPlainObject(body))
    return Effect.fail(invalid([{ path: "", message: `must be an object with a '${envelope}' field` }]));
  const extra = Object.keys(body).filter((key) => key !== envelope);
  const inner = body[envelope];
  const problems: Array<FieldProblem> = extra.map((key) => ({ path: key, message: "unknown field" }));
  if (!isPlainObject(inner)) {
    problems.unshift({ path: envelope, message: inner === undefined ? "is required" : "must be an object" });
    return Effect.fail(invalid(problems));
  }
  // A body of thousands of unknown fields is refused by counting them, before they are copied or the schema
  // reports each one.
  const known = knownFields(schema.ast);
  if (known !== undefined) {
    const unknown = Object.keys(inner).filter((key) => !known.has(key) && !ignored.includes(key));
    if (problems.length + unknown.length > MAX_LISTED_PROBLEMS)
      return Effect.fail(
        invalid(
          [
            ...problems,
            ...unknown
              .slice(0, MAX_LISTED_PROBLEMS)
              .map((key) => ({ path: `${envelope}.${key}`, message: "unknown field" })),
          ],
          problems.length + unknown.length,
        ),
      );
  }
  // Object.fromEntries defines own properties: an assignment `input["__proto__"] = v` would instead set the
  // prototype, letting a client-sent "__proto__" smuggle fields past the unknown-field check.
  const input: Record<string, unknown> = Object.fromEntries(
    Object.entries(inner).filter(([key]) => !ignored.includes(key)),
  );
  // Text no store can keep is refused here, once for every write, before the schema sees it.
  const unstorable = unstorableTextProblems(envelope, input);
  if (unstorable.length > 0) return Effect.fail(invalid([...problems, ...unstorable]));
  // The first problem is cheap to find; listing every one costs ~30 µs each (effect builds an issue per
  // value), so only bodies of at most FULL_REPORT_VALUES values get the full list.
  const first = Schema.decodeUnknownEither(schema, { errors: "first", onExcessProperty: "error" })(input);
  const decoded =
    Either.isRight(first) || jsonValueCount(input, FULL_REPORT_VALUES) > FULL_REPORT_VALUES
      ? first
      : Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(input);
  if (Either.isLeft(decoded)) problems.push(...parseProblems(envelope, decoded.left));
  if (problems.length > 0 || Either.isLeft(decoded)) return Effect.fail(invalid(problems));
  return Effect.succeed(decoded.right);
};

/** Decodes a path parameter that must be a record id. */
export const decodePathId = (name: string, value: string): Effect.Effect<string, InvalidArgument> =>
  isId(value) ? Effect.succeed(value) : Effect.fail(invalid([{ path: name, message: "must be 11 letters or digits" }]));
