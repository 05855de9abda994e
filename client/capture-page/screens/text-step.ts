import { answerProblem, type AnswerProblem } from "../../../src/model/verification/answers";
import type { ScreenContext } from "../context";
import { h, show } from "../dom";
import type { TextStepView } from "../flow";
import type { I18n } from "../i18n";
import { stepHeader } from "./common";

function problemText(i18n: I18n, problem: AnswerProblem): string {
  return i18n.t(`answer_${problem.code}`, "limit" in problem ? { limit: problem.limit } : {});
}

function hints(i18n: I18n, step: TextStepView): string {
  const { min_length, max_length, format } = step.validation;
  const parts = [
    !step.required ? i18n.t("text_hint_optional") : null,
    format === "numeric_id" ? i18n.t("text_hint_numeric") : format === "alphanumeric_id" ? i18n.t("text_hint_alphanumeric") : null,
    min_length ? i18n.t("text_hint_length", { min: min_length, max: max_length }) : i18n.t("text_hint_max", { max: max_length }),
  ];
  return parts.filter(Boolean).join(" · ");
}

/**
 * What the person is typing, kept for this tab only (sessionStorage): a reload, or a camera app that
 * made the browser drop the page, gives the half-typed answer back. Storage may be refused (a
 * private window's quota): the draft is then just not kept.
 */
function draftStore(verificationId: string, stepKey: string) {
  const key = `answer-draft:${verificationId}:${stepKey}`;
  return {
    read: (): string | null => {
      try {
        return sessionStorage.getItem(key);
      } catch {
        return null;
      }
    },
    write: (value: string): void => {
      try {
        if (value === "") sessionStorage.removeItem(key);
        else sessionStorage.setItem(key, value);
      } catch {
        // Not kept.
      }
    },
  };
}

/** A form field checked on the page with the server's own rules (the same module validates there). */
export function textStep(ctx: ScreenContext, step: TextStepView): void {
  const { i18n } = ctx;
  const { format, max_length } = step.validation;
  const already = step.answered || ctx.pending().answers.has(step.key);
  ctx.progress.stepReached("ready", ctx.index);
  // By position: a step key may hold spaces, which would split aria-describedby's list of ids.
  const id = `answer-${ctx.index}`;
  const long = format === "free_text" && max_length > 120;
  // No `maxlength`: it would cut a pasted answer to fit without a word, and the cut text would be
  // sent as what the person answered; `answerProblem` refuses it with the limit instead.
  const attrs = {
    id,
    name: step.key,
    required: step.required && !already,
    autocomplete: "off",
    "aria-describedby": `${id}-hint ${id}-error`,
    ...(format === "numeric_id" ? { inputMode: "numeric" } : {}),
    ...(format === "alphanumeric_id" ? { autocapitalize: "characters", spellcheck: false } : {}),
  };
  const input = long ? h("textarea", { ...attrs, rows: 4 }) : h("input", { ...attrs, type: "text" });
  const draft = draftStore(ctx.view().id, step.key);
  if (!already) input.value = draft.read() ?? "";
  input.addEventListener("input", () => draft.write(input.value));
  const error = h("p", { id: `${id}-error`, class: "field-error", role: "alert" });
  const fail = (message: string) => {
    error.textContent = message;
    input.setAttribute("aria-invalid", "true");
    input.focus();
  };
  const form = h(
    "form",
    {
      novalidate: true,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        // Spaces around an id (a phone keyboard's trailing space) are not part of it; a blank
        // optional answer is a skipped one.
        const value = format === "free_text" ? input.value : input.value.trim();
        if (value.trim() === "" && (already || !step.required)) return ctx.next();
        const problem = answerProblem(step, value);
        if (problem) return fail(problemText(i18n, problem));
        await ctx.addAnswer(step.key, value);
        draft.write("");
        ctx.next();
      },
    },
    h("label", { for: id, class: "label" }, step.description ? h("bdi", null, step.description) : i18n.t("text_label")),
    input,
    h("p", { id: `${id}-hint`, class: "hint" }, hints(i18n, step)),
    already ? h("p", { class: "hint" }, i18n.t("text_already_answered")) : null,
    error,
    h("button", { type: "submit", class: "button primary" }, ctx.isLast() ? i18n.t("finish") : i18n.t("next_step")),
  );
  show(ctx.root, ...stepHeader(ctx, i18n.t("text_heading")), form);
}
