import { expect } from "vitest";
import type { Res } from "./harness.js";

/** The codes of docs/api-rules.md §2 (and the HTTP layer's 405). */
export type ProblemCode =
  | "INVALID_ARGUMENT"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "ALREADY_EXISTS"
  | "FAILED_PRECONDITION"
  | "ABORTED"
  | "PRECONDITION_FAILED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "RESOURCE_EXHAUSTED"
  | "INTERNAL"
  | "UNAVAILABLE";

const describeRes = (res: Res) => `${res.status} ${res.text.slice(0, 600)}`;

/**
 * Asserts an RFC 9457 problem answer: status, `application/problem+json`, and the body fields
 * type/title/status/code/detail/requestId (the request id being the one of the X-Request-Id header).
 */
export const expectProblem = (res: Res, status: number, code: ProblemCode) => {
  expect(res.status, describeRes(res)).toBe(status);
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: "about:blank", status, code });
  expect(typeof res.body.title).toBe("string");
  expect(res.body.title.length).toBeGreaterThan(0);
  expect(typeof res.body.detail).toBe("string");
  expect(res.body.detail.length).toBeGreaterThan(0);
  expect(res.body.requestId).toBe(res.headers.get("x-request-id"));
  return res.body as {
    readonly detail: string;
    readonly errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
    readonly references?: ReadonlyArray<string>;
  };
};

/** Asserts a 400 INVALID_ARGUMENT and returns the JSON paths of its `errors`. */
export const expectInvalid = (res: Res): Array<string> => {
  const body = expectProblem(res, 400, "INVALID_ARGUMENT");
  expect(Array.isArray(body.errors), "errors must list the problems").toBe(true);
  for (const e of body.errors ?? []) {
    expect(typeof e.path).toBe("string");
    expect(typeof e.message).toBe("string");
    expect(e.message.length).toBeGreaterThan(0);
  }
  return (body.errors ?? []).map((e) => e.path);
};

/** Asserts a success status, showing the body when it is not. */
export const expectStatus = (res: Res, status: number) => {
  expect(res.status, describeRes(res)).toBe(status);
};

/** Asserts a 201 with a Location header equal to `location`. */
export const expectCreated = (res: Res, location: string) => {
  expectStatus(res, 201);
  expect(res.headers.get("location")).toBe(location);
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json/);
};

/** Asserts a 204 with an empty body. */
export const expectNoContent = (res: Res) => {
  expectStatus(res, 204);
  expect(res.text).toBe("");
};

/** RFC 3339 UTC with milliseconds, as docs/api-rules.md §12 writes every timestamp. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The id format (§12). */
export const ID = /^[A-Za-z0-9]{11}$/;
