export * from "./rows.js";
export * from "./storage-errors.js";
export * from "./storage-port.js";
export * from "./call-log-port.js";
export type { StoredPage } from "./stored-page.js";
