// Bounds on every place where stored, tenant-written content is expanded with caller input or with other
// stored content (docs/security.md, "Tenant-written content"). Each expansion computes the size of its
// result before building it, so an oversized one costs no more than reading its inputs.

/** Most characters a rendered prompt (all its messages) may have: as large as the largest request body. */
export const MAX_RENDERED_PROMPT_CHARS = 1024 * 1024;

/** Most `{{argument}}` substitutions one prompt rendering may make. */
export const MAX_PROMPT_SUBSTITUTIONS = 1_000;

/** Most characters a tool header value may have once its `${NAME}` references are resolved. */
export const MAX_RESOLVED_HEADER_CHARS = 8 * 1024;

/** Most characters the upstream path may have once its `{placeholder}`s are filled in (percent-encoded). */
export const MAX_UPSTREAM_PATH_CHARS = 8 * 1024;
