import type { Client } from "./harness.js";
import { expect } from "vitest";

// biome-ignore lint/suspicious/noExplicitAny: events are read as JSON
type Json = any;

/** A page of the tenant's audit events (`GET /audit-events<query>`), which must answer 200. */
export const events = async (
  api: Client,
  query = "",
): Promise<{ auditEvents: Array<Json>; matchCount: number; nextToken: string }> => {
  const res = await api.get(`/audit-events${query}`);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.body;
};
