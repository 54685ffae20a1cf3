import { Button } from "react-aria-components";
import { isConflict, type Problem } from "../api/problem.js";

/**
 * A problem's detail as an alert; field errors are shown next to their fields, so only those not matched
 * by a field of the form (`unplaced`) are listed here. Version conflicts offer a reload.
 */
export const ProblemBanner = (props: {
  readonly problem: Problem | undefined;
  readonly onReload?: () => void;
  readonly unplaced?: ReadonlyArray<{ path: string; message: string }>;
}) => {
  const { problem } = props;
  if (problem === undefined) return null;
  return (
    <div role="alert" className="problem" data-status={problem.status}>
      <strong>{problem.title}</strong> {problem.detail}
      {props.unplaced !== undefined && props.unplaced.length > 0 && (
        <ul>
          {props.unplaced.map((e) => (
            <li key={`${e.path}:${e.message}`}>
              <code>{e.path}</code>: {e.message}
            </li>
          ))}
        </ul>
      )}
      {isConflict(problem) && props.onReload !== undefined && (
        <p>
          Someone changed this record since you opened it.{" "}
          <Button className="button" onPress={props.onReload}>
            Reload the latest version
          </Button>
        </p>
      )}
    </div>
  );
};
