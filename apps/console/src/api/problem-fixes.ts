import type { Problem } from "@mcpsm/client";
import { useCallback, useMemo, useState } from "react";

// A 400's field errors describe the values that were sent. Once a person edits a field the message under
// it no longer describes what they see, so it goes; when every field the problem named has been edited (or
// it named none and something was edited), the "Bad Request" banner goes too. Any other problem (409, 5xx)
// stays until the next answer replaces it.

const under = (path: string, field: string) =>
  path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);

/** `problem` without the errors of the fields edited since it arrived (undefined once a 400 is all fixed). */
export const withoutEdited = (problem: Problem | undefined, edited: ReadonlySet<string>): Problem | undefined => {
  if (problem === undefined || problem.status !== 400 || edited.size === 0) return problem;
  const errors = (problem.errors ?? []).filter((e) => ![...edited].some((field) => under(e.path, field)));
  return errors.length === 0 ? undefined : { ...problem, errors };
};

/** The problem a form shows, and `edited(path)` to call when the field at `path` changes. */
export const useProblemFixes = (problem: Problem | undefined) => {
  // The edits are those made since `problem` arrived: a new answer starts with none.
  const [edits, setEdits] = useState<{ readonly of: Problem | undefined; readonly paths: ReadonlySet<string> }>({
    of: problem,
    paths: new Set(),
  });
  const paths = edits.of === problem ? edits.paths : EMPTY;
  const shown = useMemo(() => withoutEdited(problem, paths), [problem, paths]);
  const edited = useCallback(
    (path: string) =>
      setEdits((old) => {
        const current = old.of === problem ? old.paths : EMPTY;
        return current.has(path) ? old : { of: problem, paths: new Set(current).add(path) };
      }),
    [problem],
  );
  return { problem: shown, edited };
};

const EMPTY: ReadonlySet<string> = new Set();
