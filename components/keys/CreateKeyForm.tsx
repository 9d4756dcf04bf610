"use client";

import { type FormEvent, useState } from "react";
import type { CreatedKey } from "@/lib/dashboard/api-types";
import { ApiClientError } from "../api/http";
import { useCreateKey } from "../api/mutations";
import styles from "./Keys.module.css";

export function CreateKeyForm({ onCreated }: { onCreated: (created: CreatedKey) => void }) {
  const mutation = useCreateKey();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<string[]>(["ingest"]);

  function submit(event: FormEvent) {
    event.preventDefault();
    mutation.mutate(
      { name: name.trim(), scopes },
      {
        onSuccess: (created) => {
          setName("");
          onCreated(created);
        },
      },
    );
  }
  const toggle = (scope: string) =>
    setScopes((current) =>
      current.includes(scope) ? current.filter((s) => s !== scope) : [...current, scope],
    );
  const error = mutation.error instanceof ApiClientError ? mutation.error : null;

  return (
    <form className={`panel ${styles.create}`} onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <div className="field">
        <label htmlFor="key-name">Name</label>
        <input
          id="key-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="billing-agent"
          pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,63}"
          required
          aria-describedby="key-name-help"
        />
        <span id="key-name-help" className="muted">
          Letters, digits, ".", "_" or "-"; unique, revoked keys included.
        </span>
        {error?.issueAt("$.name") && <span className="field-error">{error.issueAt("$.name")}</span>}
      </div>
      <fieldset className={styles.scopes}>
        <legend>Scopes</legend>
        <label>
          <input type="checkbox" checked={scopes.includes("ingest")} onChange={() => toggle("ingest")} />{" "}
          ingest — post records
        </label>
        <label>
          <input type="checkbox" checked={scopes.includes("read")} onChange={() => toggle("read")} /> read —
          read chains and stats through the API
        </label>
        <label>
          <input type="checkbox" checked={scopes.includes("admin")} onChange={() => toggle("admin")} /> admin
          — read, check and apply the routing config from CI (never keys, triage or silences)
        </label>
      </fieldset>
      <div>
        <button
          type="submit"
          className="button primary"
          disabled={!name.trim() || scopes.length === 0 || mutation.isPending}
        >
          {mutation.isPending ? "Creating…" : "Create key"}
        </button>
      </div>
      {error && !error.issueAt("$.name") && (
        <p className="field-error" role="alert">
          {error.message}
        </p>
      )}
    </form>
  );
}
