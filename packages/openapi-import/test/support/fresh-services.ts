import * as I from "@mcpsm/domain/openapi-import";
import { afterEach, beforeEach } from "vitest";
import { actor, importBody, makeServices, run, type Services } from "./services.js";

// The mapping tests' services: a fresh in-memory store for each test, and a dry-run import on it.

/** The current test's services (set by `freshServicesPerTest`). */
export let services: Services;

/** Gives each test of the calling file fresh services, disposed after it. */
export const freshServicesPerTest = () => {
  beforeEach(() => {
    services = makeServices();
  });
  afterEach(() => services.dispose());
};

/** A dry-run import of `document` on the current test's services. */
export const dryRun = (document: unknown, provider: Record<string, unknown> = {}) =>
  run(services, I.importProvider(actor(), importBody(document, { dryRun: true, provider })));
