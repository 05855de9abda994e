import { h, heading } from "../dom";
import { canLeave, countOf, type StepView } from "../flow";
import type { ScreenContext } from "../context";

/** "Step 2 of 4" and the step's title. */
export function stepHeader(ctx: ScreenContext, title: string): HTMLElement[] {
  const total = ctx.view().steps.length;
  const counter = h("p", { class: "eyebrow" }, ctx.i18n.t("step_counter", { current: ctx.index + 1, total }));
  return total > 1 ? [counter, heading(title)] : [heading(title)];
}

/** Continue / Skip / Finish, offered once the step's minimum is met. */
export function leaveButton(ctx: ScreenContext, step: StepView, primary = false): HTMLButtonElement | null {
  const pending = ctx.pending();
  if (!canLeave(step, pending)) return null;
  const empty = step.type === "text" ? !step.answered && !pending.answers.has(step.key) : countOf(step, pending) === 0;
  const label = empty ? ctx.i18n.t("skip_step") : ctx.isLast() ? ctx.i18n.t("finish") : ctx.i18n.t("next_step");
  return h("button", { type: "button", class: primary ? "button primary" : "button secondary", onclick: () => ctx.next() }, label);
}

let inputs = 0;

/** A file input presented as a button (the label is the tap target; the input stays accessible). */
export function filePicker(label: string, attrs: Record<string, unknown>, onFiles: (files: File[]) => void, primary = true): HTMLElement {
  inputs += 1;
  const id = `file-${inputs}`;
  const input = h("input", {
    type: "file",
    id,
    class: "visually-hidden",
    ...attrs,
    onchange: () => {
      const files = Array.from(input.files ?? []);
      input.value = "";
      if (files.length > 0) onFiles(files);
    },
  });
  return h("div", { class: "picker" }, input, h("label", { for: id, class: primary ? "button primary" : "button secondary" }, label));
}

export function errorList(messages: string[]): HTMLElement | null {
  if (messages.length === 0) return null;
  // The alert role on a wrapper: on the list itself it would take away the list's meaning (axe `listitem`).
  return h("div", { role: "alert" }, h("ul", { class: "errors" }, ...messages.map((m) => h("li", null, m))));
}
