"use client";

import { type KeyboardEvent, useId, useMemo, useState } from "react";
import type { AssigneeView } from "@/lib/dashboard/api-types";
import type { TeamMember } from "@/lib/dashboard/team-types";
import { useTeamMembers } from "../api/queries";
import { useCurrentUser } from "../auth/CurrentUser";
import styles from "./AssigneePicker.module.css";

const canBeAssigned = (member: TeamMember) =>
  !member.disabled && (member.role === "responder" || member.role === "admin");

const label = (member: { username: string; displayName: string | null }) =>
  member.displayName ? `${member.displayName} (${member.username})` : member.username;

/**
 * A combobox over the team: type to search by name, arrows to move, Enter to pick, Escape to close. Offers only
 * the people who can act on what they own (responders and admins who are not disabled), "Assign to me" as a
 * shortcut, and "Unassign". Picking calls `onAssign` with the user's id: no free text reaches the API.
 */
export function AssigneePicker({
  assignee,
  onAssign,
  onUnassign,
  busy,
}: {
  assignee: AssigneeView | null;
  onAssign: (userId: string) => void;
  onUnassign: () => void;
  busy: boolean;
}) {
  const listId = useId();
  const team = useTeamMembers();
  const me = useCurrentUser();
  const [search, setSearch] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const members = useMemo(() => (team.data?.users ?? []).filter(canBeAssigned), [team.data]);
  const matches = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return members.filter(
      (m) =>
        !needle || m.username.toLowerCase().includes(needle) || m.displayName?.toLowerCase().includes(needle),
    );
  }, [members, search]);
  const myself = members.find((m) => m.username === me?.username);

  function pick(member: TeamMember | undefined) {
    if (!member) return;
    setOpen(false);
    setSearch("");
    if (member.id !== assignee?.id) onAssign(member.id);
  }
  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setOpen(true);
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((i) => (matches.length ? (i + step + matches.length) % matches.length : 0));
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (open) pick(matches[active]);
    } else if (event.key === "Escape") {
      setOpen(false);
    }
  }

  const optionId = (i: number) => `${listId}-option-${i}`;
  return (
    <div className={styles.picker}>
      <label htmlFor={`${listId}-input`}>Assignee</label>
      <div className={styles.row}>
        <div className={styles.combo}>
          <input
            id={`${listId}-input`}
            role="combobox"
            aria-expanded={open}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={open && matches[active] ? optionId(active) : undefined}
            value={search}
            placeholder={assignee ? label(assignee) : "Search the team"}
            disabled={busy}
            autoComplete="off"
            onChange={(e) => {
              setSearch(e.target.value);
              setActive(0);
              setOpen(true);
            }}
            onFocus={() => setOpen(true)}
            onBlur={() => setOpen(false)}
            onKeyDown={onKeyDown}
          />
          {open && (
            <div id={listId} role="listbox" aria-label="Team members" className={styles.list}>
              {matches.length === 0 && (
                <div className={styles.empty}>{team.isPending ? "Loading…" : "Nobody matches"}</div>
              )}
              {matches.map((member, i) => (
                <div
                  key={member.id}
                  tabIndex={-1}
                  id={optionId(i)}
                  role="option"
                  aria-selected={i === active}
                  className={i === active ? styles.active : undefined}
                  // mousedown, not click: the input's blur would close the list before a click lands.
                  onMouseDown={(e) => {
                    e.preventDefault();
                    pick(member);
                  }}
                >
                  {label(member)} <span className="muted">{member.role}</span>
                </div>
              ))}
            </div>
          )}
        </div>
        {myself && myself.id !== assignee?.id && (
          <button type="button" className="button small" disabled={busy} onClick={() => pick(myself)}>
            Assign to me
          </button>
        )}
        {assignee && (
          <button type="button" className="button small" disabled={busy} onClick={onUnassign}>
            Unassign
          </button>
        )}
      </div>
    </div>
  );
}

/** "ana (Ana Lopez)", or the former free-text owner muted ("was: team-a"), or "unassigned". */
export function AssigneeName({
  assignee,
  formerOwner,
}: {
  assignee: AssigneeView | null;
  formerOwner?: string | null;
}) {
  if (assignee) return <span className={styles.name}>{label(assignee)}</span>;
  return (
    <span className="muted">
      unassigned{formerOwner ? <span className={styles.name}> · was: {formerOwner}</span> : null}
    </span>
  );
}
