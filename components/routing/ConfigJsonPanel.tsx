"use client";

import { useState } from "react";
import { FormError } from "./FormError";
import { useSaveConfig } from "./routing-queries";
import type { RoutingConfigAnswer } from "@/lib/dashboard/api-types";
import styles from "./Routing.module.css";

/**
 * The config as data: export it to keep in git, import (paste or pick a file) to apply. Masked secrets
 * ("••••••#channel/index") keep the stored values, so an exported file imports unchanged.
 */
export function ConfigJsonPanel({ current }: { current: RoutingConfigAnswer }) {
  const save = useSaveConfig();
  const [text, setText] = useState<string | null>(null);
  const [comment, setComment] = useState("");
  const [parseError, setParseError] = useState<string | null>(null);
  const shown = text ?? JSON.stringify(current.config, null, 2);

  const apply = () => {
    setParseError(null);
    let config: unknown;
    try {
      config = JSON.parse(shown);
    } catch {
      setParseError("That is not valid JSON.");
      return;
    }
    save.mutate(
      { config, baseVersion: current.version, comment: comment || "imported JSON" },
      { onSuccess: () => setText(null) },
    );
  };

  return (
    <div>
      <div className={styles.actions} style={{ marginBottom: "0.5rem" }}>
        <a className="button small" href="/api/v1/routing/config?download=1" download>
          Export JSON
        </a>
        <label className="button small">
          Import file…
          <input
            type="file"
            accept="application/json,.json"
            className="visually-hidden"
            onChange={async (e) => setText(await (e.target.files?.[0]?.text() ?? Promise.resolve(shown)))}
          />
        </label>
        {text !== null && (
          <button type="button" className="button small" onClick={() => setText(null)}>
            Discard edits
          </button>
        )}
      </div>
      <textarea
        aria-label="Routing config JSON"
        className={styles.jsonEditor}
        value={shown}
        spellCheck={false}
        onChange={(e) => setText(e.target.value)}
      />
      <div className={styles.actions} style={{ marginTop: "0.5rem" }}>
        <input
          aria-label="Comment"
          placeholder="what changed"
          value={comment}
          onChange={(e) => setComment(e.target.value)}
        />
        <button
          type="button"
          className="button primary"
          disabled={save.isPending || text === null}
          onClick={apply}
        >
          Validate and save
        </button>
        {save.isSuccess && text === null && (
          <span className={styles.ok}>Saved as version {save.data.version}.</span>
        )}
      </div>
      {parseError && <p className="field-error">{parseError}</p>}
      <FormError error={save.error} />
    </div>
  );
}
