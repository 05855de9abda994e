import { useState } from "preact/hooks";
import { api, ok, type Phone, type Schemas } from "../api";
import { leaveForSignIn } from "../router";
import { useSession } from "../session";
import { announce, ConfirmDialog, CopyButton, ErrorNotice, Field, LoadState, Notice, PageHeader, Progress, Section } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { providerName } from "../lib/signals";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { useCan } from "../lib/roles";

export function SettingsScreen() {
  useTitle("Settings");
  const { me } = useSession();
  const can = useCan();
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle={
          <>
            Organisation <bdi>{me.tenant.display_name}</bdi> ({me.tenant.slug}), tenant {me.tenant.id}
          </>
        }
      />
      <div class="stack">
        {can("admin") ? (
          <>
            <Organisation />
            <AiDetection />
            <Domain />
            <Phones />
            <SignOutEverywhere />
          </>
        ) : (
          <OrganisationFacts />
        )}
      </div>
    </>
  );
}

/** What a member who may not change the settings sees of them. */
function OrganisationFacts() {
  const settings = useLoad(() => ok(api.GET("/v1/tenant/settings")), []);
  const domain = useLoad(() => ok(api.GET("/v1/tenant/domain")), []);
  const current = settings.data;
  return (
    <Section title="Organisation" id="organisation">
      <LoadState of={settings} failed="Settings could not be loaded" loading="Loading settings…" />
      {current ? (
        <dl class="facts">
          <div class="fact">
            <dt>Display name</dt>
            <dd>
              <bdi>{current.display_name}</bdi>
            </dd>
          </div>
          <div class="fact">
            <dt>Verified domain</dt>
            <dd>{domain.data?.verified_domain ? domain.data.verified_domain.domain : "none (certificates show the display name, as declared by the organisation)"}</dd>
          </div>
          <div class="fact">
            <dt>AI-detection provider</dt>
            <dd>{current.ai_detection_provider === null ? "this service's default" : current.ai_detection_provider === "none" ? "none (photos are sent to no detection provider)" : providerName(current.ai_detection_provider)}</dd>
          </div>
          <div class="fact">
            <dt>Keep evidence for</dt>
            <dd>{current.retention_days != null ? `${current.retention_days} days` : "ever (no retention limit)"}</dd>
          </div>
        </dl>
      ) : null}
      <p class="hint">Admins and owners change these, the bot phones and who is signed in.</p>
    </Section>
  );
}

function Organisation() {
  const { me, setMe } = useSession();
  const settings = useLoad(() => ok(api.GET("/v1/tenant/settings")), []);
  const [name, setName] = useState<string | undefined>(undefined);
  const [retention, setRetention] = useState<string | undefined>(undefined);
  const current = settings.data;
  const shownName = name ?? current?.display_name ?? "";
  const shownRetention = retention ?? (current?.retention_days != null ? String(current.retention_days) : "");
  const save = useAction(async () => {
    const next = await ok(
      api.PATCH("/v1/tenant/settings", {
        body: { display_name: shownName.trim(), retention_days: shownRetention.trim() === "" ? null : Number(shownRetention) },
      }),
    );
    settings.set(next);
    setName(undefined);
    setRetention(undefined);
    setMe({ ...me, tenant: { ...me.tenant, display_name: next.display_name } });
    announce("Settings saved");
  });
  return (
    <Section title="Organisation" id="organisation">
      {!current && !settings.error ? <Progress label="Loading settings…" /> : null}
      <ErrorNotice error={settings.error} what="Settings could not be loaded" />
      {current ? (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void save.run();
          }}
        >
          <div class="grid">
            <Field
              label="Display name"
              hint="Shown to the people you send links to (“Requested by …”) and here; certificates show it as declared by you unless you prove a domain below."
              error={save.error?.fields.display_name}
            >
              {(c) => <input {...c} required maxLength={100} value={shownName} onInput={(e) => setName(e.currentTarget.value)} />}
            </Field>
            <Field
              label="Keep evidence for (days)"
              hint="Empty keeps everything. Otherwise a daily run erases verifications older than this, exactly like “Erase the evidence” (1 to 3650)."
              error={save.error?.fields.retention_days}
            >
              {(c) => <input {...c} type="number" min={1} max={3650} inputMode="numeric" value={shownRetention} onInput={(e) => setRetention(e.currentTarget.value)} />}
            </Field>
          </div>
          {save.error && Object.keys(save.error.fields).length === 0 ? <ErrorNotice error={save.error} /> : null}
          <div>
            <button type="submit" class="button primary" disabled={save.busy}>
              {save.busy ? "Saving…" : "Save"}
            </button>
          </div>
        </form>
      ) : null}
    </Section>
  );
}

type AiSetting = Schemas["TenantSettings"]["ai_detection_provider"];
/** The select's value for a setting: `default` stands for null. */
const aiChoiceOf = (setting: AiSetting): string => setting ?? "default";

/**
 * Which AI-detection provider the organisation's photos are sent to (`ai_detection_provider`): this
 * service's default, none (a privacy choice), or one of the providers GET /v1/capabilities lists.
 */
function AiDetection() {
  const settings = useLoad(() => ok(api.GET("/v1/tenant/settings")), []);
  const capabilities = useLoad(() => ok(api.GET("/v1/capabilities")), []);
  const [choice, setChoice] = useState<string | undefined>(undefined);
  const current = settings.data?.ai_detection_provider;
  const ai = capabilities.data?.signals.ai;
  const configured = ai?.detection_providers ?? [];
  const shown = choice ?? (current !== undefined ? aiChoiceOf(current) : "default");
  const save = useAction(async () => {
    const next = await ok(api.PATCH("/v1/tenant/settings", { body: { ai_detection_provider: shown === "default" ? null : (shown as Exclude<AiSetting, null>) } }));
    settings.set(next);
    setChoice(undefined);
    await capabilities.reload();
    announce("AI detection saved");
  });
  // A provider chosen earlier that this service no longer offers stays shown as chosen, and said so.
  const removed = current && current !== "none" && !(configured as string[]).includes(current) ? current : null;
  const asked = ai?.methods?.find((m) => m.startsWith("provider:"))?.slice("provider:".length);
  return (
    <Section title="AI detection" id="ai-detection">
      <p class="hint">
        Whether a photo was generated by AI is read first from its provenance metadata. Where that does not settle it, this service can send the photo (without its metadata) to an
        outside detection provider. “None” keeps your photos with this service: only their provenance metadata is then read.
      </p>
      <LoadState of={settings} failed="Settings could not be loaded" loading="Loading settings…" />
      <LoadState of={capabilities} failed="The detection providers could not be loaded" loading="Loading the detection providers…" />
      {current !== undefined && ai ? (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save.run();
          }}
        >
          <Field label="Detection provider" error={save.error?.fields.ai_detection_provider}>
            {(c) => (
              <select {...c} value={shown} onChange={(e) => setChoice(e.currentTarget.value)}>
                <option value="default">This service's default</option>
                <option value="none">None: never send photos to a provider</option>
                {configured.map((name) => (
                  <option key={name} value={name}>
                    {providerName(name)}
                  </option>
                ))}
                {removed ? <option value={removed}>{providerName(removed)} (no longer offered)</option> : null}
              </select>
            )}
          </Field>
          <button type="submit" class="button primary" disabled={save.busy || shown === aiChoiceOf(current)}>
            {save.busy ? "Saving…" : "Save the choice"}
          </button>
        </form>
      ) : null}
      {save.error && Object.keys(save.error.fields).length === 0 ? <ErrorNotice error={save.error} /> : null}
      {removed ? (
        <Notice tone="warning">
          {providerName(removed)} is no longer offered by this service. No other provider is asked in its place: AI detection on new photos without provenance metadata is marked not
          assessed until you choose again.
        </Notice>
      ) : ai ? (
        <p class="meta">
          {asked
            ? `Asked now: ${providerName(asked)}.`
            : current === "none"
              ? "Asked now: none. Your photos are sent to no detection provider."
              : configured.length === 0
                ? "Asked now: none. This service has no detection provider configured; only provenance metadata is read."
                : "Asked now: none. This service's default names no provider it offers; choose one above to have it asked."}
        </p>
      ) : null}
    </Section>
  );
}

type TenantDomain = Schemas["TenantDomain"];

/**
 * A domain typed in its own letters (пример.рф, bücher.de) in the `xn--` form the API takes and DNS
 * publishes, as the browser's URL parser writes it; anything else is sent as typed, for the API to judge.
 */
function asciiDomain(typed: string): string {
  const name = typed.trim();
  if (/^[\x21-\x7e]*$/.test(name)) return name;
  try {
    const url = new URL(`http://${name}`);
    return url.pathname === "/" && url.search === "" && url.hash === "" && url.port === "" && url.username === "" ? url.hostname : name;
  } catch {
    return name;
  }
}

/**
 * Proving a domain with a DNS TXT record: certificates and emails then name the organisation by it
 * instead of the display name, which anyone could type.
 */
function Domain() {
  const state = useLoad(() => ok(api.GET("/v1/tenant/domain")), []);
  const [domain, setDomain] = useState("");
  const [removing, setRemoving] = useState(false);
  const done = (next: TenantDomain, message: string) => {
    state.set(next);
    announce(message);
  };
  const claim = useAction(async () => done(await ok(api.POST("/v1/tenant/domain/claim", { body: { domain: asciiDomain(domain) } })), "Publish the TXT record shown, then check it"));
  const check = useAction(async () => {
    const next = await ok(api.POST("/v1/tenant/domain/check"));
    setDomain("");
    done(next, `${next.verified_domain?.domain ?? "The domain"} is verified`);
  });
  const remove = useAction(async () => {
    done(await ok(api.DELETE("/v1/tenant/domain")), "The domain is no longer used");
    setRemoving(false);
  });
  const current = state.data;
  const pending = current?.claim;
  return (
    <Section title="Verified domain" id="domain">
      <p class="hint">
        Certificates and emails name your organisation by a domain it proved it controls; without one they show the display name, marked as declared by you, since anyone can type any
        name. Prove a domain by publishing a DNS TXT record; the service looks at it again every 6 hours and stops using the domain once the record is gone.
      </p>
      <LoadState of={state} failed="The domain could not be loaded" loading="Loading the domain…" />
      {current?.verified_domain ? (
        <div class="rows">
          <p>
            <strong>{current.verified_domain.domain}</strong> is verified <span class="meta">since {formatDateTime(current.verified_domain.verified_at)}, record last seen {formatDateTime(current.verified_domain.confirmed_at)}</span>
          </p>
          <button type="button" class="button danger-link small" onClick={() => setRemoving(true)}>
            Stop using {current.verified_domain.domain}
          </button>
        </div>
      ) : null}
      {current ? (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void claim.run();
          }}
        >
          <Field label="Domain to prove" hint="e.g. acme-insurance.com" error={claim.error?.fields.domain}>
            {(c) => <input {...c} required maxLength={254} autoComplete="off" value={domain} onInput={(e) => setDomain(e.currentTarget.value)} />}
          </Field>
          <button type="submit" class="button primary" disabled={claim.busy}>
            {claim.busy ? "Preparing…" : "Get the TXT record"}
          </button>
        </form>
      ) : null}
      {claim.error && Object.keys(claim.error.fields).length === 0 ? <ErrorNotice error={claim.error} /> : null}
      {pending ? (
        <div class="stack" aria-label={`TXT record for ${pending.domain}`} role="group">
          <p>
            To prove <strong>{pending.domain}</strong>, publish this record at its DNS provider (until {formatDateTime(pending.expires_at)}), then check it.
          </p>
          <dl class="facts">
            <div class="fact">
              <dt>Name</dt>
              <dd>
                <code>{pending.record.name}</code> <CopyButton text={pending.record.name} label="Copy the name" />
              </dd>
            </div>
            <div class="fact">
              <dt>Type</dt>
              <dd>
                <code>{pending.record.type}</code>
              </dd>
            </div>
            <div class="fact">
              <dt>Value</dt>
              <dd>
                <code class="digest">{pending.record.value}</code> <CopyButton text={pending.record.value} label="Copy the value" />
              </dd>
            </div>
          </dl>
          <div>
            <button type="button" class="button primary" disabled={check.busy} onClick={() => void check.run()}>
              {check.busy ? "Checking…" : "Check the record"}
            </button>
          </div>
          {check.error ? (
            <Notice tone={check.error.status === 409 ? "warning" : "error"}>{check.error.message}</Notice>
          ) : null}
        </div>
      ) : null}
      <ConfirmDialog
        open={removing}
        title={`Stop using ${current?.verified_domain?.domain ?? "the domain"}?`}
        body={<p>Certificates signed from now on show the display name again, marked as declared by you. Certificates already issued keep what they say.</p>}
        confirm="Stop using the domain"
        busy={remove.busy}
        error={remove.error}
        onConfirm={() => void remove.run()}
        onClose={() => {
          setRemoving(false);
          remove.clearError();
        }}
      />
    </Section>
  );
}

function Phones() {
  const phones = useLoad(() => ok(api.GET("/v1/phones")), []);
  const [phone, setPhone] = useState("");
  const [label, setLabel] = useState("");
  const [removing, setRemoving] = useState<Phone | undefined>(undefined);
  const register = useAction(async () => {
    await ok(api.POST("/v1/phones", { body: { phone: phone.trim(), ...(label.trim() ? { label: label.trim() } : {}) } }));
    setPhone("");
    setLabel("");
    announce("Phone registered");
    await phones.reload();
  });
  const remove = useAction(async (p: Phone) => {
    await ok(api.DELETE("/v1/phones/{id}", { params: { path: { id: p.id } } }));
    setRemoving(undefined);
    announce(`${p.phone} removed`);
    await phones.reload();
  });
  const items = phones.data?.items ?? [];
  return (
    <Section title="Phones for the messaging bot" id="phones">
      <p class="hint">The bot sends sign-in codes only to these numbers; removing one voids its codes at once.</p>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void register.run();
        }}
      >
        <Field label="Phone number" hint="International format, e.g. +447700900123." error={register.error?.fields.phone}>
          {(c) => <input {...c} type="tel" required autoComplete="off" value={phone} onInput={(e) => setPhone(e.currentTarget.value)} />}
        </Field>
        <Field label="Label" hint="Optional, e.g. Field team lead." error={register.error?.fields.label}>
          {(c) => <input {...c} maxLength={100} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />}
        </Field>
        <button type="submit" class="button primary" disabled={register.busy}>
          {register.busy ? "Registering…" : "Register phone"}
        </button>
      </form>
      {register.error && Object.keys(register.error.fields).length === 0 ? <ErrorNotice error={register.error} /> : null}
      <LoadState of={phones} failed="Phones could not be loaded" loading="Loading phones…" empty={items.length === 0 && "No phones registered."} />
      {items.length > 0 ? (
        <ul class="rows">
          {items.map((p) => (
            <li key={p.id}>
              <span>
                <strong class="mono">{p.phone}</strong> {p.label ? <span>{p.label}</span> : null}
                <span class="meta">registered {formatDateTime(p.created_at)}</span>
              </span>
              <button type="button" class="button danger-link small" onClick={() => setRemoving(p)}>
                Remove <span class="visually-hidden">{p.phone}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <ConfirmDialog
        open={removing !== undefined}
        title={`Remove ${removing?.phone ?? ""}?`}
        body={<p>The bot stops issuing sign-in codes for it, and codes already sent stop working. The person keeps their account.</p>}
        confirm="Remove the phone"
        busy={remove.busy}
        error={remove.error}
        onConfirm={() => removing && void remove.run(removing)}
        onClose={() => {
          setRemoving(undefined);
          remove.clearError();
        }}
      />
    </Section>
  );
}

function SignOutEverywhere() {
  const [confirming, setConfirming] = useState(false);
  const run = useAction(async () => {
    await ok(api.POST("/v1/auth/logout-everywhere"));
    leaveForSignIn();
  });
  return (
    <Section title="Sign out everywhere" id="sign-out-everywhere">
      <p>For a lost laptop or a leaked session: every member of this organisation is signed out of it on every device, you included (their other organisations are not touched).</p>
      <button type="button" class="button danger" onClick={() => setConfirming(true)}>
        Sign everyone out
      </button>
      <ConfirmDialog
        open={confirming}
        title="Sign every member out, everywhere?"
        body={<p>Everyone will need to sign in again. API keys keep working.</p>}
        confirm="Sign everyone out"
        busy={run.busy}
        error={run.error}
        onConfirm={() => void run.run()}
        onClose={() => setConfirming(false)}
      />
    </Section>
  );
}
