import { useRef, useState } from "preact/hooks";
import { api, isOpen, ok, type Verification } from "../api";
import { checkDraft, ConfigFields, emptyDraft, toRequest, type ConfigDraft } from "../components/config-form";
import { QrCode } from "../components/qr";
import { CopyButton, ErrorNotice, Notice, PageHeader, Progress, Section } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { navigate } from "../router";

const NEW = "/console/verifications/new";

/**
 * The form, and once it created a verification its capture link: `?created=<id>` (in the URL, so
 * a reload or Back and Forward find it again; read from the service when not just created here).
 */
export function NewVerificationScreen(props: { createdId: string | null }) {
  useTitle(props.createdId ? "Verification created" : "New verification");
  const [draft, setDraft] = useState<ConfigDraft>(emptyDraft);
  const [created, setCreated] = useState<Verification | undefined>(undefined);
  const summary = useRef<HTMLDivElement>(null);
  const create = useAction(async () => {
    checkDraft(draft);
    const v = await ok(api.POST("/v1/verifications", { body: toRequest(draft) }));
    setCreated(v);
    // Back from the link leads to an empty form, not to this one again (a second Create would be a second verification).
    setDraft(emptyDraft());
    navigate(`${NEW}?created=${encodeURIComponent(v.id)}`);
    return v;
  });

  if (props.createdId) return <CreatedLink id={props.createdId} known={created?.id === props.createdId ? created : undefined} />;

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

/** The capture link of a verification just created (`known`), or read again after a reload. */
function CreatedLink(props: { id: string; known: Verification | undefined }) {
  const loaded = useLoad(async () => props.known ?? (await ok(api.GET("/v1/verifications/{id}", { params: { path: { id: props.id } } }))), [props.id]);
  const created = loaded.data;
  if (loaded.error) {
    return (
      <>
        <PageHeader title="Verification created" />
        <ErrorNotice error={loaded.error} what={loaded.error.status === 404 ? "No such verification in this tenant" : "The verification could not be loaded"} />
        <a href={NEW}>Create a verification</a>
      </>
    );
  }
  if (!created) return <Progress label="Loading the verification…" />;
  return (
    <>
      <PageHeader title="Verification created" subtitle={<span class="mono">{created.id}</span>} />
      <Section title="Send the capture link">
        {isOpen(created) ? (
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
              <NextSteps id={created.id} />
            </div>
          </div>
        ) : (
          <div class="stack">
            <Notice tone="info">This verification no longer takes evidence: its capture link is not worth sending.</Notice>
            <NextSteps id={created.id} />
          </div>
        )}
      </Section>
    </>
  );
}

function NextSteps(props: { id: string }) {
  return (
    <div class="inline">
      <a class="button primary" href={`/console/verifications/${props.id}`}>
        Open the verification
      </a>
      <a class="button secondary" href={NEW}>
        Create another
      </a>
    </div>
  );
}
