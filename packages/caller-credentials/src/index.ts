/**
 * @mcpsm/caller-credentials: the public form where a person enters their own value of a per-caller variable
 * (docs/api-rules.md §23), which `apps/api` mounts at `/credentials/{id}`.
 */
export {
  type CredentialPagesOptions,
  type CredentialRequest,
  credentialPages,
  type PageAnswer,
  type PageRunner,
} from "./credential-pages.js";
