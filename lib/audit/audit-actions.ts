/**
 * Every action the audit log records, `<area>.<verb>`. One list, so the API's filter, the UI's picker and the
 * writers agree; a writer passes one of these, never a string of its own.
 */
export const AUDIT_ACTIONS = [
  // users and sign-in (admin)
  "user.invite",
  "user.invite_revoke",
  "user.join",
  "user.role_change",
  "user.disable",
  "user.enable",
  "user.password_change",
  "user.session_revoke",
  "user.notification_target_change",
  "user.oidc_create",
  // ingestion keys (admin)
  "key.create",
  "key.revoke",
  // routing (admin)
  "routing.config_apply",
  "routing.config_restore",
  "routing.test_notification",
  // destination checks (admin)
  "checks.config_apply",
  // responding
  "silence.create",
  "silence.update",
  "silence.expire",
  "alert.resolve",
  "delivery.retry",
  "problem.resolve",
  "problem.reopen",
  "problem.assign",
  "problem.unassign",
  "problem.resolve_undo",
  "triage.resolve_undo",
  "triage.acknowledge",
  "triage.assign",
  "triage.unassign",
  "triage.note",
  "triage.resolve",
  "triage.reopen",
  "chain.reconcile",
  "chain.verify",
  "operation.settle",
  "user.profile_change",
  "alert.assign",
  "alert.unassign",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_TYPES = [
  "user",
  "invite",
  "session",
  "key",
  "routing_config",
  "checks_config",
  "receiver",
  "silence",
  "alert",
  "delivery",
  "problem",
  "chain",
  "operation",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];
