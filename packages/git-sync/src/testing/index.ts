// @mcpsm/git-sync/testing: a real git server on loopback for tests (git's http-backend behind basic auth).
export { type GitHttpServer, startGitHttpServer } from "./git-http-server.js";
