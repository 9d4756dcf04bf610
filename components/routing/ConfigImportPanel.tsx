"use client";

import { useMemo, useState } from "react";
import { canonicalConfig, parseRoutingDocument, printDocument } from "@/lib/routing/document";
import type { TRoutingConfig } from "@/lib/routing/config";
import type { RoutingConfigAnswer } from "@/lib/dashboard/routing-api-types";
import { FormError } from "./FormError";
import { useSaveConfig } from "./routing-queries";
import styles from "./Routing.module.css";

/**
 * The config as a document, as `npm run routing` keeps it in git: export it as YAML or JSON, import either (paste or
 * pick a file) to apply. Masked secrets ("••••••#channel/index") keep the stored values, so an exported file imports
 * unchanged. A problem names its line and column in the text, the way the CLI does.
 */
export function ConfigImportPanel({ current }: { current: RoutingConfigAnswer }) {
  const save = useSaveConfig();
  const [text, setText] = useState<string | null>(null);
  const [comment, setComment] = useState("");
  const printed = useMemo(
    // The server's answer is masked already: printed as it is, in the CLI's key order.
    () => printDocument(canonicalConfig(current.config as TRoutingConfig), current.version),
    [current],
  );
  const shown = text ?? printed;
  const parsed = useMemo(() => (text === null ? null : parseRoutingDocument(text)), [text]);

  const apply = () => {
    if (!parsed?.ok) return;
    save.mutate(
      { config: parsed.value, baseVersion: current.version, comment: comment || "imported in the browser" },
      { onSuccess: () => setText(null) },
    );
  };

  return (
    <div>
      <div className={styles.actions} style={{ marginBottom: "0.5rem" }}>
        <a className="button small" href="/api/v1/routing/config?download=1&format=yaml" download>
          Export YAML
        </a>
        <a className="button small" href="/api/v1/routing/config?download=1" download>
          Export JSON
        </a>
        <label className="button small">
          Import file…
          <input
            type="file"
            accept="application/yaml,application/json,.yaml,.yml,.json"
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
        aria-label="Routing config (YAML or JSON)"
        aria-describedby={parsed && !parsed.ok ? "config-import-syntax" : undefined}
        className={styles.jsonEditor}
        value={shown}
        spellCheck={false}
        onChange={(e) => setText(e.target.value)}
      />
      {parsed && !parsed.ok && (
        <ul id="config-import-syntax" className="field-error" style={{ margin: "0.25rem 0 0" }}>
          {parsed.errors.map((error) => (
            <li key={`${error.path}:${error.message}`}>{error.message}</li>
          ))}
        </ul>
      )}
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
          disabled={save.isPending || text === null || !parsed?.ok}
          onClick={apply}
        >
          Validate and save
        </button>
        {save.isSuccess && text === null && (
          <span className={styles.ok}>Saved as version {save.data.version}.</span>
        )}
      </div>
      <FormError error={save.error} locate={parsed?.ok ? parsed.locate : undefined} />
    </div>
  );
}
