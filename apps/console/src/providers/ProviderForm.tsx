import type { Provider, ProviderCreate } from "@mcpsm/client";
import { useState } from "react";
import { Button, Form, Radio, RadioGroup, Label } from "react-aria-components";
import { fieldError, type Problem } from "../api/problem.js";
import { useProblemFixes } from "../api/problem-fixes.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";

// The fields of a provider, for create and edit; errors come back under the `provider.` paths.

export type ProviderFields = {
  name: string;
  baseURL: string;
  description: string;
  documentURL: string;
  iconURL: string;
  visibilityType: "INTERNAL" | "PUBLIC";
};

/** The editable fields of a stored provider. */
export const fieldsOf = (p: Provider): ProviderFields => ({
  name: p.name,
  baseURL: p.baseURL,
  description: p.description,
  documentURL: p.documentURL,
  iconURL: p.iconURL,
  visibilityType: p.visibilityType,
});

export const EMPTY_PROVIDER: ProviderFields = {
  name: "",
  baseURL: "",
  description: "",
  documentURL: "",
  iconURL: "",
  visibilityType: "INTERNAL",
};

/** The write body of the fields. */
export const providerBody = (f: ProviderFields): ProviderCreate => ({ ...f });

const PLACED = ["name", "baseURL", "description", "documentURL", "iconURL", "visibilityType"].map(
  (k) => `provider.${k}`,
);

export const ProviderForm = (props: {
  readonly initial: ProviderFields;
  readonly submitLabel: string;
  readonly problem: Problem | undefined;
  readonly busy: boolean;
  readonly onSubmit: (fields: ProviderFields) => void;
  readonly onReload?: () => void;
}) => {
  const [f, setF] = useState(props.initial);
  const fixes = useProblemFixes(props.problem);
  const problem = fixes.problem;
  const set = (change: Partial<ProviderFields>) => {
    for (const k of Object.keys(change)) fixes.edited(`provider.${k}`);
    setF((old) => ({ ...old, ...change }));
  };
  const err = (k: keyof ProviderFields) => fieldError(problem, `provider.${k}`);
  const unplaced = (problem?.errors ?? []).filter((e) => !PLACED.some((p) => e.path.startsWith(p)));
  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit(f);
      }}
    >
      <TextInput label="Name" value={f.name} onChange={(v) => set({ name: v })} error={err("name")} isRequired />
      <TextInput
        label="Base URL"
        type="url"
        value={f.baseURL}
        onChange={(v) => set({ baseURL: v })}
        error={err("baseURL")}
        isRequired
        description="The upstream's absolute http(s) URL; tools' paths are appended to it."
      />
      <TextInput
        label="Description"
        multiline
        value={f.description}
        onChange={(v) => set({ description: v })}
        error={err("description")}
      />
      <TextInput
        label="Documentation URL"
        type="url"
        value={f.documentURL}
        onChange={(v) => set({ documentURL: v })}
        error={err("documentURL")}
      />
      <TextInput
        label="Icon URL"
        type="url"
        value={f.iconURL}
        onChange={(v) => set({ iconURL: v })}
        error={err("iconURL")}
      />
      <RadioGroup
        className="field"
        orientation="horizontal"
        value={f.visibilityType}
        onChange={(v) => set({ visibilityType: v as ProviderFields["visibilityType"] })}
      >
        <Label>Visibility</Label>
        <Radio className="radio" value="INTERNAL">
          Internal (this tenant)
        </Radio>
        <Radio className="radio" value="PUBLIC">
          Public (every tenant may use it)
        </Radio>
      </RadioGroup>
      <ProblemBanner problem={problem} unplaced={unplaced} {...(props.onReload ? { onReload: props.onReload } : {})} />
      <Button type="submit" className="button primary" isDisabled={props.busy}>
        {props.submitLabel}
      </Button>
    </Form>
  );
};
