import { z } from "zod";
import type { Prisma } from "@/lib/generated/prisma/client";
import type {
  SilencePreviewAnswer,
  SilencePreviewAlert,
  SilenceView,
} from "@/lib/dashboard/routing-api-types";
import { equalityLabels, previewSilence } from "@/lib/routing/alert-workspace";
import { isTimestampInRange } from "@/lib/contract/timestamp";
import { ZDuration, ZTimestamp } from "@/lib/routing/config";
import { parseDuration } from "@/lib/routing/duration";
import { type Matcher, parseMatcher } from "@/lib/routing/matcher";
import { listFiringAlertsWithLabels } from "../../db/routing-alert-reads";
import type { AuditActor } from "../../audit/audit-actor";
import { appendAuditEvent } from "../../db/audit-events";
import { getPrisma } from "../../db/client";
import {
  expireSilence,
  insertSilence,
  listSilences,
  lockSilence,
  type SilenceInput,
  type SilenceRow,
  updateSilence,
  wakeAllNotificationGroups,
} from "../../db/routing-silences";
import { ApiError, type ApiIssue, notFound } from "../../http/api-error";
import { reply } from "../../http/api-route";
import { rejectSecrets } from "../../http/reject-secrets";

export const ZSilenceBody = z.strictObject({
  matchers: z.array(z.string().min(1).max(1024)).min(1).max(32),
  startsAt: ZTimestamp.optional(),
  /** Either an end or a duration from the start ("2h"). */
  endsAt: ZTimestamp.optional(),
  duration: ZDuration.optional(),
  comment: z.string().trim().min(1).max(1024),
});

const RECENT_MS = 7 * 86_400_000;
/** Firing alerts a preview (or an active silence's count) reads at most. */
const PREVIEW_SCAN = 2_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function silenceView(row: SilenceRow, now: Date): SilenceView {
  const status =
    row.expiredAt !== null || row.endsAt <= now ? "expired" : row.startsAt > now ? "pending" : "active";
  return {
    id: row.id,
    matchers: row.matchers,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    createdBy: row.createdBy,
    comment: row.comment,
    createdAt: row.createdAt.toISOString(),
    status,
  };
}

/**
 * The comment passes the credential guard first (422 `secret_detected`); matchers use the one routing syntax; the
 * window must be non-empty. Every problem is reported with its path.
 */
type SilenceBody = z.infer<typeof ZSilenceBody>;

function toInput(body: SilenceBody, now: Date): SilenceInput {
  rejectSecrets([["$.comment", body.comment]]);
  const issues: ApiIssue[] = [];
  body.matchers.forEach((text, i) => {
    const parsed = parseMatcher(text);
    if (!parsed.ok) issues.push({ path: `$.matchers[${i}]`, code: parsed.code, message: parsed.message });
  });
  const startsAt = body.startsAt ? new Date(body.startsAt) : now;
  const durationMs = body.duration ? parseDuration(body.duration) : null;
  if (body.duration && durationMs === null)
    issues.push({ path: "$.duration", code: "invalid_duration", message: "units largest first, each once" });
  const endsAt = body.endsAt ? new Date(body.endsAt) : new Date(startsAt.getTime() + (durationMs ?? 0));
  if (!body.endsAt && !body.duration)
    issues.push({ path: "$.endsAt", code: "required", message: "give endsAt or duration" });
  else if (!isTimestampInRange(endsAt.getTime()))
    issues.push({ path: "$.duration", code: "too_big", message: "the silence must end before year 10000" });
  else if (endsAt <= startsAt)
    issues.push({
      path: body.endsAt ? "$.endsAt" : "$.duration",
      code: "silence_window",
      message: "must end after it starts",
    });
  if (issues.length > 0) throw new ApiError(422, "invalid_silence", "the silence is invalid", issues);
  return { matchers: body.matchers, startsAt, endsAt, comment: body.comment };
}

/** What the audit log keeps of a silence (its comment passed the credential guard). */
const silenceRecord = (row: SilenceRow) => ({
  matchers: row.matchers,
  startsAt: row.startsAt.toISOString(),
  endsAt: row.endsAt.toISOString(),
  comment: row.comment,
  expiredAt: row.expiredAt?.toISOString() ?? null,
});

/**
 * One silence change in one transaction: the row (locked first when it exists), the notification groups woken, and
 * its audit event, committed together. A change that changes nothing (expiring an expired silence) is not audited.
 */
async function changeSilence(
  id: string | null,
  action: "silence.create" | "silence.update" | "silence.expire",
  actor: AuditActor,
  write: (tx: Prisma.TransactionClient, before: SilenceRow | null) => Promise<SilenceRow | null>,
): Promise<{ row: SilenceRow }> {
  return getPrisma().$transaction(async (tx) => {
    const before = id === null ? null : await lockSilence(tx, id);
    if (id !== null && !before) throw notFound("silence");
    const row = await write(tx, before);
    if (!row) return { row: before as SilenceRow };
    await wakeAllNotificationGroups(tx);
    await appendAuditEvent(tx, {
      ...actor,
      action,
      targetType: "silence",
      targetId: row.id,
      ...(before ? { before: silenceRecord(before) } : {}),
      after: silenceRecord(row),
    });
    return { row };
  });
}

const silenceId = (id: string) => {
  if (!UUID.test(id)) throw notFound("silence");
  return id;
};

/**
 * The silences of the last week; each active one with what it mutes now (its firing alerts, counted as the preview
 * counts them, up to PREVIEW_SCAN), so the silences page answers "what is this hiding?" as Alertmanager's does.
 */
export async function getSilences(): Promise<{ silences: SilenceView[] }> {
  const now = new Date();
  const rows = await listSilences(now, RECENT_MS);
  return {
    silences: await Promise.all(
      rows.map(async (row) => {
        const view = silenceView(row, now);
        return view.status === "active" ? { ...view, mutes: await mutedNow(row.matchers, now) } : view;
      }),
    ),
  };
}

/** How many firing alerts a stored silence's matchers mute now; `more` past the scan bound. */
async function mutedNow(texts: string[], now: Date): Promise<{ alerts: number; more: boolean }> {
  const matchers = texts.flatMap((text) => {
    const parsed = parseMatcher(text);
    return parsed.ok ? [parsed.matcher] : [];
  });
  // A stored matcher always parsed when it was saved; one that no longer does mutes nothing rather than everything.
  if (matchers.length !== texts.length) return { alerts: 0, more: false };
  const rows = await listFiringAlertsWithLabels(equalityLabels(matchers), PREVIEW_SCAN + 1);
  const { muted } = previewSilence(matchers, rows.slice(0, PREVIEW_SCAN), now.getTime());
  return { alerts: muted.length, more: rows.length > PREVIEW_SCAN };
}

export async function postSilence(body: SilenceBody, actor: AuditActor) {
  const now = new Date();
  const input = toInput(body, now);
  const { row } = await changeSilence(null, "silence.create", actor, (tx) =>
    insertSilence(tx, input, actor.actor),
  );
  return reply<{ silence: SilenceView }>({ silence: silenceView(row, now) }, { status: 201 });
}

export async function putSilence(
  body: SilenceBody,
  id: string,
  actor: AuditActor,
): Promise<{ silence: SilenceView }> {
  const now = new Date();
  const input = toInput(body, now);
  const { row } = await changeSilence(silenceId(id), "silence.update", actor, (tx, before) => {
    if (before?.expiredAt !== null)
      throw new ApiError(409, "silence_expired", "an expired silence cannot be edited");
    return updateSilence(tx, before.id, input);
  });
  return { silence: silenceView(row, now) };
}

/** DELETE expires the silence (it stays in the history); an expired one is answered as it is. */
export async function deleteSilence(id: string, actor: AuditActor): Promise<{ silence: SilenceView }> {
  const now = new Date();
  const { row } = await changeSilence(silenceId(id), "silence.expire", actor, (tx, before) =>
    before && before.expiredAt === null ? expireSilence(tx, before.id, now) : Promise.resolve(null),
  );
  return { silence: silenceView(row, now) };
}

export const ZSilencePreviewBody = z.strictObject({
  matchers: z.array(z.string().min(1).max(1024)).min(1).max(32),
});

/**
 * POST preview: the firing alerts a silence with these matchers would mute now, and the protected ones it matches
 * but would not mute (it does not name their state). Equality matchers narrow the read in the database; the silences'
 * own code decides. A read: nothing is stored.
 */
export async function postSilencePreview(
  body: z.infer<typeof ZSilencePreviewBody>,
): Promise<SilencePreviewAnswer> {
  const matchers: Matcher[] = [];
  const issues: ApiIssue[] = [];
  body.matchers.forEach((text, i) => {
    const parsed = parseMatcher(text);
    if (parsed.ok) matchers.push(parsed.matcher);
    else issues.push({ path: `$.matchers[${i}]`, code: parsed.code, message: parsed.message });
  });
  if (issues.length > 0) throw new ApiError(422, "invalid_silence", "the matchers are invalid", issues);
  const rows = await listFiringAlertsWithLabels(equalityLabels(matchers), PREVIEW_SCAN + 1);
  const scanned = rows.slice(0, PREVIEW_SCAN);
  const { muted, keptProtected } = previewSilence(matchers, scanned, Date.now());
  const view = (row: (typeof scanned)[number]): SilencePreviewAlert => ({
    fingerprint: row.fingerprint,
    chainId: row.chainId,
    state: row.state,
    severity: row.severity,
    labels: row.labels,
  });
  return {
    muted: muted.map(view),
    keptProtected: keptProtected.map(view),
    scanned: scanned.length,
    truncated: rows.length > PREVIEW_SCAN,
  };
}
