import { Either, ParseResult, Schema, SchemaAST } from "effect";

// Rows are decoded by the domain's row schemas. effect's own decoder costs about 10–30 µs per tool row
// (a server graph of 1,000 tools: 15–30 ms of CPU, against 0.4 ms for the hand-written decoder it
// replaced), so the adapter compiles each schema once into a plain function that checks the structure the
// schema describes (types, literals, nullability, arrays, nested structs and records) and applies its
// transformations (epoch ms → Date). The write-time refinements (patterns, lengths) are not run again on
// rows the adapter itself wrote. A value the compiled check refuses is decoded by effect itself, which
// either accepts it (a node the check is stricter on) or throws its ParseError naming the path: a defect.

/** What a compiled check answers for a value that does not fit. */
const MISMATCH: unique symbol = Symbol("mismatch");
type Check = (value: unknown) => unknown;

/**
 * Compiles schema ASTs into checks. Each node becomes a function of its own, generated as source (like
 * ajv does), so that every call site always calls the same function and V8 inlines it: a closure per
 * node kind instead makes every call site megamorphic, about five times slower on a tool row.
 */
class Compiler {
  /** The compiled checks; generated code calls node n as `c[n](value)`. */
  readonly checks: Array<Check> = [];

  /** Adds a check and answers the expression that calls it on `value`. */
  private add(check: Check, value: string): string {
    this.checks.push(check);
    return `c[${this.checks.length - 1}](${value})`;
  }

  /** A check generated from the body of `(v) => { … }`. */
  private generate(body: string): Check {
    return new Function("c", "M", `"use strict"; return (v) => { ${body} };`)(this.checks, MISMATCH) as Check;
  }

  /** A node the compiler does not know is checked by effect itself. */
  private viaEffect(ast: SchemaAST.AST): Check {
    const decode = ParseResult.decodeUnknownEither(Schema.make(ast));
    return (value) => {
      const result = decode(value);
      return Either.isRight(result) ? result.right : MISMATCH;
    };
  }

  /**
   * Statements that decode the expression `value` into the variable `out`, or `return M` when it does not
   * fit: the common leaves inline, anything else through a check of its own.
   */
  private inline(ast: SchemaAST.AST, value: string, out: string): string {
    while (SchemaAST.isRefinement(ast)) ast = ast.from; // structure only: refinements are rules for writes
    if (SchemaAST.isStringKeyword(ast)) return `${out} = ${value}; if (typeof ${out} !== "string") return M;`;
    if (SchemaAST.isNumberKeyword(ast)) return `${out} = ${value}; if (typeof ${out} !== "number") return M;`;
    if (SchemaAST.isBooleanKeyword(ast)) return `${out} = ${value}; if (typeof ${out} !== "boolean") return M;`;
    if (ast === Schema.DateFromNumber.ast)
      return `${out} = ${value}; if (typeof ${out} !== "number") return M; ${out} = new Date(${out});`;
    return `${out} = ${this.add(this.compile(ast), value)}; if (${out} === M) return M;`;
  }

  compile(ast: SchemaAST.AST): Check {
    switch (ast._tag) {
      case "Refinement":
        return this.compile(ast.from);
      case "UnknownKeyword":
      case "AnyKeyword":
        return (value) => value;
      case "Union": {
        const literals = ast.types.filter(SchemaAST.isLiteral).map((member) => member.literal);
        const others = ast.types.filter((member) => !SchemaAST.isLiteral(member));
        if (literals.some((literal) => typeof literal === "bigint")) return this.viaEffect(ast);
        const matches = literals.map((literal) => `v === ${JSON.stringify(literal)}`).join(" || ");
        return this.generate(
          `${literals.length > 0 ? `if (${matches}) return v;` : ""} let x;
          ${others.map((member) => `x = ${this.add(this.compile(member), "v")}; if (x !== M) return x;`).join("\n")}
          return M;`,
        );
      }
      case "TupleType": {
        const [rest, ...more] = ast.rest;
        if (ast.elements.length > 0 || rest === undefined || more.length > 0) return this.viaEffect(ast);
        return this.generate(
          `if (!Array.isArray(v)) return M; const o = new Array(v.length); let x;
          for (let i = 0; i < v.length; i++) { ${this.inline(rest.type, "v[i]", "x")} o[i] = x; }
          return o;`,
        );
      }
      case "TypeLiteral": {
        const [index, ...moreIndexes] = ast.indexSignatures;
        if (
          moreIndexes.length > 0 ||
          (index !== undefined && !SchemaAST.isStringKeyword(index.parameter)) ||
          ast.propertySignatures.some((signature) => typeof signature.name !== "string")
        )
          return this.viaEffect(ast);
        const isObject = `if (typeof v !== "object" || v === null || Array.isArray(v)) return M;`;
        // A record of unknown values (a JSON object) is taken as it is.
        if (index !== undefined && ast.propertySignatures.length === 0 && SchemaAST.isUnknownKeyword(index.type))
          return this.generate(`${isObject} return v;`);
        const entries =
          index === undefined
            ? ""
            : `for (const k of Object.keys(v)) { ${this.inline(index.type, "v[k]", "x")} o[k] = x; }`;
        const properties = ast.propertySignatures.map((signature) => {
          const key = JSON.stringify(signature.name);
          const decode = `${this.inline(signature.type, `v[${key}]`, "x")} o[${key}] = x;`;
          return signature.isOptional ? `if (${key} in v) { ${decode} }` : decode;
        });
        return this.generate(`${isObject} const o = {}; let x; ${entries} ${properties.join("\n")} return o;`);
      }
      case "StringKeyword":
      case "NumberKeyword":
      case "BooleanKeyword":
        return this.generate(`let x; ${this.inline(ast, "v", "x")} return x;`);
      case "Literal":
        return typeof ast.literal === "bigint"
          ? this.viaEffect(ast)
          : this.generate(`return v === ${JSON.stringify(ast.literal)} ? v : M;`);
      case "UndefinedKeyword":
        return (value) => (value === undefined ? value : MISMATCH);
      case "Declaration":
        return ast === Schema.DateFromSelf.ast
          ? (value) => (value instanceof Date ? value : MISMATCH)
          : this.viaEffect(ast);
      case "Transformation":
        return ast === Schema.DateFromNumber.ast
          ? this.generate(`let x; ${this.inline(ast, "v", "x")} return x;`)
          : this.viaEffect(ast);
      case "Suspend": {
        let inner: Check | undefined;
        const suspended = ast;
        return (value) => {
          inner ??= this.compile(suspended.f());
          return inner(value);
        };
      }
      default:
        return this.viaEffect(ast);
    }
  }
}

/**
 * The decoder of `schema`: the compiled structural check, and effect's own decoder for whatever it
 * refuses (which throws a ParseError when the value does not fit).
 */
export const rowDecoder = <A, I>(schema: Schema.Schema<A, I>): ((json: unknown) => A) => {
  const check = new Compiler().compile(schema.ast);
  const strict = Schema.decodeUnknownSync(schema);
  return (json) => {
    const decoded = check(json);
    return decoded === MISMATCH ? strict(json) : (decoded as A);
  };
};
