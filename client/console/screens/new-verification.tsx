import { useRef, useState } from "preact/hooks";
import { api, ok, type Verification } from "../api";
import { checkDraft, ConfigFields, emptyDraft, toRequest, type ConfigDraft } from "../components/config-form";
import { QrCode } from "../components/qr";
import { CopyButton, ErrorNotice, Notice, PageHeader, Section } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { useAction, useTitle } from "../lib/hooks";

export function NewVerificationScreen() {
  useTitle("New verification");
  const [draft, setDraft] = useState<ConfigDraft>(emptyDraft);
  const [created, setCreated] = useState<Verification | undefined>(undefined);
  const summary = useRef<HTMLDivElement>(null);
  const create = useAction(async () => {
    checkDraft(draft);
    const v = await ok(api.POST("/v1/verifications", { body: toRequest(draft) }));
    setCreated(v);
    return v;
  });

  if (created) {
    return (
      <>
        <PageHeader title="Verification created" subtitle={<span class="mono">{created.id}</span>} />
        <Section title="Send the capture link">
          <div class="capture-link">
            <QrCode text={created.capture_url} label="QR code of the capture link: scan it with a phone to open the capture page" />
            <div class="stack">
              <p>Send this link to the person taking the photos, or let them scan the code with their phone. It works until {formatDateTime(created.expires_at)}.</p>
              <label for="capture-url">Capture link</label>
              <div class="inline">
                <input id="capture-url" class="mono" readOnly value={created.capture_url} onFocus={(e) => e.currentTarget.select()} />
                <CopyButton text={created.capture_url} label="Copy link" />
              </div>
              <p class="hint">Anyone holding this link can add evidence until the verification completes or expires: share it only with that person.</p>
              <div class="inline">
                <a class="button primary" href={`/console/verifications/${created.id}`}>
                  Open the verification
                </a>
                <button
                  type="button"
                  class="button secondary"
                  onClick={() => {
                    setCreated(undefined);
                    setDraft(emptyDraft());
                  }}
                >
                  Create another
                </button>
              </div>
            </div>
          </div>
        </Section>
      </>
    );
  }

  const errors = create.error?.fields ?? {};
  return (
    <>
      <PageHeader title="New verification" subtitle="Ask for photos, image files and answers; the link goes to the person who has them." />
      <form
        class="stack"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          const done = await create.run();
          if (!done) summary.current?.focus();
        }}
      >
        <div ref={summary} tabIndex={-1}>
          {create.error ? (
            <ErrorNotice error={create.error} what={Object.keys(errors).length > 0 ? "Please correct the marked fields" : "The verification could not be created"} />
          ) : null}
        </div>
        <ConfigFields draft={draft} onChange={setDraft} errors={errors} idPrefix="new" signalsNote="This deployment's default checks: left as they are, the verification gets them (and says so)." />
        {Object.keys(errors).length > 0 ? <Notice tone="error">{Object.keys(errors).length} field(s) need attention above.</Notice> : null}
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={create.busy}>
            {create.busy ? "Creating…" : "Create verification"}
          </button>
        </div>
      </form>
    </>
  );
}
