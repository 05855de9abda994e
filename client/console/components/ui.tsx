import type { ComponentChildren } from "preact";
import { useEffect, useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ApiError } from "../api";
import type { Loaded } from "../lib/hooks";
import { hasNavigated } from "../router";

/** One polite live region for the whole app: short confirmations ("Copied", "Saved"). */
export function announce(text: string): void {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  window.setTimeout(() => (region.textContent = text), 50);
}

/**
 * Focus to where an action's result shows, once the render it caused is done: the control that was
 * used is often gone or disabled by then, which would leave a keyboard user at the top of the page.
 */
export function focusSoon(target: { current: HTMLElement | null }): void {
  window.setTimeout(() => target.current?.focus(), 0);
}

/**
 * The screen's heading. After an in-app navigation it takes focus, so a screen reader announces the
 * new screen and Tab continues from it; on a first load focus stays at the top (skip link first).
 */
/** `focusKey` names the screen when `title` is not a string (the heading is focused when it changes). */
export function PageHeader(props: { title: ComponentChildren; focusKey?: string; subtitle?: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // In the commit that shows the heading, not a frame later: until then focus sits on <body> (the
  // link that was pressed is gone), and a key pressed in between would start from the top.
  useLayoutEffect(() => {
    if (hasNavigated()) heading.current?.focus({ preventScroll: true });
  }, [props.focusKey ?? props.title]);
  return (
    <header class="page-header">
      <div>
        <h1 ref={heading} tabIndex={-1} id="page-title">
          {props.title}
        </h1>
        {props.subtitle ? <p class="subtitle">{props.subtitle}</p> : null}
      </div>
      {props.actions ? <div class="actions">{props.actions}</div> : null}
    </header>
  );
}

export function Section(props: { title: string; id?: string; actions?: ComponentChildren; children: ComponentChildren; class?: string }) {
  const generated = useId();
  const id = props.id ?? generated;
  return (
    <section class={`card ${props.class ?? ""}`} aria-labelledby={`${id}-title`}>
      <div class="card-header">
        <h2 id={`${id}-title`}>{props.title}</h2>
        {props.actions ? <div class="actions">{props.actions}</div> : null}
      </div>
      {props.children}
    </section>
  );
}

export function Notice(props: { tone?: "info" | "error" | "success" | "warning"; children: ComponentChildren }) {
  const tone = props.tone ?? "info";
  return (
    <div class={`notice notice-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {props.children}
    </div>
  );
}

export function ErrorNotice(props: { error: ApiError | undefined; what?: string }) {
  if (!props.error) return null;
  return (
    <Notice tone="error">
      {props.what ? <strong>{props.what}: </strong> : null}
      {props.error.message}
    </Notice>
  );
}

/** Work in progress, announced: loading a list, waiting for an analysis, erasing evidence. */
export function Progress(props: { label: string; value?: number; max?: number }) {
  return (
    <div class="progress" role="status">
      {props.value !== undefined ? (
        <progress value={props.value} max={props.max ?? 100} aria-label={props.label} />
      ) : (
        <span class="spinner" aria-hidden="true" />
      )}
      <span>{props.label}</span>
    </div>
  );
}

export function Badge(props: { tone: "neutral" | "good" | "warn" | "bad" | "info"; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge badge-${props.tone}`} title={props.title}>
      {props.children}
    </span>
  );
}

type FieldControl = { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean };

/** A labelled control with its hint and error; the control gets the ids it needs through `children`. */
export function Field(props: { label: string; hint?: ComponentChildren; error?: string; class?: string; children: (control: FieldControl) => ComponentChildren }) {
  const id = useId();
  const describedBy = [props.hint ? `${id}-hint` : "", props.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={`field ${props.class ?? ""}`}>
      <label for={id}>{props.label}</label>
      {props.children({ id, ...(describedBy ? { "aria-describedby": describedBy } : {}), ...(props.error ? { "aria-invalid": true } : {}) })}
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

export function CopyButton(props: { text: string; label: string; class?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
    } catch {
      // Clipboard refused (permissions, insecure context): the value stays selectable on screen.
    }
    setCopied(true);
    announce("Copied to the clipboard");
    window.setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" class={`button secondary small ${props.class ?? ""}`} onClick={copy}>
      {copied ? "Copied" : props.label}
    </button>
  );
}

/**
 * A modal dialog on the native <dialog> (focus is kept inside and returns to the opener, Escape
 * closes). `open` drives it; `onClose` hears every way of closing.
 */
export function Dialog(props: { open: boolean; title: string; onClose: () => void; children: ComponentChildren; class?: string; describedBy?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) {
      opener.current = document.activeElement as HTMLElement | null;
      dialog.showModal();
    }
    if (!props.open && dialog.open) {
      dialog.close();
      // The content may already be gone (it renders only while open): give focus back ourselves.
      const back = opener.current;
      if (back?.isConnected && (document.activeElement === null || document.activeElement === document.body)) back.focus();
    }
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      class={`dialog ${props.class ?? ""}`}
      aria-labelledby={titleId}
      aria-describedby={props.describedBy}
      onClose={props.onClose}
      onCancel={(e: Event) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      {props.open ? (
        <>
          <h2 id={titleId}>{props.title}</h2>
          {props.children}
        </>
      ) : null}
    </dialog>
  );
}

/** Asks before an operation that cannot be undone; the confirm button is the dangerous one. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  body: ComponentChildren;
  confirm: string;
  tone?: "danger" | "primary";
  busy?: boolean;
  error?: ApiError | undefined;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const bodyId = useId();
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onClose} describedBy={bodyId}>
      <div id={bodyId}>{props.body}</div>
      <ErrorNotice error={props.error} />
      <div class="dialog-actions">
        <button type="button" class="button secondary" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" class={`button ${props.tone ?? "danger"}`} disabled={props.busy} onClick={props.onConfirm}>
          {props.busy ? "Working…" : props.confirm}
        </button>
      </div>
    </Dialog>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

/**
 * What a loaded list shows before (or instead of) its rows: why it failed, the first load's progress
 * (a reload keeps the rows on screen), and `empty` once it loaded with nothing in it.
 */
export function LoadState(props: { of: Pick<Loaded<unknown>, "data" | "error" | "loading">; loading: string; failed?: string; empty?: ComponentChildren | false }) {
  const { data, error, loading } = props.of;
  return (
    <>
      <ErrorNotice error={error} what={props.failed} />
      {loading && !data ? <Progress label={props.loading} /> : null}
      {data && props.empty ? <Empty>{props.empty}</Empty> : null}
    </>
  );
}

/** `fields` of an error answer under a prefix (`steps.0.` → `key`), for a nested form. */
export function fieldsUnder(error: ApiError | undefined, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(error?.fields ?? {})) if (path.startsWith(prefix)) out[path.slice(prefix.length)] = message;
  return out;
}
