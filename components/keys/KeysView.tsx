"use client";

import { useState } from "react";
import type { CreatedKey } from "@/lib/dashboard/api-types";
import { CreateKeyForm } from "./CreateKeyForm";
import { KeyTable } from "./KeyTable";
import { NewKeyNotice } from "./NewKeyNotice";

/** Settings → Ingestion keys: create (the key is shown once), list, revoke. */
export function KeysView() {
  const [created, setCreated] = useState<CreatedKey | null>(null);
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <p className="muted">Settings</p>
          <h1>Ingestion keys</h1>
          <p>
            Agents and collectors send records with <code>Authorization: Bearer &lt;key&gt;</code>. Only a
            hash is stored: a key is shown once, when it is created.
          </p>
        </div>
      </div>
      {created && <NewKeyNotice created={created} onDismiss={() => setCreated(null)} />}
      <CreateKeyForm onCreated={setCreated} />
      <KeyTable />
    </div>
  );
}
