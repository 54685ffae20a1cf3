/** Test helpers for suites that run against a real PostgreSQL server (`@mcpsm/storage-postgres/testing`). */
export { createServerDatabase, type ServerDatabase } from "./server-database.js";
export { type OutageProxy, startOutageProxy } from "./outage-proxy.js";
