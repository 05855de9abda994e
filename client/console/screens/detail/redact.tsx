import { useRef, useState } from "preact/hooks";
import { api, ok, type Verification } from "../../api";
import { announce, ErrorNotice, Field, focusSoon, Notice, Progress } from "../../components/ui";
import { formatDateTime } from "../../lib/format";
import { useAction } from "../../lib/hooks";

/** Erase the evidence: irreversible, so the operator types the verification id to confirm. */
export function RedactPanel(props: { verification: Verification; onChange: (v: Verification) => void }) {
  const v = props.verification;
  const [typed, setTyped] = useState("");
  const erased = useRef<HTMLDivElement>(null);
  const redact = useAction(async () => {
    props.onChange(await ok(api.POST("/v1/verifications/{id}/redact", { params: { path: { id: v.id } } })));
    announce("The evidence was erased");
    // The form and its button are gone: focus goes to what replaced them, not to the page's start.
    focusSoon(erased);
  });
  if (v.redacted_at) {
    return (
      <div ref={erased} tabIndex={-1}>
        <Notice>Redacted on {formatDateTime(v.redacted_at)}: photos, files, answers, metadata, context and locations are erased. Ids, statuses, times, digests and the verdict remain.</Notice>
      </div>
    );
  }
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        if (typed.trim() === v.id) void redact.run();
      }}
    >
      <p>
        Deletes every photo and file of this verification and clears its answers, metadata, context, locations and notification address, for good. Ids, statuses, times,
        SHA-256 digests and the verdict remain as a record. Receivers get a <code>verification.redacted</code> webhook.
      </p>
      <Field label="Type the verification id to confirm" hint={v.id}>
        {(c) => <input {...c} class="mono" autoComplete="off" spellcheck={false} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />}
      </Field>
      <ErrorNotice error={redact.error} what="The evidence was not erased" />
      <div>
        <button type="submit" class="button danger" disabled={redact.busy || typed.trim() !== v.id}>
          {redact.busy ? "Erasing…" : "Erase the evidence"}
        </button>
      </div>
      {redact.busy ? <Progress label="Erasing the photos and records…" /> : null}
    </form>
  );
}
