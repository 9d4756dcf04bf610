"use client";

import { useState } from "react";
import type { CreatedKey } from "@/lib/dashboard/api-types";
import { useRoleAllows } from "../auth/CurrentUser";
import { RoleNote } from "../auth/RoleGate";
import { CreateKeyForm } from "./CreateKeyForm";
import { KeyTable } from "./KeyTable";
import { NewKeyNotice } from "./NewKeyNotice";

/** Settings → Ingestion keys: create (the key is shown once), list, revoke. */
export function KeysView() {
  const [created, setCreated] = useState<CreatedKey | null>(null);
  // The key API answers admins only: a lower role sees why, not a 403 from a list it may not read.
  const isAdmin = useRoleAllows("admin");
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
      <RoleNote needs="admin" doing="create, list and revoke ingestion keys" />
      {isAdmin && created && <NewKeyNotice created={created} onDismiss={() => setCreated(null)} />}
      {isAdmin && <CreateKeyForm onCreated={setCreated} />}
      {isAdmin && <KeyTable />}
    </div>
  );
}
