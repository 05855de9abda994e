import { h, heading, isolated, show } from "../dom";
import { asPicked, type StepView, type VerifyView } from "../flow";
import type { I18n } from "../i18n";

function amount(i18n: I18n, base: "landing_item_photos" | "landing_item_files", min: number, max: number): string {
  if (min === max || (min === 0 && max === 1)) return i18n.plural(base, max);
  // An optional step of several: "up to 3 photos", not "3 photos (optional)", which reads as all or none.
  if (min === 0) return i18n.t(`${base}_upto`, { max });
  return i18n.t(`${base}_range`, { min, max });
}

function item(i18n: I18n, view: VerifyView, step: StepView): HTMLElement {
  const what =
    step.type === "text"
      ? i18n.t("landing_item_answer")
      : asPicked(step, view)
        ? amount(i18n, "landing_item_files", step.min, step.max)
        : amount(i18n, "landing_item_photos", step.min, step.max);
  const optional = step.type === "text" ? !step.required : step.min === 0;
  return h(
    "li",
    null,
    h("strong", null, what),
    // The tenant's words are isolated: a bidi control in them cannot reorder the page's own ("optional").
    step.description ? " — " : null,
    step.description ? h("bdi", null, step.description) : null,
    optional ? ` ${i18n.t("landing_item_optional")}` : null,
  );
}

/** Names who asks and what will be asked, before any permission prompt. */
export function landingScreen(root: HTMLElement, i18n: I18n, view: VerifyView, resuming: boolean, start: () => void): void {
  // Only image steps open the camera (and attach a location); the words say what this link asks.
  const camera = view.steps.some((s) => s.type === "image" && !asPicked(s, view));
  const files = view.steps.some((s) => s.type !== "text" && asPicked(s, view));
  // "A photo is needed" when one photo (or file) is all the evidence asked for, not "a few".
  const evidence = view.steps.filter((s) => s.type !== "text");
  const single = evidence.length === 1 && evidence[0]!.max === 1;
  show(
    root,
    view.tenant.display_name ? h("p", { class: "eyebrow" }, i18n.t("requested_by", { tenant: isolated(view.tenant.display_name) })) : null,
    heading(i18n.t(camera ? (single ? "landing_heading_one" : "landing_heading") : files ? (single ? "landing_heading_files_one" : "landing_heading_files") : "landing_heading_answers")),
    h("p", null, i18n.t("landing_intro")),
    h("ul", { class: "checklist" }, ...view.steps.map((s) => item(i18n, view, s))),
    h("p", { class: "fine" }, i18n.t(camera ? "landing_privacy" : "landing_privacy_no_camera")),
    h("button", { type: "button", class: "button primary", onclick: start }, resuming ? i18n.t("resume") : i18n.t("start")),
  );
}
