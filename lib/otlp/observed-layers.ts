import type { HealthRecord } from "../contract/record";
import { METHODS } from "./attribute-names";
import type { MappedSpan } from "./mapped-span";
import { MODERN_FROM } from "./session-evidence";
import { isClientRequest } from "./span-values";

/**
 * What the spans let Receipt see of a session's handshake and catalog (contract v1.2, `observed`). A sampled trace,
 * or an agent whose `initialize` span lands in another trace, shows calls without the handshake: that is a gap in
 * coverage, never `session.not_initialized`. A layer is seen when any span of its traffic (answered, failed or
 * unanswered) started by `refMs`: a failed `initialize` or `tools/list` is evidence, and stays a finding.
 */
export function observedLayers(
  group: readonly MappedSpan[],
  refMs: number,
  session: HealthRecord["session"],
): HealthRecord["observed"] | undefined {
  return observedLayersIndex(group)(refMs, session);
}

const HANDSHAKE_METHODS: readonly string[] = [METHODS.initialize, METHODS.initialized, METHODS.discover];

/** observedLayers for many reference times over one group: the group is read once. */
export function observedLayersIndex(
  group: readonly MappedSpan[],
): (refMs: number, session: HealthRecord["session"]) => HealthRecord["observed"] | undefined {
  const firstStart = (methods: readonly string[]) => {
    let first = Number.POSITIVE_INFINITY;
    for (const mapped of group) {
      const traffic =
        methods.includes(mapped.method?.method ?? "") &&
        (isClientRequest(mapped.span) || mapped.method?.method === METHODS.initialized);
      if (traffic && mapped.startMs < first) first = mapped.startMs;
    }
    return first;
  };
  const firstHandshake = firstStart(HANDSHAKE_METHODS);
  const firstCatalog = firstStart([METHODS.toolsList]);
  return (refMs, session) => {
    // A modern session has no handshake to see (stateless, versions travel with each request); a legacy one needs
    // its initialize, notifications/initialized or server/discover span.
    const legacy = session.protocol.requestedVersion < MODERN_FROM && session.protocol.era === "legacy";
    const handshakeSeen = !legacy || session.protocol.initializedAt !== undefined || firstHandshake <= refMs;
    const catalogSeen = firstCatalog <= refMs;
    if (handshakeSeen && catalogSeen) return undefined;
    return {
      ...(handshakeSeen ? {} : { handshake: false }),
      ...(catalogSeen ? {} : { catalog: false }),
    };
  };
}
