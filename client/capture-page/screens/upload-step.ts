import type { ScreenContext } from "../context";
import { h, show } from "../dom";
import { fileMediaType } from "../file-type";
import type { UploadStepView } from "../flow";
import { typeName } from "../i18n";
import { errorList, filePicker, leaveButton, stepHeader } from "./common";

/** Checks picked files against the step before anything is sent; returns the acceptable ones and the problems. */
async function screenFiles(ctx: ScreenContext, step: UploadStepView, files: File[]): Promise<{ ok: Array<{ file: File; type: string }>; problems: string[] }> {
  const { i18n } = ctx;
  const types = i18n.list(step.accept.map(typeName));
  const room = step.max - ctx.count(step.key);
  const ok: Array<{ file: File; type: string }> = [];
  const problems: string[] = [];
  const dropped: string[] = [];
  for (const file of files) {
    const type = await fileMediaType(file);
    if (!(step.accept as string[]).includes(type)) problems.push(i18n.t("file_wrong_type", { name: file.name, types }));
    else if (file.size > step.max_size_bytes) {
      const [size, limit] = i18n.bytesPair(file.size, step.max_size_bytes);
      problems.push(i18n.t("file_too_large", { name: file.name, size, limit }));
    } else if (ok.length < room) ok.push({ file, type });
    else dropped.push(file.name);
  }
  if (dropped.length > 0) problems.push(i18n.t("file_too_many", { max: step.max, names: i18n.list(dropped.map((name) => `“${name}”`)) }));
  return { ok, problems };
}

/**
 * The names of the files this tab added to a step (sessionStorage: a reload keeps them, another
 * device never sees them). The service keeps no file names, so this is the person's only list of what
 * they chose. Storage refused: the list is just not kept.
 */
function addedHere(verificationId: string, stepKey: string) {
  const key = `files-added:${verificationId}:${stepKey}`;
  const read = (): string[] => {
    try {
      const names: unknown = JSON.parse(sessionStorage.getItem(key) ?? "[]");
      return Array.isArray(names) ? names.filter((n): n is string => typeof n === "string") : [];
    } catch {
      return [];
    }
  };
  return {
    read,
    add: (name: string): void => {
      try {
        sessionStorage.setItem(key, JSON.stringify([...read(), name]));
      } catch {
        // Not kept.
      }
    },
  };
}

/** Image files from the device, limited to the step's `accept` and `max_size_bytes`. */
export function uploadStep(ctx: ScreenContext, step: UploadStepView, problems: string[] = []): void {
  const { i18n } = ctx;
  const n = ctx.count(step.key);
  const room = step.max - n;
  const added = addedHere(ctx.view().id, step.key);
  const names = added.read();
  ctx.progress.stepReached("capturing", ctx.index);
  show(
    ctx.root,
    ...stepHeader(ctx, step.description || i18n.t("upload_heading")),
    h("p", { class: "hint" }, i18n.t("upload_hint", { types: i18n.list(step.accept.map(typeName)), size: i18n.bytes(step.max_size_bytes) })),
    h("p", { class: "counter" }, i18n.t("files_counter", { n, max: step.max })),
    names.length > 0 ? h("p", { class: "hint" }, i18n.t("files_added_here")) : null,
    names.length > 0 ? h("ul", { class: "file-list" }, ...names.map((name) => h("li", {}, name))) : null,
    errorList(problems),
    // Full (come back to with the browser's Back): nothing more to choose, only the way on.
    room <= 0
      ? null
      : h(
          "div",
          { class: "actions" },
          filePicker(i18n.t("choose_file"), { accept: step.accept.join(","), multiple: room > 1 }, async (files) => {
            const { ok, problems: found } = await screenFiles(ctx, step, files);
            for (const { file, type } of ok) {
              await ctx.addCapture(step.key, file, type, file.lastModified || Date.now());
              added.add(file.name);
            }
            if (found.length === 0 && ctx.count(step.key) >= step.max) return ctx.next();
            const now = ctx.view().steps[ctx.index];
            uploadStep(ctx, now?.type === "upload" ? now : step, found);
          }),
        ),
    leaveButton(ctx, step, room <= 0),
  );
}
