/**
 * Contract v1.2 as properties: what the reporter did not see is a coverage gap, never an incident.
 *
 * The oracle for an unseen layer is the same record with that layer filled in with evidence that
 * passes every one of its rules (rules 3–6 for the handshake, 8–11 for the catalog): the unseen
 * record classifies like that one, except that the unseen layers join the path codes and a
 * would-be `healthy` is `unverified`, decided by the first unseen layer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Classification, classify } from "@/lib/classifier/classify";
import { NOT_OBSERVED_REASON_CODES, REASONS, type ReasonCode } from "@/lib/classifier/reasons";
import type { HealthRecord } from "@/lib/contract/record";
import { recordArb } from "@/tests/support/record-arbitraries";
import { SCHEMA_HASH } from "@/tests/support/record-builders";

const RUNS = { numRuns: 2_000 };

const unseenHandshake = (record: HealthRecord) => record.observed?.handshake === false;
const unseenCatalog = (record: HealthRecord) => record.observed?.catalog === false;

/** Rules 3–6 and 8–11 pass on this copy, and it says it saw everything. */
function filledIn(record: HealthRecord): HealthRecord {
  const copy = structuredClone(record);
  delete copy.observed;
  if (unseenHandshake(record)) {
    const { protocol } = copy.session;
    copy.session.server ??= { name: "filled-in", version: "1" };
    protocol.acceptedVersion = protocol.clientSupportedVersions[0];
    if (protocol.era === "legacy") protocol.initializedAt = copy.observedAt;
    copy.session.capabilities.required = { server: [], client: [] };
  }
  if (unseenCatalog(record)) {
    // Refreshed at the earliest instant any rule looks at, with no change notice and no ttl.
    const ref = copy.call?.startedAt ?? copy.observedAt;
    copy.catalog = {
      pages: 1,
      complete: true,
      toolCount: 1,
      schemaHash: SCHEMA_HASH,
      refreshedAt: ref,
      listChangedAt: [],
    };
  }
  return copy;
}

/** The not-observed codes that arise on the way to `seen`'s deciding rule (§3: "in the order they arose"). */
function unseenCodesReached(record: HealthRecord, seen: Classification): ReasonCode[] {
  const [deciding] = seen.reasons;
  // Rules 1 and 2 decide before the skipped rules are reached.
  if (deciding === REASONS.AUTH_CHALLENGE_UNRESOLVED || deciding === REASONS.AUTH_URL_ELICITATION_REQUIRED)
    return [];
  const codes: ReasonCode[] = [];
  if (unseenHandshake(record)) codes.push(REASONS.SESSION_NOT_OBSERVED);
  // Rule 7 (or a seen handshake's rule 3–6) decides before the catalog layer.
  if (seen.layer !== "session" && unseenCatalog(record)) codes.push(REASONS.CATALOG_NOT_OBSERVED);
  return codes;
}

function expected(record: HealthRecord): Classification {
  const seen = classify(filledIn(record));
  const unseen = unseenCodesReached(record, seen);
  const [deciding, ...path] = seen.reasons;
  const [firstUnseen, ...otherUnseen] = unseen;
  if (deciding === undefined || firstUnseen === undefined) return seen;
  if (seen.state === "healthy") {
    const { evidence: _evidence, ...rest } = seen;
    return {
      ...rest,
      state: "unverified",
      layer: firstUnseen === REASONS.SESSION_NOT_OBSERVED ? "session" : "catalog",
      reasons: [firstUnseen, ...otherUnseen, ...path],
    };
  }
  return { ...seen, reasons: [deciding, ...unseen, ...path] };
}

// Property runs are CPU-bound; generous timeouts keep them stable when the machine is busy.
describe("classify, contract v1.2: unseen layers", { timeout: 60_000 }, () => {
  it("the generator builds unseen handshakes and catalogs, alone and together", () => {
    const records = fc.sample(recordArb, { numRuns: 2_000, seed: 20261205 });
    expect(records.filter(unseenHandshake).length).toBeGreaterThan(200);
    expect(records.filter(unseenCatalog).length).toBeGreaterThan(200);
    expect(records.filter((r) => unseenHandshake(r) && unseenCatalog(r)).length).toBeGreaterThan(50);
  });

  it("an unseen layer classifies like the same layer seen and passing, with the gap on the path and never green", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        expect(classify(record)).toEqual(expected(record));
      }),
      RUNS,
    );
  });

  it("a record with an unseen layer is never healthy, and never incompatible or stale from rules 3–6 / 8–11", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const result = classify(record);
        if (!unseenHandshake(record) && !unseenCatalog(record)) return;
        expect(result.state).not.toBe("healthy");
        expect(result.evidence).toBeUndefined();
        if (unseenCatalog(record)) expect(result.state).not.toBe("stale_catalog");
        if (unseenHandshake(record) && result.state === "incompatible_session") {
          // Only rule 7 remains: the call's own -32021 / -32022, in its response or its failed task.
          const call = record.call;
          const codes = [
            call?.response?.error?.code,
            call?.task?.status === "failed" ? call.task.error?.code : undefined,
          ];
          expect(codes.some((code) => code === -32021 || code === -32022)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("with the handshake unseen, its evidence changes nothing", () => {
    fc.assert(
      fc.property(
        recordArb,
        fc.constantFrom("no_answer", "no_agreed_version", "unsupported", "capability"),
        (generated, breakage) => {
          if (!unseenHandshake(generated)) return;
          const record = structuredClone(generated);
          const { protocol, capabilities } = record.session;
          if (breakage === "no_answer") {
            delete record.session.server;
            delete protocol.acceptedVersion;
          }
          if (breakage === "no_agreed_version") delete protocol.acceptedVersion;
          if (breakage === "unsupported") protocol.acceptedVersion = "2024-11-05";
          if (breakage === "capability")
            capabilities.required.server = [...capabilities.required.server, "prompts"];
          expect(classify(record)).toEqual(classify(generated));
        },
      ),
      RUNS,
    );
  });

  it("not-observed codes appear only for a layer the record says was not seen", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const { reasons } = classify(record);
        if (reasons.includes(REASONS.SESSION_NOT_OBSERVED)) expect(unseenHandshake(record)).toBe(true);
        if (reasons.includes(REASONS.CATALOG_NOT_OBSERVED)) expect(unseenCatalog(record)).toBe(true);
        // Never more than once each, and the session's before the catalog's.
        const unseen = reasons.filter((reason) => NOT_OBSERVED_REASON_CODES.includes(reason));
        expect(unseen).toEqual(NOT_OBSERVED_REASON_CODES.filter((code) => unseen.includes(code)));
      }),
      RUNS,
    );
  });

  it("observed absent, {}, null fields and true fields classify the same", () => {
    fc.assert(
      fc.property(recordArb, (generated) => {
        const record = structuredClone(generated);
        if (unseenHandshake(record) || unseenCatalog(record)) return;
        delete record.observed;
        const baseline = classify(record);
        for (const observed of [
          {},
          { handshake: true },
          { catalog: true },
          { handshake: true, catalog: true },
        ]) {
          expect(classify({ ...record, observed })).toEqual(baseline);
        }
      }),
      { numRuns: 500 },
    );
  });
});
