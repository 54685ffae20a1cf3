import * as fs from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import git, { Errors, type HttpClient } from "isomorphic-git";
import type { FolderFiles } from "./repository-layout.js";

// One push of a server's folder over git's smart HTTP protocol (isomorphic-git: no git binary). The
// repository is fetched into a fresh temporary directory, the folder is replaced there and committed on top
// of the default branch, and the commit is pushed as a fast-forward. Nothing outside the folder is touched,
// and nothing is ever force-pushed: when someone else pushed in between (non-fast-forward), the whole
// thing starts again from their commit.

/** What changed in the folder, by path inside it. */
export interface FolderChanges {
  readonly added: ReadonlyArray<string>;
  readonly modified: ReadonlyArray<string>;
  readonly removed: ReadonlyArray<string>;
}

export interface PushFolderRequest {
  /** `<baseURL>/<owner/repo>.git` */
  readonly url: string;
  readonly username: string;
  readonly token: string;
  /** The server's folder (a single path segment). */
  readonly folder: string;
  /** A folder of this server pushed earlier under another name, removed by this push. */
  readonly previousFolder?: string | undefined;
  readonly files: FolderFiles;
  /** The commit message for what changed. */
  readonly message: (changes: FolderChanges) => string;
  readonly author: { readonly name: string; readonly email: string };
  readonly http: HttpClient;
  /** Where the temporary clones go. */
  readonly workRoot: string;
  /** Attempts when others keep pushing in between. */
  readonly attempts?: number;
}

/** The commit the branch holds after the push, and whether this push made it. */
export interface PushFolderResult {
  readonly commit: string;
  readonly changed: boolean;
  readonly branch: string;
}

const isRejected = (error: unknown) =>
  (error instanceof Errors.PushRejectedError && error.data.reason === "not-fast-forward") ||
  error instanceof Errors.GitPushError;

/** The branch the remote's HEAD names (else main, or the first branch), and whether the remote has any. */
const remoteBranch = async (request: PushFolderRequest, onAuth: () => { username: string; password: string }) => {
  const info = await git.getRemoteInfo2({ http: request.http, url: request.url, onAuth, protocolVersion: 1 });
  const refs = info.refs ?? [];
  const head = refs.find((ref) => ref.ref === "HEAD")?.target;
  const branches = refs.filter((ref) => ref.ref.startsWith("refs/heads/")).map((ref) => ref.ref);
  const full = head ?? (branches.includes("refs/heads/main") ? "refs/heads/main" : branches[0]) ?? "refs/heads/main";
  return { branch: full.replace(/^refs\/heads\//, ""), empty: branches.length === 0 };
};

const attemptPush = async (request: PushFolderRequest): Promise<PushFolderResult> => {
  const onAuth = () => ({ username: request.username, password: request.token });
  const dir = await mkdtemp(join(request.workRoot, "push-"));
  try {
    const { branch, empty } = await remoteBranch(request, onAuth);
    if (empty) await git.init({ fs, dir, defaultBranch: branch });
    else
      await git.clone({
        fs,
        http: request.http,
        dir,
        url: request.url,
        ref: branch,
        singleBranch: true,
        noTags: true,
        onAuth,
      });
    const folders = [request.folder, ...(request.previousFolder ? [request.previousFolder] : [])].filter(
      (f, i, all) => all.indexOf(f) === i,
    );
    for (const folder of folders) await rm(join(dir, folder), { recursive: true, force: true });
    for (const [path, content] of request.files) {
      const target = join(dir, request.folder, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
    const added: Array<string> = [];
    const modified: Array<string> = [];
    const removed: Array<string> = [];
    const matrix = empty ? [] : await git.statusMatrix({ fs, dir, filepaths: folders });
    const known = new Set(matrix.map(([path]) => path));
    for (const [path, head, workdir] of matrix) {
      if (head === 1 && workdir === 1) continue;
      if (workdir === 0) {
        await git.remove({ fs, dir, filepath: path });
        removed.push(path);
      } else {
        await git.add({ fs, dir, filepath: path });
        (head === 0 ? added : modified).push(path);
      }
    }
    for (const path of request.files.keys()) {
      const full = `${request.folder}/${path}`;
      if (!known.has(full)) {
        await git.add({ fs, dir, filepath: full });
        added.push(full);
      }
    }
    if (added.length + modified.length + removed.length === 0)
      return { commit: await git.resolveRef({ fs, dir, ref: "HEAD" }), changed: false, branch };
    const commit = await git.commit({
      fs,
      dir,
      message: request.message({ added, modified, removed }),
      author: request.author,
    });
    const result = await git.push({
      fs,
      http: request.http,
      dir,
      url: request.url,
      ref: branch,
      remoteRef: `refs/heads/${branch}`,
      onAuth,
    });
    if (!result.ok || result.refs[`refs/heads/${branch}`]?.ok === false)
      throw new Errors.GitPushError(result.error ?? "the push was refused", result);
    return { commit, changed: true, branch };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** Pushes the folder as one commit on the default branch, starting again when someone pushed in between. */
export const pushFolder = async (request: PushFolderRequest): Promise<PushFolderResult> => {
  const attempts = request.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptPush(request);
    } catch (error) {
      if (!isRejected(error) || attempt >= attempts) throw error;
    }
  }
};
