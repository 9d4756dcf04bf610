import Link from "next/link";
import type { ChainSummary } from "@/lib/dashboard/api-types";
import { reasonText } from "@/lib/dashboard/reason-text";
import { STATE_META } from "@/lib/dashboard/state-meta";
import { Labels } from "../chains/ChainTable";
import { ReasonList } from "../state/ReasonList";
import { StateBadge } from "../state/StateBadge";
import { Time } from "../ui/Time";
import styles from "./Evidence.module.css";

const QUEUE_HREF: Record<string, string> = {
  false_success: "/queues/false-success",
  effect_unknown: "/queues/effect-unknown",
};

// Contract v1.2: a would-be healthy chain with a layer its reporter did not see.
const UNSEEN_SUMMARY =
  "Every seen layer passed, but a layer was not observed: it cannot agree, so the chain is not green. A coverage gap, not a failure.";
const decidedByUnseenLayer = (chain: ChainSummary) => chain.reasons[0]?.endsWith(".not_observed") ?? false;

/** The verdict first: state, the deciding reason in words, and a shadowed state just as loud. */
export function ChainHeadline({ chain, operationKey }: { chain: ChainSummary; operationKey?: string }) {
  const meta = STATE_META[chain.state];
  const queue = QUEUE_HREF[chain.state];
  return (
    <section
      className={styles.headline}
      style={{ "--state-color": meta.color } as React.CSSProperties}
      aria-label="Verdict"
    >
      <div className={styles.verdicts}>
        <div className={styles.verdict}>
          <p className={styles.kicker}>State</p>
          <StateBadge state={chain.state} size="large" />
          <p className={styles.summary}>
            {decidedByUnseenLayer(chain) ? UNSEEN_SUMMARY : `${meta.summary}.`}
          </p>
          {queue && (
            <Link href={`${queue}?chain=${encodeURIComponent(chain.chainId)}`}>
              Open in the {meta.label.toLowerCase()} queue →
            </Link>
          )}
        </div>
        {chain.shadowed && <ShadowedVerdict chain={chain} shadowed={chain.shadowed} />}
      </div>
      <ReasonList reasons={chain.reasons} />
      <dl className={styles.meta}>
        <div>
          <dt>Retry</dt>
          <dd>
            {chain.retrySafe === null
              ? "no call"
              : chain.retrySafe
                ? "safe: repeating cannot duplicate a write"
                : "not safe automatically"}
          </dd>
        </div>
        {chain.evidence && (
          <div>
            <dt>Evidence</dt>
            <dd className={chain.evidence === "weak" ? styles.weakText : undefined}>
              {chain.evidence === "weak" ? "weak (LLM judge)" : "strong"}
            </dd>
          </div>
        )}
        <div>
          <dt>Owner by default</dt>
          <dd>{meta.owner}</dd>
        </div>
        {operationKey && (
          <div>
            <dt>Operation</dt>
            <dd>
              <Link href={`/operations/${encodeURIComponent(operationKey)}`} className="mono">
                {operationKey}
              </Link>
            </dd>
          </div>
        )}
        <div>
          <dt>Session</dt>
          <dd>
            <Link href={`/sessions/${encodeURIComponent(chain.sessionId)}`} className="mono">
              {chain.sessionId}
            </Link>
          </dd>
        </div>
        <div>
          <dt>Observed</dt>
          <dd>
            <Time iso={chain.observedAt} /> · evaluated <Time iso={chain.evaluatedAt} />
          </dd>
        </div>
        {chain.nextCheckAt && (
          <div>
            <dt>Next check</dt>
            <dd>
              <Time iso={chain.nextCheckAt} /> (waiting never stays green past either clock)
            </dd>
          </div>
        )}
        <div>
          <dt>Labels</dt>
          <dd>
            <Labels labels={chain.labels} />
          </dd>
        </div>
      </dl>
    </section>
  );
}

function ShadowedVerdict({
  chain,
  shadowed,
}: {
  chain: ChainSummary;
  shadowed: NonNullable<ChainSummary["shadowed"]>;
}) {
  const meta = STATE_META[shadowed.state];
  const queue = QUEUE_HREF[shadowed.state];
  return (
    <div
      className={`${styles.verdict} ${styles.shadowVerdict}`}
      style={{ "--state-color": meta.color } as React.CSSProperties}
      role="note"
    >
      <p className={styles.kicker}>Shadowed — behind the {STATE_META[chain.state].label.toLowerCase()}</p>
      <StateBadge state={shadowed.state} size="large" />
      <p className={styles.summary}>
        <strong>{reasonText(shadowed.reason).title}.</strong> Even once the {chain.layer} problem is fixed,
        the call itself is {meta.label.toLowerCase()} — {meta.summary.toLowerCase()}.
      </p>
      {queue && (
        <Link href={`${queue}?chain=${encodeURIComponent(chain.chainId)}`}>
          Open in the {meta.label.toLowerCase()} queue →
        </Link>
      )}
    </div>
  );
}
