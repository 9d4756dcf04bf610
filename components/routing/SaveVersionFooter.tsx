import type { ChangeEvent, ReactNode } from "react";
import { FormError } from "./FormError";
import styles from "./Routing.module.css";

/**
 * The end of every routing form that saves a new config version: the version's comment, submit, cancel, and the
 * refusal (if any). `extra` goes first on the same line (a form's own checkboxes).
 */
export function SaveVersionFooter(props: {
  comment: string;
  onComment: (event: ChangeEvent<HTMLInputElement>) => void;
  submitLabel: string;
  busy: boolean;
  onCancel?: () => void;
  error: unknown;
  extra?: ReactNode;
}) {
  return (
    <>
      <div className={`${styles.actions} ${styles.wide}`}>
        {props.extra}
        <input
          aria-label="Comment for this version"
          placeholder="why (optional)"
          value={props.comment}
          onChange={props.onComment}
        />
        <button type="submit" className="button primary" disabled={props.busy}>
          {props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" className="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
      <div className={styles.wide}>
        <FormError error={props.error} />
      </div>
    </>
  );
}
