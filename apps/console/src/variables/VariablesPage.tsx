import type { Variable } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button, Checkbox, Form, Radio, RadioGroup, Label } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { useProblemFixes } from "../api/problem-fixes.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";
import { CallerValues } from "./CallerValues.js";

// Variables (docs/api-rules.md §10): ENV values are shown; SECRET values never are (the service answers
// "***" and the console shows "hidden"); a secret's input is a password field and is cleared after saving.

/** One variable's row: its value (ENV) or "hidden" (SECRET), a new value, delete. */
const VariableRow = (props: { readonly variable: Variable; readonly onChanged: () => void }) => {
  const v = props.variable;
  const [value, setValue] = useState("");
  const [problem, setProblem] = useState<Problem>();
  return (
    <tr>
      <td>
        <code>{v.name}</code>
      </td>
      <td>{v.type}</td>
      <td className="wrap">
        {v.type === "SECRET" ? <span className="muted">hidden</span> : <code>{v.value}</code>}
        {v.perCaller && <CallerValues variableId={v.id} name={v.name} />}
      </td>
      <td>
        <Form
          className="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const out = await run(
              api.PATCH("/variables/{id}", { params: { path: { id: v.id } }, body: { variable: { value } } }),
            );
            if (!out.ok) return setProblem(out.problem);
            setProblem(undefined);
            setValue("");
            props.onChanged();
          }}
        >
          <TextInput
            label={`New value of ${v.name}`}
            type={v.type === "SECRET" ? "password" : "text"}
            value={value}
            onChange={setValue}
            error={fieldError(problem, "variable.value")}
          />
          <Button type="submit" className="button small">
            Set
          </Button>
          <Button
            className="button small danger"
            onPress={async () => {
              const out = await run(api.DELETE("/variables/{id}", { params: { path: { id: v.id } } }));
              if (out.ok) props.onChanged();
              else setProblem(out.problem);
            }}
          >
            Delete
          </Button>
        </Form>
      </td>
    </tr>
  );
};

export const VariablesPage = () => {
  const [variables, setVariables] = useState<ReadonlyArray<Variable>>([]);
  const [type, setType] = useState<"ENV" | "SECRET">("SECRET");
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [perCaller, setPerCaller] = useState(false);
  const [answered, setProblem] = useState<Problem>();
  const { problem, edited } = useProblemFixes(answered);

  const load = useCallback(async () => {
    const out = await run(api.GET("/variables"));
    if (out.ok) setVariables(out.data.variables);
    else setProblem(out.problem);
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section aria-labelledby="variables-title">
      <h1 id="variables-title">Variables</h1>
      <p className="muted">
        Tool headers reference them as{" "}
        <code>
          {"$"}
          {"{NAME}"}
        </code>
        ; a name starts with the provider's secret prefix and <code>_</code>.
      </p>
      <Form
        className="form row"
        onSubmit={async (e) => {
          e.preventDefault();
          const variable = { type, name, value, ...(type === "SECRET" && perCaller ? { perCaller: true } : {}) };
          const out = await run(api.POST("/variables", { body: { variable } }));
          if (!out.ok) return setProblem(out.problem);
          setProblem(undefined);
          setName("");
          setValue("");
          void load();
        }}
      >
        <RadioGroup
          className="field"
          value={type}
          onChange={(v) => setType(v as "ENV" | "SECRET")}
          orientation="horizontal"
        >
          <Label>Type</Label>
          <Radio className="radio" value="SECRET">
            Secret
          </Radio>
          <Radio className="radio" value="ENV">
            Plain
          </Radio>
        </RadioGroup>
        <TextInput
          label="Variable name"
          value={name}
          onChange={(v) => {
            edited("variable.name");
            setName(v);
          }}
          error={fieldError(problem, "variable.name")}
          isRequired
        />
        <TextInput
          label="Value"
          type={type === "SECRET" ? "password" : "text"}
          value={value}
          onChange={(v) => {
            edited("variable.value");
            setValue(v);
          }}
          error={fieldError(problem, "variable.value")}
          isRequired={!(type === "SECRET" && perCaller)}
        />
        {type === "SECRET" && (
          <Checkbox className="checkbox" isSelected={perCaller} onChange={setPerCaller}>
            Each caller enters their own (the value above is then a default, may be empty)
          </Checkbox>
        )}
        <Button type="submit" className="button primary">
          Add variable
        </Button>
      </Form>
      <ProblemBanner
        problem={problem}
        unplaced={(problem?.errors ?? []).filter((e) => !e.path.startsWith("variable."))}
      />
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Value</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {variables.map((v) => (
            <VariableRow key={v.id} variable={v} onChanged={() => void load()} />
          ))}
        </tbody>
      </table>
    </section>
  );
};
