import { Context, type Effect } from "effect";
import type { FieldProblem, InvalidArgument, ResourceExhausted } from "../errors/domain-errors.js";
import type { JsonObject } from "../validation/text.js";

// What the mapping rules need of an OpenAPI description, once a reader has parsed it, converted Swagger 2.0,
// and resolved its local $refs. Every JSON Schema here is self-contained (no $ref left) and finite.

/** One parameter of an operation (path-level ones merged in), its schema as JSON Schema 2020-12. */
export interface DescribedParameter {
  readonly name: string;
  readonly in: "path" | "query" | "header" | "cookie";
  readonly required: boolean;
  readonly description: string;
  readonly schema: JsonObject;
}

/** The request body of an operation: its media types and the schema of the one the mapping uses. */
export interface DescribedBody {
  readonly mediaTypes: ReadonlyArray<string>;
  /** The media type whose schema is `schema` (JSON first, then a form, multipart, text, any other). */
  readonly mediaType: string | undefined;
  readonly schema: JsonObject | undefined;
  /** The OpenAPI Encoding Objects of a form or multipart body, by property (style, explode, contentType). */
  readonly encoding?:
    | Readonly<Record<string, { readonly style?: string; readonly explode?: boolean; readonly contentType?: string }>>
    | undefined;
  readonly required: boolean;
}

/** A security requirement alternative: scheme name → scopes. */
export type SecurityRequirement = Readonly<Record<string, ReadonlyArray<string>>>;

/** One operation of the description, in document order. */
export interface DescribedOperation {
  /** Lower case, as written in the path item (`get`, `post`, ..., `trace`). */
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly parameters: ReadonlyArray<DescribedParameter>;
  readonly requestBody: DescribedBody | undefined;
  /**
   * The schema of the JSON body of the operation's success answer (the lowest 2xx status with a JSON
   * body, else `2XX`), or undefined when none is described.
   */
  readonly responseSchema?: JsonObject | undefined;
  /**
   * True when the operation is long-running: it describes a `202 Accepted` answer (or says
   * `x-ms-long-running-operation: true`); its tool then says so (docs/api-rules.md §22).
   */
  readonly longRunning?: boolean | undefined;
  /** The requirements in force (the operation's own, else the document's); empty means none. */
  readonly security: ReadonlyArray<SecurityRequirement>;
  /** Why the reader could not read this operation (it is then skipped with this reason). */
  readonly problem: string | undefined;
}

/** An OAuth 2.0 flow of a security scheme, URLs absolute when the document allowed it. */
export interface DescribedOAuthFlow {
  readonly kind: "authorizationCode" | "clientCredentials" | "implicit" | "password";
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
}

/** A security scheme, reduced to what can be mapped. */
export type DescribedSecurityScheme =
  | { readonly type: "oauth2"; readonly flows: ReadonlyArray<DescribedOAuthFlow> }
  | { readonly type: "apiKey"; readonly in: string; readonly name: string }
  | { readonly type: "http"; readonly scheme: string }
  | { readonly type: "other"; readonly kind: string };

/** An OpenAPI description, read. */
export interface ApiDescription {
  /** `2.0`, `3.0.x` or `3.1.x`, as the document said. */
  readonly specVersion: string;
  readonly title: string;
  readonly description: string;
  /** Server URLs with their variables at their defaults, in document order (may be relative). */
  readonly servers: ReadonlyArray<string>;
  readonly operations: ReadonlyArray<DescribedOperation>;
  /** In document order. */
  readonly securitySchemes: ReadonlyArray<{ readonly name: string; readonly scheme: DescribedSecurityScheme }>;
  /** Things the reader noticed but could still read past (remote $refs, ignored parts), located. */
  readonly warnings: ReadonlyArray<FieldProblem>;
}

/**
 * The port through which the import use cases read a description. `document` is what the client sent (an
 * object, or a string of JSON or YAML), or a `DocumentJson`: the JSON text of either, still unparsed; `root` is the path problems are located under. A description that
 * cannot be read fails with every problem found; a reader that is reading as many descriptions as it can
 * fails with ResourceExhausted.
 */
export class OpenApiReader extends Context.Tag("@mcpsm/domain/OpenApiReader")<
  OpenApiReader,
  {
    readonly read: (
      document: unknown,
      root: string,
    ) => Effect.Effect<ApiDescription, InvalidArgument | ResourceExhausted>;
  }
>() {}
