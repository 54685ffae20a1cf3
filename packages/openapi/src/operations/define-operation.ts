import type { DomainError } from "@mcpsm/domain/errors";
import type { RawQuery } from "@mcpsm/domain/schemas";
import {
  type Actor,
  type AnyOperationUseCase,
  type DomainServices,
  type ImportServices,
  operationOf,
} from "@mcpsm/domain/use-cases";
import { Effect, Schema } from "effect";
import type { ManagementRoute } from "./management-route.js";

// One declaration per management operation (tRPC/Fastify style): the route as data (method, path, status,
// schemas: the OpenAPI document's input), the use case it runs (and so its name and scope: the domain's),
// how the request becomes the use case's typed input and how its output becomes the answer. The service's
// router (apps/api/src/http/route-table.ts) and the document are both derived from these declarations.

/** The names of a path template's parameters as a type: `"/servers/{id}/tools/{toolID}"` → `"id" | "toolID"`. */
type ParameterNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParameterNames<Rest>
  : never;

/** A path's parameters, each present (the router matched them), by name. */
export type PathParams<P extends string> = { readonly [K in ParameterNames<P>]: string };

/** What a management request brings, once authenticated: the actor and the raw request parts. */
export interface OperationRequest {
  readonly actor: Actor;
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly query: RawQuery;
  /** The version named by If-Match, when one was sent. */
  readonly ifMatch: number | undefined;
}

/** What an operation answers on success. */
export interface Reply {
  readonly status: 200 | 201 | 204;
  readonly body?: unknown;
  /** Path of the created record, for `Location`. */
  readonly location?: string;
  /** Revision for `ETag`. */
  readonly version?: number;
}

/** A reply whose status, when not given, is the operation's declared success status. */
export type Answer = Omit<Reply, "status"> & { readonly status?: Reply["status"] };

/** Runs an operation for a request: decode, run the use case, shape the reply. */
export type OperationHandler = (
  request: OperationRequest,
) => Effect.Effect<Reply, DomainError, DomainServices | ImportServices>;

/** A management operation: its route (for the document and the router) and its handler. */
export interface ManagementOperation extends ManagementRoute {
  readonly handle: OperationHandler;
  /**
   * For a read whose 200 answer is a function of the caller's tenant and one server's graph alone (the use
   * case reads nothing else, and the scope is checked before): the id of that server. Its serialised answer
   * may then be kept per cached graph (apps/api/src/http/serialised-answers.ts).
   */
  readonly answerFromServerGraph?: (params: Readonly<Record<string, string>>) => string | undefined;
}

/** The request as the use case's input is built from it: typed path parameters, decoded body and query. */
export interface TypedRequest<P extends string, B, Q> {
  readonly actor: Actor;
  readonly params: PathParams<P>;
  readonly body: B;
  readonly query: Q;
  readonly ifMatch: number | undefined;
}

type UseCaseInput<U> = U extends (actor: Actor, input: infer I) => unknown ? I : never;
type UseCaseOutput<U> = U extends (actor: Actor, input: never) => Effect.Effect<infer A, infer _E, infer _R>
  ? A
  : never;

/** The declaration of an operation that runs a use case of the domain. */
export interface OperationDeclaration<P extends string, U extends AnyOperationUseCase, B, Q>
  extends Omit<ManagementRoute, "path" | "operation"> {
  readonly path: P;
  /** The use case; the operation's name (and so its scope) is the use case's. */
  readonly useCase: U;
  /** Decodes the body (the domain's decoder of the write's envelope). */
  readonly decodeBody?: (body: unknown) => Effect.Effect<B, DomainError>;
  /** Decodes the query string (the domain's decoder of the listing's parameters). */
  readonly decodeQuery?: (query: RawQuery) => Effect.Effect<Q, DomainError>;
  /** The use case's input. */
  readonly input: (request: TypedRequest<P, B, Q>) => UseCaseInput<U>;
  /** The answer of the use case's output (status: the declared one unless given). */
  readonly answer: (output: UseCaseOutput<U>, request: TypedRequest<P, B, Q>) => Answer;
  readonly answerFromServerGraph?: (params: PathParams<P>) => string | undefined;
}

const decodeWith = <T>(decode: ((raw: never) => Effect.Effect<T, DomainError>) | undefined, raw: unknown) =>
  decode === undefined ? Effect.succeed(undefined as T) : decode(raw as never);

/** A management operation that runs a use case: the route, the decoders and the use case in one place. */
export const defineOperation = <const P extends string, U extends AnyOperationUseCase, B = undefined, Q = undefined>(
  declaration: OperationDeclaration<P, U, B, Q>,
): ManagementOperation => {
  const { useCase, decodeBody, decodeQuery, input, answer, answerFromServerGraph, ...route } = declaration;
  const run = (request: OperationRequest, query: Q, body: B) => {
    const typed: TypedRequest<P, B, Q> = { ...request, params: request.params as PathParams<P>, body, query };
    return Effect.map(useCase(request.actor, input(typed)), (output): Reply => {
      const reply = answer(output as UseCaseOutput<U>, typed);
      return { ...reply, status: reply.status ?? route.status };
    });
  };
  // The query first, then the body: the first bad one answers 400. Without decoders, no step for them.
  const handle: OperationHandler =
    decodeQuery === undefined && decodeBody === undefined
      ? (request) => run(request, undefined as Q, undefined as B)
      : (request) =>
          Effect.flatMap(decodeWith(decodeQuery, request.query), (query) =>
            Effect.flatMap(decodeWith(decodeBody, request.body), (body) => run(request, query, body)),
          );
  return {
    ...route,
    operation: operationOf(useCase),
    handle,
    ...(answerFromServerGraph === undefined
      ? {}
      : { answerFromServerGraph: (params) => answerFromServerGraph(params as PathParams<P>) }),
  };
};

/** `{ <name>: schema }`: the envelope every body travels in. */
export const envelope = <K extends string, S extends Schema.Schema.Any>(name: K, schema: S) =>
  Schema.Struct({ [name]: schema } as { [P in K]: S });

/** `{ <name>: [schema] }`: the envelope of a list. */
export const list = <K extends string, S extends Schema.Schema.Any>(name: K, schema: S) =>
  envelope(name, Schema.Array(schema));

/** The answer of a record with a revision: `ETag` follows its version. */
export const withVersion = (body: unknown, version: number | undefined): Answer =>
  version === undefined ? { body } : { body, version };
