import { useState } from "preact/hooks";
import type { Verification } from "../../api";
import { Notice } from "../../components/ui";
import { recomputeSeal } from "../../lib/seal";

/** The record seal, and a check of it in this browser from the Verification as served. */
export function SealPanel(props: { verification: Verification }) {
  const seal = props.verification.record_seal;
  const [outcome, setOutcome] = useState<"match" | "mismatch" | undefined>(undefined);
  if (!seal) {
    return <p class="muted">No seal: sealing is off, or nothing has been answered yet.</p>;
  }
  const verify = async () => setOutcome((await recomputeSeal(props.verification)) === seal.hash ? "match" : "mismatch");
  return (
    <div class="stack">
      <dl class="facts">
        <dt>SHA-256</dt>
        <dd class="mono break">{seal.hash}</dd>
        <dt>Covers</dt>
        <dd>the record (id, creation time, config) and the answers, as the person declared them</dd>
      </dl>
      <p class="hint">
        Verify it yourself: take this verification as the API returns it, build <code>{"{record: {id, created_at, config}, answers: {key: {value, answered_at}}}"}</code>, serialise it
        as RFC 8785 canonical JSON and hash it with SHA-256. The seal proves the answers have not changed since; it does not say they are true.
      </p>
      <div>
        <button type="button" class="button secondary" onClick={() => void verify()}>
          Verify the seal here
        </button>
      </div>
      {outcome === "match" ? <Notice tone="success">The seal matches: the record and answers are exactly as sealed.</Notice> : null}
      {outcome === "mismatch" ? <Notice tone="error">The seal does not match this record: the answers or config differ from what was sealed.</Notice> : null}
    </div>
  );
}
