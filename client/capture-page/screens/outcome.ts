import { h, heading, show } from "../dom";
import type { I18n } from "../i18n";

/** A screen that ends the flow (or pauses it): a heading, a sentence, maybe one action. */
export function outcome(root: HTMLElement, title: string, body: string, action?: { label: string; run: () => void }, tone = ""): void {
  show(
    root,
    h("div", { class: `outcome ${tone}` }, heading(title), h("p", null, body)),
    action ? h("button", { type: "button", class: "button primary", onclick: action.run }, action.label) : null,
  );
}

export const expiredScreen = (root: HTMLElement, i18n: I18n) => outcome(root, i18n.t("expired_heading"), i18n.t("expired_body"), undefined, "muted");
/** The sender redacted the verification: its request is withdrawn, not merely out of time. */
export const withdrawnScreen = (root: HTMLElement, i18n: I18n) => outcome(root, i18n.t("withdrawn_heading"), i18n.t("withdrawn_body"), undefined, "muted");
export const completedScreen = (root: HTMLElement, i18n: I18n) => outcome(root, i18n.t("completed_heading"), i18n.t("completed_body"), undefined, "done");
export const notFoundScreen = (root: HTMLElement, i18n: I18n) => outcome(root, i18n.t("not_found_heading"), i18n.t("not_found_body"), undefined, "muted");
export const successScreen = (root: HTMLElement, i18n: I18n) => outcome(root, i18n.t("success_heading"), i18n.t("success_body"), undefined, "done");
export const errorScreen = (root: HTMLElement, i18n: I18n) =>
  outcome(root, i18n.t("error_heading"), i18n.t("error_body"), { label: i18n.t("reload"), run: () => location.reload() }, "muted");
/** Submitted with no photo or file (every step optional, all skipped): received, and nothing to check. */
export const noEvidenceScreen = (root: HTMLElement, i18n: I18n) => outcome(root, i18n.t("no_evidence_heading"), i18n.t("no_evidence_body"), undefined, "done");
/** The server would not take submit and this page sees nothing missing: the way back through the steps. */
export const notSentScreen = (root: HTMLElement, i18n: I18n, review: () => void) =>
  outcome(root, i18n.t("not_sent_heading"), i18n.t("not_sent_body"), { label: i18n.t("review_steps"), run: review }, "muted");
/** The first load was refused with "too many requests": the page waits out its Retry-After and asks again. */
export const busyScreen = (root: HTMLElement, i18n: I18n) =>
  show(root, h("div", { class: "outcome", role: "status" }, heading(i18n.t("busy_heading")), h("div", { class: "spinner", "aria-hidden": "true" }), h("p", null, i18n.t("busy_body"))));
/** Sending stopped after repeated "too many requests": the end user says when to try again. */
export const stalledScreen = (root: HTMLElement, i18n: I18n, retry: () => void) =>
  outcome(root, i18n.t("stalled_heading"), i18n.t("stalled_body"), { label: i18n.t("try_again"), run: retry }, "muted");
export const finishingScreen = (root: HTMLElement, i18n: I18n) =>
  show(root, h("div", { class: "outcome" }, heading(i18n.t("finishing_heading")), h("div", { class: "spinner", "aria-hidden": "true" }), h("p", null, i18n.t("finishing_body"))));
