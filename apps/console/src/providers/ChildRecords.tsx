import type { components } from "@mcpsm/client";
import { type ReactNode, useState } from "react";
import { Button } from "react-aria-components";
import { api, type Outcome, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { JsonEditor, jsonProblem } from "../components/JsonEditor.js";
import { ProblemBanner } from "../components/ProblemBanner.js";

// A provider's prompts and resources: each record is edited as its JSON write shape in the JSON editor
// (arguments and messages of a prompt, annotations of a resource are nested structures a form would hide).

type Prompt = components["schemas"]["ProviderPrompt"];
type Resource = components["schemas"]["ProviderResource"];

const promptBody = (p: Prompt) => ({
  name: p.name,
  description: p.description,
  arguments: p.arguments,
  messages: p.messages,
});
const resourceBody = (r: Resource) => ({
  name: r.name,
  description: r.description,
  uri: r.uri,
  mimeType: r.mimeType,
  size: r.size,
  annotations: r.annotations,
});

const NEW_PROMPT = {
  name: "",
  description: "",
  arguments: [],
  messages: [{ role: "user", content: { type: "text", text: "" } }],
};
const NEW_RESOURCE = { name: "", description: "", uri: "https://", mimeType: "text/plain" };

/** The JSON editor of one prompt or resource, and its save. */
const RecordEditor = (props: {
  readonly kind: ChildKind;
  readonly initial: unknown;
  readonly save: (body: never) => Promise<Problem | undefined>;
  readonly onDone: () => void;
}) => {
  const [text, setText] = useState(JSON.stringify(props.initial, null, 2));
  const [problem, setProblem] = useState<Problem>();
  return (
    <div className="form">
      <JsonEditor
        label={`The ${props.kind} (JSON)`}
        value={text}
        onChange={setText}
        error={fieldError(problem, props.kind)}
        testId={`${props.kind}-json`}
      />
      <ProblemBanner problem={problem} />
      <div className="actions">
        <Button
          className="button primary"
          isDisabled={jsonProblem(text, "schema") !== undefined}
          onPress={async () => {
            const failed = await props.save(JSON.parse(text) as never);
            if (failed === undefined) props.onDone();
            else setProblem(failed);
          }}
        >
          Save {props.kind}
        </Button>
        <Button className="button" onPress={props.onDone}>
          Cancel
        </Button>
      </div>
    </div>
  );
};

type ChildKind = "prompt" | "resource";

/**
 * One kind of child record of a provider: its list with edit and delete, and the JSON editor of a new or
 * an edited record. What differs between prompts and resources comes in as props.
 */
const ChildSection = <R extends { readonly id: string; readonly name: string }, Body>(props: {
  readonly kind: ChildKind;
  readonly title: string;
  readonly records: ReadonlyArray<R>;
  /** What the list shows after the name. */
  readonly summary: (record: R) => ReactNode;
  readonly blank: unknown;
  readonly bodyOf: (record: R) => unknown;
  readonly create: (body: Body) => Promise<Outcome<unknown>>;
  readonly update: (id: string, body: Body) => Promise<Outcome<unknown>>;
  readonly remove: (id: string) => Promise<Outcome<unknown>>;
  readonly onChanged: () => void;
}) => {
  const [editing, setEditing] = useState<R | "new">();
  const titleId = `${props.kind}s-title`;
  return (
    <section aria-labelledby={titleId}>
      <h2 id={titleId}>
        {props.title} ({props.records.length})
      </h2>
      <ul className="records">
        {props.records.map((record) => (
          <li key={record.id}>
            <strong>{record.name}</strong> {props.summary(record)}{" "}
            <Button className="button small" onPress={() => setEditing(record)}>
              Edit
            </Button>{" "}
            <Button
              className="button small danger"
              onPress={async () => {
                if ((await props.remove(record.id)).ok) props.onChanged();
              }}
            >
              Delete
            </Button>
          </li>
        ))}
      </ul>
      {editing === undefined ? (
        <Button className="button" onPress={() => setEditing("new")}>
          New {props.kind}
        </Button>
      ) : (
        <RecordEditor
          key={editing === "new" ? "new" : editing.id}
          kind={props.kind}
          initial={editing === "new" ? props.blank : props.bodyOf(editing)}
          save={async (body: Body) => {
            const r = editing === "new" ? await props.create(body) : await props.update(editing.id, body);
            return r.ok ? undefined : r.problem;
          }}
          onDone={() => {
            setEditing(undefined);
            props.onChanged();
          }}
        />
      )}
    </section>
  );
};

/** The prompts of a provider with create, edit and delete. */
export const PromptsSection = (props: {
  readonly providerId: string;
  readonly prompts: ReadonlyArray<Prompt>;
  readonly onChanged: () => void;
}) => {
  const id = props.providerId;
  return (
    <ChildSection
      kind="prompt"
      title="Prompts"
      records={props.prompts}
      summary={(p) => <span className="muted">{p.description}</span>}
      blank={NEW_PROMPT}
      bodyOf={promptBody}
      create={(prompt: components["schemas"]["PromptCreate"]) =>
        run(api.POST("/providers/{id}/prompts", { params: { path: { id } }, body: { prompt } }))
      }
      update={(promptID, prompt) =>
        run(api.PATCH("/providers/{id}/prompts/{promptID}", { params: { path: { id, promptID } }, body: { prompt } }))
      }
      remove={(promptID) =>
        run(api.DELETE("/providers/{id}/prompts/{promptID}", { params: { path: { id, promptID } } }))
      }
      onChanged={props.onChanged}
    />
  );
};

/** The resources of a provider with create, edit and delete. */
export const ResourcesSection = (props: {
  readonly providerId: string;
  readonly resources: ReadonlyArray<Resource>;
  readonly onChanged: () => void;
}) => {
  const id = props.providerId;
  return (
    <ChildSection
      kind="resource"
      title="Resources"
      records={props.resources}
      summary={(r) => <code className="wrap">{r.uri}</code>}
      blank={NEW_RESOURCE}
      bodyOf={resourceBody}
      create={(resource: components["schemas"]["ResourceCreate"]) =>
        run(api.POST("/providers/{id}/resources", { params: { path: { id } }, body: { resource } }))
      }
      update={(resourceID, resource) =>
        run(
          api.PATCH("/providers/{id}/resources/{resourceID}", {
            params: { path: { id, resourceID } },
            body: { resource },
          }),
        )
      }
      remove={(resourceID) =>
        run(api.DELETE("/providers/{id}/resources/{resourceID}", { params: { path: { id, resourceID } } }))
      }
      onChanged={props.onChanged}
    />
  );
};
