/** A tiny element builder: the page has a dozen screens, not enough to earn a framework. */
type Child = Node | string | false | null | undefined;
type Props = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value as EventListener);
    else if (name === "class") el.className = String(value);
    else if (name in el && !name.includes("-")) (el as unknown as Record<string, unknown>)[name] = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** A heading that takes focus when its screen appears, so screen readers announce the change. */
export function heading(text: string): HTMLHeadingElement {
  return h("h1", { tabIndex: -1 }, text);
}

/** Replaces the screen's content and moves focus to its heading (or the first control). */
export function show(root: HTMLElement, ...children: Child[]): void {
  root.replaceChildren();
  append(root, ...children);
  const target = root.querySelector<HTMLElement>("h1, button, input");
  target?.focus({ preventScroll: false });
}

/** Resolves once the browser has rendered what is on the page now (the next frame, then a task). */
export function nextPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/**
 * `text` between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, for a name placed in a sentence
 * as plain text: whatever bidi controls it holds stay inside (UAX #9: the isolate's end closes them),
 * as `<bdi>` does for an element.
 */
export function isolated(text: string): string {
  return `\u2068${text}\u2069`;
}
