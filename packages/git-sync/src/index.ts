/**
 * @mcpsm/git-sync: pushes every change of a git-connected server to its repository (docs/api-rules.md §17)
 * over git's smart HTTP protocol with isomorphic-git. The domain keeps the outbox (noted in each write's
 * transaction); this package is the worker that drains it, the repository layout and the push.
 */
export { commitMessage } from "./commit-message.js";
export { pathSegment, uniqueSegments } from "./folder-names.js";
export { DEFAULT_GIT_HTTP_LIMITS, type GitHttpLimits, gitHttpClient } from "./git-http-client.js";
export {
  DEFAULT_GIT_SYNC_SETTINGS,
  type GitPushReport,
  type GitSyncLogger,
  type GitSyncSettings,
  type GitSyncWorker,
  type GitSyncWorkerOptions,
  startGitSyncWorker,
} from "./git-sync-worker.js";
export { type FolderChanges, type PushFolderRequest, type PushFolderResult, pushFolder } from "./push-folder.js";
export { PushFailure, pushFailureOf } from "./push-failure.js";
export { type FolderFiles, folderFiles } from "./repository-layout.js";
