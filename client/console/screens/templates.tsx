import { useMemo, useRef, useState } from "preact/hooks";
import { api, ok, type LinkTemplate } from "../api";
import { checkDraft, ConfigFields, draftFrom, emptyDraft, toRequest, type ConfigDraft } from "../components/config-form";
import { ListTable } from "../components/list-table";
import { announce, Badge, ConfirmDialog, CopyButton, ErrorNotice, Field, LoadState, Notice, PageHeader, Section } from "../components/ui";
import { changedFields } from "../lib/changes";
import { formatDateTime } from "../lib/format";
import { useAction, useLoad, useRefreshOnReturn, useTitle } from "../lib/hooks";
import { useCan } from "../lib/roles";
import { navigate } from "../router";

type Editing = { kind: "new" } | { kind: "edit"; template: LinkTemplate };

const TEMPLATES = "/console/templates";

/**
 * The list, and the form that publishes or edits one: `?publish` or `?edit=<slug>` (in the URL, so a
 * reload keeps the form and Back leaves it for the list).
 */
export function TemplatesScreen(props: { query: URLSearchParams }) {
  useTitle("Link templates");
  const can = useCan();
  const list = useLoad(() => ok(api.GET("/v1/link-templates")), []);
  // Visits to a link start verifications elsewhere (a "Start one" tab included): the counts are read again on coming back.
  useRefreshOnReturn(list.reload);
  const [revoking, setRevoking] = useState<LinkTemplate | undefined>(undefined);
  const revoke = useAction(async (t: LinkTemplate) => {
    await ok(api.POST("/v1/link-templates/{slug}/revoke", { params: { path: { slug: t.slug } } }));
    setRevoking(undefined);
    announce(`${t.name} revoked`);
    await list.reload();
  });

  const editing = can("admin") ? editingOf(props.query, list.data?.items) : undefined;
  if (editing === "loading") return <LoadState of={list} failed="Templates could not be loaded" loading="Loading the template…" />;
  if (editing === "unknown") {
    return (
      <>
        <PageHeader title="Link templates" />
        <Notice tone="error">No template of this tenant has that link name.</Notice>
        <a href={TEMPLATES}>Back to the templates</a>
      </>
    );
  }
  if (editing) {
    return (
      <TemplateForm
        key={editing.kind === "edit" ? editing.template.slug : "new"}
        editing={editing}
        onDone={async (saved) => {
          // The form's entry gives way to the list: Back from the list does not reopen a form just published.
          navigate(TEMPLATES, { replace: true });
          if (saved) {
            announce(`${saved.name} published as version ${saved.version}`);
            await list.reload();
          }
        }}
      />
    );
  }

  const items = list.data?.items ?? [];
  return (
    <>
      <PageHeader
        title="Link templates"
        subtitle="Reusable public links: each visit starts a new verification from the template's current version."
        actions={
          can("admin") ? (
            <button type="button" class="button primary" onClick={() => navigate(`${TEMPLATES}?publish`)}>
              Publish a template
            </button>
          ) : null
        }
      />
      <LoadState
        of={list}
        failed="Templates could not be loaded"
        loading="Loading templates…"
        empty={
          items.length === 0 &&
          (can("admin")
            ? "No templates yet. Publish one to get a link you can put on a website or in a message."
            : "No templates yet. Admins and owners publish them: a link you can put on a website or in a message.")
        }
      />
      {items.length > 0 ? (
        <ListTable
          caption="Link templates, newest first"
          rows={items}
          rowKey={(t) => t.id}
          columns={[
            {
              label: "Template",
              cell: (t) => (
                <>
                  <bdi class="break">
                    <strong>{t.name}</strong>
                  </bdi>{" "}
                  <Badge tone={t.status === "active" ? "good" : "neutral"}>{t.status}</Badge>
                  <span class="meta">
                    {t.mode === "audit" ? "audit (uploaded content)" : "live capture"} · updated {formatDateTime(t.updated_at)}
                  </span>
                </>
              ),
            },
            {
              label: "Link",
              cell: (t) => (
                <>
                  <span class="mono break">{t.url}</span>
                  {t.status === "active" && can("reviewer") ? (
                    <span class="inline">
                      <CopyButton text={t.url} label="Copy link" />
                      <a class="button secondary small" href={t.url} target="_blank" rel="noopener noreferrer">
                        Start one <span class="visually-hidden">from {t.name} (opens a new tab)</span>
                      </a>
                    </span>
                  ) : null}
                </>
              ),
            },
            { label: "Version", cell: (t) => `v${t.version}` },
            {
              label: "Started",
              cell: (t) => (
                <>
                  {t.started_total} total, {t.started_today} today
                  <a class="meta" href={`/console/verifications?template_id=${t.id}`}>
                    see them
                  </a>
                </>
              ),
            },
            can("admin") && {
              label: "Actions",
              hideLabel: true,
              cell: (t) =>
                t.status === "active" ? (
                  <span class="inline">
                    <button type="button" class="button secondary small" onClick={() => navigate(`${TEMPLATES}?edit=${encodeURIComponent(t.slug)}`)}>
                      Edit <span class="visually-hidden">{t.name}</span>
                    </button>
                    <button type="button" class="button danger-link small" onClick={() => setRevoking(t)}>
                      Revoke <span class="visually-hidden">{t.name}</span>
                    </button>
                  </span>
                ) : null,
            },
          ]}
        />
      ) : null}
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke “${revoking?.name ?? ""}”?`}
        body={<p>The link stops starting verifications at once and answers “no longer available”. The slug stays reserved. This cannot be undone.</p>}
        confirm="Revoke the link"
        busy={revoke.busy}
        error={revoke.error}
        onConfirm={() => revoking && void revoke.run(revoking)}
        onClose={() => {
          setRevoking(undefined);
          revoke.clearError();
        }}
      />
    </>
  );
}

/** The form the URL asks for, once the list it edits from is loaded. */
function editingOf(query: URLSearchParams, items: LinkTemplate[] | undefined): Editing | "loading" | "unknown" | undefined {
  if (query.has("publish")) return { kind: "new" };
  const slug = query.get("edit");
  if (slug === null) return undefined;
  if (!items) return "loading";
  const template = items.find((t) => t.slug === slug);
  return template ? { kind: "edit", template } : "unknown";
}

function TemplateForm(props: { editing: Editing; onDone: (saved?: LinkTemplate) => void }) {
  // The template as the form opened it, whatever the list reloads meanwhile (coming back to the tab
  // reads it again): a save sends what the operator changed from this, never a colleague's newer
  // version taken back.
  const [editing] = useState(props.editing);
  const existing = editing.kind === "edit" ? editing.template : undefined;
  const [slug, setSlug] = useState(existing?.slug ?? "");
  const [name, setName] = useState(existing?.name ?? "");
  const [mode, setMode] = useState<LinkTemplate["mode"]>(existing?.mode ?? "verification");
  const [draft, setDraft] = useState<ConfigDraft>(() => (existing ? draftFrom(existing) : emptyDraft()));
  const summary = useRef<HTMLDivElement>(null);
  // Saving sends only the fields the operator changed from the template as it was opened: the API
  // presents what the template leaves to the deployment (its default checks, expiry, seal) filled in,
  // and sending those back would pin them. An unchanged form publishes nothing.
  const opened = useMemo(() => existing && updateOf(existing.name, existing.mode, draftFrom(existing)), [existing]);
  const patch = opened ? changedFields(opened, updateOf(name, mode, draft)) : {};
  const unchanged = opened !== undefined && Object.keys(patch).length === 0;
  const pinnedNote =
    existing?.signals_default !== undefined && "signals_required" in patch
      ? "Publishing fixes the checks to those ticked: the template stops following this deployment's default checks."
      : undefined;
  const save = useAction(async () => {
    checkDraft(draft);
    if (!existing) return ok(api.POST("/v1/link-templates", { body: { ...toRequest(draft), slug: slug.trim(), name: name.trim(), mode } }));
    return ok(api.PATCH("/v1/link-templates/{slug}", { params: { path: { slug: existing.slug } }, body: patch }));
  });
  const errors = save.error?.fields ?? {};
  return (
    <>
      <PageHeader
        title={existing ? `Edit “${existing.name}”` : "Publish a template"}
        subtitle={
          existing
            ? `Saving a change publishes version ${existing.version + 1}; verifications already started keep the version they started from.`
            : "Its link starts a verification with these settings."
        }
      />
      <form
        class="stack"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          const saved = await save.run();
          if (saved) props.onDone(saved);
          else summary.current?.focus();
        }}
      >
        <div ref={summary} tabIndex={-1}>
          <ErrorNotice error={save.error} what={Object.keys(errors).length > 0 ? "Please correct the marked fields" : "The template could not be saved"} />
        </div>
        <Section title="Template">
          <div class="grid">
            <Field label="Name" error={errors.name}>
              {(c) => <input {...c} required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
            </Field>
            <Field label="Slug" hint="In the link: lowercase letters, digits and hyphens. Cannot change later." error={errors.slug}>
              {(c) => <input {...c} required maxLength={64} pattern="[a-z0-9][a-z0-9-]*" disabled={existing !== undefined} value={slug} onInput={(e) => setSlug(e.currentTarget.value)} />}
            </Field>
            <Field label="Mode" hint="Audit: the person uploads existing files instead of live photos." error={errors.mode}>
              {(c) => (
                <select {...c} value={mode} onChange={(e) => setMode(e.currentTarget.value as LinkTemplate["mode"])}>
                  <option value="verification">Live capture</option>
                  <option value="audit">Audit (uploaded content)</option>
                </select>
              )}
            </Field>
          </div>
        </Section>
        <ConfigFields
          draft={draft}
          onChange={setDraft}
          errors={errors}
          idPrefix="tpl"
          signalsNote="This deployment's default checks: the template follows them as they change, until you change them here."
          pinnedNote={pinnedNote}
        />
        <div class="form-actions">
          <button type="button" class="button secondary" onClick={() => props.onDone()}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={save.busy || unchanged}>
            {save.busy ? "Publishing…" : unchanged ? "No changes to publish" : existing ? `Publish version ${existing.version + 1}` : "Publish"}
          </button>
        </div>
      </form>
    </>
  );
}

/** Every field of a template update as the form stands (what it left empty: null, which clears it); saving sends those that changed. */
function updateOf(name: string, mode: LinkTemplate["mode"], draft: ConfigDraft) {
  const spec = toRequest(draft);
  return {
    name: name.trim(),
    mode,
    steps: spec.steps,
    signals_required: spec.signals_required ?? null,
    context: spec.context ?? null,
    webhook_url: spec.webhook_url ?? null,
    notify_email: spec.notify_email ?? null,
    metadata: spec.metadata ?? null,
    expected_location: spec.expected_location ?? null,
    expected_object: spec.expected_object ?? null,
    condition_aspects: spec.condition_aspects ?? null,
    seal: spec.seal ?? null,
    expires_in_seconds: spec.expires_in_seconds ?? null,
  };
}
