// @mcpsm/upstream-http/testing: a cookie-keeping user agent for tests of browser redirect flows (OAuth consent).
export { type Landing, userAgent } from "./user-agent.js";
