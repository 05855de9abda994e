import { render } from "preact";
import { App } from "./app";
import { interceptLinks } from "./router";
import "./styles.css";

const root = document.getElementById("app")!;
root.textContent = ""; // the shell's "Loading…" line
interceptLinks();
render(<App />, root);
