import { Effect, Either, ParseResult, Schema, SchemaAST } from "effect";
import { type FieldProblem, InvalidArgument } from "../errors/domain-errors.js";
import { isId } from "../ids/id.js";

/** Renders a path like ["providers", 0, "id"] under `root` as `root.providers[0].id`. */
export const jsonPath = (root: string, path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : `${acc}${acc === "" ? "" : "."}${String(key)}`),
    root,
  );

const problemMessage = (issue: ParseResult.ArrayFormatterIssue): string => {
  switch (issue._tag) {
    case "Unexpected":
      return "unknown field";
    case "Missing":
      return "is required";
    default:
      return issue.message;
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

/** An InvalidArgument listing `errors`, with a detail summarising the first. */
export const invalid = (errors: ReadonlyArray<FieldProblem>): InvalidArgument => {
  const [first] = errors;
  const summary = first === undefined ? "invalid request" : `${first.path}: ${first.message}`;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return new InvalidArgument({ detail: `${summary}${more}`, errors });
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
 * any other unknown field is refused, and every problem is reported with its JSON path.
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
  // Object.fromEntries defines own properties: an assignment `input["__proto__"] = v` would instead set the
  // prototype, letting a client-sent "__proto__" smuggle fields past the unknown-field check.
  const input: Record<string, unknown> = Object.fromEntries(
    Object.entries(inner).filter(([key]) => !ignored.includes(key)),
  );
  // Text no store can keep is refused here, once for every write, before the schema sees it.
  const unstorable = unstorableTextProblems(envelope, input);
  if (unstorable.length > 0) return Effect.fail(invalid([...problems, ...unstorable]));
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(input);
  if (Either.isLeft(decoded)) problems.push(...parseProblems(envelope, decoded.left));
  if (problems.length > 0 || Either.isLeft(decoded)) return Effect.fail(invalid(problems));
  return Effect.succeed(decoded.right);
};

/** Decodes a path parameter that must be a record id. */
export const decodePathId = (name: string, value: string): Effect.Effect<string, InvalidArgument> =>
  isId(value) ? Effect.succeed(value) : Effect.fail(invalid([{ path: name, message: "must be 11 letters or digits" }]));
