import type { Metadata } from "next";
import { RoleFieldset } from "@/components/auth/RoleGate";
import { SilencesPanel } from "@/components/routing/SilencesPanel";

export const metadata: Metadata = { title: "Silences" };

/** Silences on a page of their own (as Alertmanager has one), each with the firing alerts it hides now. */
export default function SilencesPage() {
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Silences</h1>
          <p>
            Time-boxed mutes with an author and a reason, and how many firing alerts each one hides now. A
            broad silence never hides effect_unknown or false_success: only one that names that state can.
          </p>
        </div>
      </div>
      <RoleFieldset needs="responder" doing="create and expire silences">
        <SilencesPanel />
      </RoleFieldset>
    </div>
  );
}
